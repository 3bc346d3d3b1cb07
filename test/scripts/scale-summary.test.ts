import { describe, expect, it } from 'vitest';
import { renderScale, summariseScale, type ScalePoint } from '../../scripts/scale-summary.js';

const point = (budget: number, crawl: number, bare: number, pages = budget, bareCpu = 0.5): ScalePoint => ({
  budget, pages, crawlPagesPerS: crawl, barePagesPerS: bare, cpuMsPerPage: 2, bareCpuMsPerPage: bareCpu, peakRssMb: 300, firstRequestMs: 150,
});

describe('summariseScale', () => {
  it('sorts by budget, gives each point its ratio, and each figure its spread over all budgets', () => {
    const s = summariseScale([point(20_000, 1000, 3000), point(1000, 500, 1600), point(100_000, 950, 2900)]);
    expect(s.points.map((p) => p.budget)).toEqual([1000, 20_000, 100_000]);
    expect(s.points.map((p) => p.ratio)).toEqual([+(500 / 1600).toFixed(3), +(1000 / 3000).toFixed(3), +(950 / 2900).toFixed(3)]);
    expect(s.crawl.all).toBeCloseTo(1000 / 500 - 1, 3);
    expect(s.bare.all).toBeCloseTo(3000 / 1600 - 1, 3);
  });

  it('finds the smallest budget from which every larger one is within the bound', () => {
    // crawl: 500 → 1000 → 950: within 10% from 20,000 up, not from 1,000; the ratio is flat from 1,000
    const s = summariseScale([point(1000, 500, 1600), point(20_000, 1000, 3000), point(100_000, 950, 2900)]);
    expect(s.crawl.withinFrom).toBe(20_000);
    expect(s.ratio.withinFrom).toBe(1000);
    // the largest two apart by more than the bound: from no budget up
    const t = summariseScale([point(1000, 1000, 2000), point(5000, 1000, 2000), point(20_000, 500, 2000)]);
    expect(t.crawl.withinFrom).toBeNull();
    expect(t.bare.withinFrom).toBe(1000);
    // a wider bound takes more budgets in
    expect(summariseScale([point(1000, 500, 1600), point(20_000, 1000, 3000)], 1.5).crawl.withinFrom).toBe(1000);
  });

  it('refuses a point that fetched nothing, and no points at all', () => {
    expect(() => summariseScale([point(1000, 0, 1600)])).toThrow(/fetched nothing/);
    expect(() => summariseScale([point(1000, 500, 0)])).toThrow(/fetched nothing/);
    expect(() => summariseScale([point(1000, 500, 1600, 1000, 0)])).toThrow(/bare loop at 1000 pages reported no CPU/);
    expect(() => summariseScale([])).toThrow(/no point/);
  });
});

describe('renderScale', () => {
  it('makes a row per budget, says when the corpus ran out, and a line per spread', () => {
    const text = renderScale(summariseScale([point(1000, 500, 1600), point(20_000, 1000, 3000), point(100_000, 950, 2900, 99_000)]));
    const rows = text.split('\n').filter((l) => /^\| [0-9]/.test(l));
    expect(rows).toHaveLength(3);
    expect(rows[0]).toContain('| 1,000 | 500 | 1,600 | 0.31 |');
    // CPU a page: the crawl's, the bare loop's, and the first over the second
    expect(rows[1]).toContain('| 0.33 | 2.00 | 0.50 | 4.00 | 300 | 150 |');
    expect(rows[2]).toContain('100,000 (99,000 fetched)');
    expect(text).toContain('crawl pages/s: max ÷ min 2.00 over all budgets; within 10% from 20,000 pages up');
    expect(text).toContain('crawl ÷ bare loop: max ÷ min');
  });
});
