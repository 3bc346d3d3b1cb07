import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Lease } from '../../src/frontier/frontier.js';
import { RedisConnection } from '../../src/frontier/redis-connection.js';
import { deleteCrawl } from '../../src/frontier/redis-crawl-keys.js';
import { RedisFrontier } from '../../src/frontier/redis-frontier.js';
import { urlHash } from '../../src/url/url-hash.js';
import { expireLeases, REDIS_URL } from '../helpers/redis.js';

/**
 * The claim script against a simple model: random sequences of adds, claims, settles (done,
 * retry, not counted), lease expiries and re-prioritisations on 4 hosts, delay 0, one or two leases
 * per host. Every claim must hand out, host after host, the best queued URL (priority desc, then
 * first added) of the hosts with no lease out; nothing is lost, nothing is handed out twice while
 * leased, and a late settle is refused exactly when the URL was served again.
 */

type Op =
  | { op: 'add'; host: number; priorities: number[] }
  | { op: 'claim'; max: number }
  | { op: 'settle'; pick: number; how: 'done' | 'requeue' | 'uncounted' }
  | { op: 'expire' }
  | { op: 'reprioritize'; pick: number; priority: number };

const ops: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('add' as const), host: fc.integer({ min: 0, max: 3 }), priorities: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 4 }) }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('claim' as const), max: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('settle' as const), pick: fc.nat(), how: fc.constantFrom('done' as const, 'requeue' as const, 'uncounted' as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('expire' as const) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('reprioritize' as const), pick: fc.nat(), priority: fc.integer({ min: 0, max: 3 }) }) },
);

interface ModelUrl { id: number; host: string; priority: number; state: 'queued' | 'leased' | 'done' }

class Model {
  readonly urls = new Map<number, ModelUrl>();
  /** leases handed out and not settled: token -> id, and whether they are still live */
  /** live: not expired; pending: expired since the last claim (the server still holds it until then) */
  readonly leases = new Map<string, { lease: Lease; live: boolean; pending: boolean }>();
  /** URLs whose lease expired since the last claim: the server puts them back in the queue at the next claim */
  readonly pendingExpiry = new Set<number>();

  constructor(readonly perHost: number) {}

  /**
   * The URLs a claim of `max` must hand out, in order: the host whose best queued URL ranks first
   * among hosts with fewer than `perHost` leases out, as many of its best URLs as it may have out
   * (and the claim wants), then the next host.
   */
  expected(max: number): number[] {
    const out = new Map<string, number>();
    for (const l of this.leases.values()) if (l.live) out.set(l.lease.host, (out.get(l.lease.host) ?? 0) + 1);
    const queued = [...this.urls.values()].filter((u) => u.state === 'queued').sort((a, b) => b.priority - a.priority || a.id - b.id);
    const got: number[] = [];
    const done = new Set<string>();
    for (const best of queued) {
      if (got.length >= max) break;
      if (done.has(best.host) || (out.get(best.host) ?? 0) >= this.perHost) continue;
      done.add(best.host);
      const room = Math.min(max - got.length, this.perHost - (out.get(best.host) ?? 0));
      got.push(...queued.filter((u) => u.host === best.host).slice(0, room).map((u) => u.id));
    }
    return got;
  }
}

describe('RedisFrontier claim script (property)', () => {
  it('hands out the best URL of a host that may be contacted, loses nothing, never twice while leased', async () => {
    const conn = await new RedisConnection(REDIS_URL).connect();
    let run = 0;
    let n = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(1, 2), fc.array(ops, { minLength: 5, maxLength: 60 }), async (perHost, seq) => {
          const crawlId = `prop-${process.pid}-${run++}`;
          const f = await RedisFrontier.open(conn, { crawlId, delayMs: 0, perHostConcurrency: perHost });
          const m = new Model(perHost);
          try {
            for (const o of seq) {
              if (o.op === 'add') {
                const host = `h${o.host}.test`;
                const adds = o.priorities.map((priority) => {
                  const url = `http://${host}/p${n++}`;
                  return { hash: urlHash(url), url, host, depth: 0, priority, life: 1, parentId: null, anchor: null };
                });
                const r = await f.intake({ adds });
                expect(r.existing).toBe(0);
                r.ids.forEach((id, i) => m.urls.set(id, { id, host, priority: adds[i].priority, state: 'queued' }));
              } else if (o.op === 'claim') {
                const want = m.expected(o.max);
                const c = await f.claim(o.max, Date.now());
                m.pendingExpiry.clear();
                for (const l of m.leases.values()) l.pending = false;
                const got = c.kind === 'urls' ? c.leases.map((l) => l.id) : [];
                expect(got).toEqual(want);
                if (c.kind === 'urls') {
                  for (const l of c.leases) {
                    const u = m.urls.get(l.id)!;
                    expect(u.state).toBe('queued');
                    expect(l.priority).toBe(u.priority);
                    u.state = 'leased';
                    m.leases.set(l.token, { lease: l, live: true, pending: false });
                  }
                } else if (want.length === 0) {
                  const anyLive = [...m.leases.values()].some((l) => l.live);
                  const queued = [...m.urls.values()].some((u) => u.state === 'queued');
                  expect(c.kind).toBe(anyLive || queued ? 'wait' : 'empty');
                }
              } else if (o.op === 'settle') {
                const held = [...m.leases.values()];
                if (held.length === 0) continue;
                const h = held[o.pick % held.length];
                const u = m.urls.get(h.lease.id)!;
                const done = o.how !== 'requeue';
                // a live lease is settled, and one whose expiry no claim has seen yet; an expired one only
                // while its URL waits in the queue, not served again (nor held by a lease that expired since)
                const stands = h.live || h.pending || (u.state === 'queued' && !m.pendingExpiry.has(u.id));
                const ok = await f.settle(h.lease, { state: done ? 'done' : 'requeue', counted: o.how !== 'uncounted' }, Date.now());
                expect(ok).toBe(stands);
                m.leases.delete(h.lease.token);
                if (stands) {
                  u.state = done ? 'done' : 'queued';
                  m.pendingExpiry.delete(u.id);
                }
              } else if (o.op === 'expire') {
                await expireLeases(conn, crawlId);
                for (const l of m.leases.values()) {
                  if (!l.live) continue;
                  l.live = false;
                  l.pending = true;
                  m.urls.get(l.lease.id)!.state = 'queued';
                  m.pendingExpiry.add(l.lease.id);
                }
              } else {
                const live = [...m.urls.values()].filter((u) => u.state !== 'done');
                if (live.length === 0) continue;
                const u = live[o.pick % live.length];
                await f.intake({ updates: [{ id: u.id, priority: o.priority }] });
                u.priority = o.priority;
              }
            }
            // nothing lost: settle what is held, then everything queued comes out, once each
            for (const h of m.leases.values()) if (h.live) await f.settle(h.lease, { state: 'requeue', counted: false }, Date.now());
            const left = [...m.urls.values()].filter((u) => u.state !== 'done').map((u) => u.id).sort((a, b) => a - b);
            expect(await f.size()).toBe(left.length - m.pendingExpiry.size);
            const out: number[] = [];
            for (;;) {
              const c = await f.claim(10, Date.now());
              if (c.kind !== 'urls') {
                expect(c.kind).toBe('empty');
                break;
              }
              out.push(...c.leases.map((l) => l.id));
              await Promise.all(c.leases.map((l) => f.settle(l, { state: 'done' }, Date.now())));
            }
            expect(out.sort((a, b) => a - b)).toEqual(left);
          } finally {
            await deleteCrawl(conn, crawlId);
          }
        }),
        { numRuns: 150 },
      );
    } finally {
      await conn.close();
    }
  });

  it('never hands out two URLs of a host less than its delay apart (server clock), whoever claims', async () => {
    const conn = await new RedisConnection(REDIS_URL).connect();
    const DELAY = 40;
    const LEASE = 60_000;
    let run = 0;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.record({ adds: fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 3 }), max: fc.integer({ min: 1, max: 3 }), client: fc.integer({ min: 0, max: 1 }), pause: fc.integer({ min: 0, max: 25 }) }), { minLength: 5, maxLength: 25 }),
          async (steps) => {
            const crawlId = `prop-delay-${process.pid}-${run++}`;
            const fs = await Promise.all([0, 1].map(() => RedisFrontier.open(conn, { crawlId, delayMs: DELAY, perHostConcurrency: 1, leaseMs: LEASE })));
            const last = new Map<string, number>();
            try {
              for (const st of steps) {
                if (st.adds.length > 0) {
                  await fs[0].intake({ adds: st.adds.map((h) => {
                    const url = `http://d${h}.test/${run}-${Math.random()}`;
                    return { hash: urlHash(url), url, host: `d${h}.test`, depth: 0, priority: 0, life: 1, parentId: null, anchor: null };
                  }) });
                }
                const f = fs[st.client];
                const c = await f.claim(st.max, Date.now());
                if (c.kind === 'urls') {
                  for (const l of c.leases) {
                    const at = l.expiresAt - LEASE; // the server's time of the claim
                    const prev = last.get(l.host);
                    if (prev !== undefined) expect(at - prev).toBeGreaterThanOrEqual(DELAY);
                    last.set(l.host, at);
                  }
                  await new Promise((r) => setTimeout(r, st.pause));
                  await Promise.all(c.leases.map((l) => f.settle(l, { state: 'done' }, Date.now())));
                } else {
                  await new Promise((r) => setTimeout(r, st.pause));
                }
              }
            } finally {
              await deleteCrawl(conn, crawlId);
            }
          },
        ),
        { numRuns: 15 },
      );
    } finally {
      await conn.close();
    }
  });
});
