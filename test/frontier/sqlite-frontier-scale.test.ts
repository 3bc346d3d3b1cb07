import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NewUrl } from '../../src/frontier/frontier.js';
import { SqliteFrontier } from '../../src/frontier/sqlite-frontier.js';
import { UrlState } from '../../src/frontier/url-state.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { urlHash } from '../../src/url/url-hash.js';
import { tmpDir } from '../helpers/tmp.js';

/** A small deterministic PRNG, so every run checks the same cases. */
function prng(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
}

function entries(n: number, hosts: number, seed = 1): NewUrl[] {
  const r = prng(seed);
  return Array.from({ length: n }, (_, i) => {
    const url = `http://h${Math.floor(r() * hosts)}.test/${i}`;
    const pruned = r() < 0.1;
    return {
      hash: urlHash(url), url, host: new URL(url).host, depth: i % 4, priority: Math.round(r() * 20) / 4, life: 2,
      parentId: null, anchor: i % 2 ? `a${i}` : null, state: pruned ? UrlState.PRUNED : UrlState.QUEUED,
    };
  });
}

function open(dir: string, opts: { delayMs?: number; perHost?: number; cap?: number } = {}) {
  const store = new SqliteStore(join(dir, 'f.db'));
  const frontier = new SqliteFrontier(store.db, { delayMs: opts.delayMs ?? 0, perHostConcurrency: opts.perHost ?? 1, candidatesPerHost: opts.cap });
  return { store, frontier };
}

function drain(f: SqliteFrontier, now = 0): string[] {
  const order: string[] = [];
  for (let n = f.next(now); n.kind === 'url'; n = f.next(now)) {
    order.push(n.item.url);
    f.release(n.item, now);
  }
  return order;
}

/** The order the contract asks for when every host is free: priority desc, then discovery order. */
function expectedOrder(es: { url: string; priority: number; seq: number }[]): string[] {
  return [...es].sort((a, b) => b.priority - a.priority || a.seq - b.seq).map((e) => e.url);
}

describe('SqliteFrontier at scale', () => {
  it('adds a batch exactly as it adds the same URLs one by one (multi-row inserts)', () => {
    const es = entries(300, 7);
    const a = open(tmpDir());
    const b = open(tmpDir());
    const idsA = a.frontier.add(es);
    const idsB = es.flatMap((e) => b.frontier.add([e]));
    expect(idsA).toEqual(idsB);
    expect(new Set(idsA).size).toBe(300);
    expect(a.frontier.size()).toBe(b.frontier.size());
    const cols = 'id, hash, url, host_id, state, depth, priority, life, seq, parent_id, anchor, inlinks, inlink_score, hops';
    const rowsA = a.store.db.prepare(`SELECT ${cols} FROM urls ORDER BY id`).all();
    expect(rowsA).toHaveLength(300);
    expect(b.store.db.prepare(`SELECT ${cols} FROM urls ORDER BY id`).all()).toEqual(rowsA);
    const known = a.frontier.lookup(es.map((e) => e.hash));
    expect(known.size).toBe(300);
    expect(known.get(es[5].hash.toString('hex'))?.id).toBe(idsA[5]);
    expect(drain(a.frontier)).toEqual(drain(b.frontier));
    a.store.close();
    b.store.close();
  });

  it('hands out best-first across hosts with few candidates in memory, through adds and updates', () => {
    const { store, frontier } = open(tmpDir(), { cap: 2 });
    const es = entries(400, 5);
    const ids = frontier.add(es.slice(0, 250));
    let seq = 0;
    const live = new Map<number, { url: string; priority: number; seq: number; hostId: number }>();
    es.slice(0, 250).forEach((e, i) => {
      seq++;
      if (e.state === UrlState.QUEUED) live.set(ids[i], { url: e.url, priority: e.priority, seq, hostId: frontier.hostId(e.host) });
    });
    // hand out 60, then add more and change priorities while the lists are partly consumed
    const got: string[] = [];
    for (let k = 0; k < 60; k++) {
      const n = frontier.next(0);
      if (n.kind !== 'url') throw new Error('expected a URL');
      expect(n.item.url).toBe(expectedOrder([...live.values()])[0]);
      live.delete(n.item.id);
      got.push(n.item.url);
      frontier.release(n.item, 0);
    }
    const more = frontier.add(es.slice(250));
    es.slice(250).forEach((e, i) => {
      seq++;
      if (e.state === UrlState.QUEUED) live.set(more[i], { url: e.url, priority: e.priority, seq, hostId: frontier.hostId(e.host) });
    });
    const r = prng(9);
    const changes = [...live.entries()].filter(() => r() < 0.3).map(([id, u]) => ({ id, hostId: u.hostId, priority: Math.round(r() * 40) / 4 }));
    frontier.update(changes);
    for (const c of changes) live.get(c.id)!.priority = c.priority;
    expect(frontier.size()).toBe(live.size);
    expect(drain(frontier)).toEqual(expectedOrder([...live.values()]));
    expect(frontier.size()).toBe(0);
    store.close();
  });

  it('never hands out a URL twice while it is in flight, and reports it as IN_FLIGHT', () => {
    const { store, frontier } = open(tmpDir(), { perHost: 3, cap: 1 });
    const es = entries(6, 1);
    es.forEach((e) => (e.state = UrlState.QUEUED));
    frontier.add(es);
    const first = frontier.next(0);
    if (first.kind !== 'url') throw new Error('expected a URL');
    expect(frontier.lookup([urlHash(first.item.url)]).get(urlHash(first.item.url).toString('hex'))?.state).toBe(UrlState.IN_FLIGHT);
    // a better priority for the URL in flight refreshes the host's list from the store
    frontier.update([{ id: first.item.id, hostId: first.item.hostId, priority: 100 }]);
    const others = [frontier.next(0), frontier.next(0)].map((n) => (n.kind === 'url' ? n.item.id : n.kind));
    expect(others).not.toContain(first.item.id);
    expect(new Set(others).size).toBe(2);
    expect(frontier.inFlight()).toBe(3);
    expect(frontier.next(0).kind).toBe('empty'); // per-host concurrency reached
    store.close();
  });

  it('keeps its heaps bounded when heads change over and over', () => {
    const { store, frontier } = open(tmpDir());
    const es = entries(30, 3);
    es.forEach((e) => (e.state = UrlState.QUEUED));
    const ids = frontier.add(es);
    const hostIds = es.map((e) => frontier.hostId(e.host));
    const first = frontier.next(0); // every host becomes ready
    if (first.kind !== 'url') throw new Error('expected a URL');
    frontier.release(first.item, 0);
    let p = 0;
    let lastUrl = '';
    for (let k = 0; k < 5000; k++) {
      const i = k % ids.length;
      if (ids[i] === first.item.id) continue;
      frontier.update([{ id: ids[i], hostId: hostIds[i], priority: ++p }]);
      lastUrl = es[i].url;
    }
    const m = frontier.memoryStats();
    expect(m.ready + m.waiting).toBeLessThanOrEqual(2 * 3 + 1024 + 3);
    // the last update ranks highest, so it comes out first
    const order = drain(frontier);
    expect(order).toHaveLength(29);
    expect(order[0]).toBe(lastUrl);
    store.close();
  });

  it('keeps a back-off (deferHost) across reopen', () => {
    const dir = tmpDir();
    let { store, frontier } = open(dir);
    frontier.add([entries(1, 1)[0]].map((e) => ({ ...e, state: UrlState.QUEUED })));
    const hostId = frontier.hostId('h0.test');
    frontier.deferHost(hostId, 5000);
    store.close();
    ({ store, frontier } = open(dir));
    expect(frontier.next(100)).toEqual({ kind: 'wait', until: 5000 });
    expect(frontier.next(5000).kind).toBe('url');
    store.close();
  });
});
