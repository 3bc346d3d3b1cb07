import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/eval/prng.js';
import type { FrontierItem, NewUrl } from '../../src/frontier/frontier.js';
import { SqliteFrontier, type SqliteFrontierOptions } from '../../src/frontier/sqlite-frontier.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { urlHash } from '../../src/url/url-hash.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * Best-first order with several requests in flight: next() hands out the globally best URL among
 * the hosts that may be contacted, and with a global concurrency it leaves a slot free rather than
 * spend it on a URL that as many better URLs outrank.
 */

function entry(url: string, priority: number): NewUrl {
  return { hash: urlHash(url), url, host: new URL(url).host, depth: 0, priority, life: 3, parentId: null, anchor: null };
}

function open(opts: Partial<SqliteFrontierOptions> = {}) {
  const store = new SqliteStore(join(tmpDir(), 'f.db'));
  return { store, frontier: new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 1, ...opts }) };
}

function url(f: SqliteFrontier, now = 0): FrontierItem {
  const n = f.next(now);
  if (n.kind !== 'url') throw new Error(`expected a URL, got ${JSON.stringify(n)}`);
  return n.item;
}

describe('frontier order with several hosts ready and requests in flight', () => {
  it('always hands out the best URL among the hosts that may be contacted (a model check)', () => {
    const rng = mulberry32(42);
    const hosts = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((h) => `${h}.test`);
    const delays = new Map(hosts.map((h, i) => [h, i % 3 === 0 ? 0 : 5 * i]));
    // a small front and run buffer, so queues live mostly in the runs on disk
    const { store, frontier } = open({ delayMs: 0, perHostConcurrency: 1, candidatesPerHost: 2, runBuffer: 16 });
    for (const [h, d] of delays) frontier.setHostDelay(frontier.hostId(h), d);
    // the model: every queued URL with its priority and sequence, and each host's politeness state
    const queued = new Map<number, { host: string; priority: number; seq: number }>();
    const hostState = new Map(hosts.map((h) => [h, { inFlight: 0, nextAt: 0 }]));
    const inFlight: { item: FrontierItem; until: number }[] = [];
    let made = 0;
    const addSome = (n: number) => {
      const batch = Array.from({ length: n }, () => entry(`http://${rng.pick(hosts)}/${made++}`, Math.round(rng.next() * 20) / 20));
      frontier.add(batch).forEach((id, i) => queued.set(id, { host: batch[i].host, priority: batch[i].priority, seq: id }));
    };
    addSome(60);
    let handedOut = 0;
    for (let t = 0; t < 100_000 && (queued.size > 0 || inFlight.length > 0); t += 1) {
      for (let i = inFlight.length - 1; i >= 0; i--) {
        if (inFlight[i].until > t) continue;
        const { item } = inFlight.splice(i, 1)[0];
        frontier.release(item, t);
        const s = hostState.get(item.host)!;
        s.inFlight--;
        s.nextAt = Math.max(s.nextAt, t + delays.get(item.host)!);
      }
      if (t < 2000 && rng.chance(0.05)) addSome(rng.int(1, 8));
      if (rng.chance(0.05) && queued.size > 0) {
        // a strategy re-ranks some queued URLs
        const ids = [...queued.keys()].filter(() => rng.chance(0.2));
        const updates = ids.map((id) => ({ id, priority: Math.round(rng.next() * 20) / 20 }));
        frontier.reprioritize(updates);
        for (const u of updates) queued.get(u.id)!.priority = u.priority;
      }
      while (inFlight.length < 4) {
        // what the model says may go: the best queued URL of a host that may be contacted now
        let best: { id: number; priority: number; seq: number } | null = null;
        for (const [id, q] of queued) {
          const s = hostState.get(q.host)!;
          if (s.inFlight > 0 || s.nextAt > t) continue;
          if (!best || q.priority > best.priority || (q.priority === best.priority && q.seq < best.seq)) best = { id, ...q };
        }
        const n = frontier.next(t);
        if (!best) {
          expect(n.kind === 'wait' || n.kind === 'empty').toBe(true);
          break;
        }
        expect(n.kind).toBe('url');
        if (n.kind !== 'url') break;
        expect({ id: n.item.id, priority: n.item.priority }).toEqual({ id: best.id, priority: best.priority });
        queued.delete(n.item.id);
        const s = hostState.get(n.item.host)!;
        s.inFlight++;
        s.nextAt = t + delays.get(n.item.host)!;
        inFlight.push({ item: n.item, until: t + rng.int(1, 12) });
        handedOut++;
      }
    }
    expect(queued.size).toBe(0);
    expect(handedOut).toBe(made);
    store.close();
  });

  it('with a global concurrency, leaves a slot free rather than fill it with a URL that busy hosts outrank', () => {
    for (const cap of [1, 4]) {
      const { store, frontier } = open({ concurrency: 3, candidatesPerHost: cap });
      frontier.add([
        ...[0.9, 0.8, 0.7, 0.6, 0.5].map((p, i) => entry(`http://good.test/${i}`, p)),
        entry('http://poor.test/1', 0.2),
        entry('http://worse.test/1', 0.1),
      ]);
      const first = url(frontier);
      expect(first.url).toBe('http://good.test/0');
      // good.test is busy with one request; its 4 queued URLs and the request in flight outrank
      // poor.test/1, and 3 may be in flight: the slot waits for good.test
      expect(frontier.next(0)).toEqual({ kind: 'hold', until: null });
      const order = [first.url];
      let last = first;
      for (let i = 1; i < 5; i++) {
        frontier.release(last, i);
        last = url(frontier, i);
        order.push(last.url);
        // while good.test still has 2 URLs better than poor.test/1 queued, nothing else goes
        if (i < 3) expect(frontier.next(i).kind).toBe('hold');
      }
      expect(order).toEqual([0, 1, 2, 3, 4].map((i) => `http://good.test/${i}`));
      // good.test/4 is in flight, its queue empty: the two slots left go to the others, best first
      expect(url(frontier, 5).url).toBe('http://poor.test/1');
      expect(url(frontier, 5).url).toBe('http://worse.test/1');
      store.close();
    }
  });

  it('without a global concurrency, or when the better host waits for its politeness delay, the free slot takes the best URL it may', () => {
    const urls = [entry('http://good.test/0', 0.9), entry('http://good.test/1', 0.8), entry('http://good.test/2', 0.7), entry('http://poor.test/1', 0.2)];
    const plain = open();
    plain.frontier.add(urls);
    expect([url(plain.frontier).url, url(plain.frontier).url]).toEqual(['http://good.test/0', 'http://poor.test/1']);
    plain.store.close();

    const polite = open({ concurrency: 2, delayMs: 1000 });
    polite.frontier.add(urls);
    expect([url(polite.frontier).url, url(polite.frontier).url]).toEqual(['http://good.test/0', 'http://poor.test/1']);
    polite.store.close();
  });

  it('a held slot still says when a waiting host may be contacted', () => {
    const { store, frontier } = open({ concurrency: 2 });
    frontier.add([entry('http://good.test/0', 0.9), entry('http://good.test/1', 0.8), entry('http://poor.test/1', 0.2), entry('http://late.test/1', 0.95)]);
    frontier.deferHost(frontier.hostId('late.test'), 500);
    expect(url(frontier).url).toBe('http://good.test/0');
    expect(frontier.next(0)).toEqual({ kind: 'hold', until: 500 });
    // once late.test may be contacted, its better URL takes the free slot
    expect(url(frontier, 500).url).toBe('http://late.test/1');
    store.close();
  });
});
