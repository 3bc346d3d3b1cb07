/**
 * The harvest figures of one crawl from its fetch order (definitions in eval-types.ts): harvest
 * rate and target recall at the end, `auc` = mean harvest rate over n = 1 … fetched, and the
 * sampled harvest curve. Pure functions: no I/O.
 */
import type { StrategyResult } from './eval-types.js';

/** Most points a curve has (n = 1, the multiples of the step, and n = fetched). */
export const MAX_CURVE_POINTS = 200;

/** A strategy's figures without its wall time. */
export type HarvestFigures = Omit<StrategyResult, 'wall_s' | 'cpu_s'>;

/**
 * The n at which the curve is sampled for `fetched` pages: 1, then every `step` pages, then
 * `fetched` itself, with step = ceil(fetched / (MAX_CURVE_POINTS − 2)) so that there are at most
 * MAX_CURVE_POINTS points. Every n from 1 to fetched when fetched ≤ MAX_CURVE_POINTS − 2. Empty for 0.
 */
export function curvePoints(fetched: number, maxPoints = MAX_CURVE_POINTS): number[] {
  if (fetched <= 0) return [];
  const step = Math.max(1, Math.ceil(fetched / Math.max(1, maxPoints - 2)));
  const out = [1];
  for (let n = step; n <= fetched; n += step) if (n > 1) out.push(n);
  if (out[out.length - 1] !== fetched) out.push(fetched);
  return out;
}

/**
 * Figures of a crawl whose i-th fetched page (in fetch order) was relevant when `relevant[i]`.
 * `relevantInCorpus` is the number of pages carrying the label in the corpus (recall's denominator;
 * recall is 0 when it is 0).
 */
export function harvestFigures(relevant: readonly boolean[], relevantInCorpus: number, maxPoints = MAX_CURVE_POINTS): HarvestFigures {
  const fetched = relevant.length;
  const points = curvePoints(fetched, maxPoints);
  const curve: [number, number][] = [];
  let hits = 0;
  let sum = 0;
  let p = 0;
  for (let n = 1; n <= fetched; n++) {
    if (relevant[n - 1]) hits++;
    const rate = hits / n;
    sum += rate;
    if (points[p] === n) {
      curve.push([n, rate]);
      p++;
    }
  }
  return {
    fetched,
    relevant: hits,
    harvest_rate: fetched ? hits / fetched : 0,
    target_recall: relevantInCorpus > 0 ? hits / relevantInCorpus : 0,
    auc: fetched ? sum / fetched : 0,
    curve,
  };
}
