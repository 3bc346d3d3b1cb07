import type Database from 'better-sqlite3';
import { powerOfTwoAtLeast } from '../frontier/frontier-statements.js';

/** Responses per INSERT (12 values a row). */
export const RESPONSE_CHUNK = 64;
/** Links per INSERT (3 values a row): about 5 pages of the bench corpus. */
export const LINK_CHUNK = 512;

/** A `responses` row in column order (see {@link PageRowBatch}). */
export type ResponseRow = [
  urlId: number, status: number, headers: string, contentType: string | null, charset: string | null, title: string | null,
  body: Uint8Array | null, codec: string, bodyBytes: number, wireBytes: number, fetchedAt: number, elapsedMs: number,
];

const RESPONSE_COLUMNS = 'url_id, status, headers, content_type, charset, title, body, body_codec, body_bytes, wire_bytes, fetched_at, elapsed_ms';

/**
 * The links INSERT that keeps no statement journal: a multi-row statement that may abort (an
 * upsert's DO UPDATE may) makes SQLite copy every page it touches into a statement journal first,
 * and a chunk's links land all over the `links_to` index. Rows that meet a row already there (or
 * an earlier row of the chunk, or the chunk's padding) are skipped, and the statement's `changes`
 * tell whether any real one was.
 */
export function linkInsertNewSql(rows: number): string {
  return `INSERT OR IGNORE INTO links (from_id, to_id, anchor) VALUES ${new Array(rows).fill('(?, ?, ?)').join(', ')}`;
}

/** The links INSERT: a repeated (from, to) joins its anchor to the row's, once. */
export function linkInsertSql(rows: number): string {
  return `INSERT INTO links (from_id, to_id, anchor) VALUES ${new Array(rows).fill('(?, ?, ?)').join(', ')}
    ON CONFLICT(from_id, to_id) DO UPDATE SET anchor = CASE WHEN excluded.anchor = '' OR instr(anchor, excluded.anchor) > 0
      THEN anchor ELSE anchor || ' | ' || excluded.anchor END`;
}

/**
 * The `responses` and `links` rows of a group of page records, written in multi-row INSERTs of up
 * to {@link RESPONSE_CHUNK} responses and {@link LINK_CHUNK} links instead of one or two statements
 * a page (issue 16: SQLite calls per page). The rows belong to the group: they are written inside
 * its transaction, at the latest just before its COMMIT, and dropped with it if SQLite rolls it
 * back. Until written, they are not in the file: a reader of those tables on the same connection
 * calls {@link flush} first (the store does so for its own reads; see SqliteStore). Rows go out in
 * the order they came, so the file ends as if each page had written its own (a statement applies
 * its rows in order; a chunk is padded to a power of two with its last row, which writes nothing new).
 */
export class PageRowBatch {
  private responses: ResponseRow[] = [];
  private links: (number | string)[] = [];
  /** Targets of the pending links that carry an anchor text (what a hand-out reads of them). */
  private readonly anchored = new Set<number>();
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  addResponse(row: ResponseRow): void {
    if (this.responses.push(row) >= RESPONSE_CHUNK) this.flushResponses();
  }

  addLinks(fromId: number, links: readonly { toId: number; anchor: string }[]): void {
    for (const l of links) {
      const anchor = l.anchor.slice(0, 500);
      this.links.push(fromId, l.toId, anchor);
      if (anchor !== '') this.anchored.add(l.toId);
    }
    if (this.links.length >= LINK_CHUNK * 3) this.flushLinks();
  }

  /** Whether links to `urlId` with an anchor text are waiting (its anchors in the file are not all of them). */
  anchorsPending(urlId: number): boolean {
    return this.anchored.has(urlId);
  }

  /** Writes every pending row. */
  flush(): void {
    this.flushResponses();
    this.flushLinks();
  }

  /** Forgets the pending rows (their group was rolled back). */
  drop(): void {
    this.responses = [];
    this.links = [];
    this.anchored.clear();
  }

  private flushResponses(): void {
    const rows = this.responses;
    if (rows.length === 0) return;
    this.responses = [];
    for (let at = 0; at < rows.length; at += RESPONSE_CHUNK) {
      const n = Math.min(RESPONSE_CHUNK, rows.length - at);
      const k = powerOfTwoAtLeast(n);
      const params: unknown[] = [];
      for (let i = 0; i < k; i++) params.push(...rows[at + Math.min(i, n - 1)]);
      this.statement('r', k, () => `INSERT OR REPLACE INTO responses (${RESPONSE_COLUMNS}) VALUES ${new Array(k).fill(`(${new Array(12).fill('?').join(',')})`).join(',')}`).run(params);
    }
  }

  /** Writes the pending links (not the responses). */
  flushLinks(): void {
    const flat = this.links;
    if (flat.length === 0) return;
    this.links = [];
    this.anchored.clear();
    const total = flat.length / 3;
    for (let at = 0; at < total; at += LINK_CHUNK) {
      const n = Math.min(LINK_CHUNK, total - at);
      const k = powerOfTwoAtLeast(n);
      const params = flat.slice(at * 3, (at + n) * 3);
      const last = params.slice(-3);
      for (let i = n; i < k; i++) params.push(...last);
      // the links of new pages are new rows: one INSERT OR IGNORE, which keeps no statement journal
      // (`npx tsx scripts/bench-statement-journal.ts`: 800,000 links in the file, 512 new ones a
      // statement, 60 statements a transaction: 2.0–2.2 against 3.4–4.0 µs a link). When a
      // real row was skipped (a page recorded again, a target twice in a page), the upsert runs
      // over the chunk as well: on the rows just inserted it changes nothing (an anchor is in
      // itself), so the rows end as the upsert alone leaves them.
      const inserted = this.statement('i', k, () => linkInsertNewSql(k)).run(params).changes;
      if (inserted < n) this.statement('l', k, () => linkInsertSql(k)).run(params);
    }
  }

  private statement(kind: string, rows: number, sql: () => string): Database.Statement {
    const key = `${kind}${rows}`;
    let st = this.statements.get(key);
    if (!st) this.statements.set(key, (st = this.db.prepare(sql())));
    return st;
  }
}
