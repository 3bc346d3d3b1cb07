import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { Checkpointer } from './checkpointer.js';
import { CrawlLock } from './crawl-lock.js';
import { assertCrawlFileOrNothing, CRAWL_FILE_SIDES, openDatabase, storeError } from './open-database.js';
import { crawlTotals } from './crawl-report.js';
import { SegmentRows } from './segment-rows.js';
import { ContentHashFilter } from './content-hash-filter.js';
import { HostBumps } from './host-bumps.js';
import { PageRowBatch } from './page-row-batch.js';
import { COMMIT_EVERY_MS, COMMIT_EVERY_PAGES, GroupCommit } from './group-commit.js';
import { ROBOTS_UNREACHABLE_KEY, UrlState } from './schema.js';
import type { HostRef, MetricsRow, PageOutcome, PageRecord, ResponseRecord, SyncStore, StoreCounters } from './store.js';

export { COMMIT_EVERY_MS, COMMIT_EVERY_PAGES } from './group-commit.js';

/** {@link Store} on better-sqlite3 (synchronous, so a page's writes are one short transaction). */
export class SqliteStore implements SyncStore {
  readonly db: Database.Database;
  private readonly st;
  private fetchSeq: number;
  private readonly group: GroupCommit;
  private readonly checkpointer: Checkpointer | null = null;
  private readonly lock: CrawlLock | null = null;
  private readonly hostBumps: HostBumps;
  private readonly contentHashes: ContentHashFilter;
  /** The responses and links to write; with `batchPageRows`, a page's wait for the chunk or the commit (PageRowBatch). */
  private readonly rows: PageRowBatch;
  private readonly batchPageRows: boolean;
  /** Set while a page's record runs (pageUnit): only its rows may wait in {@link rows}. */
  private inPage = false;
  /** Savepoint units running ({@link transaction}): rows written in one go out with it (it may be rolled back alone). */
  private units = 0;

  /**
   * Group commit (group-commit.ts): page records run inside one SQLite transaction that is
   * committed every `commitEveryMs` (default {@link COMMIT_EVERY_MS}) or `commitEveryPages`
   * ({@link COMMIT_EVERY_PAGES}), whichever comes first, and on close. Each page stays
   * all-or-nothing; a crash loses at most the last group, whose pages are simply fetched again on
   * resume. `commitEveryMs: 0` commits every page.
   *
   * A writable store on a file holds the file's lock (crawl-lock.ts) until {@link SqliteStore.close}:
   * a second writer, in this process or another, is refused with E_IN_USE. `fresh` starts the file
   * over: once the lock is held and the file is known to be a crawl file (or nothing), the file and
   * its side files are deleted.
   *
   * `batchPageRows` (with group commit): the responses and links of the page records of a group go
   * out in multi-row INSERTs (page-row-batch.ts), at the latest before the group's COMMIT. The
   * store's own reads of those tables ({@link anchorsTo}, {@link counters}, relinks) write them
   * first; any other reader on this connection during a crawl calls {@link flushPageRows} first
   * (relevance feedback does), and the frontier calls {@link flushAnchorsTo} before it reads a URL's
   * anchors. Off by default: for the crawl loop, whose readers are those.
   */
  constructor(
    readonly path: string,
    opts: { readonly?: boolean; commitEveryMs?: number; commitEveryPages?: number; backgroundCheckpoint?: boolean; fresh?: boolean; batchPageRows?: boolean } = {},
  ) {
    const onDisk = path !== ':memory:' && path !== '';
    if (!opts.readonly && onDisk) {
      assertCrawlFileOrNothing(path); // refuse another application's file before making a lock file beside it
      this.lock = CrawlLock.acquire(path);
    }
    try {
      if (opts.fresh && onDisk && !opts.readonly) {
        assertCrawlFileOrNothing(path);
        for (const f of [path, ...CRAWL_FILE_SIDES.map((x) => path + x)]) rmSync(f, { force: true, recursive: true });
      }
      this.db = openDatabase(path, opts);
    } catch (err) {
      this.lock?.release();
      throw err;
    }
    const db = this.db;
    // a crawl's file: WAL checkpoints off the crawl's thread (checkpointer.ts)
    if (opts.backgroundCheckpoint && !opts.readonly && !db.memory) this.checkpointer = new Checkpointer(db);
    this.st = {
      getMeta: db.prepare('SELECT value FROM meta WHERE key = ?'),
      setMeta: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
      outcome: db.prepare(
        `UPDATE urls SET state = @state, status = @status, error = @error, relevance = @relevance, relevant = @relevant,
           content_hash = @contentHash, fetched_at = @fetchedAt, fetch_seq = @fetchSeq, fetch_priority = @fetchPriority,
           note = COALESCE(@note, note), simhash = @simhash, lang = @lang, dup_of = @dupOf, dup_distance = @dupDistance WHERE id = @urlId`,
      ),
      anchors: db.prepare("SELECT anchor FROM links WHERE to_id = ? AND anchor <> '' LIMIT 50"),
      byContent: db.prepare('SELECT id FROM urls WHERE content_hash = ? AND state = 2 LIMIT 1'),
      fingerprints: db.prepare('SELECT id, simhash FROM urls WHERE simhash IS NOT NULL AND fetch_seq IS NOT NULL ORDER BY fetch_seq'),
      bumpHost: db.prepare('UPDATE hosts SET fetched = fetched + ?, errors = errors + ? WHERE id = ?'),
      hostRobots: db.prepare('UPDATE hosts SET robots_status = ?, crawl_delay_ms = ?, robots_at = ? WHERE id = ?'),
      metrics: db.prepare(
        `INSERT INTO metrics (at, fetched, queued, relevant, errors, bytes, known, pruned, pages_per_sec, discovery_rate)
         VALUES (@at, @fetched, @queued, @relevant, @errors, @bytes, @known, @pruned, @pagesPerSec, @discoveryRate)`,
      ),
      maxSeq: db.prepare('SELECT MAX(fetch_seq) AS m FROM urls'),
    };
    this.fetchSeq = ((this.st.maxSeq.get() as { m: number | null }).m ?? 0) + 1;
    this.hostBumps = new HostBumps(db);
    this.contentHashes = new ContentHashFilter(db);
    this.rows = new PageRowBatch(db);
    this.batchPageRows = opts.batchPageRows === true;
    this.group = new GroupCommit(db, path, opts.commitEveryMs ?? COMMIT_EVERY_MS, opts.commitEveryPages ?? COMMIT_EVERY_PAGES, {
      beforeCommit: () => {
        this.rows.flush();
        this.hostBumps.flush();
      },
      lost: () => {
        this.rows.drop();
        this.hostBumps.drop();
      },
      unitFailed: () => this.segment?.forget(), // its rows may have been rolled back with the unit or its group
      committed: () => this.checkpointer?.afterCommit(),
    });
  }

  /**
   * Runs `fn` as one all-or-nothing unit (a savepoint inside the group's transaction). `page`: it
   * is a page's record, counted for the group's size (`commitEveryPages`); the frontier's own writes
   * between pages join the group without counting.
   */
  transaction<T>(fn: () => T, page = true): T {
    // the group's waiting page rows go out first, so that a unit rolled back alone cannot take them along
    this.flushPageRows();
    this.units++;
    try {
      return this.group.unit(fn, page);
    } finally {
      this.units--;
    }
  }

  /**
   * Runs `fn` inside the group's transaction without a savepoint of its own (two SQLite calls
   * less): for writes that need not be all or nothing, such as the frontier's (its memory changes
   * with them, so a rollback of the unit alone would not make it whole anyway; a failure is a
   * broken store). Without group commit, it is {@link transaction} (one commit, not one per statement).
   */
  joinGroup<T>(fn: () => T): T {
    return this.group.join(fn);
  }

  /**
   * Runs a page's record (`fn`) in the group's transaction without a savepoint of its own: two
   * SQLite calls less a page (SAVEPOINT and RELEASE were 2 of the crawl's 11.5 calls a page). It
   * stays all or nothing at the group's scale: if `fn` fails, the whole group is rolled back and the
   * failure (E_STORE) is fatal to the crawl, as a crash at that point would be, the group's pages
   * being fetched again on resume. Without group commit, {@link transaction}.
   */
  pageUnit<T>(fn: () => T): T {
    return this.group.page(() => {
      this.inPage = true;
      try {
        return fn();
      } finally {
        this.inPage = false;
      }
    });
  }

  /**
   * Writes the page rows waiting in the group (batchPageRows), so that a read of `responses` or
   * `links` sees them. A failure (a full disk) loses the group and is fatal: E_STORE, here and for
   * every later write (GroupCommit.groupWrite).
   */
  flushPageRows(): void {
    this.group.groupWrite(() => this.rows.flush());
  }

  /** Writes the waiting links if some of them go to `urlId` with an anchor text (called before the frontier reads its anchors). */
  flushAnchorsTo(urlId: number): void {
    if (this.rows.anchorsPending(urlId)) this.group.groupWrite(() => this.rows.flushLinks());
  }

  /** Whether a page row written now may wait in the batch: a page's record, in a group and in no savepoint, with batchPageRows. */
  private get rowsWait(): boolean {
    return this.batchPageRows && this.inPage && this.units === 0 && this.group.isOpen;
  }

  /** Commits the current group of page transactions, if any. */
  commit(): void {
    this.group.commit();
  }

  /**
   * Resolves once every record made so far is committed (at once when no group is open): a caller
   * that must not say a page is done before it is on disk (a shared crawl's settle) waits for this.
   * Rejects with E_STORE if that group's commit failed. `mark`: only the records made up to the
   * {@link commitMark} that returned it.
   */
  whenCommitted(mark?: number): Promise<void> {
    return this.group.whenCommitted(mark);
  }

  /** The commit group of the records made so far (see GroupCommit.mark), for {@link whenCommitted}. */
  commitMark(): number {
    return this.group.mark;
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
      fetchSeq: o.fetchSeq, fetchPriority: o.fetchPriority, note: o.note ?? null, simhash: o.simhash ?? null, lang: o.lang ?? null,
      dupOf: o.duplicateOf?.id ?? null, dupDistance: o.duplicateOf?.distance ?? null,
    });
  }

  recordResponse(r: ResponseRecord): void {
    this.rows.addResponse([
      r.urlId, r.status, JSON.stringify(r.headers), r.contentType, r.charset, r.title, r.stored ? r.stored.data : null, r.stored?.codec ?? 'identity',
      r.bodyBytes, r.wireBytes, r.fetchedAt, Math.round(r.elapsedMs),
    ]);
    if (!this.rowsWait) this.rows.flush();
  }

  recordLinks(fromId: number, links: { toId: number; anchor: string }[]): void {
    this.rows.addLinks(fromId, links);
    if (!this.rowsWait) this.rows.flush();
  }

  /** A segment's host row under the shared frontier's id (a segment has no frontier of its own). */
  ensureHost(host: HostRef): void {
    (this.segment ??= new SegmentRows(this.db)).ensureHost(host);
  }

  /** A segment's rows for the URLs of a record: the page, and its link targets as placeholders (state QUEUED). */
  ensureUrls(rec: PageRecord): void {
    (this.segment ??= new SegmentRows(this.db)).ensureUrls(rec);
  }

  /** See SegmentRows.relink. */
  relinkTargets(fromId: number, moves: readonly { from: number; to: number }[]): void {
    this.flushPageRows();
    (this.segment ??= new SegmentRows(this.db)).relink(fromId, moves);
  }

  private segment: SegmentRows | null = null;

  anchorsTo(urlId: number): string[] {
    this.flushAnchorsTo(urlId);
    return (this.st.anchors.all(urlId) as { anchor: string }[]).map((r) => r.anchor);
  }

  findByContentHash(hash: Buffer): number | undefined {
    if (!this.contentHashes.mayHold(hash)) return undefined;
    return (this.st.byContent.get(hash) as { id: number } | undefined)?.id;
  }

  fingerprints(): { id: number; simhash: Uint8Array }[] {
    return this.st.fingerprints.all() as { id: number; simhash: Uint8Array }[];
  }

  bumpHost(hostId: number, fetched: number, errors: number): void {
    // in a group: counted in memory, written with the group (see HostBumps)
    if (this.group.isOpen) this.hostBumps.add(hostId, fetched, errors);
    else this.st.bumpHost.run(fetched, errors, hostId);
  }

  recordRobotsUnreachable(hostId: number): void {
    this.transaction(() => {
      this.st.bumpHost.run(0, 1, hostId);
      this.setMeta(ROBOTS_UNREACHABLE_KEY, String(Number(this.getMeta(ROBOTS_UNREACHABLE_KEY) ?? 0) + 1));
    });
  }

  setHostRobots(hostId: number, status: string, crawlDelayMs: number | null): void {
    this.st.hostRobots.run(status, crawlDelayMs, Date.now(), hostId);
  }

  recordMetrics(m: MetricsRow): void {
    this.st.metrics.run({ ...m });
  }

  /** The file's totals, as `stats` and the end-of-crawl summary read them (crawlTotals: one definition of each). */
  counters(): StoreCounters {
    this.flushPageRows();
    const t = crawlTotals(this.db);
    return { fetched: t.fetched, relevant: t.relevant, errors: t.errors, bytes: t.bytes, known: t.known, queued: t.queued, pruned: t.pruned };
  }


  nextFetchSeq(): number {
    return this.fetchSeq++;
  }

  /**
   * Commits, stops the checkpoint thread and waits until its connection is closed, checkpoints the
   * whole WAL into the file and empties it (a copy of the file alone then holds every page), closes
   * the connection and releases the lock. Everything is released even when a step fails (a full
   * disk); the first failure is then thrown as E_STORE, as is a commit failure not yet reported.
   */
  close(): void {
    if (!this.db.open) return;
    let failure: unknown = this.group.deferred;
    this.group.deferred = null;
    const step = (fn: () => void) => {
      try {
        fn();
      } catch (err) {
        failure ??= err;
      }
    };
    step(() => this.commit());
    step(() => {
      if (this.checkpointer && !this.checkpointer.stop()) throw new Error(this.checkpointer.error ?? 'the checkpoint thread did not stop');
    });
    step(() => {
      if (!this.db.readonly && !this.db.memory && this.db.open) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        const [r] = this.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
        if (r?.busy) throw new Error('the final checkpoint found the file busy; the WAL is kept (nothing is lost)');
      }
    });
    step(() => this.db.close());
    step(() => this.lock?.release());
    if (failure) throw storeError(this.path, failure, 'closing the crawl file: ');
  }
}

export { UrlState };
export { assertCrawlFileOrNothing, CRAWL_FILE_SIDES, openDatabase, storeError } from './open-database.js';
export { compressBody, decompressBody } from './body-codec.js';
