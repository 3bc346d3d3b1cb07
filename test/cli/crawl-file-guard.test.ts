import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { lockPathOf } from '../../src/store/crawl-lock.js';
import { PAGE_SIZE } from '../../src/store/open-database.js';
import { readRows, repoRoot } from '../helpers/crawl-corpus.js';
import { runCliProcess, startCli } from '../helpers/cli-process.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpDir } from '../helpers/tmp.js';

const TOPIC = join(repoRoot, 'topics/tobacco.yaml');
const CORPUS = join(repoRoot, 'corpora/tobacco-demo');
const crawlArgs = (db: string, ...set: string[]) => ['crawl', TOPIC, '--corpus', CORPUS, '--db', db, ...set.flatMap((s) => ['--set', s])];
const oneLine = (stderr: string) => stderr.trim().split('\n').filter((l) => l.startsWith('topicrawl:'));

describe('topicrawl never writes into, nor deletes, a file that is not its own', () => {
  it('crawl --fresh --db notes.txt, --db <the topic file itself>, --db other-app.db: refused (exit 2), each file byte for byte', async () => {
    const dir = tmpDir();
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'shopping: tea, rice\n');
    const self = join(dir, 'self.yaml');
    copyFileSync(TOPIC, self);
    const other = join(dir, 'other-app.db');
    const o = new Database(other);
    o.exec("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Ada')");
    o.close();
    const before = new Map([notes, self, other].map((f) => [f, readFileSync(f)]));
    const runs = [
      ['crawl', TOPIC, '--corpus', CORPUS, '--fresh', '--db', notes],
      ['crawl', self, '--corpus', CORPUS, '--fresh', '--db', self],
      ['crawl', TOPIC, '--corpus', CORPUS, '--db', other],
      ['crawl', TOPIC, '--corpus', CORPUS, '--fresh', '--db', other],
    ];
    for (const args of runs) {
      const r = await runCli(args);
      expect(r.code).toBe(2);
      expect(oneLine(r.stderr)).toHaveLength(1);
      expect(r.stderr).toContain('not a topicrawl crawl file');
      expect(r.stderr).toContain('[E_USAGE]');
      expect(r.stderr).not.toContain('    at '); // no stack trace
    }
    for (const [f, bytes] of before) expect(readFileSync(f).equals(bytes)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['notes.txt', 'other-app.db', 'self.yaml']);
  });

  it('recrawl, stats, export, explain on a file that is not a crawl file: a usage error, not a crash', async () => {
    const dir = tmpDir();
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'not a crawl\n'.repeat(10));
    for (const args of [['recrawl', notes], ['stats', notes], ['export', notes], ['explain', notes, 'http://a.example/']]) {
      const r = await runCli(args);
      expect(r.code).toBe(2);
      expect(oneLine(r.stderr)).toHaveLength(1);
      expect(r.stderr).toContain(`${notes}: not a topicrawl crawl file`);
      expect(r.stderr).toContain('[E_USAGE]');
    }
    expect(readdirSync(dir)).toEqual(['notes.txt']);
  });

  it('a topic name that walks out of the folder is not used as the default crawl file name', async () => {
    const dir = tmpDir();
    const topic = join(dir, 'evil.yaml');
    writeFileSync(topic, readFileSync(TOPIC, 'utf8').replace(/^name: tobacco$/m, 'name: ../escaped'));
    const r = await runCliProcess(['crawl', topic, '--corpus', CORPUS], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('topic name "../escaped" cannot be used as a file name');
    expect(r.stderr).toContain('give --db');
    expect(existsSync(join(dir, '..', 'escaped.db'))).toBe(false);
    expect(readdirSync(dir)).toEqual(['evil.yaml']);
  });
});

describe('one crawl per file', () => {
  it('a second crawl, and a recrawl, on a file a crawl holds are refused at once naming its process; after kill -9 the file is free', async () => {
    const db = join(tmpDir(), 'busy.db');
    // slow enough to be caught in the middle: 5 s between two requests to a host (14 hosts)
    const first = startCli(crawlArgs(db, 'politeness.delay_ms=5000', 'politeness.concurrency=1', 'limits.max_pages=60'), { timeoutMs: 110_000 });
    await first.waitFor(/fetched=[1-9]/);
    const pid = first.child.pid!;
    const second = await runCliProcess([...crawlArgs(db, 'politeness.delay_ms=0'), '--json']);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`${db}: crawl file in use by process ${pid}`);
    expect(second.stderr).toContain('[E_IN_USE]');
    expect(second.stdout).toBe('');
    const recrawl = await runCliProcess(['recrawl', db]);
    expect(recrawl.code).toBe(2);
    expect(recrawl.stderr).toContain(`crawl file in use by process ${pid}`);
    expect(first.child.exitCode).toBeNull(); // the first crawl goes on, untouched

    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    expect(existsSync(lockPathOf(db))).toBe(true); // its file stays, but the lock died with the process

    const again = await runCliProcess([...crawlArgs(db, 'politeness.delay_ms=0', 'limits.max_pages=60'), '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ resumed: true, fetched: 60 });
    expect(existsSync(lockPathOf(db))).toBe(false); // released on a clean end
  }, 120_000);
});

describe('a clean stop', () => {
  it('leaves no WAL: a copy of the .db file alone opens with every page', async () => {
    const dir = tmpDir();
    const db = join(dir, 'clean.db');
    const r = await runCli([...crawlArgs(db, 'politeness.delay_ms=0', 'limits.max_pages=50'), '--json']);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout) as { fetched: number };
    expect(summary.fetched).toBe(50);
    expect(!existsSync(`${db}-wal`) || statSync(`${db}-wal`).size === 0).toBe(true);
    const copy = join(tmpDir(), 'copy.db');
    copyFileSync(db, copy);
    expect(readRows(copy)).toHaveLength(50);
  });
});

describe('a fatal storage failure', () => {
  it('ends the process with E_STORE and exit 1 instead of hanging, and leaves a consistent file', async () => {
    const db = join(tmpDir(), 'full.db');
    // a test hook caps the crawl file's pages (PAGE_SIZE each: 23 of 8 KB, the bytes 45 of 4 KB
    // were): writes then fail as on a full disk (SQLITE_FULL) well before the 200 pages
    const r = await runCliProcess(crawlArgs(db, 'politeness.delay_ms=0', 'politeness.concurrency=4', 'limits.max_pages=200'), {
      env: { TOPICRAWL_TEST_MAX_PAGE_COUNT: String(Math.round((45 * 4096) / PAGE_SIZE)) },
      timeoutMs: 45_000, // a hang ends in SIGKILL, and the signal check below fails
    });
    expect(r.signal).toBeNull();
    expect(r.code).toBe(1);
    const lines = oneLine(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/full\.db: .*full.*\[E_STORE\]$/);
    const conn = new Database(db, { readonly: true });
    try {
      expect(conn.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      conn.close();
    }
    expect(existsSync(lockPathOf(db))).toBe(false);
  });
});
