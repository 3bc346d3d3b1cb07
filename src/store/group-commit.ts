import Database from 'better-sqlite3';
import { TopicrawlError } from '../errors.js';
import { storeError } from './open-database.js';

/**
 * The group's bounds by default (see {@link GroupCommit}): a group is committed after this many ms
 * or pages. A COMMIT writes every page the group dirtied to the WAL once, however many records
 * touched it, and the links' index (`links_to`, random in the target's id) and the page outcomes'
 * updates of `urls` dirty nearly every leaf of those two within a second once the file holds
 * thousands of pages: a longer group writes each leaf once for more pages. At 100,000 pages of a
 * 1,000-host corpus the COMMITs took 183 µs a page with 200 ms groups, 106 with 1 s groups
 * (2026-12-04), and 76 against 25 with 1 s and 3 s groups (`scripts/bench-crawl.ts --corpus …
 * --pages 100000`, 2026-12-05: SQLite 407 → 341 µs a page, the crawl's thread 0.92 → 0.84 ms of
 * CPU a page); at 20,000 pages 25–33 against 17–27 µs. The price: a hard kill loses up to 3 s of
 * recorded pages, fetched again on resume; a shared crawl confirms a page done in Redis up to 3 s
 * later (its host is freed at once; a worker's group is at most a quarter of its lease:
 * segmentCommitMs in crawl/shared-backend.ts). The page bound is above what 3 s hold at ~1,000 pages/s.
 */
export const COMMIT_EVERY_MS = 3000;
export const COMMIT_EVERY_PAGES = 4096;

/** What the store around a group does when the group commits or is lost. */
export interface GroupHooks {
  /** Inside the group's transaction, just before its COMMIT (writes gathered for the group). */
  beforeCommit(): void;
  /** The group's writes are gone (SQLite rolled it back, or its COMMIT failed). */
  lost(): void;
  /** A unit of work failed (its writes, or its group's, may have been rolled back). */
  unitFailed(): void;
  /** After a COMMIT (the group's, or a unit's own without group commit). */
  committed(): void;
}

/**
 * Group commit on one connection: units of work run inside one SQLite transaction that is committed
 * every `everyMs` or `everyPages` page units, whichever comes first, and on {@link commit}. A crash
 * loses at most the last group, whose pages are simply fetched again on resume. `everyMs: 0`: no
 * group, every unit is its own transaction. A failure of a SQLite statement comes out as E_STORE; a
 * COMMIT that fails on the timer is reported by the next unit and by {@link whenCommitted}.
 */
export class GroupCommit {
  private open = false;
  private pages = 0;
  private timer: NodeJS.Timeout | null = null;
  /** a failure of a timed COMMIT, not reported yet */
  deferred: unknown = null;
  /** Callers of whenCommitted() waiting for the open group's commit. */
  private waiters: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  /** One better-sqlite3 transaction function for every call (building one per call cost 17% of the frontier's drain). */
  private readonly savepoint: <T>(fn: () => T) => T;

  constructor(
    private readonly db: Database.Database,
    private readonly path: string,
    readonly everyMs: number,
    private readonly everyPages: number,
    private readonly hooks: GroupHooks,
  ) {
    const txn = db.transaction((fn: () => unknown) => fn());
    this.savepoint = <T>(fn: () => T) => txn(fn) as T;
  }

  /** The number of the open group, else of the last one (counted from 1 as they begin). */
  private groupNo = 0;
  /** The number of the last group whose writes were lost (rolled back), -1 for none. */
  private lostNo = -1;

  /**
   * The group that the writes made so far belong to (the open one, else the last): for
   * {@link whenCommitted}, to wait for those writes and not for the groups that follow.
   */
  get mark(): number {
    return this.groupNo;
  }

  private rolledBack(): TopicrawlError {
    return new TopicrawlError('E_STORE', `${this.path}: a group of records was rolled back`, { path: this.path });
  }

  private loseGroup(): void {
    this.lostNo = this.groupNo;
    this.hooks.lost();
  }

  /** Whether a group is open (its writes not committed yet). */
  get isOpen(): boolean {
    return this.open;
  }

  /** `fn` as one all-or-nothing unit: a savepoint inside the group (a transaction without one). */
  unit<T>(fn: () => T, page: boolean): T {
    return this.run(() => this.savepoint(fn), page);
  }

  /** `fn` inside the group without a savepoint of its own (without group commit, as {@link unit}). */
  join<T>(fn: () => T): T {
    return this.everyMs > 0 ? this.run(fn, false) : this.unit(fn, false);
  }

  /**
   * A page's record without a savepoint: if `fn` fails, the whole group is rolled back (and the
   * failure is the crawl's end, as a crash there would be). Without group commit, as {@link unit}.
   */
  page<T>(fn: () => T): T {
    if (this.everyMs <= 0) return this.unit(fn, true);
    return this.run(() => {
      try {
        return fn();
      } catch (err) {
        // (then handled as SQLite's own rollback of the group is, in run's catch)
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw err;
      }
    }, true);
  }

  /**
   * Writes that belong to the open group but run between its units (the store's batched page
   * rows, written when a reader needs them): a failure loses the whole group, as a failed page
   * record does, and every later write fails with it (E_STORE, fatal), since the group's pages
   * can no longer be recorded. Without an open group, `fn` runs as it is.
   */
  groupWrite(fn: () => void): void {
    if (this.deferred) throw this.deferred;
    if (!this.open) return fn();
    try {
      fn();
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.loseGroup();
      this.close();
      const e = storeError(this.path, err, 'a group of records was rolled back: ');
      this.deferred = e;
      this.endWaiters(e);
      throw e;
    }
  }

  private run<T>(fn: () => T, page: boolean): T {
    if (this.deferred) throw this.deferred;
    try {
      if (this.everyMs > 0 && !this.open) {
        this.db.exec('BEGIN');
        this.open = true;
        this.groupNo++;
        this.timer = setTimeout(() => {
          try {
            this.commit();
          } catch (err) {
            this.deferred = err; // reported by the next write
          }
        }, this.everyMs);
        this.timer.unref();
      }
      const result = fn();
      if (this.open && page && ++this.pages >= this.everyPages) this.commit();
      else if (!this.open) this.hooks.committed();
      return result;
    } catch (err) {
      this.hooks.unitFailed();
      if (this.open && !this.db.inTransaction) {
        // SQLite rolled the whole group back (a full disk, an I/O error): nothing left to commit
        this.loseGroup();
        this.close();
        this.endWaiters(storeError(this.path, err, 'a group of records was rolled back: '));
      }
      if (err instanceof TopicrawlError) throw err;
      if (err instanceof Database.SqliteError) {
        throw new TopicrawlError('E_STORE', `${this.path}: ${err.message}`, { path: this.path, sqlite: err.code }, { cause: err });
      }
      throw err;
    }
  }

  private close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.open = false;
    this.pages = 0;
  }

  /** Commits the open group, if any. */
  commit(): void {
    if (!this.open) return this.close();
    this.close();
    if (!this.db.inTransaction) {
      // rolled back by SQLite after a failure already reported
      this.loseGroup();
      this.endWaiters(this.rolledBack());
      return;
    }
    try {
      this.hooks.beforeCommit();
      this.db.exec('COMMIT');
    } catch (err) {
      const e = new TopicrawlError('E_STORE', `${this.path}: commit failed: ${(err as Error).message}`, { path: this.path }, { cause: err });
      this.endWaiters(e);
      throw e;
    }
    this.endWaiters(null);
    this.hooks.committed();
  }

  /**
   * Resolves once every unit run so far is committed (at once when no group is open). Rejects with
   * E_STORE if that group's commit failed. With `mark` (a {@link mark} read after some writes):
   * once the group of those writes is committed, not waiting for the open group when it is a later
   * one; rejects E_STORE if that group was lost.
   */
  whenCommitted(mark?: number): Promise<void> {
    if (this.deferred) return Promise.reject(this.deferred);
    if (mark !== undefined && mark === this.lostNo) {
      return Promise.reject(this.rolledBack());
    }
    if (!this.open || (mark !== undefined && mark < this.groupNo)) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private endWaiters(err: unknown): void {
    if (err) this.hooks.unitFailed(); // the group's rows are gone
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) {
      if (err) w.reject(err);
      else w.resolve();
    }
  }
}
