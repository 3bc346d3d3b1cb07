import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Frontier, NewUrl } from '../../src/frontier/frontier.js';
import { queueKey, redisScore } from '../../src/frontier/redis-codec.js';
import { mulberry32 } from '../../src/eval/prng.js';
import { urlHash } from '../../src/url/url-hash.js';
import { testCrawl } from '../helpers/redis.js';

const common = readFileSync(new URL('../../src/frontier/redis/common.lua', import.meta.url), 'utf8');

/** Priorities that stress the order: signs, zeros, neighbours one bit apart, tiny and huge, sums off by an ulp. */
function priorities(): number[] {
  const rng = mulberry32(7);
  const ps = [0, -0, 1, -1, 0.3, 0.1 + 0.2, 1 / 3, 0.5, 2, 1e-300, -1e-300, 1e300, -1e300, Number.MAX_VALUE, -Number.MAX_VALUE,
    Number.MIN_VALUE, 2.2250738585072014e-308, 123456789.123, 0.001, 0.002, 0.999];
  const b = Buffer.alloc(8);
  for (const p of [0.3, 1, 1e-12]) {
    // the neighbours of p, one bit of its mantissa apart (in its last 12 bits too)
    b.writeDoubleBE(p);
    const lo = b.readBigUInt64BE();
    for (const d of [1n, 2n, 4095n, 4096n, 4097n]) {
      b.writeBigUInt64BE(lo + d);
      ps.push(b.readDoubleBE(), -b.readDoubleBE());
    }
  }
  // whole numbers (fish, shark: a band plus a counter) differ in their high bits only
  for (let k = 0; k < 40; k++) ps.push(1_000_000 + k);
  for (let i = 0; i < 300; i++) ps.push((rng.next() - 0.5) * 10 ** Math.floor(rng.next() * 40 - 20), Math.round(rng.next() * 1000) / 1000);
  return ps;
}

// (the members, all of score 0, order as their bytes: Redis compares members of equal score so)
const byKey = (a: Buffer, b: Buffer) => Buffer.compare(a, b);
// (queueKey's buffer is overwritten by its next call)
const placeOf = (p: number): Buffer => Buffer.from(queueKey(p));

describe('queue keys on the shared frontier (8 bytes from the priority)', () => {
  it('order exactly as the priorities, highest first, equal ones alike, and the scripts compute the same as the client', async () => {
    const ps = priorities();
    const keys = ps.map(placeOf);
    for (const k of keys) expect(k.length).toBe(8);
    // sorted by place, the priorities descend; equal places only for equal priorities (0 and -0 alike)
    const order = ps.map((p, i) => ({ p, k: keys[i] })).sort((a, b) => byKey(a.k, b.k));
    for (let i = 1; i < order.length; i++) {
      expect(order[i - 1].p).toBeGreaterThanOrEqual(order[i].p);
      expect(byKey(order[i - 1].k, order[i].k) === 0).toBe(order[i - 1].p === order[i].p);
    }
    // the Lua side (qkey in common.lua), run on the server
    const conn = await testCrawl('qkey').connect();
    const blob = Buffer.alloc(8 * ps.length);
    ps.forEach((p, i) => blob.writeDoubleBE(p, 8 * i));
    const lua = `${common}\nlocal out = {}\nfor at = 1, #ARGV[6], 8 do out[#out + 1] = qkey((struct.unpack('>d', ARGV[6], at))) end\nreturn out`;
    const got = (await conn.client.callBuffer('EVAL', lua, 0, 'x:', '1', '0', '0', '0', blob)) as Buffer[];
    expect(got).toEqual(keys);
  });

  it('hands out URLs in the order of their priorities to the last bit, ties first in first out, also after re-prioritising', async () => {
    const f: Frontier = await testCrawl('qorder').open();
    const ps = priorities();
    const adds: NewUrl[] = ps.map((p, i) => {
      const url = `http://one.test/${i}`;
      return { hash: urlHash(url), url, host: 'one.test', depth: 0, priority: p, life: 3, parentId: null, anchor: null };
    });
    const { ids } = await f.intake({ adds });
    // some change priority, as the strategy decides on its own (updates) or for a link found again
    // (changes): the scripts move their queue members (which begin with the priority's key)
    const rng = mulberry32(3);
    const pick = () => ps[Math.floor(rng.next() * ps.length)];
    // (a subnormal priority goes to the server as 0: see redisScore)
    const prio = new Map(ids.map((id, i) => [id, redisScore(ps[i])]));
    const updates = ids.filter((_id, i) => i % 3 === 0).map((id) => ({ id, priority: pick() }));
    const hostId = [...(await f.known([{ hash: adds[0].hash, host: 'one.test' }])).values()][0].hostId;
    const changes = ids.flatMap((id, i) => (i % 3 === 1 ? [{ id, hostId, hash: adds[i].hash, priority: Number.isInteger(ps[i]) ? 1_000_000 + Math.floor(rng.next() * 40) : pick() }] : []));
    await f.intake({ updates });
    await f.intake({ changes });
    for (const u of [...updates, ...changes]) prio.set(u.id, redisScore(u.priority));
    const expected = [...prio.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([id]) => id);
    const got: number[] = [];
    const settled: Promise<boolean>[] = [];
    for (;;) {
      const c = await f.claim(50, Date.now());
      if (c.kind !== 'urls') break;
      for (const l of c.leases) {
        got.push(l.id);
        expect(l.priority).toBe(prio.get(l.id));
        // (sent with the next claim)
        settled.push(f.settle(l, { state: 'done' }, Date.now()));
      }
    }
    expect(got).toEqual(expected);
    expect(await Promise.all(settled)).toEqual(got.map(() => true));
  });
});
