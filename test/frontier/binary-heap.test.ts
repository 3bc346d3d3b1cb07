import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BinaryHeap } from '../../src/frontier/binary-heap.js';

function drain<T>(h: BinaryHeap<T>): T[] {
  const out: T[] = [];
  for (let x = h.pop(); x !== undefined; x = h.pop()) out.push(x);
  return out;
}

describe('BinaryHeap', () => {
  it('pops in order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1000, max: 1000 })), (xs) => {
        const h = new BinaryHeap<number>((a, b) => a < b);
        for (const x of xs) h.push(x);
        expect(h.size).toBe(xs.length);
        expect(drain(h)).toEqual([...xs].sort((a, b) => a - b));
      }),
    );
  });

  it('retain() drops items in bulk and keeps the heap order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 500 })), fc.array(fc.integer({ min: 0, max: 500 })), (xs, later) => {
        const h = new BinaryHeap<number>((a, b) => a < b);
        for (const x of xs) h.push(x);
        h.pop();
        h.retain((x) => x % 3 !== 0);
        for (const x of later) h.push(x);
        const expected = [...[...xs].sort((a, b) => a - b).slice(1).filter((x) => x % 3 !== 0), ...later].sort((a, b) => a - b);
        expect(drain(h)).toEqual(expected);
      }),
    );
  });
});
