import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { TopicrawlError } from '../errors.js';

/** The lock file beside a crawl file. */
export const lockPathOf = (dbPath: string) => `${dbPath}-lock`;

/** What the holder of a lock wrote into it. */
interface Holder {
  pid: number;
  started: string;
}

const isBusy = (err: unknown) => err instanceof Database.SqliteError && /^SQLITE_(BUSY|LOCKED)/.test(err.code);

/**
 * One writer per crawl file: a lock that the operating system holds for the life of the process.
 *
 * The lock is a small SQLite file beside the crawl file, `<db>-lock`, on which the holder keeps a
 * write transaction open (SQLite's RESERVED lock, a POSIX record lock on the file). A second
 * process, or a second connection in the same process, cannot begin one and is refused at once,
 * naming the holder's process id that the file records. When the holder dies, even by `kill -9`,
 * the operating system drops its record lock, so nothing stale is left to clean up: the next
 * crawl takes the lock. The file is removed on {@link CrawlLock.release}; one whose path no longer
 * names the file we locked (removed by a releasing holder as we opened it) is not trusted, and we
 * try again.
 */
export class CrawlLock {
  private released = false;

  private constructor(readonly path: string, private readonly db: Database.Database) {}

  /** Takes the lock of a crawl file, or throws `E_IN_USE` naming the process that holds it. */
  static acquire(dbPath: string): CrawlLock {
    const path = lockPathOf(dbPath);
    for (let attempt = 0; ; attempt++) {
      const lock = CrawlLock.tryAcquire(path, dbPath);
      if (lock.stillNamed()) return lock;
      lock.db.close(); // we locked a file that was removed meanwhile: its path is another file now
      if (attempt >= 5) throw new TopicrawlError('E_STORE', `${dbPath}: cannot take the crawl file's lock ${path}`, { path: dbPath });
    }
  }

  private static tryAcquire(path: string, dbPath: string): CrawlLock {
    let db: Database.Database;
    try {
      db = new Database(path);
    } catch (err) {
      throw new TopicrawlError('E_STORE', `${dbPath}: cannot create the lock file ${path}: ${(err as Error).message}`, { path: dbPath }, { cause: err });
    }
    try {
      db.pragma('busy_timeout = 0');
      db.exec('BEGIN IMMEDIATE');
      db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, started TEXT NOT NULL)');
      db.exec('DELETE FROM holder');
      db.prepare('INSERT INTO holder (pid, started) VALUES (?, ?)').run(process.pid, new Date().toISOString());
      db.exec('COMMIT');
      // held from here until release() or the end of the process: readers may read the holder
      db.exec('BEGIN IMMEDIATE');
      return new CrawlLock(path, db);
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK');
      if (!isBusy(err)) {
        db.close();
        throw new TopicrawlError('E_STORE', `${dbPath}: cannot take the crawl file's lock ${path}: ${(err as Error).message}`, { path: dbPath }, { cause: err });
      }
      const holder = readHolder(db);
      db.close();
      const who = holder === null ? 'another process' : holder.pid === process.pid ? `this process (${holder.pid})` : `process ${holder.pid}`;
      const since = holder ? ` since ${holder.started}` : '';
      throw new TopicrawlError('E_IN_USE', `${dbPath}: crawl file in use by ${who}${since}; wait for it to end or use another --db`, { path: dbPath, pid: holder?.pid ?? null });
    }
  }

  /** Whether the lock file's path still names the file we hold (read through a second connection). */
  private stillNamed(): boolean {
    let other: Database.Database | null = null;
    try {
      other = new Database(this.path, { fileMustExist: true, readonly: true });
      return readHolder(other)?.pid === process.pid && (readHolder(this.db)?.started ?? '') === readHolder(other)?.started;
    } catch {
      return false;
    } finally {
      other?.close();
    }
  }

  /** Ends the lock and removes its file (idempotent). */
  release(): void {
    if (this.released) return;
    this.released = true;
    try {
      // removed while still held: whoever opens the path next makes a new file and locks that one
      rmSync(this.path, { force: true });
      rmSync(`${this.path}-journal`, { force: true });
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
    } finally {
      this.db.close();
    }
  }
}

function readHolder(db: Database.Database): Holder | null {
  try {
    return (db.prepare('SELECT pid, started FROM holder LIMIT 1').get() as Holder | undefined) ?? null;
  } catch {
    return null;
  }
}
