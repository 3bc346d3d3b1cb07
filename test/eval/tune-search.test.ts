import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  inBounds, paramsKey, projectToSimplex, roundSimplex, TUNE_BOUNDS, TuneSearch, type TuneParams,
} from '../../src/eval/tune-search.js';

const BASELINE: TuneParams = { x: 0.3, y: 0.4, z: 0.3, max_life: 3, threshold: 0.3 };
const OPT: TuneParams = { x: 0.62, y: 0.27, z: 0.11, max_life: 6, threshold: 0.47 };

/** A smooth objective on the searched space, maximal (0) at OPT; each coordinate scaled to its range. */
function smooth(p: TuneParams): number {
  const d2 = (p.x - OPT.x) ** 2 + (p.y - OPT.y) ** 2 + (p.z - OPT.z) ** 2;
  const l = (p.max_life - OPT.max_life) / (TUNE_BOUNDS.max_life[1] - TUNE_BOUNDS.max_life[0]);
  const t = (p.threshold - OPT.threshold) / (TUNE_BOUNDS.threshold[1] - TUNE_BOUNDS.threshold[0]);
  return -(d2 + l * l + t * t);
}

/** Runs a search to the end against `f`; returns every proposal in order. */
function runSearch(trials: number, seed: number, f: (p: TuneParams) => number, baseline = BASELINE): { proposals: TuneParams[]; search: TuneSearch } {
  const search = new TuneSearch({ trials, seed, baseline });
  const proposals: TuneParams[] = [];
  for (let p = search.propose(); p; p = search.propose()) {
    proposals.push(p);
    search.report(p, f(p));
  }
  return { proposals, search };
}

describe('simplex helpers', () => {
  it('projectToSimplex gives non-negative points summing to 1, and keeps simplex points', () => {
    fc.assert(fc.property(fc.array(fc.double({ min: -3, max: 3, noNaN: true }), { minLength: 3, maxLength: 3 }), (v) => {
      const p = projectToSimplex(v);
      expect(p.every((x) => x >= 0)).toBe(true);
      expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    }));
    expect(projectToSimplex([0.2, 0.5, 0.3]).map((x) => +x.toFixed(12))).toEqual([0.2, 0.5, 0.3]);
    expect(projectToSimplex([2, 0, 0])).toEqual([1, 0, 0]);
  });

  it('roundSimplex gives whole hundredths summing to exactly 100', () => {
    fc.assert(fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 3, maxLength: 3 }), (v) => {
      const r = roundSimplex(v);
      const ints = r.map((x) => Math.round(x * 100));
      expect(r).toEqual(ints.map((k) => k / 100));
      expect(ints.reduce((a, b) => a + b, 0)).toBe(100);
    }));
  });
});

describe('TuneSearch', () => {
  it('proposes the baseline first, exactly, then only valid points on the simplex within bounds', () => {
    const odd: TuneParams = { x: 1, y: 1, z: 2, max_life: 12, threshold: 0.9 }; // a file may be outside the searched space
    const { proposals } = runSearch(40, 7, smooth, odd);
    expect(proposals[0]).toEqual(odd);
    expect(proposals).toHaveLength(40);
    for (const p of proposals.slice(1)) {
      expect(inBounds(p), JSON.stringify(p)).toBe(true);
      for (const v of [p.x, p.y, p.z, p.threshold]) expect(Math.round(v * 100) / 100).toBe(v);
    }
  });

  it('never proposes the same settings twice', () => {
    for (const seed of [1, 2, 3]) {
      // a flat objective makes the ES accept every point: a stress test for the memo
      const { proposals } = runSearch(120, seed, () => 0);
      expect(new Set(proposals.map(paramsKey)).size).toBe(proposals.length);
    }
  });

  it('is deterministic for a seed, and another seed proposes otherwise', () => {
    const a = runSearch(30, 42, smooth).proposals;
    const b = runSearch(30, 42, smooth).proposals;
    const c = runSearch(30, 43, smooth).proposals;
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
    expect(c[0]).toEqual(a[0]);
  });

  it('the first third is random: spread over the simplex, life and threshold over their ranges', () => {
    const { proposals } = runSearch(300, 5, () => 0, BASELINE);
    const random = proposals.slice(1, 100);
    for (const k of ['x', 'y', 'z'] as const) {
      const vs = random.map((p) => p[k]);
      expect(Math.min(...vs)).toBeLessThan(0.05);
      expect(Math.max(...vs)).toBeGreaterThan(0.8);
      // Dirichlet(1,1,1): each coordinate has mean 1/3
      expect(vs.reduce((a, b) => a + b, 0) / vs.length).toBeCloseTo(1 / 3, 1);
    }
    expect(new Set(random.map((p) => p.max_life))).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 8]));
    const thr = random.map((p) => p.threshold);
    expect(Math.min(...thr)).toBeLessThan(0.15);
    expect(Math.max(...thr)).toBeGreaterThan(0.7);
  });

  it('converges to the optimum of a smooth objective within 120 proposals, for every seed', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const { search } = runSearch(120, seed, smooth);
      const best = search.best!.params;
      expect(Math.abs(best.x - OPT.x), `seed ${seed}: ${JSON.stringify(best)}`).toBeLessThanOrEqual(0.05);
      expect(Math.abs(best.y - OPT.y)).toBeLessThanOrEqual(0.05);
      expect(Math.abs(best.z - OPT.z)).toBeLessThanOrEqual(0.05);
      expect(best.max_life).toBe(OPT.max_life);
      expect(Math.abs(best.threshold - OPT.threshold)).toBeLessThanOrEqual(0.05);
    }
  });

  it('beats random search on the same budget', () => {
    let es = 0;
    let rnd = 0;
    for (const seed of [11, 12, 13, 14, 15, 16]) {
      es += runSearch(30, seed, smooth).search.best!.score;
      rnd += runRandom(30, seed);
    }
    expect(es).toBeGreaterThan(rnd);
  });

  it('best is the first of equal scores (the baseline keeps a tie), and the protocol is enforced', () => {
    const { search } = runSearch(10, 3, () => 1);
    expect(search.best!.params).toEqual(BASELINE);
    expect(search.results).toHaveLength(10);
    const s = new TuneSearch({ trials: 2, seed: 1, baseline: BASELINE });
    const p = s.propose()!;
    expect(() => s.propose()).toThrow(/report/);
    s.report(p, 0);
    expect(() => s.report(p, 0)).toThrow(/once/);
    expect(s.propose()).not.toBeNull();
    expect(() => new TuneSearch({ trials: 0, seed: 1, baseline: BASELINE })).toThrow(RangeError);
  });
});

/** Best score of pure random search (every trial after the baseline random). */
function runRandom(trials: number, seed: number): number {
  const s = new TuneSearch({ trials, seed, baseline: BASELINE, randomShare: 1 });
  for (let p = s.propose(); p; p = s.propose()) s.report(p, smooth(p));
  return s.best!.score;
}
