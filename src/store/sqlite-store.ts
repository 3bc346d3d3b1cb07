import Database from 'better-sqlite3';
import { TopicrawlError } from '../errors.js';
import { Checkpointer } from './checkpointer.js';
import { DDL, MIGRATIONS, REVISIT_LM_COLUMNS, SCHEMA_VERSION, UrlState } from './schema.js';
import type { MetricsRow, PageOutcome, ResponseRecord, Store, StoreCounters } from './store.js';

/** Opens (or creates) a crawl file. `readonly` opens an existing file for stats/export. */
export function openDatabase(path: string, opts: { readonly?: boolean } = {}): Database.Database {
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
    if (!opts.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      // checkpoint (and sync) once the WAL holds 64 MB, not every 4 MB: a page's outcome updates a
      // row anywhere in the file, so commits are many scattered pages (measured: +30% dequeues/s)
      db.pragma('wal_autocheckpoint = 16384');
    }
    db.pragma('busy_timeout = 5000');
    db.pragma('cache_size = -65536');
    db.pragma('temp_store = MEMORY');
    if (!opts.readonly) {
      db.exec(DDL);
      db.exec(MIGRATIONS);
      const cols = db.prepare('PRAGMA table_info(urls)').all() as { name: string }[];
      if (!cols.some((c) => c.name === 'fp')) db.exec('ALTER TABLE urls ADD COLUMN fp INTEGER');
      // crawl files written before revisits kept Last-Modified evidence
      const rcols = new Set((db.prepare('PRAGMA table_info(revisits)').all() as { name: string }[]).map((c) => c.name));
      for (const [name, decl] of REVISIT_LM_COLUMNS) if (!rcols.has(name)) db.exec(`ALTER TABLE revisits ADD COLUMN ${name} ${decl}`);
    }
    const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
    if (!row && !opts.readonly) {
      db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?)").run(String(SCHEMA_VERSION));
    } else if (!row || Number(row.value) !== SCHEMA_VERSION) {
      throw new TopicrawlError('E_STORE', `${path}: not a topicrawl crawl file of schema version ${SCHEMA_VERSION}`, { path });
    }
  } catch (err) {
    if (err instanceof TopicrawlError) throw err;
    throw new TopicrawlError('E_STORE', `${path}: cannot open crawl file: ${(err as Error).message}`, { path }, { cause: err });
  }
  return db;
}

/** {@link Store} on better-sqlite3 (synchronous, so a page's writes are one short transaction). */
export class SqliteStore implements Store {
  readonly db: Database.Database;
  private readonly st;
  private fetchSeq: number;
  private batchOpen = false;
  private batchPages = 0;
  private batchTimer: NodeJS.Timeout | null = null;
  private deferred: unknown = null;
  private readonly commitEveryMs: number;
  private readonly commitEveryPages: number;
  private readonly checkpointer: Checkpointer | null = null;

  /**
   * Group commit: page transactions are savepoints inside one SQLite transaction that is committed
   * every `commitEveryMs` (default 50) or `commitEveryPages` (default 64), whichever comes first, and
   * on close. Each page stays all-or-nothing; a crash loses at most the last group, whose pages are
   * simply fetched again on resume. `commitEveryMs: 0` commits every page.
   */
  constructor(
    readonly path: string,
    opts: { readonly?: boolean; commitEveryMs?: number; commitEveryPages?: number; backgroundCheckpoint?: boolean } = {},
  ) {
    this.commitEveryMs = opts.commitEveryMs ?? 50;
    this.commitEveryPages = opts.commitEveryPages ?? 64;
    this.db = openDatabase(path, opts);
    const db = this.db;
    // a crawl's file: WAL checkpoints off the crawl's thread (checkpointer.ts)
    if (opts.backgroundCheckpoint && !opts.readonly && !db.memory) this.checkpointer = new Checkpointer(db);
    this.st = {
      getMeta: db.prepare('SELECT value FROM meta WHERE key = ?'),
      setMeta: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
      outcome: db.prepare(
        `UPDATE urls SET state = @state, status = @status, error = @error, relevance = @relevance, relevant = @relevant,
           content_hash = @contentHash, fetched_at = @fetchedAt, fetch_seq = @fetchSeq, fetch_priority = @fetchPriority,
           note = COALESCE(@note, note) WHERE id = @urlId`,
      ),
      response: db.prepare(
        `INSERT OR REPLACE INTO responses (url_id, status, headers, content_type, charset, title, body, body_codec, body_bytes, wire_bytes, fetched_at, elapsed_ms)
         VALUES (@urlId, @status, @headers, @contentType, @charset, @title, @body, @codec, @bodyBytes, @wireBytes, @fetchedAt, @elapsedMs)`,
      ),
      anchors: db.prepare("SELECT anchor FROM links WHERE to_id = ? AND anchor <> '' LIMIT 50"),
      byContent: db.prepare('SELECT id FROM urls WHERE content_hash = ? AND state = 2 LIMIT 1'),
      bumpHost: db.prepare('UPDATE hosts SET fetched = fetched + ?, errors = errors + ? WHERE id = ?'),
      hostRobots: db.prepare('UPDATE hosts SET robots_status = ?, crawl_delay_ms = ?, robots_at = ? WHERE id = ?'),
      metrics: db.prepare(
        `INSERT INTO metrics (at, fetched, queued, relevant, errors, bytes, known, pruned, pages_per_sec, discovery_rate)
         VALUES (@at, @fetched, @queued, @relevant, @errors, @bytes, @known, @pruned, @pagesPerSec, @discoveryRate)`,
      ),
      counters: db.prepare(
        `SELECT
           SUM(state IN (2, 3)) AS fetched, SUM(relevant = 1) AS relevant, SUM(state IN (2, 3) AND error IS NOT NULL) AS errors,
           COUNT(*) AS known, SUM(state = 0) AS queued, SUM(state = 4) AS pruned
         FROM urls`,
      ),
      bytes: db.prepare('SELECT COALESCE(SUM(body_bytes), 0) AS b FROM responses'),
      maxSeq: db.prepare('SELECT MAX(fetch_seq) AS m FROM urls'),
    };
    this.fetchSeq = ((this.st.maxSeq.get() as { m: number | null }).m ?? 0) + 1;
  }

  transaction<T>(fn: () => T): T {
    if (this.deferred) throw this.deferred;
    try {
      if (this.commitEveryMs > 0 && !this.batchOpen) {
        this.db.exec('BEGIN');
        this.batchOpen = true;
        this.batchTimer = setTimeout(() => {
          try {
            this.commit();
          } catch (err) {
            this.deferred = err; // reported by the next write
          }
        }, this.commitEveryMs);
        this.batchTimer.unref();
      }
      const result = this.db.transaction(fn)();
      if (this.batchOpen && ++this.batchPages >= this.commitEveryPages) this.commit();
      else if (!this.batchOpen) this.checkpointer?.afterCommit();
      return result;
    } catch (err) {
      if (err instanceof TopicrawlError) throw err;
      if (err instanceof Database.SqliteError) {
        throw new TopicrawlError('E_STORE', `${this.path}: ${err.message}`, { path: this.path, sqlite: err.code }, { cause: err });
      }
      throw err;
    }
  }

  /** Commits the current group of page transactions, if any. */
  commit(): void {
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.batchTimer = null;
    if (!this.batchOpen) return;
    this.batchOpen = false;
    this.batchPages = 0;
    try {
      this.db.exec('COMMIT');
      this.checkpointer?.afterCommit();
    } catch (err) {
      throw new TopicrawlError('E_STORE', `${this.path}: commit failed: ${(err as Error).message}`, { path: this.path }, { cause: err });
    }
  }

  getMeta(key: string): string | undefined {
    return (this.st.getMeta.get(key) as { value: string } | undefined)?.value;
  }

  setMeta(key: string, value: string): void {
    this.st.setMeta.run(key, value);
  }

  recordOutcome(o: PageOutcome): void {
    this.st.outcome.run({
      urlId: o.urlId, state: o.state, status: o.status, error: o.error, relevance: o.relevance,
      relevant: o.relevant === null ? null : o.relevant ? 1 : 0, contentHash: o.contentHash, fetchedAt: o.fetchedAt,
      fetchSeq: o.fetchSeq, fetchPriority: o.fetchPriority, note: o.note ?? null,
    });
  }

  recordResponse(r: ResponseRecord): void {
    this.st.response.run({
      urlId: r.urlId, status: r.status, headers: JSON.stringify(r.headers), contentType: r.contentType, charset: r.charset,
      title: r.title, body: r.stored ? r.stored.data : null, codec: r.stored?.codec ?? 'identity', bodyBytes: r.bodyBytes, wireBytes: r.wireBytes, fetchedAt: r.fetchedAt,
      elapsedMs: Math.round(r.elapsedMs),
    });
  }

  recordLinks(fromId: number, links: { toId: number; anchor: string }[]): void {
    // multi-row inserts: one statement per 100 links instead of one per link
    for (let i = 0; i < links.length; i += 100) {
      const chunk = links.slice(i, i + 100);
      const params: (number | string)[] = [];
      for (const l of chunk) params.push(fromId, l.toId, l.anchor.slice(0, 500));
      this.linkStatement(chunk.length).run(...params);
    }
  }

  private readonly linkStatements = new Map<number, Database.Statement>();
  private linkStatement(n: number): Database.Statement {
    let st = this.linkStatements.get(n);
    if (!st) {
      st = this.db.prepare(
        `INSERT INTO links (from_id, to_id, anchor) VALUES ${new Array(n).fill('(?, ?, ?)').join(', ')}
         ON CONFLICT(from_id, to_id) DO UPDATE SET anchor = CASE WHEN excluded.anchor = '' OR instr(anchor, excluded.anchor) > 0
           THEN anchor ELSE anchor || ' | ' || excluded.anchor END`,
      );
      this.linkStatements.set(n, st);
    }
    return st;
  }

  anchorsTo(urlId: number): string[] {
    return (this.st.anchors.all(urlId) as { anchor: string }[]).map((r) => r.anchor);
  }

  findByContentHash(hash: Buffer): number | undefined {
    return (this.st.byContent.get(hash) as { id: number } | undefined)?.id;
  }

  bumpHost(hostId: number, fetched: number, errors: number): void {
    this.st.bumpHost.run(fetched, errors, hostId);
  }

  setHostRobots(hostId: number, status: string, crawlDelayMs: number | null): void {
    this.st.hostRobots.run(status, crawlDelayMs, Date.now(), hostId);
  }

  recordMetrics(m: MetricsRow): void {
    this.st.metrics.run({ ...m });
  }

  counters(): StoreCounters {
    const c = this.st.counters.get() as Record<string, number | null>;
    const b = this.st.bytes.get() as { b: number };
    return {
      fetched: c.fetched ?? 0, relevant: c.relevant ?? 0, errors: c.errors ?? 0, bytes: b.b, known: c.known ?? 0,
      queued: c.queued ?? 0, pruned: c.pruned ?? 0,
    };
  }

  nextFetchSeq(): number {
    return this.fetchSeq++;
  }

  close(): void {
    if (!this.db.open) return;
    this.commit();
    this.checkpointer?.stop();
    this.db.close();
  }
}

export { UrlState };
export { compressBody, decompressBody } from './body-codec.js';
