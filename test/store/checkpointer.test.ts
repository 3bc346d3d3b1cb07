import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Checkpointer } from '../../src/store/checkpointer.js';
import { openDatabase, SqliteStore } from '../../src/store/sqlite-store.js';
import { repoRoot } from '../helpers/crawl-corpus.js';
import { suiteTmpDir } from '../helpers/tmp.js';

const tmp = suiteTmpDir('checkpointer-');
const size = (p: string) => statSync(p).size;

/** Writes `n` commits of about 20 KB each into a scratch table. */
function write(store: SqliteStore, n: number): void {
  store.db.exec('CREATE TABLE IF NOT EXISTS scratch (id INTEGER PRIMARY KEY, v BLOB)');
  const ins = store.db.prepare('INSERT INTO scratch (v) VALUES (?)');
  for (let i = 0; i < n; i++) store.transaction(() => ins.run(Buffer.alloc(20_000, i % 251)));
}

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return cond();
}

describe('background WAL checkpoints', () => {
  it('a background thread copies the WAL into the file while the writer goes on; inline mode leaves it in the WAL', async () => {
    const bg = join(tmp, 'bg.db');
    const inline = join(tmp, 'inline.db');
    const a = new SqliteStore(bg, { commitEveryMs: 0, backgroundCheckpoint: true });
    const b = new SqliteStore(inline, { commitEveryMs: 0 });
    try {
      const before = size(bg);
      write(a, 200); // ~4 MB, under SQLite's own 64 MB checkpoint threshold
      write(b, 200);
      expect(await until(() => size(bg) > before + 3_000_000, 5000)).toBe(true);
      expect(size(inline)).toBeLessThan(1_000_000); // still all in its WAL
      expect(a.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    } finally {
      a.close();
      b.close();
    }
  });

  it('past the WAL limit the writer checkpoints itself; stop() ends the thread and restores automatic checkpoints', async () => {
    const path = join(tmp, 'limit.db');
    const db = openDatabase(path);
    const cp = new Checkpointer(db, { everyMs: 3_600_000, walLimitBytes: 1_000_000 }); // the thread never gets to run
    try {
      db.exec('CREATE TABLE scratch (id INTEGER PRIMARY KEY, v BLOB)');
      const ins = db.prepare('INSERT INTO scratch (v) VALUES (?)');
      const before = size(path);
      for (let i = 0; i < 256; i++) {
        ins.run(Buffer.alloc(20_000, 7));
        cp.afterCommit();
      }
      expect(size(path)).toBeGreaterThan(before + 1_000_000); // copied by the writer's own TRUNCATE checkpoints
      expect(size(`${path}-wal`)).toBeLessThan(1_100_000); // emptied whenever it passed 1 MB, never ~5 MB
      expect(cp.busyCheckpoints).toBe(0);
    } finally {
      cp.stop();
      await cp.exited;
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(16384);
      db.close();
    }
  });

  it('stop() returns once the thread has closed its connection; a store never closed does not keep its process alive', async () => {
    const path = join(tmp, 'sync.db');
    const db = openDatabase(path);
    const cp = new Checkpointer(db, { everyMs: 10 });
    cp.start();
    expect(cp.stop()).toBe(true); // synchronous: the thread confirmed its connection closed
    db.close();

    // the process that never reached close() (a crawl's fatal error) must still end by itself
    const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'test/helpers/leave-store-open.ts'), join(tmp, 'open.db')], {
      cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000); // a hang ends here, and fails below
    const [code, signal] = await new Promise<[number | null, string | null]>((r) => child.on('close', (c, s) => r([c, s])));
    clearTimeout(timer);
    expect(out).toBe('written\n');
    expect(signal).toBeNull();
    expect(code).toBe(0);
  });

  it('stop() waits for a thread slow to close: the owner\'s connection is then the last one, and its close removes the WAL', async () => {
    // before, stop() only posted "stop": the thread's connection outlived the owner's close(), so
    // that close was not the last one (no final checkpoint, the WAL left beside the file) and a
    // thread was still on the file while the caller deleted or replaced it
    const path = join(tmp, 'slow.db');
    const db = openDatabase(path);
    const cp = new Checkpointer(db, { everyMs: 10, closeDelayMs: 300 });
    cp.start();
    db.exec('CREATE TABLE scratch (id INTEGER PRIMARY KEY, v BLOB)');
    const ins = db.prepare('INSERT INTO scratch (v) VALUES (?)');
    const before = size(path);
    for (let i = 0; i < 50; i++) ins.run(Buffer.alloc(20_000, i));
    expect(await until(() => size(path) > before + 500_000, 10_000)).toBe(true); // the thread's connection is open and working
    expect(cp.stop()).toBe(true);
    db.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
    const reader = new Database(path, { readonly: true });
    try {
      expect(reader.prepare('SELECT COUNT(*) FROM scratch').pluck().get()).toBe(50);
    } finally {
      reader.close();
    }
  });

  it('starts its thread at the first commit, not when the store opens; a store closed before any commit never starts one', async () => {
    const path = join(tmp, 'late.db');
    const store = new SqliteStore(path, { backgroundCheckpoint: true });
    const cp = (store as unknown as { checkpointer: Checkpointer }).checkpointer;
    try {
      store.setMeta('topic', 'late'); // outside any group: no commit of the store's
      expect(cp.started).toBe(false);
      store.transaction(() => store.setMeta('topic', 'late, committed'));
      store.commit();
      expect(cp.started).toBe(true);
    } finally {
      store.close();
    }
    await cp.exited;
    const never = new SqliteStore(join(tmp, 'never.db'), { backgroundCheckpoint: true });
    const idle = (never as unknown as { checkpointer: Checkpointer }).checkpointer;
    never.close();
    expect(idle.started).toBe(false);
    await idle.exited; // settled without a thread
    expect(existsSync(join(tmp, 'never.db-wal'))).toBe(false);
  });
});
