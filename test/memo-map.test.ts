import { describe, expect, it } from 'vitest';
import { MemoMap } from '../src/memo-map.js';

describe('MemoMap', () => {
  it('keeps entries in use across a turnover and drops those unused for a generation', () => {
    const m = new MemoMap<string, number>(4); // generations of 2
    m.set('a', 1);
    m.set('b', 2);
    m.set('c', 3); // turnover: old {a, b}, young {c}
    expect(m.size).toBe(3);
    expect(m.get('a')).toBe(1); // moves to the young generation: young {c, a}, old {b}
    m.set('d', 4); // turnover: old {c, a}, young {d}; b, unused, is dropped
    expect(m.get('b')).toBeUndefined();
    expect([m.get('a'), m.get('c'), m.get('d')]).toEqual([1, 3, 4]);
    expect(m.size).toBeLessThanOrEqual(4);
    m.set('e', 5); // turnover: old {a, d}... whichever two are left, young {e}
    m.delete('e');
    m.delete('a');
    expect(m.get('e')).toBeUndefined();
    expect(m.get('a')).toBeUndefined(); // forgotten in either generation
  });

  it('never holds more than its bound, and answers what was set last (random use)', () => {
    let seed = 3;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const m = new MemoMap<number, number>(10);
    const truth = new Map<number, number>();
    for (let i = 0; i < 5000; i++) {
      const k = Math.floor(rnd() * 30);
      if (rnd() < 0.5) {
        const v = Math.floor(rnd() * 1000);
        m.set(k, v);
        truth.set(k, v);
      } else {
        const v = m.get(k);
        if (v !== undefined) expect(v).toBe(truth.get(k)); // a memo may forget, never answer wrong
      }
      expect(m.size).toBeLessThanOrEqual(10);
    }
  });
});
