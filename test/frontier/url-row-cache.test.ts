import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/eval/prng.js';
import type { FrontierItem, KnownUrl, NewUrl } from '../../src/frontier/frontier.js';
import { SqliteFrontier } from '../../src/frontier/sqlite-frontier.js';
import { UrlRowCache, type CachedRow } from '../../src/frontier/url-row-cache.js';
import { RowColumns } from '../../src/frontier/row-columns.js';
import { UrlState } from '../../src/frontier/url-state.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { urlHash } from '../../src/url/url-hash.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * The frontier's row cache (url-row-cache.ts) must never disagree with the `urls` table: a lookup
 * answered from it must be what a read of the file gives, whatever happened in between (adds,
 * changes, reprioritisations, hand-outs, outcomes written by the store, releases).
 */

function row(id: number, over: Partial<CachedRow> = {}): CachedRow {
  return { hashHex: urlHash(`http://a.test/${id}`).toString('hex'), id, hostId: 1, state: UrlState.QUEUED, depth: 1, priority: 0.5, life: 3, inlinks: 1, inlinkScore: 0.1, seq: id, ...over };
}

describe('UrlRowCache', () => {
  it('applies only the fields a change writes, and forgets on request', () => {
    const c = new UrlRowCache(10);
    c.put(row(1));
    c.apply({ id: 1, hostId: 1, priority: 0.9, inlinks: 4 });
    expect(c.get(1)).toMatchObject({ priority: 0.9, inlinks: 4, life: 3, state: UrlState.QUEUED, inlinkScore: 0.1 });
    c.setPriority(1, 0.2);
    expect(c.queueKey(1)).toEqual({ id: 1, host_id: 1, state: UrlState.QUEUED, priority: 0.2, seq: 1 });
    c.apply({ id: 2, hostId: 1, priority: 1 }); // not cached: nothing to do
    expect(c.get(2)).toBeUndefined();
    c.forget(1);
    expect(c.get(1)).toBeUndefined();
  });

  it('keeps two generations: a row used in the old one moves to the young one; rows unused for a generation are dropped', () => {
    const c = new UrlRowCache(6); // generations of 3
    for (let id = 1; id <= 3; id++) c.put(row(id));
    c.put(row(2, { priority: 0.7 })); // a row already held: no turnover
    expect(c.size).toBe(3);
    c.put(row(4)); // the young generation is full: {1, 2, 3} become the old one
    expect(c.size).toBe(4);
    expect(c.get(1)?.id).toBe(1); // moves to the young one: {4, 1}
    c.put(row(5)); // young {4, 1, 5}, old {2, 3}
    c.put(row(6)); // turnover: old {4, 1, 5}, young {6}; 2 and 3, unused, are dropped
    expect(c.get(2)).toBeUndefined();
    expect(c.get(3)).toBeUndefined();
    expect(c.get(1)?.id).toBe(1);
    c.apply({ id: 4, hostId: 1, priority: 0.9 }); // a change finds a row of the old generation
    expect(c.get(4)?.priority).toBe(0.9);
    c.setPriority(5, 0.1);
    expect(c.queueKey(5)?.priority).toBe(0.1);
    c.forget(5);
    expect(c.get(5)).toBeUndefined();
    expect(c.size).toBe(3); // {6, 1, 4}
    c.put(row(7));
    c.put(row(8)); // turnover: old {6, 1, 4} (or what is left of it), young {7, 8}
    c.forget(1); // a row of either generation is forgotten
    c.forget(8);
    expect(c.get(1)).toBeUndefined();
    expect(c.get(8)).toBeUndefined();
  });
});

/** What the file says a lookup of `hashes` should answer (the frontier's rule for URLs in flight applied). */
function fromFile(store: SqliteStore, hashes: Buffer[], inFlight: Set<number>): Map<string, KnownUrl> {
  const out = new Map<string, KnownUrl>();
  const st = store.db.prepare('SELECT id, host_id, state, depth, priority, life, inlinks, inlink_score FROM urls WHERE hash = ?');
  for (const h of hashes) {
    const r = st.get(h) as { id: number; host_id: number; state: number; depth: number; priority: number; life: number; inlinks: number; inlink_score: number } | undefined;
    if (!r) continue;
    const state = (r.state === UrlState.QUEUED && inFlight.has(r.id) ? UrlState.IN_FLIGHT : r.state) as UrlState;
    out.set(h.toString('hex'), { id: r.id, hostId: r.host_id, state, depth: r.depth, priority: r.priority, life: r.life, inlinks: r.inlinks, inlinkScore: r.inlink_score });
  }
  return out;
}

describe('the frontier with its row cache', () => {
  it('answers every lookup as the file does, through random adds, changes, hand-outs and outcomes (a model check)', () => {
    const rng = mulberry32(7);
    const store = new SqliteStore(join(tmpDir(), 'c.db'));
    // a small front and run buffer: queues move between memory and disk too; a small row cache:
    // its generations turn over all the time
    const frontier = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 2, candidatesPerHost: 2, runBuffer: 16, rowCache: 24 });
    const hosts = ['a', 'b', 'c', 'd'].map((h) => `${h}.test`);
    const urls: string[] = [];
    const ids = new Map<string, number>();
    const inFlight = new Map<number, FrontierItem>();
    const outcome = store.db.prepare('UPDATE urls SET state = ?, fetch_seq = ? WHERE id = ?');
    let seq = 1;
    let checked = 0;
    const entry = (u: string, state: UrlState = UrlState.QUEUED): NewUrl => ({
      hash: urlHash(u), url: u, host: new URL(u).host, depth: 1, priority: Math.round(rng.next() * 20) / 20, life: 3, parentId: null, anchor: null,
      inlinks: 1, inlinkScore: rng.next(), state,
    });
    for (let step = 0; step < 3000; step++) {
      const op = rng.next();
      if (op < 0.25 || urls.length < 10) {
        // new URLs (some pruned), as a page's intake adds them
        const batch: NewUrl[] = [];
        for (let i = 0; i < 1 + Math.floor(rng.next() * 5); i++) {
          const u = `http://${rng.pick(hosts)}/${urls.length + batch.length}`;
          batch.push(entry(u, rng.next() < 0.2 ? UrlState.PRUNED : UrlState.QUEUED));
        }
        frontier.add(batch).forEach((id, i) => {
          urls.push(batch[i].url);
          ids.set(batch[i].url, id);
        });
      } else if (op < 0.5) {
        // changes of known URLs, as the intake writes them: counters, priority, life, revival
        const changes = Array.from({ length: 1 + Math.floor(rng.next() * 6) }, () => {
          const id = ids.get(rng.pick(urls))!;
          return {
            id, hostId: 0,
            inlinks: Math.floor(rng.next() * 9),
            ...(rng.next() < 0.5 ? { inlinkScore: rng.next() } : {}),
            ...(rng.next() < 0.5 ? { priority: Math.round(rng.next() * 20) / 20, life: 2 } : {}),
            ...(rng.next() < 0.2 ? { state: UrlState.QUEUED } : {}),
          };
        });
        frontier.update(changes);
      } else if (op < 0.6) {
        frontier.reprioritize(Array.from({ length: 1 + Math.floor(rng.next() * 6) }, () => ({ id: ids.get(rng.pick(urls))!, priority: rng.next() })));
      } else if (op < 0.8) {
        const n = frontier.next(step);
        if (n.kind === 'url') inFlight.set(n.item.id, n.item);
      } else if (inFlight.size > 0) {
        // an outcome: the store writes the row, then the frontier hears of the release (or a release
        // without an outcome, which sets the URL aside)
        const item = [...inFlight.values()][Math.floor(rng.next() * inFlight.size)];
        inFlight.delete(item.id);
        const recorded = rng.next() < 0.9;
        if (recorded) outcome.run(rng.next() < 0.8 ? UrlState.FETCHED : UrlState.FAILED, seq++, item.id);
        frontier.release(item, step, recorded);
      }
      // a lookup of a few known URLs and an unknown one, against the file
      const asked = Array.from({ length: 4 }, () => urlHash(rng.pick(urls)));
      asked.push(urlHash(`http://nowhere.test/${step}`));
      const before = store.db.prepare('SELECT COUNT(*) AS n FROM urls').get() as { n: number };
      const got = frontier.lookup(asked);
      expect(got).toEqual(fromFile(store, asked, new Set(inFlight.keys())));
      expect((store.db.prepare('SELECT COUNT(*) AS n FROM urls').get() as { n: number }).n).toBe(before.n);
      checked += got.size;
    }
    expect(checked).toBeGreaterThan(10_000);
    // and the queues still hand out every queued URL once, the way the file says
    for (const item of inFlight.values()) frontier.release(item, 1e9, false);
    const queued = new Set((store.db.prepare('SELECT id FROM urls WHERE state = ?').all(UrlState.QUEUED) as { id: number }[]).map((r) => r.id));
    const handed = new Set<number>();
    for (let t = 1e9; ; t++) {
      const n = frontier.next(t);
      if (n.kind !== 'url') break;
      expect(handed.has(n.item.id)).toBe(false);
      handed.add(n.item.id);
      outcome.run(UrlState.FETCHED, seq++, n.item.id);
      frontier.release(n.item, t, true);
    }
    expect(handed).toEqual(queued);
    frontier.close();
    store.close();
  });
});

describe('a lookup among URLs whose hashes share a fingerprint', () => {
  it('answers each hash with its own URL only, from the cache, from the file, and from both at once', () => {
    const dir = tmpDir();
    const path = join(dir, 't.db');
    let store = new SqliteStore(path);
    let frontier = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 1, candidatesPerHost: 2, runBuffer: 16, rowCache: 8 });
    // three hashes with the same first four bytes (the seen-index's fingerprint): two URLs, and one unknown
    const h = urlHash('http://a.test/');
    const twin = Buffer.from(h);
    twin[15] ^= 0xff;
    const ghost = Buffer.from(h);
    ghost[8] ^= 0x55;
    const entry = (hash: Buffer, url: string): NewUrl => ({
      hash, url, host: 'a.test', depth: 1, priority: 0.5, life: 3, parentId: null, anchor: null, inlinks: 1, inlinkScore: 0.25, state: UrlState.QUEUED,
    });
    frontier.add([entry(h, 'http://a.test/'), entry(twin, 'http://a.test/twin')]);
    const check = (asked: Buffer[]) => {
      const got = frontier.lookup(asked);
      expect(got).toEqual(fromFile(store, asked, new Set()));
      return got;
    };
    // warm: both rows cached by the add
    expect([...check([h]).values()].map((k) => k.id)).toEqual([1]);
    expect([...check([twin]).values()].map((k) => k.id)).toEqual([2]);
    expect(check([ghost]).size).toBe(0);
    expect(check([ghost, twin, h]).size).toBe(2);
    // cold: a new frontier on the file, nothing cached: rows read from the file
    frontier.close();
    store.close();
    store = new SqliteStore(path);
    frontier = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 1, candidatesPerHost: 2, runBuffer: 16, rowCache: 8 });
    expect(check([ghost]).size).toBe(0);
    // one row cached by that lookup's read, the other forgotten: one from the cache, one from the file
    frontier.release({ id: 2, hostId: 1 } as FrontierItem, 0, false); // not handed out: only forgets its row
    expect([...check([twin, h, ghost]).values()].map((k) => k.id).sort()).toEqual([1, 2]);
    expect(check([h, twin]).size).toBe(2);
    frontier.close();
    store.close();
  });
});

describe('RowColumns (a generation of the row cache)', () => {
  it('finds, overwrites, updates and deletes rows by id, reuses no slot until emptied or compacted, and keeps rows through a compaction', () => {
    const g = new RowColumns(8);
    for (let id = 1; id <= 6; id++) g.put(row(id * 1000003)); // ids far apart: probes wrap around the index
    expect(g.size).toBe(6);
    expect(g.row(g.slotOf(3000009))).toEqual(row(3000009));
    g.put(row(3000009, { priority: 0.9 })); // over the row of its id: no new slot
    expect(g.size).toBe(6);
    expect(g.row(g.slotOf(3000009)).priority).toBe(0.9);
    g.update(g.slotOf(2000006), { inlinks: 7, state: UrlState.PRUNED });
    expect(g.row(g.slotOf(2000006))).toMatchObject({ inlinks: 7, state: UrlState.PRUNED, priority: 0.5 });
    g.delete(1000003);
    g.delete(1000003); // (twice: nothing more)
    expect(g.slotOf(1000003)).toBe(-1);
    expect(g.size).toBe(5);
    // a row behind the deleted one on its probe path is still found (a tombstone, not an empty slot)
    for (let id = 2; id <= 6; id++) expect(g.slotOf(id * 1000003)).toBeGreaterThanOrEqual(0);
    g.put(row(7));
    g.put(row(8));
    expect(g.full).toBe(true); // 8 slots handed out, one of them a deleted row's
    expect(() => g.put(row(9))).toThrow('full');
    g.compact();
    expect(g.full).toBe(false);
    expect(g.size).toBe(7);
    for (const id of [2000006, 3000009, 4000012, 5000015, 6000018, 7, 8]) expect(g.row(g.slotOf(id)).id).toBe(id);
    expect(g.row(g.slotOf(3000009)).priority).toBe(0.9);
    g.put(row(9));
    g.clear();
    expect(g.size).toBe(0);
    expect(g.slotOf(9)).toBe(-1);
  });

  it('keeps the cache right and its generations turning over when rows are forgotten as fast as they come (compactions)', () => {
    const c = new UrlRowCache(16); // generations of 8 rows, 10 slots each
    const rng = mulberry32(3);
    const model = new Map<number, CachedRow>();
    for (let step = 0; step < 5000; step++) {
      const id = rng.int(1, 40);
      const r = rng.next();
      if (r < 0.4) {
        const v = row(id, { priority: rng.next() });
        c.put(v);
        model.set(id, v);
      } else if (r < 0.7) {
        c.forget(id);
        model.delete(id);
      } else {
        const got = c.get(id);
        // the cache may have dropped a row (unused for a generation), never changed one
        if (got) expect(got).toEqual(model.get(id));
      }
      expect(c.size).toBeLessThanOrEqual(16);
    }
  });
});
