import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/eval/prng.js';
import { SqliteFrontier } from '../../src/frontier/sqlite-frontier.js';
import { UrlState } from '../../src/frontier/url-state.js';
import { CrawlFileStore } from '../../src/store/crawl-file-store.js';
import { LINK_CHUNK, PageRowBatch, RESPONSE_CHUNK } from '../../src/store/page-row-batch.js';
import { openDatabase } from '../../src/store/open-database.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import type { PageRecord } from '../../src/store/store.js';
import { urlHash } from '../../src/url/url-hash.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * `batchPageRows` (page-row-batch.ts) writes the page records' responses and links a chunk at a
 * time: whatever happens in between, every read the crawl makes (anchors at hand-out, anchorsTo,
 * counters) and the file in the end must be what they are when every page writes its own rows.
 */

const URLS = 80;
const ANCHORS = ['', '', 'telescope', 'star charts', 'home', 'next page', 'telescope'];

/** The same random run on a store with or without batchPageRows: what it read on the way, and the tables at the end. */
function run(batchPageRows: boolean, seed: number) {
  const path = join(tmpDir(), `run-${batchPageRows}.db`);
  const store = new SqliteStore(path, { batchPageRows, commitEveryMs: 60_000, commitEveryPages: 9 });
  const frontier = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 4 }, (id) => store.flushAnchorsTo(id));
  const door = new CrawlFileStore(store);
  const hosts = ['a.test', 'b.test', 'c.test'];
  const ids = store.joinGroup(() =>
    frontier.add(Array.from({ length: URLS }, (_, i) => {
      const url = `http://${hosts[i % 3]}/p${i}`;
      return { hash: urlHash(url), url, host: hosts[i % 3], depth: 1, priority: (i % 7) / 7, life: 3, parentId: null, anchor: null };
    })),
  );
  const rng = mulberry32(seed);
  const seen: unknown[] = [];
  const record = (id: number, links: number) => {
    const rec: PageRecord = {
      url: { id, url: `http://x/${id}`, host: { id: 1, name: 'a.test' }, depth: 1, priority: 0.5, life: 3, hops: 0, parentId: null, anchor: null },
      state: UrlState.FETCHED, status: 200, error: null, note: null, relevance: rng.next(), relevant: rng.chance(0.5), contentHash: null,
      fetchedAt: 1000 + rng.int(0, 1000),
      response: {
        status: 200, headers: { 'content-type': 'text/html', n: String(rng.int(0, 9)) }, contentType: 'text/html', charset: 'utf-8', title: `t${rng.int(0, 99)}`,
        stored: { data: Buffer.from(`body ${rng.int(0, 1e6)}`), codec: 'identity' }, bodyBytes: rng.int(1, 5000), wireBytes: rng.int(1, 5000), fetchedAt: 1000, elapsedMs: rng.next() * 50,
      },
      // a target may come twice in a page (its anchors are joined), a page may be recorded again (a revisit)
      links: Array.from({ length: links }, () => ({ toId: rng.pick(ids), anchor: rng.pick(ANCHORS) })),
      hostCounts: { fetched: 1, errors: 0 },
    };
    return door.recordPageNow(rec);
  };
  for (let step = 0; step < 700; step++) {
    const r = rng.next();
    if (r < 0.55) seen.push(['seq', record(rng.pick(ids), rng.chance(0.1) ? rng.int(LINK_CHUNK, LINK_CHUNK + 300) : rng.int(0, 60))]);
    else if (r < 0.68) {
      const id = rng.pick(ids);
      seen.push(['anchorsTo', id, store.anchorsTo(id)]);
    } else if (r < 0.72) seen.push(['counters', store.counters()]);
    else if (r < 0.76) store.commit();
    else if (r < 0.8) {
      // a unit of other writes that fails alone: the pages' rows before it must not go with it
      expect(() => store.transaction(() => {
        store.setMeta('unit', String(step));
        throw new Error('the unit fails');
      }, false)).toThrow('the unit fails');
    } else if (r < 0.82) {
      // a page recorded inside a unit that then fails: its rows go with the unit
      expect(() => store.transaction(() => {
        record(rng.pick(ids), rng.int(1, 20));
        throw new Error('the unit fails');
      }, false)).toThrow('the unit fails');
    } else {
      const next = frontier.next(Date.now());
      if (next.kind !== 'url') continue;
      seen.push(['take', next.item.id, next.item.anchors]);
      frontier.release(next.item, Date.now(), false);
    }
  }
  store.close();
  const db = new Database(path, { readonly: true });
  const tables = {
    responses: db.prepare('SELECT * FROM responses ORDER BY url_id').all(),
    links: db.prepare('SELECT * FROM links ORDER BY from_id, to_id').all(),
    urls: db.prepare('SELECT id, state, status, relevance, fetch_seq FROM urls ORDER BY id').all(),
    hosts: db.prepare('SELECT id, fetched, errors FROM hosts ORDER BY id').all(),
    unit: db.prepare("SELECT value FROM meta WHERE key = 'unit'").get(),
  };
  db.close();
  return { seen, tables };
}

describe('page rows written a chunk at a time (batchPageRows)', () => {
  it.each([1, 2, 3])('reads and leaves the file as page-by-page writes do (seed %i)', (seed) => {
    const batched = run(true, seed);
    const alone = run(false, seed);
    expect(batched.tables.responses.length).toBeGreaterThan(RESPONSE_CHUNK); // (chunks were filled, not only the commit's rest)
    expect(batched.tables.links.length).toBeGreaterThan(LINK_CHUNK);
    expect(batched.seen.filter((s) => (s as unknown[])[0] === 'take').length).toBeGreaterThan(10);
    expect(batched.tables.unit).toBeUndefined();
    expect(batched.seen).toEqual(alone.seen);
    expect(batched.tables).toEqual(alone.tables);
  });

  it('holds a page\'s rows until a chunk is full or the group commits, and drops them with a rolled-back group', () => {
    const path = join(tmpDir(), 'held.db');
    const store = new SqliteStore(path, { batchPageRows: true, commitEveryMs: 60_000, commitEveryPages: 1000 });
    const frontier = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 1 });
    const [a, b] = store.joinGroup(() => frontier.add(['http://a.test/1', 'http://a.test/2'].map((url) => ({ hash: urlHash(url), url, host: 'a.test', depth: 0, priority: 1, life: 3, parentId: null, anchor: null }))));
    store.commit(); // (the URLs' rows are not part of the group lost below)
    const door = new CrawlFileStore(store);
    const rec = (id: number, to: number): PageRecord => ({
      url: { id, url: 'http://a.test/', host: { id: 1, name: 'a.test' }, depth: 0, priority: 1, life: 3, hops: 0, parentId: null, anchor: null },
      state: UrlState.FETCHED, status: 200, error: null, note: null, relevance: 0.5, relevant: true, contentHash: null, fetchedAt: 1,
      response: { status: 200, headers: {}, contentType: 'text/html', charset: null, title: null, stored: null, bodyBytes: 10, wireBytes: 10, fetchedAt: 1, elapsedMs: 1 },
      links: [{ toId: to, anchor: 'x' }], hostCounts: { fetched: 1, errors: 0 },
    });
    const count = (table: string) => (store.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    door.recordPageNow(rec(a, b));
    expect([count('responses'), count('links')]).toEqual([0, 0]); // waiting in the batch
    store.flushPageRows();
    expect([count('responses'), count('links')]).toEqual([1, 1]);
    door.recordPageNow(rec(b, a));
    // the group is lost as a failed page's record loses it (GroupCommit.page): its waiting rows go with it
    expect(() => store.pageUnit(() => {
      throw new Error('the record fails');
    })).toThrow('the record fails');
    store.flushPageRows();
    expect([count('responses'), count('links')]).toEqual([0, 0]);
    door.recordPageNow(rec(b, a));
    store.close();
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT url_id FROM responses').all()).toEqual([{ url_id: b }]);
    expect(db.prepare('SELECT from_id, to_id FROM links').all()).toEqual([{ from_id: b, to_id: a }]);
    db.close();
  });
  it('makes a failed write of waiting rows fatal: the group is lost, and every later write fails with E_STORE', () => {
    const path = join(tmpDir(), 'full.db');
    const store = new SqliteStore(path, { batchPageRows: true, commitEveryMs: 60_000, commitEveryPages: 1000 });
    const frontier = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 1 });
    const [a, b] = store.joinGroup(() => frontier.add(['http://a.test/1', 'http://a.test/2'].map((url) => ({ hash: urlHash(url), url, host: 'a.test', depth: 0, priority: 1, life: 3, parentId: null, anchor: null }))));
    store.commit();
    const door = new CrawlFileStore(store);
    const rec = (id: number): PageRecord => ({
      url: { id, url: 'http://a.test/', host: { id: 1, name: 'a.test' }, depth: 0, priority: 1, life: 3, hops: 0, parentId: null, anchor: null },
      state: UrlState.FETCHED, status: 200, error: null, note: null, relevance: 0.5, relevant: true, contentHash: null, fetchedAt: 1,
      response: { status: 200, headers: {}, contentType: 'text/html', charset: null, title: null, stored: { data: Buffer.alloc(200_000, 7), codec: 'identity' }, bodyBytes: 200_000, wireBytes: 10, fetchedAt: 1, elapsedMs: 1 },
      links: [{ toId: id === a ? b : a, anchor: 'x' }], hostCounts: { fetched: 1, errors: 0 },
    });
    // the file may not grow: the page's record fits (its body waits), writing its body does not (a full disk)
    store.db.pragma(`max_page_count = ${store.db.pragma('page_count', { simple: true }) as number}`);
    door.recordPageNow(rec(a));
    expect(() => store.counters()).toThrow(expect.objectContaining({ code: 'E_STORE' }));
    store.db.pragma('max_page_count = 1000000');
    expect(() => door.recordPageNow(rec(b))).toThrow(expect.objectContaining({ code: 'E_STORE' }));
    expect(() => store.close()).toThrow(expect.objectContaining({ code: 'E_STORE' }));
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM responses').get()).toEqual({ n: 0 });
    expect(db.prepare('SELECT state FROM urls WHERE id = ?').get(a)).toEqual({ state: UrlState.QUEUED }); // its outcome went with the group
    db.close();
  });

  it('joins the anchors of a (from, to) met again as the upsert does, whether the chunk meets rows in the file, repeats in itself, or neither', () => {
    // the rule, in JavaScript: a new pair keeps its anchor; a pair met again gets ' | ' and the new
    // anchor, unless that is empty or already in the row's anchor
    for (const seed of [1, 2, 3, 4]) {
      const rng = mulberry32(seed);
      const db = openDatabase(join(tmpDir(), `links-${seed}.db`));
      const batch = new PageRowBatch(db);
      const want = new Map<string, string>();
      db.exec('BEGIN');
      for (let page = 0; page < 300; page++) {
        // mostly new pages with distinct targets (the usual case: one INSERT OR IGNORE a chunk);
        // now and then a page recorded again, or one that names a target twice
        const from = rng.chance(0.1) ? rng.int(1, Math.max(1, page)) : 1000 + page;
        const n = rng.int(0, 60);
        const links = Array.from({ length: n }, (_, i) => ({ toId: rng.chance(0.05) ? 1 : 10 + i * 3 + rng.int(0, 2), anchor: rng.pick(ANCHORS) }));
        batch.addLinks(from, links);
        for (const l of links) {
          const key = `${from} ${l.toId}`;
          const had = want.get(key);
          if (had === undefined) want.set(key, l.anchor);
          else if (l.anchor !== '' && !had.includes(l.anchor)) want.set(key, `${had} | ${l.anchor}`);
        }
        if (rng.chance(0.05)) batch.flush();
      }
      batch.flush();
      db.exec('COMMIT');
      const got = new Map((db.prepare('SELECT from_id, to_id, anchor FROM links').all() as { from_id: number; to_id: number; anchor: string }[]).map((r) => [`${r.from_id} ${r.to_id}`, r.anchor]));
      db.close();
      expect(got.size).toBeGreaterThan(LINK_CHUNK);
      expect([...got.values()].some((a) => a.includes(' | '))).toBe(true); // (anchors were joined)
      expect(got).toEqual(want);
    }
  });
});
