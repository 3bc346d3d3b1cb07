import { describe, expect, it } from 'vitest';
import { statusClass } from '../../src/metrics/crawl-metrics.js';
import { HarvestCurve } from '../../src/metrics/harvest-curve.js';
import { harvestChartSvg } from '../../src/metrics/live-chart.js';
import { LiveStatus } from '../../src/metrics/live-status.js';
import { RecentRate } from '../../src/metrics/recent-rate.js';
import { Tallies } from '../../src/metrics/tallies.js';
import { checkMetricsFlags, workerMetricsPort } from '../../src/cli/metrics-flags.js';
import { mulberry32 } from '../../src/eval/prng.js';
import type { PageEvent } from '../../src/events.js';
import { parseExposition } from '../helpers/exposition.js';
import { errorOf } from '../helpers/error-of.js';

describe('HarvestCurve', () => {
  it('keeps n = 1, evenly spaced points and the latest, bounded, with the exact harvest at each', () => {
    const rng = mulberry32(7);
    const curve = new HarvestCurve(50);
    const relevantAfter: number[] = [0];
    let rel = 0;
    for (let n = 1; n <= 10_000; n++) {
      if (rng.next() < 0.6) rel++;
      relevantAfter.push(rel);
      curve.add(n, rel);
      const pts = curve.points();
      expect(pts.length).toBeLessThanOrEqual(51);
      expect(pts[pts.length - 1]).toEqual([n, rel / n]);
    }
    const pts = curve.points();
    expect(pts[0]).toEqual([1, relevantAfter[1]]);
    for (const [n, h] of pts) expect(h).toBe(relevantAfter[n] / n);
    // after n = 1: step, 2·step, 3·step, … (then the latest)
    const step = pts[1][0];
    for (let i = 1; i < pts.length - 1; i++) expect(pts[i][0]).toBe(i * step);
    expect(pts.length).toBeGreaterThan(25); // halving keeps at least half of the bound
  });

  it('is empty before the first page and a single point after it', () => {
    const c = new HarvestCurve();
    expect(c.points()).toEqual([]);
    c.add(1, 1);
    expect(c.points()).toEqual([[1, 1]]);
  });
});

describe('Tallies', () => {
  it('gives the k largest, largest first, ties in the order first counted', () => {
    const t = new Tallies(() => ({ n: 0 }));
    const counts: Record<string, number> = { a: 3, b: 7, c: 3, d: 1, e: 9, f: 7 };
    for (const [k, n] of Object.entries(counts)) for (let i = 0; i < n; i++) t.of(k).n++;
    expect(t.top(3, (v) => v.n).map((x) => x.key)).toEqual(['e', 'b', 'f']);
    expect(t.top(10, (v) => v.n).map((x) => [x.key, x.value.n])).toEqual([['e', 9], ['b', 7], ['f', 7], ['a', 3], ['c', 3], ['d', 1]]);
    expect(t.size).toBe(6);
  });
});

describe('RecentRate', () => {
  it('is the count over the last window', () => {
    const r = new RecentRate(10_000);
    expect(r.perSec()).toBe(0);
    for (let s = 0; s <= 30; s++) r.sample(s * 1000, s < 20 ? s * 5 : 100 + (s - 20) * 50); // 5/s, then 50/s
    expect(r.perSec()).toBe(50);
    r.sample(31_000, 650);
    expect(r.perSec()).toBe(50);
  });
});

describe('statusClass', () => {
  it('names the classes, none for no response', () => {
    expect([0, 100, 200, 204, 301, 404, 503, 999, 42].map(statusClass)).toEqual(['none', '1xx', '2xx', '2xx', '3xx', '4xx', '5xx', 'other', 'other']);
  });
});

describe('LiveStatus', () => {
  const ev = (over: Partial<PageEvent>): PageEvent => ({ url: 'http://a.test/', host: 'a.test', status: 200, depth: 0, relevance: 0.1, relevant: false, priority: 0, bytes: 10, seq: 1, newUrls: 0, ...over });
  it('counts errors by kind, hosts and the latest relevant pages', () => {
    const s = new LiveStatus({ topic: 't', strategy: 's', worker: '2' });
    s.page(ev({ status: 404, error: 'E_HTTP', relevance: null, relevant: null }));
    s.page(ev({ status: 404, error: 'E_HTTP', relevance: null, relevant: null, host: 'b.test' }));
    s.page(ev({ status: 0, error: 'E_CONNECT_TIMEOUT', relevance: null, relevant: null }));
    for (let i = 0; i < 20; i++) s.page(ev({ url: `http://a.test/${i}`, relevance: 0.5 + i / 100, relevant: true, seq: 10 + i }));
    s.warn('E_HTTP');
    const j = s.json(null);
    expect(j.state).toBe('starting');
    expect(j.worker).toBe('2');
    expect(j.pagesThisRun).toBe(23);
    expect(j.errorsByKind).toEqual([{ kind: 'E_HTTP 404', count: 2 }, { kind: 'E_CONNECT_TIMEOUT', count: 1 }]);
    expect(j.warningsByKind).toEqual([{ kind: 'E_HTTP', count: 1 }]);
    expect(j.topHosts).toEqual([{ host: 'a.test', pages: 22, relevant: 20, errors: 2 }, { host: 'b.test', pages: 1, relevant: 0, errors: 1 }]);
    expect(j.latestRelevant).toHaveLength(15);
    expect(j.latestRelevant[0]).toMatchObject({ url: 'http://a.test/19', relevance: 0.69, seq: 29 });
    expect(j.harvestCurve[j.harvestCurve.length - 1]).toEqual([23, 20 / 23]);
    s.started();
    s.ended('max-pages');
    expect(s.json(null)).toMatchObject({ state: 'ended', reason: 'max-pages' });
  });
});

describe('harvestChartSvg', () => {
  it('draws the curve with the eval report renderer, the strategy name escaped', () => {
    const svg = harvestChartSvg({ strategy: '<b>&', harvestCurve: [[1, 1], [2, 0.5], [3, 2 / 3]] });
    expect(svg).toMatch(/^<svg id="svg-harvest"/);
    expect(svg).toContain('data-strategy="&lt;b&gt;&amp;"');
    expect(svg).not.toContain('<b>');
    expect((/points="([^"]+)"/.exec(svg)?.[1] ?? '').split(' ')).toHaveLength(3);
  });
});

describe('metrics flags', () => {
  it('take a port from 0 to 65535, a host only with a port, and ports P…P+N−1 for N workers', () => {
    expect(() => checkMetricsFlags({ metricsPort: 0 })).not.toThrow();
    expect(() => checkMetricsFlags({})).not.toThrow();
    for (const bad of [-1, 65536, 1.5, NaN]) {
      const e = errorOf(() => checkMetricsFlags({ metricsPort: bad }));
      expect(e.code).toBe('E_USAGE');
      expect(e.message).toContain('--metrics-port');
    }
    expect((errorOf(() => checkMetricsFlags({ metricsHost: '::1' }))).message).toBe('--metrics-host goes with --metrics-port N');
    expect((errorOf(() => checkMetricsFlags({ metricsPort: 65535 }, 2))).code).toBe('E_USAGE');
    expect(() => checkMetricsFlags({ metricsPort: 65534 }, 2)).not.toThrow();
    expect([1, 2, 3].map((k) => workerMetricsPort(9464, k))).toEqual([9464, 9465, 9466]);
    expect([1, 2].map((k) => workerMetricsPort(0, k))).toEqual([0, 0]);
  });
});

describe('the tests\' exposition parser (control)', () => {
  it('finds what a scraper would refuse', () => {
    const good = '# HELP a_total A.\n# TYPE a_total counter\na_total{x="q\\"\\n\\\\"} 3\n# HELP h H.\n# TYPE h histogram\nh_bucket{le="+Inf"} 1\nh_sum 0.5\nh_count 1\n';
    const ok = parseExposition(good);
    expect(ok.problems).toEqual([]);
    expect(ok.families.get('a_total')!.samples[0].labels.x).toBe('q"\n\\');
    expect(parseExposition(good.replace('# HELP a_total A.\n', '')).problems).toEqual(['TYPE before HELP for a_total']);
    expect(parseExposition(`${good}a_total 4\n`).problems).toHaveLength(1); // away from its block
    expect(parseExposition(good.replace('} 3', '} three')).problems).toHaveLength(1);
    expect(parseExposition(good.replace('x="', 'x=')).problems).toHaveLength(1);
    expect(parseExposition(good.replace('h_sum', 'hh_sum')).problems).toHaveLength(1);
  });
});
