import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Frontier, Lease, NewUrl } from '../../src/frontier/frontier.js';
import { encodeSettle, SETTLE_DONE, SETTLE_RELEASE, SETTLE_REQUEUE } from '../../src/frontier/redis-codec.js';
import { redisCrawlStats } from '../../src/frontier/redis-crawl-stats.js';
import { deleteCrawl } from '../../src/frontier/redis-crawl-keys.js';
import type { RedisConnection } from '../../src/frontier/redis-connection.js';
import { crawlPrefix } from '../../src/frontier/redis-frontier.js';
import { SqliteFrontier } from '../../src/frontier/sqlite-frontier.js';
import { UrlState } from '../../src/frontier/url-state.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { urlHash } from '../../src/url/url-hash.js';
import { expireLeases, testCrawl } from '../helpers/redis.js';
import { tmpDir } from '../helpers/tmp.js';

function entry(url: string, priority = 0, extra: Partial<NewUrl> = {}): NewUrl {
  return { hash: urlHash(url), url, host: new URL(url).host, depth: 0, priority, life: 3, parentId: null, anchor: null, ...extra };
}

async function claimOne(f: Frontier, now = Date.now()): Promise<Lease | null> {
  const c = await f.claim(1, now);
  return c.kind === 'urls' ? c.leases[0] : null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends one settle straight to the settle script of crawl `crawlId` (as a command sent again arrives): its answer, 1 or 0. */
function settleRaw(conn: RedisConnection, crawlId: string, lease: Lease, what: 0 | 1 | 2, counted = true): Promise<unknown> {
  const prefix = crawlPrefix(crawlId);
  return conn.client.tcSettle(`${prefix}ready`, prefix, 1, 0, 0, 0, '', encodeSettle(lease.token, what, counted, null));
}

/** A small synthetic web: page n of 400 links to 3 pages on 7 hosts. */
function links(url: string): string[] {
  const n = Number(/p(\d+)$/.exec(url)![1]);
  return [1, 2, 3].map((k) => (n * 3 + k * 7) % 400).map((m) => `http://h${m % 7}.test/p${m}`);
}

/**
 * Crawls the synthetic web one URL at a time: SQLite frontier (next/release) and Redis frontier
 * (claim/intake/settle) fed the same adds; `priorityOf(k)` gives the k-th new link its priority.
 */
async function orders(redis: Frontier, priorityOf: (k: number, depth: number) => number): Promise<[string[], string[]]> {
  const store = new SqliteStore(join(tmpDir(), 'f.db'));
  const sqlite = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 1 });
  const seeds = ['http://h0.test/p0', 'http://h3.test/p10'];
  let k = 0;
  const seedEntries = seeds.map((u) => entry(u, priorityOf(k++, 0)));
  sqlite.add(seedEntries);
  await redis.intake({ adds: seedEntries });
  const a: string[] = [];
  for (let i = 0; i < 300; i++) {
    const n = sqlite.next(0);
    if (n.kind !== 'url') break;
    a.push(n.item.url);
    const fresh = [...new Set(links(n.item.url))].filter((u) => sqlite.lookup([urlHash(u)]).size === 0);
    sqlite.add(fresh.map((u) => entry(u, priorityOf(k++, n.item.depth + 1), { depth: n.item.depth + 1, parentId: n.item.id })));
    sqlite.release(n.item, 0);
  }
  store.close();
  k = seeds.length;
  const b: string[] = [];
  for (let i = 0; i < 300; i++) {
    const l = await claimOne(redis);
    if (!l) break;
    b.push(l.url);
    const cand = [...new Set(links(l.url))];
    const known = await redis.known(cand.map((u) => ({ hash: urlHash(u), host: new URL(u).host })));
    const fresh = cand.filter((u) => !known.has(urlHash(u).toString('hex')));
    await redis.intake({ adds: fresh.map((u) => entry(u, priorityOf(k++, l.depth + 1), { depth: l.depth + 1, parentId: l.id })) });
    expect(await redis.settle(l, { state: 'done' }, Date.now())).toBe(true);
  }
  return [a, b];
}

describe('RedisFrontier', () => {
  it('hands out the same order as the SQLite frontier: breadth-first (all 0, FIFO) and depth-first (newest first)', async () => {
    const bfs = await orders(await testCrawl('bfs').open(), () => 0);
    expect(bfs[1].length).toBeGreaterThan(200);
    expect(bfs[1]).toEqual(bfs[0]);
    const dfs = await orders(await testCrawl('dfs').open(), (k) => k);
    expect(dfs[1].length).toBeGreaterThan(200);
    expect(dfs[1]).toEqual(dfs[0]);
    const byDepth = await orders(await testCrawl('depth').open(), (_k, depth) => -depth);
    expect(byDepth[1]).toEqual(byDepth[0]);
  });

  it('knows URLs once added, reports leased ones IN_FLIGHT and settled ones FETCHED, and counts queued ones', async () => {
    const f = await testCrawl().open();
    const r = await f.intake({ adds: [entry('http://a.test/1', 1, { anchor: 'one', parentId: 7, hops: 2 }), entry('http://a.test/p', 0, { state: UrlState.PRUNED }), entry('http://a.test/1', 1)] });
    expect(r).toEqual({ ids: [1, 2, 1], existing: 1, existingAt: [2] });
    expect(await f.size()).toBe(1);
    const key = (u: string) => ({ hash: urlHash(u), host: new URL(u).host });
    let known = await f.known([key('http://a.test/1'), key('http://a.test/p'), key('http://a.test/none'), key('http://b.test/1')]);
    expect([...known.values()].map((k) => k.state)).toEqual([UrlState.QUEUED, UrlState.PRUNED]);
    const l = (await claimOne(f))!;
    expect(l).toMatchObject({ id: 1, url: 'http://a.test/1', host: 'a.test', anchor: 'one', parentId: 7, hops: 2, priority: 1, life: 3, seq: 1 });
    expect(f.leased()).toBe(1);
    known = await f.known([key('http://a.test/1')]);
    expect(known.get(urlHash('http://a.test/1').toString('hex'))?.state).toBe(UrlState.IN_FLIGHT);
    expect(await f.settle(l, { state: 'done' }, Date.now())).toBe(true);
    expect(f.leased()).toBe(0);
    known = await f.known([key('http://a.test/1')]);
    expect(known.get(urlHash('http://a.test/1').toString('hex'))?.state).toBe(UrlState.FETCHED);
    expect(await f.claim(5, Date.now())).toEqual({ kind: 'empty' });
  });

  it('revives a pruned URL, re-prioritises queued ones only, and requeues a settled retry', async () => {
    const f = await testCrawl().open();
    const { ids } = await f.intake({ adds: [entry('http://a.test/1', 1), entry('http://a.test/2', 2), entry('http://a.test/p', 0, { state: UrlState.PRUNED })] });
    await f.intake({ changes: [{ id: ids[2], hostId: 1, state: UrlState.QUEUED, priority: 5, life: 1 }], updates: [{ id: ids[0], priority: 3 }] });
    expect(await f.size()).toBe(3);
    const got: string[] = [];
    for (let l = await claimOne(f); l; l = await claimOne(f)) {
      got.push(l.url);
      // the first one is retried once
      const retry = got.length === 1;
      expect(await f.settle(l, { state: retry ? 'requeue' : 'done', counted: !retry }, Date.now())).toBe(true);
    }
    expect(got).toEqual(['http://a.test/p', 'http://a.test/p', 'http://a.test/1', 'http://a.test/2']);
  });

  it('ranks a host freed by a settle by its queue as it is then: URLs added, re-prioritised or revived while it was busy', async () => {
    // a.test is busy (its lease out) while its queue changes in each way; once settled, its new best
    // (0.95) must come before b.test's 0.5, and its old best (0.1) after
    const cases: ((f: Frontier, a2: number) => Promise<unknown>)[] = [
      (f) => f.intake({ adds: [entry('http://a.test/3', 0.95)] }),
      (f, a2) => f.intake({ updates: [{ id: a2, priority: 0.95 }] }),
      (f, a2) => f.intake({ changes: [{ id: a2, hostId: 1, priority: 0.95 }] }),
      (f) => f.intake({ changes: [{ id: 4, hostId: 1, state: UrlState.QUEUED, priority: 0.95, life: 1 }] }),
    ];
    for (const change of cases) {
      const f = await testCrawl().open();
      const { ids } = await f.intake({ adds: [entry('http://a.test/1', 0.9), entry('http://a.test/2', 0.1), entry('http://b.test/1', 0.5), entry('http://a.test/p', 0, { state: UrlState.PRUNED })] });
      expect(ids[3]).toBe(4);
      const first = (await claimOne(f))!;
      expect(first.url).toBe('http://a.test/1');
      await change(f, ids[1]);
      expect(await f.settle(first, { state: 'done' }, Date.now())).toBe(true);
      const next = (await claimOne(f))!;
      expect(next.host).toBe('a.test');
      expect(next.priority).toBe(0.95);
    }
  });

  it('keeps a host to its delay on the server clock, whoever claims', async () => {
    const t = testCrawl();
    const f1 = await t.open({ delayMs: 300 });
    const f2 = await t.open({ delayMs: 300 });
    await f1.intake({ adds: [entry('http://a.test/1', 2), entry('http://a.test/2', 2), entry('http://b.test/1', 1)] });
    const c = await f1.claim(10, Date.now());
    expect(c.kind === 'urls' && c.leases.map((l) => l.url)).toEqual(['http://a.test/1', 'http://b.test/1']);
    if (c.kind !== 'urls') return;
    await f1.settle(c.leases[1], { state: 'done' }, Date.now());
    const settledAt = Date.now();
    await f1.settle(c.leases[0], { state: 'done' }, settledAt);
    const asked = Date.now();
    const w = await f2.claim(1, asked);
    expect(w.kind).toBe('wait');
    // until is on the caller's clock: what is left of the delay when the server answered
    if (w.kind === 'wait') expect(w.until - asked).toBeGreaterThan(0);
    if (w.kind === 'wait') expect(w.until - asked).toBeLessThanOrEqual(300);
    let next: Lease | null = null;
    while (!next) {
      next = await claimOne(f2);
      if (!next) await sleep(20);
    }
    expect(next.url).toBe('http://a.test/2');
    expect(Date.now() - settledAt).toBeGreaterThanOrEqual(300);
    // a defer (Retry-After) keeps it longer than its delay
    await f2.settle(next, { state: 'done', deferUntil: Date.now() + 2000 }, Date.now());
    await f2.intake({ adds: [entry('http://a.test/3')] });
    await sleep(400);
    const later = await f1.claim(1, Date.now());
    expect(later.kind).toBe('wait');
  });

  it('serves a URL again when its lease expired, and refuses the late settle of the first holder', async () => {
    const t = testCrawl();
    const f1 = await t.open({ leaseMs: 150 });
    const f2 = await t.open({ leaseMs: 150 });
    await f1.intake({ adds: [entry('http://a.test/1'), entry('http://b.test/1')] });
    const first = (await claimOne(f1))!;
    expect(first.expiresAt).toBeGreaterThan(0);
    const other = (await claimOne(f1))!;
    expect(other.url).toBe('http://b.test/1');
    expect(await claimOne(f2)).toBeNull(); // both hosts leased
    await sleep(200);
    const again = (await claimOne(f2))!;
    expect(again.url).toBe(first.url);
    expect(again.token).not.toBe(first.token);
    const state = async (l: Lease) => (await f2.known([{ hash: urlHash(l.url), host: l.host }])).get(urlHash(l.url).toString('hex'))?.state;
    // leased again (by f2), while b.test's URL is back in its queue
    expect(await state(again)).toBe(UrlState.IN_FLIGHT);
    expect(await state(other)).toBe(UrlState.QUEUED);
    expect(await f1.settle(first, { state: 'done' }, Date.now())).toBe(false);
    // the refused settle changed nothing: still f2's
    expect(await state(again)).toBe(UrlState.IN_FLIGHT);
    expect(await f2.settle(again, { state: 'done' }, Date.now())).toBe(true);
    expect(await state(again)).toBe(UrlState.FETCHED);
    // b.test's lease expired too and went back to the queue; no one took it since: its late settle stands
    expect(await f1.settle(other, { state: 'done' }, Date.now())).toBe(true);
    expect(await state(other)).toBe(UrlState.FETCHED);
    expect(await f2.claim(5, Date.now())).toEqual({ kind: 'empty' });
    const stats = await redisCrawlStats(await t.connect(), t.crawlId);
    expect(stats).toMatchObject({ queued: 0, leased: 0, budgetUsed: 2, hosts: 2, known: 2 });
  });

  it('releases the leases of a client that closes, and of one that died (test hook: expired now)', async () => {
    const t = testCrawl();
    const conn = await t.connect();
    const f1 = await t.open();
    const f2 = await t.open();
    await f1.intake({ adds: [entry('http://a.test/1'), entry('http://b.test/1'), entry('http://c.test/1')] });
    const c = await f1.claim(2, Date.now());
    expect(c.kind === 'urls' && c.leases.length).toBe(2);
    expect((await redisCrawlStats(conn, t.crawlId)).workers.find((w) => w.leased === 2)).toBeTruthy();
    await f1.close();
    expect(await f2.size()).toBe(3);
    const d = await f2.claim(3, Date.now());
    expect(d.kind === 'urls' && d.leases.length).toBe(3);
    expect(await expireLeases(conn, t.crawlId)).toBe(3);
    const e = await f2.claim(3, Date.now());
    expect(e.kind === 'urls' && e.leases.map((l) => l.url).sort()).toEqual(['http://a.test/1', 'http://b.test/1', 'http://c.test/1']);
  });

  it('the worker registry keeps a worker that left, with its last claim and when it left; joining again under its name clears that', async () => {
    const t = testCrawl();
    const conn = await t.connect();
    const f1 = await t.open({ workerId: 'one' });
    const f2 = await t.open({ workerId: 'two' });
    await f1.intake({ adds: [entry('http://a.test/1'), entry('http://b.test/1')] });
    expect((await f1.claim(1, Date.now())).kind).toBe('urls');
    const before = Date.now();
    await f1.close();
    const byName = async () => new Map((await redisCrawlStats(conn, t.crawlId)).workers.map((w) => [w.name, w]));
    const w = await byName();
    expect(w.get('one')!.lastClaimAt).not.toBeNull();
    expect(w.get('one')!.leftAt).toBeGreaterThanOrEqual(before);
    expect(w.get('two')).toMatchObject({ lastClaimAt: null, leftAt: null });
    await t.open({ workerId: 'one' });
    expect((await byName()).get('one')!.leftAt).toBeNull();
  });

  it('queues a URL once when two clients add the same URLs at once', async () => {
    const t = testCrawl();
    const f1 = await t.open();
    const f2 = await t.open();
    const urls = Array.from({ length: 3000 }, (_, i) => entry(`http://h${i % 13}.test/p${i}`, i % 5));
    const [r1, r2] = await Promise.all([f1.intake({ adds: urls }), f2.intake({ adds: [...urls].reverse() })]);
    expect(r1.existing + r2.existing).toBe(3000);
    expect(r1.ids).toEqual([...r2.ids].reverse());
    expect(new Set(r1.ids).size).toBe(3000);
    expect(await f1.size()).toBe(3000);
    const seen = new Set<number>();
    for (;;) {
      const c = await f2.claim(50, Date.now());
      if (c.kind !== 'urls') break;
      for (const l of c.leases) {
        expect(seen.has(l.id)).toBe(false);
        seen.add(l.id);
      }
      await Promise.all(c.leases.map((l) => f2.settle(l, { state: 'done' }, Date.now())));
    }
    expect(seen.size).toBe(3000);
  });

  it('counts the budget across clients: pages in all and per host, a page not counted given back', async () => {
    const t = testCrawl();
    const f1 = await t.open({ maxPages: 10, maxPagesPerHost: 3 });
    const f2 = await t.open({ maxPages: 10, maxPagesPerHost: 3 });
    await f1.intake({ adds: Array.from({ length: 40 }, (_, i) => entry(`http://h${i % 5}.test/p${i}`)) });
    let claimed = 0;
    const perHost = new Map<string, number>();
    for (let i = 0; ; i++) {
      const f = i % 2 === 0 ? f1 : f2;
      const c = await f.claim(3, Date.now());
      if (c.kind === 'budget') break;
      expect(c.kind).toBe('urls');
      if (c.kind !== 'urls') break;
      claimed += c.leases.length;
      for (const l of c.leases) {
        perHost.set(l.host, (perHost.get(l.host) ?? 0) + 1);
        await f.settle(l, { state: 'done' }, Date.now());
      }
    }
    expect(claimed).toBe(10);
    expect(Math.max(...perHost.values())).toBeLessThanOrEqual(3);
    expect(await f2.claim(1, Date.now())).toEqual({ kind: 'budget' });
    // a page that does not count (robots.txt disallowed it) is given back: one more may be fetched
    const t2 = testCrawl();
    const g = await t2.open({ maxPages: 2 });
    await g.intake({ adds: [entry('http://a.test/1'), entry('http://b.test/1'), entry('http://c.test/1')] });
    const two = await g.claim(5, Date.now());
    expect(two.kind === 'urls' && two.leases.length).toBe(2);
    // the budget is spent, but its pages are leased: they may yet not count, so ask again soon
    const full = await g.claim(5, Date.now());
    expect(full.kind).toBe('wait');
    if (full.kind === 'wait') expect(full.until - Date.now()).toBeLessThanOrEqual(250);
    if (two.kind === 'urls') await g.settle(two.leases[0], { state: 'done', counted: false }, Date.now());
    const third = await g.claim(5, Date.now());
    expect(third.kind === 'urls' && third.leases.map((l) => l.url)).toEqual(['http://c.test/1']);
    if (third.kind === 'urls' && two.kind === 'urls') {
      await Promise.all([two.leases[1], third.leases[0]].map((l) => g.settle(l, { state: 'done' }, Date.now())));
    }
    // every lease settled: the budget is spent for good
    expect(await g.claim(5, Date.now())).toEqual({ kind: 'budget' });
  });

  it('with the budget spent, a worker waits while another holds leases, and fetches their URLs if that worker dies', async () => {
    const t = testCrawl();
    const conn = await t.connect();
    const dead = await t.open({ maxPages: 2 }, conn);
    const alive = await t.open({ maxPages: 2 });
    await dead.intake({ adds: [entry('http://a.test/1'), entry('http://b.test/1'), entry('http://c.test/1')] });
    const held = await dead.claim(5, Date.now());
    expect(held.kind === 'urls' && held.leases.length).toBe(2);
    expect((await alive.claim(5, Date.now())).kind).toBe('wait');
    // the first worker dies: its leases expire, their pages go back to the budget and their URLs to the queue
    expect(await expireLeases(conn, t.crawlId)).toBe(2);
    const got = await alive.claim(5, Date.now());
    expect(got.kind === 'urls' && got.leases.map((l) => l.url).sort()).toEqual(held.kind === 'urls' ? held.leases.map((l) => l.url).sort() : []);
    if (got.kind === 'urls') for (const l of got.leases) expect(await alive.settle(l, { state: 'done' }, Date.now())).toBe(true);
    expect(await alive.claim(5, Date.now())).toEqual({ kind: 'budget' });
  });

  it('suspends and defers hosts', async () => {
    const f = await testCrawl().open();
    await f.intake({ adds: [entry('http://a.test/1', 5), entry('http://b.test/1', 1)] });
    await f.suspendHost(await f.hostId('a.test'));
    const l = (await claimOne(f))!;
    expect(l.url).toBe('http://b.test/1');
    await f.settle(l, { state: 'done' }, Date.now());
    expect(await f.claim(1, Date.now())).toEqual({ kind: 'empty' });
    expect(await f.size()).toBe(1);
    await f.intake({ adds: [entry('http://c.test/1')] });
    const c = await f.hostId('c.test');
    expect(await f.hostId('c.test')).toBe(c);
    await expect(f.suspendHost(999)).rejects.toThrow(/no host 999/);
    await f.deferHost(c, Date.now() + 500);
    const asked = Date.now();
    const w = await f.claim(1, asked);
    expect(w.kind).toBe('wait');
    if (w.kind === 'wait') expect(w.until).toBeGreaterThan(asked);
    if (w.kind === 'wait') expect(w.until).toBeLessThanOrEqual(asked + 500);
  });

  it('sends the settles and priority updates made before a claim (or a lookup) with that call, in one script call, as if sent alone', async () => {
    const crawl = testCrawl();
    const conn = await crawl.connect();
    const f = await crawl.open({ perHostConcurrency: 2 }, conn);
    const { ids } = await f.intake({ adds: [entry('http://a.test/1', 3), entry('http://a.test/2', 2), entry('http://a.test/3', 1), entry('http://b.test/1', 0)] });
    const first = await f.claim(2, Date.now());
    expect(first.kind === 'urls' && first.leases.map((l) => l.url)).toEqual(['http://a.test/1', 'http://a.test/2']);
    if (first.kind !== 'urls') return;
    const calls: string[] = [];
    for (const name of ['tcSettle', 'tcClaimBuffer', 'tcIntakeBuffer', 'tcKnownBuffer'] as const) {
      const orig = conn.client[name].bind(conn.client) as (key: string, ...args: (string | number | Buffer)[]) => Promise<unknown>;
      conn.client[name] = (key: string, ...args: (string | number | Buffer)[]) => {
        calls.push(name);
        return orig(key, ...args);
      };
    }
    // in one tick, as the engine does when pages end: the strategy's update, a done and a retry, then a claim
    const now = Date.now();
    const update = f.intake({ updates: [{ id: ids[3], priority: 9 }] });
    const done = f.settle(first.leases[0], { state: 'done' }, now);
    const retry = f.settle(first.leases[1], { state: 'requeue', counted: false }, now);
    const next = await f.claim(2, now);
    expect(calls).toEqual(['tcClaimBuffer']);
    expect(await done).toBe(true);
    expect(await retry).toBe(true);
    expect(await update).toEqual({ ids: [], existing: 0, existingAt: [] });
    expect(f.leased()).toBe(2);
    // b.test/1 was raised above a.test's URLs; a.test/2 is back in its queue, before a.test/3
    expect(next.kind === 'urls' && next.leases.map((l) => l.url)).toEqual(['http://b.test/1', 'http://a.test/2']);
    const then = await f.claim(2, Date.now());
    expect(then.kind === 'urls' && then.leases.map((l) => l.url)).toEqual(['http://a.test/3']);
    // they ride with a lookup too (applied before it: it sees them), or with nothing to ride go on their own
    calls.length = 0;
    if (next.kind !== 'urls' || then.kind !== 'urls') return;
    const settled = [next.leases[0], next.leases[1]].map((l) => f.settle(l, { state: 'done' }, Date.now()));
    const known = await f.known([{ hash: urlHash('http://a.test/2'), host: 'a.test' }]);
    expect(calls).toEqual(['tcKnownBuffer']);
    expect(await Promise.all(settled)).toEqual([true, true]);
    expect(known.get(urlHash('http://a.test/2').toString('hex'))?.state).toBe(UrlState.FETCHED);
    expect(await f.settle(then.leases[0], { state: 'done' }, Date.now())).toBe(true);
    expect(calls).toEqual(['tcKnownBuffer', 'tcSettle']);
    expect(await f.size()).toBe(0);
  });

  it('answers a claim sent again (its reply lost with the connection) as the first time: no lease handed out twice, the budget counted once', async () => {
    const crawl = testCrawl();
    const conn = await crawl.connect();
    const f = await crawl.open({ maxPages: 3 }, conn);
    await f.intake({ adds: [entry('http://a.test/1', 2), entry('http://b.test/1', 1), entry('http://c.test/1', 0)] });
    const prefix = crawlPrefix(crawl.crawlId);
    const base = [prefix, 1, 0, 0, 3];
    const claim = (no: number) => conn.client.tcClaimBuffer(`${prefix}ready`, ...base, 1, 60_000, 77, '', '', no) as Promise<Buffer[]>;
    const first = await claim(1);
    const again = await claim(1);
    expect(again.map(String)).toEqual(first.map(String));
    expect(Number(await conn.client.get(`${prefix}pages`))).toBe(1);
    const next = await claim(2);
    expect(String(next[0])).toBe('urls');
    expect(next[3].equals(first[3])).toBe(false);
    expect(Number(await conn.client.get(`${prefix}pages`))).toBe(2);
    // the frontier numbers its claims: two claims in a row are two
    const c = await f.claim(5, Date.now());
    expect(c.kind === 'urls' && c.leases.map((l) => l.url)).toEqual(['http://c.test/1']);
    // the budget is spent (its three pages leased, not yet settled)
    expect((await f.claim(5, Date.now())).kind).toBe('wait');
    expect(Number(await conn.client.get(`${prefix}pages`))).toBe(3);
  });

  it('with records committed in groups: a done lease frees its host at once, is done once its record is durable, and is served again if it never is', async () => {
    const crawl = testCrawl();
    const conn = await crawl.connect();
    let commit!: () => void;
    let committed = new Promise<void>((r) => (commit = r));
    const f = await crawl.open({ maxPages: 10, beforeSettle: () => committed }, conn);
    await f.intake({ adds: [entry('http://a.test/1', 2), entry('http://a.test/2', 1)] });
    const key = { hash: urlHash('http://a.test/1'), host: 'a.test' };
    const first = (await claimOne(f))!;
    expect(first.url).toBe('http://a.test/1');
    expect(await f.claim(1, Date.now())).toMatchObject({ kind: 'wait' }); // one lease per host
    const done = f.settle(first, { state: 'done' }, Date.now());
    // released with the next claim: the host is free, the page not yet done
    const second = (await claimOne(f))!;
    expect(second.url).toBe('http://a.test/2');
    expect((await f.known([key])).get(key.hash.toString('hex'))?.state).toBe(UrlState.IN_FLIGHT);
    expect((await redisCrawlStats(conn, crawl.crawlId)).leased).toBe(2);
    // the confirmation is written as soon as the commit's microtasks have run: not after a timer, nor
    // with the next call (a worker killed in between leaves a page recorded whose lease expires)
    const calls: string[] = [];
    const run = conn.run.bind(conn);
    conn.run = ((what: string, fn: Parameters<typeof conn.run>[1]) => {
      calls.push(what);
      return run(what, fn);
    }) as typeof conn.run;
    const stream = (conn.client as unknown as { stream: import('node:net').Socket }).stream;
    commit();
    for (let i = 0; i < 20 && !calls.includes('settle'); i++) await Promise.resolve();
    expect(calls).toEqual(['settle']);
    expect(stream.writableCorked).toBe(0); // written, not held for the loop's next turn
    conn.run = run;
    expect(await done).toBe(true);
    expect((await f.known([key])).get(key.hash.toString('hex'))?.state).toBe(UrlState.FETCHED);
    // the next record is never committed (the worker dies): its released lease expires, the URL comes back, its page is given back
    committed = new Promise<void>(() => undefined);
    void f.settle(second, { state: 'done' }, Date.now());
    expect(await f.claim(1, Date.now())).toMatchObject({ kind: 'wait' }); // carries the release; nothing else queued
    expect(Number(await conn.client.get(`${crawlPrefix(crawl.crawlId)}pages`))).toBe(2);
    const held = `${crawlPrefix(crawl.crawlId)}held`;
    const members = await conn.client.zrangeBuffer(held, '0', '-1');
    expect(members).toHaveLength(1);
    await conn.client.call('ZADD', held, '0', members[0]);
    const again = (await claimOne(f))!;
    expect(again.url).toBe('http://a.test/2');
    expect(Number(await conn.client.get(`${crawlPrefix(crawl.crawlId)}pages`))).toBe(2);
  });
  it('keeps a released lease held until its own expiry when its release is sent again, and confirms it done once', async () => {
    const crawl = testCrawl();
    const conn = await crawl.connect();
    const f = await crawl.open({}, conn);
    await f.intake({ adds: [entry('http://a.test/1', 1)] });
    const lease = (await claimOne(f))!;
    const prefix = crawlPrefix(crawl.crawlId);
    const settle = (what: 0 | 1 | 2) => settleRaw(conn, crawl.crawlId, lease, what);
    const held = async () => (await conn.client.zrange(`${prefix}held`, '0', '-1', 'WITHSCORES')).filter((_, i) => i % 2 === 1).map(Number);
    expect(await settle(SETTLE_RELEASE)).toEqual([1]);
    const [expiry] = await held();
    expect(expiry).toBeGreaterThan(Date.now());
    expect(await settle(SETTLE_RELEASE)).toEqual([1]);
    expect(await held()).toEqual([expiry]);
    expect(await settle(SETTLE_DONE)).toEqual([1]);
    expect(await held()).toEqual([]);
    const key = { hash: urlHash('http://a.test/1'), host: 'a.test' };
    expect((await f.known([key])).get(key.hash.toString('hex'))?.state).toBe(UrlState.FETCHED);
  });

  it('serves a released lease\'s URL again when it is then requeued, its host having nothing else queued', async () => {
    const crawl = testCrawl();
    const conn = await crawl.connect();
    const f = await crawl.open({}, conn);
    await f.intake({ adds: [entry('http://a.test/1', 1)] });
    const lease = (await claimOne(f))!;
    const settle = (what: 0 | 1 | 2) => settleRaw(conn, crawl.crawlId, lease, what, false);
    // released: the host is freed with nothing queued, so it leaves `ready`; then the page is put back
    expect(await settle(SETTLE_RELEASE)).toEqual([1]);
    expect(await settle(SETTLE_REQUEUE)).toEqual([1]);
    const again = await claimOne(f);
    expect(again?.url).toBe('http://a.test/1');
  });

  it('answers a done or a requeue sent again as the first time, and refuses a lease that expired and was served again', async () => {
    const crawl = testCrawl();
    const conn = await crawl.connect();
    const f = await crawl.open({ leaseMs: 150 }, conn);
    await f.intake({ adds: [entry('http://a.test/1', 2), entry('http://b.test/1', 1)] });
    const a = (await claimOne(f))!;
    const b = (await claimOne(f))!;
    // (a requeue gives its page back, as the engine's do)
    const settle = (l: Lease, what: 0 | 1 | 2) => settleRaw(conn, crawl.crawlId, l, what, what !== SETTLE_REQUEUE);
    const state = async (l: Lease) => (await f.known([{ hash: urlHash(l.url), host: l.host }])).get(urlHash(l.url).toString('hex'))?.state;
    expect(await state(a)).toBe(UrlState.IN_FLIGHT);
    expect(await settle(a, SETTLE_DONE)).toEqual([1]);
    expect(await state(a)).toBe(UrlState.FETCHED);
    expect(await settle(a, SETTLE_DONE)).toEqual([1]);
    expect(await state(a)).toBe(UrlState.FETCHED);
    expect(await settle(b, SETTLE_REQUEUE)).toEqual([1]);
    expect(await state(b)).toBe(UrlState.QUEUED);
    // (its URL back in its queue, taken by no one since: it stands)
    expect(await settle(b, SETTLE_REQUEUE)).toEqual([1]);
    // served again, and let expire: the late done of that lease is refused once another holds the URL
    const again = (await claimOne(f))!;
    expect(again.url).toBe(b.url);
    await sleep(200);
    const third = (await claimOne(f))!;
    expect(third.url).toBe(b.url);
    expect(await settle(again, SETTLE_DONE)).toEqual([0]);
    expect(await state(third)).toBe(UrlState.IN_FLIGHT);
    expect(await settle(third, SETTLE_DONE)).toEqual([1]);
    expect(await state(third)).toBe(UrlState.FETCHED);
    expect(await settle(again, SETTLE_DONE)).toEqual([0]);
    const stats = await redisCrawlStats(conn, crawl.crawlId);
    expect(stats).toMatchObject({ queued: 0, leased: 0, budgetUsed: 2 });
  });

  it('names a host by its id once it learnt it (from an intake or a lease), and by its name again when the server lost the crawl', async () => {
    const crawl = testCrawl();
    const conn = await crawl.connect();
    const f = await crawl.open({}, conn);
    await f.intake({ adds: [entry('http://a.test/1', 1)] });
    const lease = (await claimOne(f))!;
    expect(lease.host).toBe('a.test');
    const sent: Buffer[] = [];
    const orig = conn.client.tcIntakeBuffer.bind(conn.client);
    conn.client.tcIntakeBuffer = (key: string, ...args: (string | number | Buffer)[]) => {
      sent.push(args[5] as Buffer);
      return orig(key, ...args);
    };
    // a.test is known by id; c.test is new: by name
    await f.intake({ adds: [entry('http://a.test/2', 2), entry('http://c.test/1', 1)] });
    expect(sent).toHaveLength(1);
    expect(sent[0].includes('a.test')).toBe(false);
    expect(sent[0].includes('c.test')).toBe(true);
    expect(await f.settle(lease, { state: 'done' }, Date.now())).toBe(true);
    const c = await f.claim(2, Date.now());
    expect(c.kind === 'urls' && c.leases.map((l) => [l.url, l.host])).toEqual([['http://a.test/2', 'a.test'], ['http://c.test/1', 'c.test']]);
    // the server loses the crawl's keys: host ids and URL ids of the old epoch are refused, nothing
    // done, the adds go again by name and take the server's ids (a new host too: its id was reserved)
    await deleteCrawl(conn, crawl.crawlId);
    sent.length = 0;
    expect((await f.intake({ adds: [entry('http://z.test/1', 0)] })).ids).toEqual([1]);
    expect(sent).toHaveLength(2);
    sent.length = 0;
    const { ids } = await f.intake({ adds: [entry('http://c.test/2', 0), entry('http://a.test/3', 5)] });
    expect(new Set([1, ...ids]).size).toBe(3);
    expect(sent).toHaveLength(1);
    expect(sent[0].includes('c.test') && sent[0].includes('a.test')).toBe(true);
    expect(await f.size()).toBe(3);
    const again = await f.claim(3, Date.now());
    expect(again.kind === 'urls' && again.leases.map((l) => [l.url, l.host])).toEqual([
      ['http://a.test/3', 'a.test'], ['http://z.test/1', 'z.test'], ['http://c.test/2', 'c.test'],
    ]);
  });
  it('keeps every field of an add exactly as given (the record is encoded by the client, the id by the script)', async () => {
    const crawl = testCrawl();
    const f = await crawl.open();
    const cases: NewUrl[] = [
      entry('http://a.test/x?q=1', 0.1, { depth: 0, life: 3, hops: 0, anchor: 'é'.repeat(40), inlinks: 2, inlinkScore: 0.5 }),
      entry('https://b.test/', -3, { depth: 200, life: -1, hops: 70000, parentId: 5e9, anchor: 'a'.repeat(300), inlinks: 1e6, inlinkScore: 1.5e300 }),
      entry('http://c.test:8080/p', 2 ** 40 + 0.25, { depth: 7, life: 2.5, hops: 3, parentId: 255, anchor: '', inlinks: -1, inlinkScore: -0.75 }),
      { ...entry('http://d.test/p', 1e-9, { depth: 1, anchor: null }), url: 'http://d.test/p' },
    ];
    const { ids } = await f.intake({ adds: cases });
    const known = await f.known(cases.map((u) => ({ hash: u.hash, host: u.host })));
    const got: Lease[] = [];
    for (;;) {
      const c = await f.claim(10, Date.now());
      if (c.kind !== 'urls') break;
      got.push(...c.leases);
      for (const l of c.leases) await f.settle(l, { state: 'done' }, Date.now());
    }
    expect(got).toHaveLength(cases.length);
    cases.forEach((u, i) => {
      const k = known.get(u.hash.toString('hex'))!;
      expect(k).toMatchObject({ id: ids[i], depth: u.depth, priority: u.priority, life: u.life, inlinks: u.inlinks ?? 0, inlinkScore: u.inlinkScore ?? 0 });
      const l = got.find((x) => x.id === ids[i])!;
      expect(l).toMatchObject({ url: u.url, host: u.host, depth: u.depth, priority: u.priority, life: u.life, hops: u.hops ?? 0, parentId: u.parentId, anchor: u.anchor });
    });
  });
});
