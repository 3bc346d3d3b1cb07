import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { APPLICATION_ID } from '../../src/store/crawl-file-identity.js';
import { lockPathOf } from '../../src/store/crawl-lock.js';
import { openDatabase, SqliteStore } from '../../src/store/sqlite-store.js';
import { errorOf } from '../helpers/error-of.js';
import { tmpDir } from '../helpers/tmp.js';

/** Writes `n` rows of about 20 KB each, one transaction each, into a scratch table. */
function write(store: SqliteStore, n: number): void {
  store.db.exec('CREATE TABLE IF NOT EXISTS scratch (id INTEGER PRIMARY KEY, v BLOB)');
  const ins = store.db.prepare('INSERT INTO scratch (v) VALUES (?)');
  for (let i = 0; i < n; i++) store.transaction(() => ins.run(Buffer.alloc(20_000, i % 251)));
}

const sideFiles = (dir: string, name: string) => readdirSync(dir).filter((f) => f !== name).sort();

describe('what a crawl file is: identified before anything is written or deleted', () => {
  it('a new crawl file carries our application id in its header at once', () => {
    const dir = tmpDir();
    const path = join(dir, 'new.db');
    const store = new SqliteStore(path);
    try {
      expect(store.db.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
      expect(readFileSync(path).readInt32BE(68)).toBe(APPLICATION_ID); // in the file, not only in the WAL
    } finally {
      store.close();
    }
    // an empty (0-byte) file and an SQLite database without tables are fine to start in
    const empty = join(dir, 'empty.db');
    writeFileSync(empty, '');
    new SqliteStore(empty).close();
    const blank = join(dir, 'blank.db');
    new Database(blank).exec('VACUUM');
    new SqliteStore(blank).close();
    expect(readFileSync(blank).readInt32BE(68)).toBe(APPLICATION_ID);
  });

  it('text, a topic file, another application\'s database: refused (E_USAGE), left byte for byte, nothing created beside them', () => {
    const dir = tmpDir();
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'my notes: nothing to do with crawling\n'.repeat(20));
    const topic = join(dir, 'self.yaml');
    writeFileSync(topic, 'name: self\nseeds: [http://a.example/]\n');
    const other = join(dir, 'other-app.db');
    const o = new Database(other);
    o.exec("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices (total) VALUES (12.5)");
    o.close();
    const tagged = join(dir, 'tagged.db');
    const t = new Database(tagged);
    t.pragma('application_id = 1234');
    t.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)'); // even with a table named like ours
    t.close();
    for (const path of [notes, topic, other, tagged]) {
      const before = readFileSync(path);
      for (const open of [() => new SqliteStore(path), () => new SqliteStore(path, { fresh: true }), () => openDatabase(path, { readonly: true })]) {
        const err = errorOf(open);
        expect(err).toMatchObject({ code: 'E_USAGE' });
        expect(String((err as Error).message)).toContain('not a topicrawl crawl file');
      }
      expect(readFileSync(path).equals(before)).toBe(true);
    }
    expect(readdirSync(dir).sort()).toEqual(['notes.txt', 'other-app.db', 'self.yaml', 'tagged.db']);
    expect(errorOf(() => new SqliteStore(dir))).toMatchObject({ code: 'E_USAGE' }); // a folder
  });

  it('a crawl file written before the application id (our meta table, id 0) opens and gets the id', () => {
    const path = join(tmpDir(), 'old.db');
    const s = new SqliteStore(path);
    s.setMeta('topic', 'old');
    s.close();
    const raw = new Database(path);
    raw.pragma('application_id = 0');
    raw.close();
    expect(readFileSync(path).readInt32BE(68)).toBe(0);
    const again = new SqliteStore(path);
    try {
      expect(again.getMeta('topic')).toBe('old');
    } finally {
      again.close();
    }
    expect(readFileSync(path).readInt32BE(68)).toBe(APPLICATION_ID);
  });

  it('fresh deletes a crawl file and its side files, and only once it holds the lock', () => {
    const dir = tmpDir();
    const path = join(dir, 'c.db');
    const a = new SqliteStore(path);
    a.setMeta('topic', 'first');
    a.close();
    writeFileSync(`${path}-queues`, 'stale queues');
    const b = new SqliteStore(path, { fresh: true });
    try {
      expect(b.getMeta('topic')).toBeUndefined();
      expect(existsSync(`${path}-queues`)).toBe(false);
      // a second fresh open while this one holds the file deletes nothing
      expect(errorOf(() => new SqliteStore(path, { fresh: true }))).toMatchObject({ code: 'E_IN_USE' });
      b.setMeta('topic', 'second');
      b.commit();
    } finally {
      b.close();
    }
    const c = new SqliteStore(path);
    try {
      expect(c.getMeta('topic')).toBe('second');
    } finally {
      c.close();
    }
  });
});

describe('one writer per crawl file', () => {
  it('a second writable store on the same file is refused (E_IN_USE, naming this process) until the first closes; the lock file goes with it', () => {
    const dir = tmpDir();
    const path = join(dir, 'c.db');
    const a = new SqliteStore(path);
    expect(existsSync(lockPathOf(path))).toBe(true);
    const err = errorOf(() => new SqliteStore(path));
    expect(err).toMatchObject({ code: 'E_IN_USE', details: { pid: process.pid } });
    expect(String((err as Error).message)).toContain(`crawl file in use by this process (${process.pid})`);
    // readers are welcome while it is held
    const reader = openDatabase(path, { readonly: true });
    reader.close();
    a.close();
    expect(existsSync(lockPathOf(path))).toBe(false);
    const b = new SqliteStore(path);
    b.close();
    expect(sideFiles(dir, 'c.db')).toEqual([]);
  });
});

describe('closing a crawl file', () => {
  it('waits for the checkpoint thread, then folds the WAL into the file: a copy of the .db alone holds every row', () => {
    const dir = tmpDir();
    const path = join(dir, 'c.db');
    const store = new SqliteStore(path, { backgroundCheckpoint: true, commitEveryMs: 0 });
    write(store, 150); // ~3 MB, far under SQLite's own checkpoint threshold
    store.close();
    expect(!existsSync(`${path}-wal`) || statSync(`${path}-wal`).size === 0).toBe(true);
    const copy = join(tmpDir(), 'copy.db');
    copyFileSync(path, copy); // the file alone, as a user copies it
    const db = new Database(copy, { readonly: true });
    try {
      expect(db.prepare('SELECT COUNT(*) FROM scratch').pluck().get()).toBe(150);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });

  it('after close() returns, the file may be deleted and a new one made at its path: nothing of the old one touches it', () => {
    // the old fault: the checkpoint thread closed its connection after close() returned and, as the
    // last connection of the old file, deleted "<path>-wal" by name: the new file's WAL, with its pages
    const path = join(tmpDir(), 'same.db');
    for (let round = 0; round < 15; round++) {
      const s = new SqliteStore(path, { backgroundCheckpoint: true, commitEveryMs: 0, fresh: true });
      write(s, 3 + round);
      s.close();
      const db = new Database(path, { readonly: true });
      try {
        expect(db.prepare('SELECT COUNT(*) FROM scratch').pluck().get()).toBe(3 + round);
      } finally {
        db.close();
      }
    }
  });

  it('a failure while closing (a full file) still releases the connection and the lock, and is thrown as E_STORE', () => {
    const path = join(tmpDir(), 'full.db');
    const store = new SqliteStore(path, { backgroundCheckpoint: true }); // group commit: writes wait for close
    const pages = store.db.pragma('page_count', { simple: true }) as number;
    store.db.pragma(`max_page_count = ${pages + 2}`);
    store.db.exec('CREATE TABLE scratch (id INTEGER PRIMARY KEY, v BLOB)');
    let failed: unknown = null;
    try {
      const ins = store.db.prepare('INSERT INTO scratch (v) VALUES (?)');
      for (let i = 0; i < 50; i++) store.transaction(() => ins.run(Buffer.alloc(20_000, 1)));
    } catch (err) {
      failed = err;
    }
    expect(failed).toMatchObject({ code: 'E_STORE' });
    expect(String((failed as Error).message)).toContain('full');
    expect(() => store.close()).not.toThrow(); // the failure was reported already
    expect(store.db.open).toBe(false);
    expect(existsSync(lockPathOf(path))).toBe(false);
    const db = new Database(path, { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });
});
