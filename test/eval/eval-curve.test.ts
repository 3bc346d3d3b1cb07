import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { curvePoints, harvestFigures, MAX_CURVE_POINTS } from '../../src/eval/eval-curve.js';

describe('harvest curve and auc', () => {
  it('a small crawl, by hand: R . R R with 6 relevant pages in the corpus', () => {
    const f = harvestFigures([true, false, true, true], 6);
    expect(f.fetched).toBe(4);
    expect(f.relevant).toBe(3);
    expect(f.harvest_rate).toBe(0.75);
    expect(f.target_recall).toBe(0.5);
    // harvest after n = 1, 2, 3, 4: 1, 1/2, 2/3, 3/4; their mean
    expect(f.auc).toBeCloseTo((1 + 0.5 + 2 / 3 + 0.75) / 4, 12);
    expect(f.curve).toEqual([[1, 1], [2, 0.5], [3, 2 / 3], [4, 0.75]]);
  });

  it('the same pages in a better order have the same harvest but a larger auc', () => {
    const late = harvestFigures([false, false, true, true], 2);
    const early = harvestFigures([true, true, false, false], 2);
    expect(late.harvest_rate).toBe(early.harvest_rate);
    expect(late.auc).toBeCloseTo((0 + 0 + 1 / 3 + 1 / 2) / 4, 12);
    expect(early.auc).toBeCloseTo((1 + 1 + 2 / 3 + 1 / 2) / 4, 12);
    expect(early.target_recall).toBe(1);
  });

  it('nothing fetched: zeros and an empty curve; no relevant page in the corpus: recall 0', () => {
    expect(harvestFigures([], 5)).toEqual({ fetched: 0, relevant: 0, harvest_rate: 0, target_recall: 0, auc: 0, curve: [] });
    expect(harvestFigures([false, false], 0).target_recall).toBe(0);
  });

  it('sample points: every n for short crawls, 1 + steps + the end for long ones', () => {
    expect(curvePoints(0)).toEqual([]);
    expect(curvePoints(1)).toEqual([1]);
    expect(curvePoints(5)).toEqual([1, 2, 3, 4, 5]);
    expect(curvePoints(10, 5)).toEqual([1, 4, 8, 10]); // step ceil(10 / 3) = 4
    expect(curvePoints(9, 5)).toEqual([1, 3, 6, 9]); // the end is a multiple: not repeated
    expect(curvePoints(MAX_CURVE_POINTS - 2)).toHaveLength(MAX_CURVE_POINTS - 2);
  });

  it('properties: at most MAX_CURVE_POINTS points from n = 1 to n = fetched, each point the harvest of that prefix', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 3000 }), fc.integer({ min: 0, max: 50 }), (flags, extra) => {
        const inCorpus = flags.filter(Boolean).length + extra;
        const f = harvestFigures(flags, inCorpus);
        expect(f.curve.length).toBeLessThanOrEqual(MAX_CURVE_POINTS);
        if (flags.length === 0) return;
        expect(f.curve[0][0]).toBe(1);
        expect(f.curve[f.curve.length - 1]).toEqual([flags.length, f.harvest_rate]);
        for (let i = 1; i < f.curve.length; i++) expect(f.curve[i][0]).toBeGreaterThan(f.curve[i - 1][0]);
        for (const [n, rate] of f.curve) expect(rate).toBeCloseTo(flags.slice(0, n).filter(Boolean).length / n, 12);
        expect(f.auc).toBeGreaterThanOrEqual(0);
        expect(f.auc).toBeLessThanOrEqual(1);
        expect(f.target_recall).toBeCloseTo(inCorpus ? f.relevant / inCorpus : 0, 12);
      }),
      { numRuns: 200 },
    );
  });
});
