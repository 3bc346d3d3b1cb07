/**
 * The figures of scripts/bench-scale.ts, apart from running anything (so that tests can check them):
 * a crawl's pages/s at several page budgets beside a bare loop's at each, and how far the rates
 * spread from one budget to the next (issue 16: "pages/s within 10% from 1,000 to 100,000 pages").
 */

/** One page budget: the crawl and the bare loop on the same server, as many pages each. */
export interface ScalePoint {
  /** The budget asked for (--max-pages). */
  budget: number;
  /** Pages the crawl fetched (fewer than the budget when the corpus ran out). */
  pages: number;
  crawlPagesPerS: number;
  barePagesPerS: number;
  cpuMsPerPage: number;
  /** The bare loop's CPU ms a page while it ran (its process, V8's helper threads included). */
  bareCpuMsPerPage: number;
  peakRssMb: number;
  firstRequestMs: number;
}

/** How far a figure spreads over the points: max ÷ min − 1, and from which budget up it stays within a bound. */
export interface Spread {
  /** max ÷ min − 1 over every point (0.1: within 10%). */
  all: number;
  /** The smallest budget from which every larger one is within the bound (null: not even the largest two). */
  withinFrom: number | null;
}

export interface ScaleSummary {
  points: (ScalePoint & { ratio: number })[];
  /** The bound of `withinFrom` (0.1: 10%). */
  bound: number;
  crawl: Spread;
  /** The crawl ÷ the bare loop: flat when the crawl keeps pace with what the corpus and machine allow at each budget. */
  ratio: Spread;
  bare: Spread;
}

function spread(xs: readonly number[]): number {
  const min = Math.min(...xs);
  return min > 0 ? Math.max(...xs) / min - 1 : Infinity;
}

/** The points' spread of one figure, over all of them and from each budget up (points sorted by budget). */
function spreadOf(points: readonly ScalePoint[], value: (p: ScalePoint) => number, bound: number): Spread {
  const xs = points.map(value);
  let withinFrom: number | null = null;
  for (let i = points.length - 1; i >= 0; i--) {
    if (spread(xs.slice(i)) > bound + 1e-9) break;
    if (i < points.length - 1 || points.length === 1) withinFrom = points[i].budget;
  }
  return { all: +spread(xs).toFixed(3), withinFrom };
}

/** The summary of the points (any order; at least one, each with a positive rate on both sides). */
export function summariseScale(points: readonly ScalePoint[], bound = 0.1): ScaleSummary {
  if (points.length === 0) throw new Error('no point to summarise');
  for (const p of points) {
    if (!(p.pages > 0) || !(p.crawlPagesPerS > 0) || !(p.barePagesPerS > 0)) {
      throw new Error(`the run at ${p.budget} pages fetched nothing on one side: no figure`);
    }
    if (!(p.bareCpuMsPerPage > 0)) throw new Error(`the bare loop at ${p.budget} pages reported no CPU: no figure`);
  }
  const sorted = [...points].sort((a, b) => a.budget - b.budget);
  return {
    points: sorted.map((p) => ({ ...p, ratio: +(p.crawlPagesPerS / p.barePagesPerS).toFixed(3) })),
    bound,
    crawl: spreadOf(sorted, (p) => p.crawlPagesPerS, bound),
    ratio: spreadOf(sorted, (p) => p.crawlPagesPerS / p.barePagesPerS, bound),
    bare: spreadOf(sorted, (p) => p.barePagesPerS, bound),
  };
}

const n = (x: number) => Math.round(x).toLocaleString('en-US');

/** A Markdown table of the points and a line per spread, for the README. */
export function renderScale(s: ScaleSummary): string {
  const rows = s.points.map((p) => `| ${n(p.budget)}${p.pages < p.budget ? ` (${n(p.pages)} fetched)` : ''} | ${n(p.crawlPagesPerS)} | ${n(p.barePagesPerS)} | ${p.ratio.toFixed(2)} | ${p.cpuMsPerPage.toFixed(2)} | ${p.bareCpuMsPerPage.toFixed(2)} | ${(p.cpuMsPerPage / p.bareCpuMsPerPage).toFixed(2)} | ${n(p.peakRssMb)} | ${n(p.firstRequestMs)} |`);
  const line = (name: string, sp: Spread) =>
    `${name}: max ÷ min ${(1 + sp.all).toFixed(2)} over all budgets; within ${Math.round(s.bound * 100)}% ${sp.withinFrom === null ? 'from no budget up' : `from ${n(sp.withinFrom)} pages up`}`;
  return [
    '| pages | crawl, pages/s | bare loop, pages/s | crawl ÷ bare loop | CPU ms / page | bare loop CPU ms / page | CPU a page ÷ bare loop\'s | peak RSS MB | first request ms |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    line('crawl pages/s', s.crawl),
    line('bare loop pages/s', s.bare),
    line('crawl ÷ bare loop', s.ratio),
  ].join('\n');
}
