import { mulberry32, type Rng } from './prng.js';

/**
 * The search of `topicrawl tune`, pure (no crawling, no I/O, no clock): a proposer that hands out
 * the next settings to try and is told how each scored.
 *
 * - Trial 1 is always the baseline (the topic file's settings, as they are).
 * - The next trials, up to a third of them, are random: (x, y, z) from Dirichlet(1, 1, 1) (uniform on
 *   the simplex), max_life and threshold uniform in their bounds.
 * - Then a (1+1)-ES around the incumbent: each coordinate perturbed by a Gaussian step (relative to
 *   its range), (x, y, z) projected back onto the simplex, the others clamped (max_life rounded);
 *   a candidate at least as good as the incumbent replaces it (ties too, to drift across the
 *   plateaus a crawl's discrete order makes) and widens the step ×1.5 on a strict gain; two failures
 *   in a row halve it.
 * - Points are rounded to a grid ({@link TUNE_GRID} for x, y, z and threshold, whole max_life), and a
 *   point already proposed is never proposed again (memo).
 * Same seed and same reported scores → same proposals.
 */

/** The settings `tune` searches. */
export interface TuneParams {
  /** strategy.x, weight of IB (backlinks). */
  x: number;
  /** strategy.y, weight of IL (Location Metric). */
  y: number;
  /** strategy.z, weight of ID (link depth). */
  z: number;
  /** strategy.max_life, Fish-Search life. */
  max_life: number;
  /** relevance.threshold. */
  threshold: number;
}

/** Bounds of the searched settings (x, y, z: on the simplex). */
export const TUNE_BOUNDS = { max_life: [1, 8], threshold: [0.05, 0.8] } as const;

/** Grid step of x, y, z and threshold (points are multiples of it). */
export const TUNE_GRID = 0.01;

/** Initial ES step, as a fraction of each coordinate's range. */
export const INITIAL_STEP = 0.25;
/** Smallest ES step; below it the step is reset to {@link INITIAL_STEP} (a restart around the best). */
export const MIN_STEP = 0.02;

export interface TuneSearchOptions {
  /** Proposals in all, the baseline included (≥ 1). */
  trials: number;
  /** Seed of the generator. */
  seed: number;
  /** The file's settings: the first proposal, exactly. */
  baseline: TuneParams;
  /** Share of the trials (baseline included) that are random; default 1/3. */
  randomShare?: number;
}

/** A proposal and its score, as reported. */
export interface ScoredParams {
  params: TuneParams;
  score: number;
}

const STEPS = Math.round(1 / TUNE_GRID);
const [LIFE_MIN, LIFE_MAX] = TUNE_BOUNDS.max_life;
const [THR_MIN, THR_MAX] = TUNE_BOUNDS.threshold;

/** Identity of a point for the memo: its values as printed at full precision. */
export function paramsKey(p: TuneParams): string {
  return [p.x, p.y, p.z, p.max_life, p.threshold].map(String).join('|');
}

/** Euclidean projection of a vector onto the probability simplex (sort-based; Duchi et al. 2008). */
export function projectToSimplex(v: readonly number[]): number[] {
  const u = [...v].sort((a, b) => b - a);
  let cum = 0;
  let theta = 0;
  for (let i = 0; i < u.length; i++) {
    cum += u[i];
    const t = (cum - 1) / (i + 1);
    if (u[i] - t > 0) theta = t;
  }
  return v.map((x) => Math.max(0, x - theta));
}

/**
 * A point of the simplex rounded to the grid: whole hundredths summing to exactly 1 (largest
 * remainder), each value k/100 so that it prints and parses back unchanged.
 */
export function roundSimplex(v: readonly number[]): number[] {
  const sum = v.reduce((a, b) => a + b, 0);
  const scaled = v.map((x) => (sum > 0 ? (x / sum) * STEPS : STEPS / v.length));
  const ints = scaled.map(Math.floor);
  let left = STEPS - ints.reduce((a, b) => a + b, 0);
  const order = scaled.map((s, i) => ({ i, r: s - Math.floor(s) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    ints[i]++;
    left--;
  }
  return ints.map((k) => k / STEPS);
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
const roundThreshold = (t: number) => clamp(Math.round(t * STEPS), Math.round(THR_MIN * STEPS), Math.round(THR_MAX * STEPS)) / STEPS;
const roundLife = (l: number) => clamp(Math.round(l), LIFE_MIN, LIFE_MAX);

/** A standard normal deviate (Box–Muller) from the generator. */
function gaussian(rng: Rng): number {
  const u = 1 - rng.next(); // (0, 1]
  const v = rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** A point of the grid projected from anything: simplex for x, y, z, bounds for the others. */
export function toGrid(p: TuneParams): TuneParams {
  const [x, y, z] = roundSimplex(projectToSimplex([p.x, p.y, p.z]));
  return { x, y, z, max_life: roundLife(p.max_life), threshold: roundThreshold(p.threshold) };
}

/** Whether a point is inside the searched space (on the grid's simplex, within bounds). */
export function inBounds(p: TuneParams): boolean {
  const xyz = [p.x, p.y, p.z];
  return xyz.every((v) => v >= 0 && v <= 1) && Math.abs(p.x + p.y + p.z - 1) < 1e-9 &&
    Number.isInteger(p.max_life) && p.max_life >= LIFE_MIN && p.max_life <= LIFE_MAX && p.threshold >= THR_MIN && p.threshold <= THR_MAX;
}

/** Proposes the settings of each trial; see the module comment. */
export class TuneSearch {
  readonly trials: number;
  private readonly rng: Rng;
  private readonly baseline: TuneParams;
  private readonly randomTrials: number;
  private readonly seen = new Set<string>();
  private readonly history: ScoredParams[] = [];
  private pending: TuneParams | null = null;
  private proposed = 0;
  private center: ScoredParams | null = null;
  private bestSoFar: ScoredParams | null = null;
  private step = INITIAL_STEP;
  private failures = 0;

  constructor(o: TuneSearchOptions) {
    if (!Number.isInteger(o.trials) || o.trials < 1) throw new RangeError(`trials must be a whole number ≥ 1, got ${o.trials}`);
    this.trials = o.trials;
    this.rng = mulberry32(o.seed);
    this.baseline = { ...o.baseline };
    this.randomTrials = Math.max(1, Math.round(o.trials * (o.randomShare ?? 1 / 3)));
  }

  /** Proposals handed out so far. */
  get count(): number {
    return this.proposed;
  }

  /** Every reported proposal with its score, in order. */
  get results(): readonly ScoredParams[] {
    return this.history;
  }

  /** The best reported so far (the first of equal scores, so the baseline wins ties). */
  get best(): ScoredParams | null {
    return this.bestSoFar;
  }

  /** The current ES step (fraction of each range). */
  get currentStep(): number {
    return this.step;
  }

  /**
   * The next settings to try, or null when all trials are proposed (or no new point can be found).
   * Report its score with {@link report} before asking again.
   */
  propose(): TuneParams | null {
    if (this.pending) throw new Error('report the score of the last proposal before asking for the next');
    if (this.proposed >= this.trials) return null;
    let p: TuneParams | null;
    if (this.proposed === 0) p = { ...this.baseline };
    else if (this.proposed < this.randomTrials || !this.center) p = this.fresh(() => this.randomPoint());
    else p = this.fresh(() => this.perturb(this.center!.params)) ?? this.fresh(() => this.randomPoint());
    if (!p) return null;
    this.seen.add(paramsKey(p));
    this.proposed++;
    this.pending = p;
    return { ...p };
  }

  /** Reports the score (higher is better) of the last proposal. */
  report(params: TuneParams, score: number): void {
    if (!this.pending || paramsKey(params) !== paramsKey(this.pending)) throw new Error('report the last proposal, once');
    const scored = { params: this.pending, score };
    this.pending = null;
    this.history.push(scored);
    if (!this.bestSoFar || score > this.bestSoFar.score) this.bestSoFar = scored;
    const local = this.history.length > this.randomTrials;
    if (!local) {
      // the random phase only looks for a good start; the ES starts from its best (on the grid)
      if (this.bestSoFar === scored) this.center = { params: toGrid(scored.params), score };
      return;
    }
    const center = this.center!;
    if (score >= center.score) {
      if (score > center.score) this.step = Math.min(0.5, this.step * 1.5);
      this.center = scored;
      this.failures = 0;
    } else if (++this.failures >= 2) {
      this.step /= 2;
      this.failures = 0;
      if (this.step < MIN_STEP) {
        this.step = INITIAL_STEP;
        this.center = { params: toGrid(this.bestSoFar.params), score: this.bestSoFar.score };
      }
    }
  }

  /** A point from `make` not proposed before (up to 64 tries), else null. */
  private fresh(make: () => TuneParams): TuneParams | null {
    for (let i = 0; i < 64; i++) {
      const p = make();
      if (!this.seen.has(paramsKey(p))) return p;
    }
    return null;
  }

  private randomPoint(): TuneParams {
    const e = [0, 1, 2].map(() => -Math.log(1 - this.rng.next())); // Exp(1) → Dirichlet(1, 1, 1)
    const [x, y, z] = roundSimplex(e);
    return {
      x, y, z,
      max_life: this.rng.int(LIFE_MIN, LIFE_MAX),
      threshold: roundThreshold(THR_MIN + this.rng.next() * (THR_MAX - THR_MIN)),
    };
  }

  private perturb(c: TuneParams): TuneParams {
    const s = this.step;
    const xyz = [c.x, c.y, c.z].map((v) => v + s * gaussian(this.rng));
    return toGrid({
      x: xyz[0], y: xyz[1], z: xyz[2],
      max_life: c.max_life + s * (LIFE_MAX - LIFE_MIN) * gaussian(this.rng),
      threshold: c.threshold + s * (THR_MAX - THR_MIN) * gaussian(this.rng),
    });
  }
}
