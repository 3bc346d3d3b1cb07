import type Database from 'better-sqlite3';
import type { PageAges } from '../revisit/revisit-policy.js';

/**
 * The revisit schedule in a crawl file (tables `revisits` and `checks`, see schema.ts). One row per
 * page in revisit scheduling (added when the page was first fetched OK) and one `checks` row for every
 * revisit, whatever came of it. Writes go through the caller's store transaction.
 *
 * Deleting a page's content: the page's `responses` row is DELETED (status, headers, title and body
 * go; a deleted page has nothing worth keeping), its `urls` row stays with its content hash cleared
 * (no page is a "duplicate" of it any more) and a note ("deleted on revisit …: HTTP 404"), and its
 * `revisits` row keeps its history with `deleted_at` set. Its status and state in `urls` are the
 * crawl's and are left alone.
 */

/** What a check found. */
export type CheckOutcome = 'changed' | 'unchanged' | 'not_modified' | 'failed' | 'deleted';

/** A page's row in `revisits`. */
export interface RevisitRow {
  urlId: number;
  cls: string;
  nextAt: number;
  checks: number;
  changes: number;
  firstCheckAt: number;
  lastCheckAt: number;
  etag: string | null;
  lastModified: string | null;
  textHash: string | null;
  failures: number;
  deletedAt: number | null;
  /** What Last-Modified told while it was believed; null once it contradicted a check. */
  ages: PageAges | null;
}

/** A page that is due, with what a revisit needs to fetch it. */
export interface DuePage extends RevisitRow {
  url: string;
  hostId: number;
  host: string;
}

/** A fetched page not yet in revisit scheduling: its stored response. */
export interface EnrolCandidate {
  urlId: number;
  url: string;
  fetchedAt: number;
  headers: Record<string, string>;
  contentType: string | null;
  body: Buffer | null;
  bodyCodec: string;
}

/** Revisit figures for `topicrawl stats`. */
export interface RevisitFigures {
  /** Pages in revisit scheduling, not deleted. */
  scheduled: number;
  /** Of those, due at `now`. */
  dueNow: number;
  checks: number;
  changed: number;
  unchanged: number;
  notModified: number;
  failed: number;
  /** Pages found deleted. */
  deleted: number;
  /** Changes per day over the last 7 days of checks (null: no span to divide by). */
  changesPerDay: number | null;
  /** Share of checks answered 304. */
  notModifiedShare: number;
  /** Bytes 304s saved (stored body sizes not transferred again). */
  bytesSaved: number;
  /** Bytes the checks transferred. */
  wireBytes: number;
}

type Raw = Record<string, unknown>;

function toRow(r: Raw): RevisitRow {
  return {
    urlId: r.url_id as number, cls: r.class as string, nextAt: r.next_at as number, checks: r.checks as number,
    changes: r.changes as number, firstCheckAt: r.first_check_at as number, lastCheckAt: r.last_check_at as number,
    etag: (r.etag as string | null) ?? null, lastModified: (r.last_modified as string | null) ?? null,
    textHash: (r.text_hash as string | null) ?? null, failures: r.failures as number, deletedAt: (r.deleted_at as number | null) ?? null,
    ages: r.lm_trusted ? { changes: r.lm_changes as number, ageMs: r.lm_age_ms as number, unchangedMs: r.lm_unchanged_ms as number } : null,
  };
}

const DAY_MS = 86_400_000;

export class RevisitStore {
  private readonly st;

  /** Hosts that may not be asked before a time after `now` (a delay or back-off a run left): host id → time (ms). */
  hostNextTimes(now: number): Map<number, number> {
    const rows = this.db.prepare('SELECT id, next_at FROM hosts WHERE next_at > ?').all(now) as { id: number; next_at: number }[];
    return new Map(rows.map((r) => [r.id, r.next_at]));
  }

  /** Keeps when each host may next be asked (a later time already stored stays). */
  saveHostNextTimes(times: Map<number, number>): void {
    const st = this.db.prepare('UPDATE hosts SET next_at = MAX(next_at, ?) WHERE id = ?');
    this.db.transaction(() => {
      for (const [id, at] of times) st.run(at, id);
    })();
  }

  /** `db` must be a crawl file opened by openDatabase (the tables exist). */
  constructor(readonly db: Database.Database) {
    this.st = {
      candidates: db.prepare(
        `SELECT u.id AS url_id, u.url, u.fetched_at, r.headers, r.content_type, r.body, r.body_codec, r.fetched_at AS r_at
           FROM responses r JOIN urls u ON u.id = r.url_id LEFT JOIN revisits v ON v.url_id = r.url_id
          WHERE v.url_id IS NULL AND r.status BETWEEN 200 AND 299 AND u.state = 2 AND r.url_id > ?
          ORDER BY r.url_id LIMIT ?`,
      ),
      enrol: db.prepare(
        `INSERT OR IGNORE INTO revisits (url_id, class, next_at, checks, changes, first_check_at, last_check_at, etag, last_modified, text_hash)
         VALUES (@urlId, @cls, @nextAt, 0, 0, @at, @at, @etag, @lastModified, @textHash)`,
      ),
      get: db.prepare('SELECT * FROM revisits WHERE url_id = ?'),
      duePerHost: db.prepare(
        `SELECT v.*, u.url, u.host_id, h.name AS host, MIN(v.next_at) AS min_next
           FROM revisits v JOIN urls u ON u.id = v.url_id JOIN hosts h ON h.id = u.host_id
          WHERE v.deleted_at IS NULL AND v.next_at <= ? GROUP BY u.host_id ORDER BY min_next, v.url_id`,
      ),
      nextDue: db.prepare('SELECT MIN(next_at) AS m FROM revisits WHERE deleted_at IS NULL'),
      update: db.prepare(
        `UPDATE revisits SET next_at = @nextAt, checks = @checks, changes = @changes, last_check_at = @lastCheckAt, etag = @etag,
           last_modified = @lastModified, text_hash = @textHash, failures = @failures, deleted_at = @deletedAt,
           lm_trusted = @lmTrusted, lm_changes = @lmChanges, lm_age_ms = @lmAgeMs, lm_unchanged_ms = @lmUnchangedMs WHERE url_id = @urlId`,
      ),
      check: db.prepare('INSERT INTO checks (url_id, at, status, outcome, wire_bytes, saved_bytes) VALUES (?, ?, ?, ?, ?, ?)'),
      storedBytes: db.prepare('SELECT body_bytes FROM responses WHERE url_id = ?'),
      deleteResponse: db.prepare('DELETE FROM responses WHERE url_id = ?'),
      noteDeleted: db.prepare('UPDATE urls SET content_hash = NULL, note = ? WHERE id = ?'),
      updateContent: db.prepare('UPDATE urls SET content_hash = ?, relevance = ?, relevant = ?, simhash = ?, lang = ? WHERE id = ?'),
      rows: db.prepare('SELECT * FROM revisits WHERE deleted_at IS NULL'),
      oneUrlPerHost: db.prepare('SELECT MIN(u.url) AS url FROM revisits v JOIN urls u ON u.id = v.url_id WHERE v.deleted_at IS NULL GROUP BY u.host_id'),
      postpone: db.prepare('UPDATE revisits SET next_at = ? WHERE url_id = ?'),
      linked: db.prepare('SELECT u.hash FROM links l JOIN urls u ON u.id = l.to_id WHERE l.from_id = ?'),
      page: db.prepare('SELECT depth, life, COALESCE(fetch_priority, priority) AS priority FROM urls WHERE id = ?'),
    };
  }

  /** Fetched HTML pages (2xx, state FETCHED) with no `revisits` row, in id order, after `afterId`. */
  candidates(afterId: number, limit: number): EnrolCandidate[] {
    return (this.st.candidates.all(afterId, limit) as Raw[]).map((r) => ({
      urlId: r.url_id as number, url: r.url as string, fetchedAt: (r.fetched_at as number | null) ?? (r.r_at as number),
      headers: JSON.parse(r.headers as string) as Record<string, string>, contentType: (r.content_type as string | null) ?? null,
      body: (r.body as Buffer | null) ?? null, bodyCodec: r.body_codec as string,
    }));
  }

  /** Puts a page into revisit scheduling (no-op if it is already). */
  enrol(e: { urlId: number; cls: string; nextAt: number; at: number; etag: string | null; lastModified: string | null; textHash: string | null }): void {
    this.st.enrol.run(e);
  }

  get(urlId: number): RevisitRow | undefined {
    const r = this.st.get.get(urlId) as Raw | undefined;
    return r ? toRow(r) : undefined;
  }

  /** Each host's most overdue page due at `at` (next_at ≤ at, not deleted), most overdue first. */
  duePerHost(at: number): DuePage[] {
    return (this.st.duePerHost.all(at) as Raw[]).map((r) => ({ ...toRow(r), url: r.url as string, hostId: r.host_id as number, host: r.host as string }));
  }

  /** The earliest next_at of a page not deleted, or null when none is scheduled. */
  nextDueAt(): number | null {
    return (this.st.nextDue.get() as { m: number | null }).m;
  }

  /** One URL of each host with pages in scheduling (not deleted). */
  oneUrlPerHost(): string[] {
    return (this.st.oneUrlPerHost.all() as { url: string }[]).map((r) => r.url);
  }

  /** Every page in scheduling (not deleted), for the budget allocation. */
  scheduled(): RevisitRow[] {
    return (this.st.rows.all() as Raw[]).map(toRow);
  }

  /** Writes a page's revisit state after a check and records the check. */
  recordCheck(row: RevisitRow, check: { at: number; status: number; outcome: CheckOutcome; wireBytes: number; savedBytes: number }): void {
    this.st.update.run({
      urlId: row.urlId, nextAt: Math.round(row.nextAt), checks: row.checks, changes: row.changes, lastCheckAt: row.lastCheckAt,
      etag: row.etag, lastModified: row.lastModified, textHash: row.textHash, failures: row.failures, deletedAt: row.deletedAt,
      lmTrusted: row.ages ? 1 : 0, lmChanges: row.ages?.changes ?? 0, lmAgeMs: row.ages?.ageMs ?? 0, lmUnchangedMs: row.ages?.unchangedMs ?? 0,
    });
    this.st.check.run(row.urlId, check.at, check.status, check.outcome, check.wireBytes, check.savedBytes);
  }

  /** Moves a page's next visit without a check (robots.txt disallows it now). */
  postpone(urlId: number, nextAt: number): void {
    this.st.postpone.run(Math.round(nextAt), urlId);
  }

  /** Hex URL hashes of the pages a page links to (its stored links). */
  linkedHashes(urlId: number): Set<string> {
    return new Set((this.st.linked.all(urlId) as { hash: Buffer }[]).map((r) => r.hash.toString('hex')));
  }

  /** What the strategy knows of a fetched page: depth, life, the priority it was fetched at. */
  pageInfo(urlId: number): { depth: number; life: number; priority: number } {
    return this.st.page.get(urlId) as { depth: number; life: number; priority: number };
  }

  /** Size of the stored body (what a 304 saved), 0 when none is stored. */
  storedBodyBytes(urlId: number): number {
    return (this.st.storedBytes.get(urlId) as { body_bytes: number } | undefined)?.body_bytes ?? 0;
  }

  /** Removes a deleted page's stored content (see the module comment) and notes why. */
  removeContent(urlId: number, note: string): void {
    this.st.deleteResponse.run(urlId);
    this.st.noteDeleted.run(note.slice(0, 500), urlId);
  }

  /**
   * After a changed page was stored again: the crawl's content hash, relevance, SimHash and language
   * of the new version (whether it duplicates another page stays what its first fetch found).
   */
  updateContent(urlId: number, contentHash: Buffer | null, relevance: number | null, relevant: boolean | null, simhash: Uint8Array | null = null, lang: string | null = null): void {
    this.st.updateContent.run(contentHash, relevance, relevant === null ? null : relevant ? 1 : 0, simhash, lang, urlId);
  }
}

/** True when the file has the revisit tables (an old file opened read-only may not). */
export function hasRevisitTables(db: Database.Database): boolean {
  return (db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('revisits', 'checks')").get() as { n: number }).n === 2;
}

/** Figures for `topicrawl stats`; null when the file has no revisit rows at all. */
export function revisitFigures(db: Database.Database, now: number): RevisitFigures | null {
  if (!hasRevisitTables(db)) return null;
  const v = db
    .prepare(
      `SELECT COUNT(*) AS n, SUM(deleted_at IS NULL) AS scheduled, SUM(deleted_at IS NULL AND next_at <= ?) AS due,
              SUM(deleted_at IS NOT NULL) AS deleted FROM revisits`,
    )
    .get(now) as Record<string, number | null>;
  if (!v.n) return null;
  const c = db
    .prepare(
      `SELECT COUNT(*) AS n, SUM(outcome = 'changed') AS changed, SUM(outcome = 'unchanged') AS unchanged,
              SUM(outcome = 'not_modified') AS nm, SUM(outcome = 'failed') AS failed,
              COALESCE(SUM(saved_bytes), 0) AS saved, COALESCE(SUM(wire_bytes), 0) AS wire, MIN(at) AS first, MAX(at) AS last
         FROM checks`,
    )
    .get() as Record<string, number | null>;
  let changesPerDay: number | null = null;
  if (c.last !== null && c.first !== null) {
    const from = Math.max(c.first, c.last - 7 * DAY_MS);
    // the window starts at the first check (or 7 days before the last); checks since then over its length
    const spanDays = (c.last - from) / DAY_MS;
    const n = (db.prepare("SELECT COUNT(*) AS n FROM checks WHERE outcome = 'changed' AND at >= ?").get(from) as { n: number }).n;
    if (spanDays > 0) changesPerDay = n / spanDays;
  }
  const checks = c.n ?? 0;
  return {
    scheduled: v.scheduled ?? 0, dueNow: v.due ?? 0, checks, changed: c.changed ?? 0, unchanged: c.unchanged ?? 0,
    notModified: c.nm ?? 0, failed: c.failed ?? 0, deleted: v.deleted ?? 0, changesPerDay,
    notModifiedShare: checks ? (c.nm ?? 0) / checks : 0, bytesSaved: c.saved ?? 0, wireBytes: c.wire ?? 0,
  };
}

/** One check as `explain` shows it. */
export interface CheckRecord {
  at: number;
  status: number;
  outcome: CheckOutcome;
  wireBytes: number;
  savedBytes: number;
}

/** A page's revisit state for `topicrawl explain`: its `revisits` row and its latest checks. */
export interface RevisitDetail extends RevisitRow {
  /** All checks recorded for the page. */
  totalChecks: number;
  /** The latest checks, newest first (at most the number asked for). */
  recent: CheckRecord[];
}

/** The revisit state of one URL; null when the file has no revisit tables or the URL is not in scheduling. */
export function revisitDetail(db: Database.Database, urlId: number, recent = 10): RevisitDetail | null {
  if (!hasRevisitTables(db)) return null;
  const r = db.prepare('SELECT * FROM revisits WHERE url_id = ?').get(urlId) as Raw | undefined;
  if (!r) return null;
  const totalChecks = (db.prepare('SELECT COUNT(*) AS n FROM checks WHERE url_id = ?').get(urlId) as { n: number }).n;
  const rows = db
    .prepare('SELECT at, status, outcome, wire_bytes, saved_bytes FROM checks WHERE url_id = ? ORDER BY at DESC, rowid DESC LIMIT ?')
    .all(urlId, Math.max(0, recent)) as Raw[];
  return {
    ...toRow(r), totalChecks,
    recent: rows.map((c) => ({
      at: c.at as number, status: c.status as number, outcome: c.outcome as CheckOutcome, wireBytes: c.wire_bytes as number, savedBytes: c.saved_bytes as number,
    })),
  };
}
