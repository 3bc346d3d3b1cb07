import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/** WAL bytes past which the crawl's own thread checkpoints (TRUNCATE) between transactions. */
export const WAL_LIMIT_BYTES = 256 * 1024 ** 2;

/**
 * Checkpoints a crawl file's WAL from a background thread (checkpoint-worker.js) instead of the
 * crawl's: with SQLite's automatic checkpoints, every 16,384 pages written the committing thread
 * stops to copy them back into the file and sync it, and at millions of URLs (a page's outcome
 * dirties a page anywhere in a large file) that was a large share of the time per URL.
 *
 * The connection's automatic checkpoints are turned off; the thread runs PASSIVE checkpoints, which
 * never block the writer. A writer that never pauses can keep the WAL from restarting, so after
 * each commit the owner calls {@link Checkpointer.afterCommit}, which checks the WAL's size and,
 * past {@link WAL_LIMIT_BYTES}, runs a TRUNCATE checkpoint itself (by then the thread has copied
 * most pages, so it is short, and the file is emptied). Crash safety is SQLite's WAL's, unchanged.
 */
export class Checkpointer {
  private worker: Worker | null = null;
  private stopped = false;
  /** Set to 1 by the thread once its connection is closed (see checkpoint-worker.js). */
  private readonly closed = new Int32Array(new SharedArrayBuffer(4));
  /** The first error the thread reported, if any (the fallback keeps working). */
  error: string | null = null;

  /** Resolves when the thread has ended (after {@link Checkpointer.stop}; at once there if it never started). */
  readonly exited: Promise<void>;
  private readonly walLimit: number;
  private readonly workerData: { path: string; everyMs: number; closed: Int32Array; closeDelayMs: number };
  private ended!: () => void;

  /**
   * `everyMs`: time between two background checkpoints (default 100); `walLimitBytes`: see
   * {@link WAL_LIMIT_BYTES}; `closeDelayMs` (tests only): the thread waits this long before closing
   * its connection when stopped, as a thread slowed down by load would.
   */
  constructor(private readonly db: Database.Database, opts: { everyMs?: number; walLimitBytes?: number; closeDelayMs?: number } = {}) {
    this.walLimit = opts.walLimitBytes ?? WAL_LIMIT_BYTES;
    this.workerData = { path: db.name, everyMs: opts.everyMs ?? 100, closed: this.closed, closeDelayMs: opts.closeDelayMs ?? 0 };
    this.exited = new Promise((resolve) => (this.ended = resolve));
    db.pragma('wal_autocheckpoint = 0');
  }

  /** Whether the thread was started (the first commit starts it: {@link start}). */
  get started(): boolean {
    return this.worker !== null;
  }

  /**
   * Starts the thread: on the first commit ({@link afterCommit}), not when the store opens, as
   * nothing is worth checkpointing before, and a thread started then (a new isolate loading
   * better-sqlite3) competed with the crawl's start on a 2-core machine. Idempotent.
   */
  start(): void {
    if (this.worker || this.stopped) return;
    const w = new Worker(new URL('../store/checkpoint-worker.js', import.meta.url), { workerData: this.workerData });
    this.worker = w;
    w.once('exit', () => this.ended());
    w.on('message', (m: { error?: string }) => {
      if (m.error && !this.error) this.error = m.error;
    });
    w.on('error', (err) => {
      if (!this.error) this.error = err.message;
    });
    // after the listeners: adding a 'message' listener refs the worker's port again, and a port
    // that stays referenced keeps the process alive when stop() is never reached
    w.unref();
  }

  /**
   * Call after each commit: one stat of the WAL; past the limit, a TRUNCATE checkpoint on this
   * thread (the background one has copied most of its pages by then), which also empties the file.
   */
  afterCommit(): void {
    if (this.stopped) return;
    this.start();
    let size = 0;
    try {
      size = statSync(`${this.db.name}-wal`).size;
    } catch {
      return;
    }
    if (size <= this.walLimit) return;
    const [r] = this.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    if (r?.busy) this.busyCheckpoints++;
  }

  /** TRUNCATE checkpoints that found the background thread busy (they are tried again after the next commit). */
  busyCheckpoints = 0;

  /**
   * Stops the thread and waits, synchronously and for at most `timeoutMs`, until its connection to
   * the file is closed; then restores automatic checkpoints on the owner's connection. Returns false
   * if the thread did not confirm in time (it is then terminated). After a true return nothing of
   * this checkpointer touches the file any more, so the owner may close, delete or replace it.
   */
  stop(timeoutMs = 15_000): boolean {
    if (this.stopped) return this.worker === null || Atomics.load(this.closed, 0) === 1;
    this.stopped = true;
    if (!this.worker) {
      // never started: nothing but the owner's connection ever touched the file
      this.ended();
      if (this.db.open) this.db.pragma('wal_autocheckpoint = 16384');
      return true;
    }
    this.worker.postMessage('stop');
    // the thread runs its own event loop: blocking this one does not keep it from answering
    const ok = Atomics.wait(this.closed, 0, 0, timeoutMs) !== 'timed-out';
    if (!ok) {
      if (!this.error) this.error = `checkpoint thread did not stop within ${timeoutMs} ms`;
      void this.worker.terminate();
    }
    if (this.db.open) this.db.pragma('wal_autocheckpoint = 16384');
    return ok;
  }
}
