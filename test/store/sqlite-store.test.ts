import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { compressBody, decompressBody, openDatabase, SqliteStore } from '../../src/store/sqlite-store.js';
import { PAGE_SIZE } from '../../src/store/open-database.js';
import { SqliteFrontier } from '../../src/frontier/sqlite-frontier.js';
import { revisitDetail } from '../../src/store/revisit-store.js';
import { storedResponse } from '../../src/store/warc-source.js';
import { UrlState } from '../../src/frontier/url-state.js';
import { urlHash } from '../../src/url/url-hash.js';
import { tmpDir } from '../helpers/tmp.js';

/** A store with a group commit of these bounds, a frontier on it, and a reader of the file counting its URLs. */
function groupedStore(name: string, commitEveryMs: number, commitEveryPages: number) {
  const path = join(tmpDir(), name);
  const store = new SqliteStore(path, { commitEveryMs, commitEveryPages });
  const frontier = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 1 });
  const reader = openDatabase(path, { readonly: true });
  const count = () => (reader.prepare('SELECT COUNT(*) AS n FROM urls').get() as { n: number }).n;
  return { store, frontier, reader, count };
}

describe('SqliteStore', () => {
  it('compresses bodies and gives them back byte for byte', () => {
    const body = Buffer.from('<html>' + '烟草 tobacco '.repeat(500) + '</html>');
    const c = compressBody(body);
    expect(c.codec).toBe('br');
    expect(c.data.length).toBeLessThan(body.length / 4);
    expect(decompressBody(Buffer.from(c.data), c.codec).equals(body)).toBe(true);
    const tiny = compressBody(Buffer.from('ok'));
    expect(tiny.codec).toBe('identity');
  });

  it('refuses a file that is not a crawl file (E_USAGE), and a crawl file of another schema version (E_STORE)', () => {
    const dir = tmpDir();
    const junk = join(dir, 'junk.db');
    writeFileSync(junk, 'not a database at all, not at all');
    expect(() => new SqliteStore(junk)).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    const other = join(dir, 'other.db');
    const db = new Database(other);
    db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('schema_version', '999')");
    db.close();
    expect(() => new SqliteStore(other)).toThrow(/schema version/);
    expect(() => new SqliteStore(other)).toThrow(expect.objectContaining({ code: 'E_STORE' }));
    expect(() => openDatabase(join(dir, 'missing.db'), { readonly: true })).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
  });

  it('adds the Last-Modified columns to the revisits of a file written before them, and reads old rows as believed', () => {
    const path = join(tmpDir(), 'old.db');
    openDatabase(path).close();
    // the file as it was: revisits without the lm_ columns, one row in it
    const raw = new Database(path);
    raw.exec(`DROP TABLE revisits;
      CREATE TABLE revisits (url_id INTEGER PRIMARY KEY, class TEXT NOT NULL, next_at INTEGER NOT NULL, checks INTEGER NOT NULL DEFAULT 0,
        changes INTEGER NOT NULL DEFAULT 0, first_check_at INTEGER NOT NULL, last_check_at INTEGER NOT NULL, etag TEXT, last_modified TEXT,
        text_hash TEXT, failures INTEGER NOT NULL DEFAULT 0, deleted_at INTEGER);
      INSERT INTO revisits (url_id, class, next_at, checks, changes, first_check_at, last_check_at) VALUES (1, 'content', 5, 4, 1, 1, 3);`);
    raw.close();
    const db = openDatabase(path);
    try {
      const cols = (db.prepare('PRAGMA table_info(revisits)').all() as { name: string }[]).map((c) => c.name);
      expect(cols).toEqual(expect.arrayContaining(['lm_trusted', 'lm_changes', 'lm_age_ms', 'lm_unchanged_ms']));
      expect(revisitDetail(db, 1)).toMatchObject({ checks: 4, changes: 1, ages: { changes: 0, ageMs: 0, unchangedMs: 0 } });
    } finally {
      db.close();
    }
  });

  it('makes a new crawl file with PAGE_SIZE pages, and keeps the page size of a file made with another', () => {
    const dir = tmpDir();
    const fresh = join(dir, 'fresh.db');
    const db = openDatabase(fresh);
    expect(db.pragma('page_size', { simple: true })).toBe(PAGE_SIZE);
    expect(PAGE_SIZE).not.toBe(4096); // (SQLite's default: the test below would prove nothing)
    db.close();
    // a file made with SQLite's 4 KB pages (as by earlier releases) keeps them, and takes pages
    const old = join(dir, 'old.db');
    const raw = new Database(old);
    raw.pragma('page_size = 4096');
    raw.pragma('journal_mode = WAL');
    raw.close();
    const store = new SqliteStore(old);
    expect(store.db.pragma('page_size', { simple: true })).toBe(4096);
    const frontier = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 1 });
    frontier.add([{ hash: urlHash('http://a.test/'), url: 'http://a.test/', host: 'a.test', depth: 0, priority: 1, life: 3, parentId: null, anchor: null }]);
    store.close();
    const again = openDatabase(old, { readonly: true });
    expect(again.pragma('page_size', { simple: true })).toBe(4096);
    expect((again.prepare('SELECT url FROM urls').all() as { url: string }[]).map((r) => r.url)).toEqual(['http://a.test/']);
    again.close();
  });

  it('keeps responses in the order they are written, found by url_id; a file whose responses are keyed by url_id (earlier releases) works alike', () => {
    /** Records responses for URLs in an order unlike their ids, one of them twice; what the file then holds and answers. */
    const exercise = (oldLayout: boolean) => {
      const path = join(tmpDir(), `layout-${oldLayout}.db`);
      if (oldLayout) {
        openDatabase(path).close();
        const raw = new Database(path);
        raw.exec(`DROP TABLE responses;
          CREATE TABLE responses (url_id INTEGER PRIMARY KEY REFERENCES urls(id), status INTEGER NOT NULL, headers TEXT NOT NULL,
            content_type TEXT, charset TEXT, title TEXT, body BLOB, body_codec TEXT NOT NULL, body_bytes INTEGER NOT NULL,
            wire_bytes INTEGER NOT NULL, fetched_at INTEGER NOT NULL, elapsed_ms INTEGER NOT NULL);`);
        raw.close();
      }
      const store = new SqliteStore(path);
      const frontier = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 1 });
      const ids = frontier.add(Array.from({ length: 6 }, (_, i) => {
        const url = `http://a.test/p${i}`;
        return { hash: urlHash(url), url, host: 'a.test', depth: 0, priority: 0.5, life: 3, parentId: null, anchor: null };
      }));
      const order = [ids[4], ids[1], ids[5], ids[1], ids[0]];
      order.forEach((urlId, k) => {
        const body = Buffer.from(`<html>page ${urlId}, fetch ${k} ${'text '.repeat(200)}</html>`);
        store.recordResponse({
          urlId, status: 200 + k, headers: { 'content-type': 'text/html' }, contentType: 'text/html', charset: 'utf-8', title: `t${k}`,
          stored: compressBody(body), bodyBytes: body.length, wireBytes: body.length, fetchedAt: 1000 + k, elapsedMs: 5,
        });
      });
      const db = store.db;
      const pk = (db.prepare('PRAGMA table_info(responses)').all() as { name: string; pk: number }[]).find((c) => c.name === 'url_id')!.pk;
      const rowOrder = (db.prepare('SELECT url_id FROM responses ORDER BY rowid').all() as { url_id: number }[]).map((r) => r.url_id);
      const answers = ids.map((id) => {
        const r = storedResponse(db, id);
        return r && { url: r.url, status: r.status, body: r.body.toString() };
      });
      store.close();
      return { pk, rowOrder, answers };
    };
    const fresh = exercise(false);
    const old = exercise(true);
    // a new file: url_id is not the row id, and the rows lie in the order written (the replaced one last)
    expect(fresh.pk).toBe(0);
    expect(fresh.rowOrder).toEqual([5, 6, 2, 1]);
    expect(old.pk).toBe(1);
    expect(old.rowOrder).toEqual([1, 2, 5, 6]);
    // both answer every URL alike: the latest response of each, none for those never fetched
    expect(fresh.answers).toEqual(old.answers);
    expect(fresh.answers.map((a) => a?.status ?? null)).toEqual([204, 203, null, null, 200, 202]);
    expect(fresh.answers[1]!.body).toContain('fetch 3');
  });

  it('groups page transactions: readers see whole pages only after the group commits', async () => {
    const { store, frontier, reader, count } = groupedStore('g.db', 30, 1000);
    store.transaction(() => {
      frontier.add([{ hash: urlHash('http://a.test/'), url: 'http://a.test/', host: 'a.test', depth: 0, priority: 1, life: 3, parentId: null, anchor: null }]);
    });
    expect(count()).toBe(0);
    // a page whose writes fail leaves nothing behind, and the group goes on
    expect(() =>
      store.transaction(() => {
        frontier.add([{ hash: urlHash('http://a.test/x'), url: 'http://a.test/x', host: 'a.test', depth: 1, priority: 1, life: 3, parentId: 1, anchor: null }]);
        throw new Error('boom');
      }),
    ).toThrow('boom');
    await new Promise((r) => setTimeout(r, 80));
    expect(count()).toBe(1);
    store.transaction(() => store.recordOutcome({
      urlId: 1, state: UrlState.FETCHED, status: 200, error: null, relevance: 0.5, relevant: true, contentHash: null,
      fetchedAt: 1, fetchSeq: store.nextFetchSeq(), fetchPriority: 1,
    }));
    store.close(); // commits the open group
    expect((reader.prepare('SELECT state, fetch_seq FROM urls WHERE id = 1').get() as { state: number; fetch_seq: number })).toEqual({ state: 2, fetch_seq: 1 });
    reader.close();
  });

  it('records a page without a savepoint of its own; a record that fails part-way rolls its whole group back (E_STORE), waiters told', async () => {
    const { store, frontier, reader, count } = groupedStore('p.db', 10_000, 1000);
    const sql: string[] = [];
    const exec = store.db.exec.bind(store.db);
    store.db.exec = (s: string) => (sql.push(s), exec(s));
    store.pageUnit(() => {
      frontier.add([{ hash: urlHash('http://a.test/'), url: 'http://a.test/', host: 'a.test', depth: 0, priority: 1, life: 3, parentId: null, anchor: null }]);
    });
    expect(sql).toEqual(['BEGIN']); // the group's BEGIN, no SAVEPOINT
    const durable = store.whenCommitted();
    durable.catch(() => undefined);
    // the second page's first writes went in, its last fails in SQLite (a key already there)
    expect(() =>
      store.pageUnit(() => {
        frontier.add([{ hash: urlHash('http://a.test/x'), url: 'http://a.test/x', host: 'a.test', depth: 1, priority: 1, life: 3, parentId: 1, anchor: null }]);
        store.db.prepare("INSERT INTO meta (key, value) VALUES ('k', 1)").run();
        store.db.prepare("INSERT INTO meta (key, value) VALUES ('k', 2)").run();
      }),
    ).toThrow(expect.objectContaining({ code: 'E_STORE' }));
    await expect(durable).rejects.toMatchObject({ code: 'E_STORE' });
    expect(store.db.inTransaction).toBe(false);
    store.close();
    expect(count()).toBe(0); // neither page: the group went as a whole
    reader.close();
  });

  it('tells when what was recorded is committed: at once with no group open, else at the group\'s commit', async () => {
    const { store, frontier, reader, count } = groupedStore('w.db', 40, 3);
    await store.whenCommitted(); // nothing open
    const add = (n: number) => store.transaction(() => {
      frontier.add([{ hash: urlHash(`http://a.test/${n}`), url: `http://a.test/${n}`, host: 'a.test', depth: 0, priority: 1, life: 3, parentId: null, anchor: null }]);
    });
    add(1);
    let seen = -1;
    const timed = store.whenCommitted().then(() => (seen = count()));
    expect(count()).toBe(0);
    await timed; // the group's timer
    expect(seen).toBe(1);
    add(2);
    add(3);
    let counted = -1;
    const full = store.whenCommitted().then(() => (counted = count()));
    add(4); // the third page of the group: committed now
    await full;
    expect(counted).toBe(4);
    reader.close();
    store.close();
  });
});

describe('SqliteStore host counts in a group commit', () => {
  it('adds up the pages and errors of a group per host and writes them with the group, as one UPDATE per page would', () => {
    const path = join(tmpDir(), 'bumps.db');
    const store = new SqliteStore(path, { commitEveryMs: 60_000, commitEveryPages: 150 });
    const frontier = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 1 });
    const hosts = Array.from({ length: 70 }, (_, i) => frontier.hostId(`h${i}.test`));
    const reader = new Database(path, { readonly: true });
    const read = () => new Map((reader.prepare('SELECT id, fetched, errors FROM hosts').all() as { id: number; fetched: number; errors: number }[]).map((r) => [r.id, [r.fetched, r.errors]]));
    const want = new Map(hosts.map((h) => [h, [0, 0]]));
    let x = 7;
    for (let page = 1; page <= 320; page++) {
      x = (x * 48271) % 2147483647;
      const h = hosts[x % hosts.length];
      const err = x % 3 === 0 ? 1 : 0;
      store.transaction(() => store.bumpHost(h, 1, err));
      want.get(h)![0] += 1;
      want.get(h)![1] += err;
      // every 150 pages (over more than 64 hosts: two UPDATEs) the group commits: then another connection sees exactly the counts so far
      if (page % 150 === 0) expect(read()).toEqual(want);
      if (page === 149) expect(read().get(h)).toEqual([0, 0]);
    }
    // the last, open group is written when the store closes
    store.close();
    expect(read()).toEqual(want);
    reader.close();
  });
});

describe('SqliteStore content hashes', () => {
  it('finds a page by content hash however the hash was written, before or after the first lookup, and nothing else', () => {
    const path = join(tmpDir(), 'hashes.db');
    const store = new SqliteStore(path, { commitEveryMs: 0 });
    const frontier = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 1 });
    const urls = ['http://a.test/1', 'http://a.test/2', 'http://b.test/3', 'http://b.test/4'];
    const ids = frontier.add(urls.map((url) => ({ hash: urlHash(url), url, host: new URL(url).host, depth: 0, priority: 0, life: 3, parentId: null, anchor: null })));
    const h = (n: number) => Buffer.alloc(16, n);
    const outcome = (urlId: number, contentHash: Buffer) => store.transaction(() => store.recordOutcome({
      urlId, state: UrlState.FETCHED, status: 200, error: null, relevance: 0.5, relevant: true, contentHash, fetchedAt: 1, fetchSeq: urlId, fetchPriority: 0,
    }));
    outcome(ids[0], h(1)); // before the first lookup: read from the file
    expect(store.findByContentHash(h(1))).toBe(ids[0]);
    expect(store.findByContentHash(h(2))).toBeUndefined();
    outcome(ids[1], h(2)); // after it: seen by the trigger
    expect(store.findByContentHash(h(2))).toBe(ids[1]);
    // written by another writer on the connection (as revisits do), and a near miss in the first bytes
    store.db.prepare('UPDATE urls SET content_hash = ?, state = 2 WHERE id = ?').run(h(3), ids[2]);
    expect(store.findByContentHash(h(3))).toBe(ids[2]);
    const near = Buffer.from(h(3));
    near[15] = 9;
    expect(store.findByContentHash(near)).toBeUndefined();
    // a hash of a page not fetched (state other than FETCHED) is not a duplicate's original
    store.db.prepare('UPDATE urls SET content_hash = ? WHERE id = ?').run(h(4), ids[3]);
    expect(store.findByContentHash(h(4))).toBeUndefined();
    store.close();
  });
});
