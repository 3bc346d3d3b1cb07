import Database from 'better-sqlite3';
import { TopicrawlError } from '../errors.js';
import { APPLICATION_ID, inspectCrawlFile, notOurs } from './crawl-file-identity.js';
import { DDL, MIGRATIONS, REVISIT_LM_COLUMNS, SCHEMA_VERSION, URL_DEDUP_COLUMNS } from './schema.js';

/** The files SQLite and the frontier keep beside a crawl file (not its lock). */
export const CRAWL_FILE_SIDES = ['-wal', '-shm', '-journal', '-queues'] as const;

/** The page size of a new crawl file (see {@link openDatabase}). */
export const PAGE_SIZE = 8192;

/**
 * Opens (or creates) a crawl file. `readonly` opens an existing file for stats/export. The file is
 * identified first (crawl-file-identity.ts): anything at the path that is not a topicrawl crawl
 * file, an absent or 0-byte file, or an empty SQLite database is refused with E_USAGE before a byte
 * is written. A new file gets our application id before it turns to WAL mode (so the id is in the
 * file's header at once); a file written before the id existed gets it on its first writable open.
 */
export function openDatabase(path: string, opts: { readonly?: boolean } = {}): Database.Database {
  const readonly = opts.readonly ?? false;
  const kind = path === ':memory:' ? 'absent' : inspectCrawlFile(path, !readonly);
  if (readonly && (kind === 'absent' || kind === 'empty')) {
    throw kind === 'absent' ? new TopicrawlError('E_USAGE', `${path}: no such crawl file`, { path }) : notOurs(path, 'it is an empty file', false);
  }
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly, fileMustExist: readonly });
    db.pragma('busy_timeout = 5000');
    if (kind === 'sqlite') checkUntagged(db, path, readonly);
    // 8 KB pages for a new file (SQLite's default is 4 KB; a file keeps the size it was made with):
    // a commit writes each page it dirtied to the WAL as one frame (two system calls, and a read and
    // a write more when checkpointed), and a crawl's commits dirty leaves all over `urls` and the
    // links' index, as many with 8 KB pages as with 4 KB once a commit touches most of them. 20,000
    // pages of /tmp/synth100k, 3 alternating rounds: COMMIT 25-26 against 30-34 µs a page, SQLite
    // 215-227 against 220-255, CPU a page 1.72-1.83 against 1.75-1.97 ms; 16 KB: COMMIT 17-20 but
    // every other statement slower (SQLite 225-243 µs a page). Set before the file's first write.
    if (!readonly && (kind === 'absent' || kind === 'empty')) db.pragma(`page_size = ${PAGE_SIZE}`);
    if (!readonly && kind !== 'topicrawl') db.pragma(`application_id = ${APPLICATION_ID}`);
    if (!readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      // checkpoint (and sync) once the WAL holds 64 MB, not every 4 MB: a page's outcome updates a
      // row anywhere in the file, so commits are many scattered pages (measured: +30% dequeues/s)
      db.pragma('wal_autocheckpoint = 16384');
    }
    // 32 MB of page cache: a 20,000-page crawl peaked at 478 MB against 537 MB with 64 MB (at the
    // same speed), while the frontier at 300,000 URLs gave up 4% of its dequeues/s (16 MB: 471 MB,
    // but dequeues 11-15% slower; scripts/bench-crawl.ts and bench-frontier.ts, README)
    db.pragma('cache_size = -32768');
    db.pragma('temp_store = MEMORY');
    // a test hook: a cap on the file's pages makes a write fail as on a full disk (SQLITE_FULL)
    if (process.env.TOPICRAWL_TEST_MAX_PAGE_COUNT && !readonly) db.pragma(`max_page_count = ${Number(process.env.TOPICRAWL_TEST_MAX_PAGE_COUNT)}`);
    if (!readonly) {
      db.exec(DDL);
      db.exec(MIGRATIONS);
      const cols = db.prepare('PRAGMA table_info(urls)').all() as { name: string }[];
      if (!cols.some((c) => c.name === 'fp')) db.exec('ALTER TABLE urls ADD COLUMN fp INTEGER');
      // crawl files written before near-duplicates and languages
      for (const [name, decl] of URL_DEDUP_COLUMNS) if (!cols.some((c) => c.name === name)) db.exec(`ALTER TABLE urls ADD COLUMN ${name} ${decl}`);
      // crawl files written before revisits kept Last-Modified evidence
      const rcols = new Set((db.prepare('PRAGMA table_info(revisits)').all() as { name: string }[]).map((c) => c.name));
      for (const [name, decl] of REVISIT_LM_COLUMNS) if (!rcols.has(name)) db.exec(`ALTER TABLE revisits ADD COLUMN ${name} ${decl}`);
    }
    const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
    if (!row && !readonly) {
      db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?)").run(String(SCHEMA_VERSION));
    } else if (!row || Number(row.value) !== SCHEMA_VERSION) {
      throw new TopicrawlError('E_STORE', `${path}: not a topicrawl crawl file of schema version ${SCHEMA_VERSION}`, { path });
    }
  } catch (err) {
    if (db?.open) db.close();
    if (err instanceof TopicrawlError) throw err;
    if (err instanceof Database.SqliteError && err.code === 'SQLITE_NOTADB') throw notOurs(path, 'it is not an SQLite database', !readonly);
    throw new TopicrawlError('E_STORE', `${path}: cannot open crawl file: ${(err as Error).message}`, { path }, { cause: err });
  }
  return db;
}

/**
 * A database without an application id: an older crawl file has our meta table; an empty database
 * is fine to start a crawl in (not to read); anything else is another application's (E_USAGE).
 */
function checkUntagged(db: Database.Database, path: string, readonly: boolean): void {
  const names = new Set(db.prepare("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").pluck().all() as string[]);
  const ours = names.has('meta') && db.prepare("SELECT 1 FROM meta WHERE key = 'schema_version'").get() !== undefined;
  if (!ours && (names.size > 0 || readonly)) throw notOurs(path, names.size > 0 ? 'an SQLite database without topicrawl\'s tables' : 'an empty SQLite database', !readonly);
}

/**
 * Throws E_USAGE unless the path holds nothing or a crawl file (or a file topicrawl may start one in):
 * checked before a crawl file is deleted (`--fresh`). Reads the file, never writes it.
 */
export function assertCrawlFileOrNothing(path: string): void {
  if (inspectCrawlFile(path, true) !== 'sqlite') return;
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { fileMustExist: true });
    checkUntagged(db, path, false);
  } catch (err) {
    if (err instanceof TopicrawlError) throw err;
    if (err instanceof Database.SqliteError && err.code === 'SQLITE_NOTADB') throw notOurs(path, 'it is not an SQLite database', true);
    throw storeError(path, err, 'cannot read the crawl file: ');
  } finally {
    db?.close();
  }
}

/** A storage failure as E_STORE (an SqliteError, or anything unexpected from the store's files). */
export function storeError(path: string, err: unknown, what = ''): TopicrawlError {
  if (err instanceof TopicrawlError) return err;
  const sqlite = err instanceof Database.SqliteError ? { sqlite: err.code } : {};
  return new TopicrawlError('E_STORE', `${path}: ${what}${(err as Error)?.message ?? String(err)}`, { path, ...sqlite }, { cause: err });
}

/**
 * Whether the file's `urls` table has the near-duplicate and language columns (URL_DEDUP_COLUMNS):
 * a file written before them and opened read-only has not; its reports show no near-duplicates and
 * no languages.
 */
export function urlsHasDedupColumns(db: Database.Database): boolean {
  const cols = new Set((db.prepare('PRAGMA table_info(urls)').all() as { name: string }[]).map((c) => c.name));
  return URL_DEDUP_COLUMNS.every(([name]) => cols.has(name));
}
