import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { candidate, newHostSlot, offerEntry, type Candidate } from '../../src/frontier/host-queue.js';
import { RunStore } from '../../src/frontier/run-store.js';

/**
 * Every candidate in a host's front must have one hidden class, whether it was offered one by one
 * or taken back from the runs: with two shapes mixed in a front, V8 threw away the optimised offer
 * (a "wrong map" deoptimisation where it compares priorities) and recompiled it 36 times in a
 * 20,000-page crawl, about 8% of the crawl's CPU. V8's own map comparison (a native of
 * --allow-natives-syntax, enabled for functions compiled after the flag) says whether two objects
 * share a hidden class; the key order alone would miss a second shape with the same keys.
 */
setFlagsFromString('--allow-natives-syntax');
// eslint-disable-next-line @typescript-eslint/no-implied-eval
const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

describe('candidate shape', () => {
  it('tells two shapes apart (the check itself works)', () => {
    expect(sameMap({ id: 1, priority: 0.5, seq: 2 }, { id: 3, priority: 0.25, seq: 4 })).toBe(true);
    expect(sameMap({ id: 1, priority: 0.5, seq: 2 }, { priority: 0.5, seq: 2, id: 1 })).toBe(false);
  });

  it('entries offered and entries taken back from the runs share one hidden class', () => {
    const runs = new RunStore('', 1, 4); // writes a run every 4 buffered entries
    try {
      const host = newHostSlot(1, 'h.test', 0, 2);
      // offered: the front keeps the best 2, the rest go to the runs
      const prios = [0.5, 0.75, 0.25, 1, 0.125, 0.625, 0.375, 0.875];
      prios.forEach((p, i) => offerEntry(runs, host, { id: i + 1, priority: p, seq: i + 1 }, 2, () => false));
      const offered = host.cands.slice();
      expect(offered.length).toBe(2);
      // taken back: the runs' best entries
      const taken: Candidate[] = runs.take(host.id, 10, () => false);
      expect(taken.length).toBe(prios.length - 2);
      const reference = candidate(99, 0.3, 99);
      for (const c of [...offered, ...taken]) expect(sameMap(c, reference)).toBe(true);
      // and the order is still best first within each
      expect(offered.map((c) => c.priority)).toEqual([1, 0.875]);
      expect(taken.map((c) => c.priority)).toEqual([0.75, 0.625, 0.5, 0.375, 0.25, 0.125]);
    } finally {
      runs.close();
    }
  });
});
