import { describe, expect, it } from 'vitest';
import { RedisIdBlocks } from '../../src/frontier/redis-id-blocks.js';

/** A counter standing for the crawl's `seq` (INCRBY), with a way to hold its answers back. */
function counter() {
  let seq = 0;
  const held: (() => void)[] = [];
  return {
    hold: false,
    bump(n: number) {
      seq += n;
      return seq;
    },
    reserve(n: number): Promise<number> {
      const top = (seq += n);
      if (!this.hold) return Promise.resolve(top);
      return new Promise((r) => held.push(() => r(top)));
    },
    release: () => held.splice(0).forEach((f) => f()),
  };
}

describe('RedisIdBlocks', () => {
  it('gives ids in increasing order, at once while a block is at hand, and asks for the next one ahead', async () => {
    const c = counter();
    const ids = new RedisIdBlocks((n) => c.reserve(n), 8);
    await ids.prepare();
    const got: number[] = [];
    for (let i = 0; i < 10; i++) {
      const r = ids.take(3);
      got.push(...(Array.isArray(r) ? r : await r));
      await Promise.resolve();
    }
    expect(got).toEqual([...got].sort((a, b) => a - b));
    expect(new Set(got).size).toBe(30);
    expect(got.slice(0, 3)).toEqual([1, 2, 3]);
  });

  it('drops the blocks reserved before the server gave ids of its own, and takes later ones only', async () => {
    const c = counter();
    const ids = new RedisIdBlocks((n) => c.reserve(n), 8);
    await ids.prepare();
    expect(ids.takeNow(6)).toEqual([1, 2, 3, 4, 5, 6]); // half used: the next block is asked for (9..16)
    c.hold = true;
    expect(ids.takeNow(2)).toEqual([7, 8]);
    // the server gives ids of its own now (above 16), then answers the block asked for before
    const own = c.bump(3);
    ids.passed();
    c.release();
    await Promise.resolve();
    c.hold = false;
    expect(ids.takeNow(1)).toBeNull();
    const next = await ids.take(1);
    expect(next[0]).toBeGreaterThan(own);
  });
});
