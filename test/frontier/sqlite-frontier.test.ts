import { describe, expect, it } from 'vitest';
import { SqliteFrontier } from '../../src/frontier/sqlite-frontier.js';
import type { NewUrl } from '../../src/frontier/frontier.js';
import { UrlState } from '../../src/frontier/url-state.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { urlHash } from '../../src/url/url-hash.js';
import { tmpDir } from '../helpers/tmp.js';
import { join } from 'node:path';

function entry(url: string, priority = 0, extra: Partial<NewUrl> = {}): NewUrl {
  return { hash: urlHash(url), url, host: new URL(url).host, depth: 0, priority, life: 3, parentId: null, anchor: null, ...extra };
}

function open(dir: string, delayMs = 0, perHost = 1) {
  const store = new SqliteStore(join(dir, 'f.db'));
  return { store, frontier: new SqliteFrontier(store.db, { delayMs, perHostConcurrency: perHost }) };
}

function drain(f: SqliteFrontier, now = 0): string[] {
  const order: string[] = [];
  for (;;) {
    const n = f.next(now);
    if (n.kind !== 'url') break;
    order.push(n.item.url);
    f.release(n.item, now);
  }
  return order;
}

describe('SqliteFrontier', () => {
  it('hands out the highest priority first across hosts, ties first-in first-out', () => {
    const { store, frontier } = open(tmpDir());
    frontier.add([entry('http://a.test/1', 1), entry('http://b.test/1', 5), entry('http://a.test/2', 5), entry('http://c.test/1', 1)]);
    expect(drain(frontier)).toEqual(['http://b.test/1', 'http://a.test/2', 'http://a.test/1', 'http://c.test/1']);
    store.close();
  });

  it('knows a URL from the moment it is added, whatever its state', () => {
    const { store, frontier } = open(tmpDir());
    frontier.add([entry('http://a.test/x'), entry('http://a.test/p', 0, { state: UrlState.PRUNED })]);
    const known = frontier.lookup([urlHash('http://a.test/x'), urlHash('http://a.test/p'), urlHash('http://a.test/none')]);
    expect(known.size).toBe(2);
    expect(known.get(urlHash('http://a.test/p').toString('hex'))?.state).toBe(UrlState.PRUNED);
    expect(frontier.size()).toBe(1);
    store.close();
  });

  it('never hands out a host again before its delay has passed', () => {
    const { store, frontier } = open(tmpDir(), 1000);
    frontier.add([entry('http://a.test/1'), entry('http://a.test/2'), entry('http://b.test/1')]);
    const first = frontier.next(0);
    expect(first.kind === 'url' && first.item.url).toBe('http://a.test/1');
    // a.test is busy: b.test goes next even though a.test/2 was queued earlier
    const second = frontier.next(0);
    expect(second.kind === 'url' && second.item.url).toBe('http://b.test/1');
    if (first.kind === 'url') frontier.release(first.item, 10);
    const wait = frontier.next(500);
    expect(wait).toEqual({ kind: 'wait', until: 1010 });
    const third = frontier.next(1010);
    expect(third.kind === 'url' && third.item.url).toBe('http://a.test/2');
    store.close();
  });

  it('re-orders a queued URL when its priority changes, and revives pruned URLs', () => {
    const { store, frontier } = open(tmpDir());
    const [a, , p] = frontier.add([entry('http://a.test/1', 1), entry('http://a.test/2', 2), entry('http://a.test/3', 0, { state: UrlState.PRUNED })]);
    const hostId = frontier.hostId('a.test');
    frontier.update([{ id: a, hostId, priority: 9 }, { id: p, hostId, priority: 5, state: UrlState.QUEUED }]);
    expect(frontier.size()).toBe(3);
    expect(drain(frontier)).toEqual(['http://a.test/1', 'http://a.test/3', 'http://a.test/2']);
    store.close();
  });

  it('respects per-host concurrency and closed hosts', () => {
    const { store, frontier } = open(tmpDir(), 0, 2);
    frontier.add([entry('http://a.test/1'), entry('http://a.test/2'), entry('http://a.test/3'), entry('http://b.test/1')]);
    const got = [frontier.next(0), frontier.next(0), frontier.next(0)].map((n) => (n.kind === 'url' ? n.item.url : n.kind));
    expect(got).toEqual(['http://a.test/1', 'http://a.test/2', 'http://b.test/1']);
    expect(frontier.next(0).kind).toBe('empty');
    frontier.closeHost(frontier.hostId('a.test'));
    expect(frontier.inFlight()).toBe(3);
    store.close();
  });

  it('puts URLs handed out but never recorded back in the queue on reopen', () => {
    const dir = tmpDir();
    let { store, frontier } = open(dir);
    frontier.add([entry('http://a.test/1', 3), entry('http://a.test/2', 2)]);
    const n = frontier.next(0);
    expect(n.kind).toBe('url');
    store.close(); // as if killed: the URL is IN_FLIGHT on disk
    ({ store, frontier } = open(dir));
    expect(frontier.size()).toBe(2);
    expect(drain(frontier)).toEqual(['http://a.test/1', 'http://a.test/2']);
    // sequence numbers continue: a new URL with equal priority goes after the old ones
    store.close();
  });

  it('defers a host (back-off) and requeues a URL for a retry', () => {
    const { store, frontier } = open(tmpDir());
    frontier.add([entry('http://a.test/1', 5), entry('http://a.test/2', 1), entry('http://b.test/1', 3)]);
    const first = frontier.next(0);
    if (first.kind !== 'url') throw new Error('expected a URL');
    expect(first.item.url).toBe('http://a.test/1');
    frontier.requeue(first.item);
    frontier.deferHost(first.item.hostId, 5000);
    frontier.release(first.item, 10);
    expect(frontier.size()).toBe(3);
    const second = frontier.next(100);
    expect(second.kind === 'url' && second.item.url).toBe('http://b.test/1');
    if (second.kind === 'url') frontier.release(second.item, 100);
    expect(frontier.next(200)).toEqual({ kind: 'wait', until: 5000 });
    // the retried URL keeps its place at the head of its host's queue
    expect(drain(frontier, 5000)).toEqual(['http://a.test/1', 'http://a.test/2']);
    store.close();
  });
});

describe('SqliteFrontier batched changes', () => {
  it('applies batches of changes and re-rankings as if one by one: rows and hand-out order match a plain model', async () => {
    const { mulberry32 } = await import('../../src/eval/prng.js');
    const rng = mulberry32(11);
    const pick = (n: number) => Math.floor(rng.next() * n);
    const { store, frontier } = open(tmpDir());
    // model: id -> row; handed-out URLs are released without an outcome (state IN_FLIGHT on disk)
    type Row = { priority: number; life: number; state: number; inlinks: number; seq: number; url: string };
    const rows = new Map<number, Row>();
    const urls = Array.from({ length: 400 }, (_, i) => entry(`http://h${i % 3}.test/${i}`, pick(20) / 4, i % 17 === 0 ? { state: UrlState.PRUNED } : {}));
    frontier.add(urls).forEach((id, i) => rows.set(id, { priority: urls[i].priority, life: 3, state: urls[i].state ?? UrlState.QUEUED, inlinks: 0, seq: id, url: urls[i].url }));
    const ids = [...rows.keys()];
    const best = (k: number) => [...rows.entries()].filter(([, r]) => r.state === UrlState.QUEUED)
      .sort(([, a], [, b]) => b.priority - a.priority || a.seq - b.seq).slice(0, k).map(([, r]) => r.url);
    for (let round = 0; round < 30; round++) {
      // changes, some of one URL twice and some of no URL at all
      const changes = Array.from({ length: 1 + pick(40) }, () => {
        const c: Parameters<typeof frontier.update>[0][number] = { id: rng.next() < 0.05 ? 99999 : ids[pick(ids.length)], hostId: 0 };
        if (rng.next() < 0.6) c.priority = pick(20) / 4;
        if (rng.next() < 0.3) c.life = pick(5);
        if (rng.next() < 0.2) c.inlinks = pick(9);
        if (rng.next() < 0.1) c.state = rng.next() < 0.5 ? UrlState.QUEUED : UrlState.PRUNED;
        return c;
      });
      const dup = changes[pick(changes.length)];
      changes.push({ ...dup, priority: pick(20) / 4, life: undefined });
      frontier.update(changes);
      for (const c of changes) {
        const r = rows.get(c.id);
        if (!r) continue;
        // (a URL released without an outcome is IN_FLIGHT on disk: a change to QUEUED queues it again)
        r.priority = c.priority ?? r.priority;
        r.life = c.life ?? r.life;
        r.state = c.state ?? r.state;
        r.inlinks = c.inlinks ?? r.inlinks;
      }
      const updates = Array.from({ length: pick(60) }, () => ({ id: ids[pick(ids.length)], priority: pick(20) / 4 }));
      if (updates.length) updates.push({ id: updates[0].id, priority: pick(20) / 4 });
      frontier.reprioritize(updates);
      for (const u of updates) if (rows.get(u.id)!.state === UrlState.QUEUED) rows.get(u.id)!.priority = u.priority;
      const k = pick(12);
      const want = best(k);
      const got: string[] = [];
      for (let i = 0; i < k; i++) {
        const n = frontier.next(0);
        if (n.kind !== 'url') break;
        got.push(n.item.url);
        frontier.release(n.item, 0);
        rows.get(n.item.id)!.state = UrlState.IN_FLIGHT;
      }
      expect(got).toEqual(want);
    }
    const stored = store.db.prepare('SELECT id, priority, life, state, inlinks FROM urls').all() as { id: number; priority: number; life: number; state: number; inlinks: number }[];
    for (const s of stored) {
      const r = rows.get(s.id)!;
      expect({ id: s.id, priority: s.priority, life: s.life, state: s.state, inlinks: s.inlinks }).toEqual({ id: s.id, priority: r.priority, life: r.life, state: r.state, inlinks: r.inlinks });
    }
    store.close();
  });
});
