import fc from 'fast-check';
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FrontierItem } from '../../src/frontier/frontier.js';
import { RunStore } from '../../src/frontier/run-store.js';
import { SeenIndex } from '../../src/frontier/seen-index.js';
import { SqliteFrontier } from '../../src/frontier/sqlite-frontier.js';
import { UrlState } from '../../src/frontier/url-state.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { urlHash } from '../../src/url/url-hash.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * The frontier keeps each host's best URLs in memory and the rest on disk as sorted runs, with
 * entries left stale by priority changes dropped lazily. Whatever happens, it must hand out exactly
 * what a plain ORDER BY over the `urls` table says: the best queued URL (priority desc, seq asc)
 * among the host's URLs not in flight. Small fronts and a tiny run buffer force every path (spills,
 * merges, refills, stale entries) within a few dozen operations.
 */
type Op =
  | { kind: 'add'; n: number; host: number; prio: number[] }
  | { kind: 'update'; pick: number; prio: number }
  | { kind: 'prune'; pick: number }
  | { kind: 'revive'; pick: number; prio: number }
  | { kind: 'bulk'; picks: number[]; prio: number }
  | { kind: 'next' }
  | { kind: 'record' }
  | { kind: 'requeue' }
  | { kind: 'reopen' };

const prio = fc.integer({ min: 0, max: 6 }).map((p) => p / 2);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), n: fc.integer({ min: 1, max: 12 }), host: fc.integer({ min: 0, max: 2 }), prio: fc.array(prio, { minLength: 12, maxLength: 12 }) }),
  fc.record({ kind: fc.constant('update' as const), pick: fc.nat(), prio }),
  fc.record({ kind: fc.constant('prune' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('revive' as const), pick: fc.nat(), prio }),
  fc.record({ kind: fc.constant('bulk' as const), picks: fc.array(fc.nat(), { maxLength: 8 }), prio }),
  fc.constant({ kind: 'next' as const }),
  fc.constant({ kind: 'next' as const }),
  fc.constant({ kind: 'record' as const }),
  fc.constant({ kind: 'requeue' as const }),
  fc.constant({ kind: 'reopen' as const }),
);

function run(ops: Op[], dir: string): void {
  const store = new SqliteStore(join(dir, `f${Math.random().toString(36).slice(2)}.db`), { commitEveryMs: 0 });
  const opts = { delayMs: 0, perHostConcurrency: 3, candidatesPerHost: 2, runBuffer: 5 };
  let f = new SqliteFrontier(store.db, opts);
  let urlN = 0;
  const inFlight: FrontierItem[] = [];
  const best = store.db.prepare('SELECT id FROM urls WHERE host_id = ? AND state = 0 ORDER BY priority DESC, seq');
  const byState = store.db.prepare('SELECT id, host_id AS hostId FROM urls WHERE state = ? ORDER BY id');
  const pick = <T>(xs: T[], i: number): T | undefined => (xs.length ? xs[i % xs.length] : undefined);
  try {
    for (const o of ops) {
      store.transaction(() => {
        if (o.kind === 'add') {
          const entries = Array.from({ length: o.n }, (_, i) => {
            const url = `http://h${o.host}.test/${urlN++}`;
            return { hash: urlHash(url), url, host: `h${o.host}.test`, depth: 1, priority: o.prio[i], life: 2, parentId: null, anchor: null };
          });
          f.add(entries);
        } else if (o.kind === 'update' || o.kind === 'prune' || o.kind === 'revive') {
          const want = o.kind === 'revive' ? UrlState.PRUNED : UrlState.QUEUED;
          // link intake changes only URLs that are queued (not in flight) or pruned
          const flying = new Set(inFlight.map((i) => i.id));
          const u = pick((byState.all(want) as { id: number; hostId: number }[]).filter((x) => !flying.has(x.id)), o.pick);
          if (!u) return;
          if (o.kind === 'update') f.update([{ id: u.id, hostId: u.hostId, priority: o.prio }]);
          if (o.kind === 'prune') f.update([{ id: u.id, hostId: u.hostId, state: UrlState.PRUNED }]);
          if (o.kind === 'revive') f.update([{ id: u.id, hostId: u.hostId, state: UrlState.QUEUED, priority: o.prio }]);
        } else if (o.kind === 'bulk') {
          const queued = byState.all(UrlState.QUEUED) as { id: number }[];
          f.reprioritize(o.picks.map((p) => pick(queued, p)).filter((u) => u !== undefined).map((u) => ({ id: u.id, priority: o.prio })));
        } else if (o.kind === 'next') {
          const r = f.next(0);
          if (r.kind !== 'url') return;
          const flying = new Set(inFlight.map((i) => i.id));
          const expected = (best.all(r.item.hostId) as { id: number }[]).find((x) => !flying.has(x.id));
          expect(r.item.id).toBe(expected?.id);
          inFlight.push(r.item);
        } else if (o.kind === 'record' || o.kind === 'requeue') {
          const item = inFlight.shift();
          if (!item) return;
          if (o.kind === 'record') store.recordOutcome({
            urlId: item.id, state: UrlState.FETCHED, status: 200, error: null, relevance: null, relevant: null, contentHash: null,
            fetchedAt: 0, fetchSeq: store.nextFetchSeq(), fetchPriority: item.priority,
          });
          else f.requeue(item);
          f.release(item, 0);
        } else {
          // a stop and a resume: handed-out URLs without an outcome go back to the queue
          inFlight.length = 0;
          f.close();
          f = new SqliteFrontier(store.db, opts);
        }
      });
      const queued = (store.db.prepare('SELECT COUNT(*) AS n FROM urls WHERE state = 0').get() as { n: number }).n;
      expect(f.size()).toBe(queued - inFlight.length);
    }
    // drained, everything queued comes out exactly once
    for (const item of inFlight.splice(0)) {
      f.requeue(item);
      f.release(item, 0);
    }
    const seen = new Set<number>();
    for (let r = f.next(0); r.kind === 'url'; r = f.next(0)) {
      expect(seen.has(r.item.id)).toBe(false);
      seen.add(r.item.id);
      f.requeue(r.item); // keep it queued so the next pick must skip it as in flight
      f.release(r.item, 0);
      store.recordOutcome({
        urlId: r.item.id, state: UrlState.FETCHED, status: 200, error: null, relevance: null, relevant: null, contentHash: null,
        fetchedAt: 0, fetchSeq: store.nextFetchSeq(), fetchPriority: r.item.priority,
      });
    }
    expect((store.db.prepare('SELECT COUNT(*) AS n FROM urls WHERE state = 0').get() as { n: number }).n).toBe(0);
  } finally {
    f.close();
    store.close();
  }
}

describe('frontier queues: memory fronts and on-disk runs', () => {
  it('always hands out the best queued URL of the host, through adds, priority changes, prunes, revivals, bulk reprioritising, retries and reopens', () => {
    const dir = tmpDir();
    fc.assert(fc.property(fc.array(op, { minLength: 10, maxLength: 80 }), (ops) => run(ops, dir)), { numRuns: 150 });
  });
});

describe('RunStore', () => {
  it('gives a host its best entries in order, keeps the rest, and drops what the caller rejects', () => {
    const rs = new RunStore('', 1, 3); // spills every 3 entries
    try {
      const ps = [0.5, 2, 1, 2, 0.5, 3, 1];
      ps.forEach((priority, i) => rs.push(7, priority, i + 1, i + 1));
      rs.push(8, 9, 100, 100);
      expect(rs.count(7)).toBe(7);
      const first = rs.take(7, 3, (id) => id === 6);
      expect(first.map((c) => c.id)).toEqual([2, 4, 3]); // 6 rejected; ties by seq
      expect(rs.count(7)).toBe(3);
      expect(rs.take(7, 10, () => false).map((c) => c.id)).toEqual([7, 1, 5]);
      expect(rs.count(7)).toBe(0);
      expect(rs.take(8, 1, () => false).map((c) => c.priority)).toEqual([9]);
    } finally {
      rs.close();
    }
  });
});

describe('SeenIndex', () => {
  it('finds every id added under its hash, across growth, and nothing for unknown hashes', () => {
    const idx = new SeenIndex();
    const n = 20_000;
    for (let i = 1; i <= n; i++) idx.add(urlHash(`http://x.test/${i}`), i);
    expect(idx.size).toBe(n);
    for (let i = 1; i <= n; i += 97) {
      const out: number[] = [];
      idx.find(urlHash(`http://x.test/${i}`), out);
      expect(out).toContain(i);
    }
    let falseHits = 0;
    for (let i = 0; i < 5000; i++) {
      const out: number[] = [];
      idx.find(urlHash(`http://y.test/${i}`), out);
      falseHits += out.length;
    }
    expect(falseHits).toBe(0); // 32-bit fingerprints: a collision among these is a 1-in-40,000 event
  });

  it('keeps colliding fingerprints apart: both ids come back', () => {
    const idx = new SeenIndex();
    const h = urlHash('http://a.test/');
    const twin = Buffer.from(h);
    twin[15] ^= 0xff; // same first four bytes, another URL
    idx.add(h, 1);
    idx.add(twin, 2);
    const out: number[] = [];
    idx.find(h, out);
    expect(out.sort()).toEqual([1, 2]);
  });
});

describe('reopening a file', () => {
  it('rebuilds the seen-index from stored fingerprints, and from the hash for rows written before urls.fp existed', () => {
    const dir = tmpDir();
    const path = join(dir, 'old.db');
    const urls = Array.from({ length: 50 }, (_, i) => `http://h${i % 3}.test/${i}`);
    let store = new SqliteStore(path, { commitEveryMs: 0 });
    let f = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 1 });
    // priorities with all 53 bits in use: the rebuild must read them back exactly, or it would take the
    // queue's entries for stale ones and drop them
    const prio = (i: number) => Math.sin(i + 1) / 3;
    store.transaction(() => f.add(urls.map((url, i) => ({ hash: urlHash(url), url, host: new URL(url).host, depth: 0, priority: prio(i), life: 1, parentId: null, anchor: null }))));
    f.close();
    store.db.prepare('UPDATE urls SET fp = NULL WHERE id % 2 = 0').run(); // as an older release left them
    store.close();
    store = new SqliteStore(path, { commitEveryMs: 0 });
    f = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 1 });
    try {
      const found = f.lookup(urls.map((u) => urlHash(u)));
      expect(found.size).toBe(urls.length);
      expect(f.lookup([urlHash('http://h0.test/new')]).size).toBe(0);
      expect(f.size()).toBe(urls.length);
      const out: number[] = [];
      for (let r = f.next(0); r.kind === 'url'; r = f.next(0)) {
        out.push(r.item.priority);
        f.requeue(r.item);
        f.release(r.item, 0);
        store.recordOutcome({
          urlId: r.item.id, state: UrlState.FETCHED, status: 200, error: null, relevance: null, relevant: null, contentHash: null,
          fetchedAt: 0, fetchSeq: store.nextFetchSeq(), fetchPriority: r.item.priority,
        });
      }
      expect(out.sort()).toEqual(urls.map((_, i) => prio(i)).sort());
    } finally {
      f.close();
      store.close();
    }
  });
});

describe('snapshot of the queues at a clean stop', () => {
  const add = (f: SqliteFrontier, store: SqliteStore, from: number, n: number) =>
    store.transaction(() =>
      f.add(Array.from({ length: n }, (_, k) => {
        const i = from + k;
        const url = `http://h${i % 5}.test/${i}`;
        return { hash: urlHash(url), url, host: `h${i % 5}.test`, depth: 1, priority: Math.cos(i) / 7, life: 1, parentId: null, anchor: null };
      })),
    );
  const record = (store: SqliteStore, item: FrontierItem) =>
    store.transaction(() => store.recordOutcome({
      urlId: item.id, state: UrlState.FETCHED, status: 200, error: null, relevance: null, relevant: null, contentHash: null,
      fetchedAt: 0, fetchSeq: store.nextFetchSeq(), fetchPriority: item.priority,
    }));
  const drain = (f: SqliteFrontier, store: SqliteStore): number[] => {
    const out: number[] = [];
    for (let r = f.next(0); r.kind === 'url'; r = f.next(0)) {
      out.push(r.item.id);
      record(store, r.item);
      f.release(r.item, 0);
    }
    return out;
  };

  it('is read on the next open and gives exactly the queues a rebuild gives, handed-out URLs included', () => {
    const dir = tmpDir();
    const path = join(dir, 'c.db');
    let store = new SqliteStore(path, { commitEveryMs: 0 });
    let f = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 2, runBuffer: 7 });
    add(f, store, 0, 200);
    store.transaction(() => f.update([{ id: 3, hostId: 4, priority: 5 }, { id: 10, hostId: 1, priority: -1 }]));
    const r1 = f.next(0);
    const r2 = f.next(0);
    const r3 = f.next(0);
    if (r1.kind !== 'url' || r2.kind !== 'url' || r3.kind !== 'url') throw new Error('nothing queued');
    record(store, r1.item);
    f.release(r1.item, 0);
    f.release(r2.item, 0); // released without an outcome: IN_FLIGHT on disk
    // r3 still in flight at the stop
    f.close();
    store.close();
    expect(existsSync(`${path}-queues`)).toBe(true);
    copyFileSync(path, join(dir, 'copy.db')); // the same crawl file without its saved queues

    store = new SqliteStore(path, { commitEveryMs: 0 });
    f = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 2, runBuffer: 7 });
    const copyStore = new SqliteStore(join(dir, 'copy.db'), { commitEveryMs: 0 });
    const rebuilt = new SqliteFrontier(copyStore.db, { delayMs: 0, perHostConcurrency: 2, runBuffer: 7 });
    try {
      expect(f.openedFrom).toBe('snapshot');
      expect(rebuilt.openedFrom).toBe('rebuild');
      expect(f.size()).toBe(199);
      expect(f.size()).toBe(rebuilt.size());
      expect(f.lookup([urlHash('http://h3.test/3')]).size).toBe(1);
      add(f, store, 200, 20);
      add(rebuilt, copyStore, 200, 20);
      expect(drain(f, store)).toEqual(drain(rebuilt, copyStore));
    } finally {
      f.close();
      rebuilt.close();
      store.close();
      copyStore.close();
    }
  });

  it('serves one open only: after a crash the next open rebuilds, and nothing is lost', () => {
    const dir = tmpDir();
    const path = join(dir, 'c.db');
    let store = new SqliteStore(path, { commitEveryMs: 0 });
    let f = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 1, runBuffer: 7 });
    add(f, store, 0, 50);
    f.close();
    store.close();
    store = new SqliteStore(path, { commitEveryMs: 0 });
    f = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 1, runBuffer: 7 });
    expect(f.openedFrom).toBe('snapshot');
    add(f, store, 50, 10);
    const r = f.next(0); // handed out, then the process dies: no close()
    if (r.kind !== 'url') throw new Error('nothing queued');
    // what a killed process leaves: the queues file as it was, unsaved, and no handle on it (a live
    // handle in this process would share SQLite's file locks with the next open)
    (f as unknown as { runs: { db: { close(): void } } }).runs.db.close();
    expect(existsSync(`${path}-queues`)).toBe(true);
    store.close();
    store = new SqliteStore(path, { commitEveryMs: 0 });
    f = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 1, runBuffer: 7 });
    try {
      expect(f.openedFrom).toBe('rebuild');
      expect(f.size()).toBe(60);
      expect(new Set(drain(f, store)).size).toBe(60);
    } finally {
      f.close();
      store.close();
    }
  });
});
