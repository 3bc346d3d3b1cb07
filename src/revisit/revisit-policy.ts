import { estimateChangeRate, estimateRateFromAges } from './change-rate.js';

/**
 * When to revisit a page: the class's initial interval until enough checks exist, then the
 * freshness-optimal interval for the page's estimated change rate (Cho & Garcia-Molina 2000,
 * "Synchronizing a database to improve freshness"), clamped to the class's bounds.
 *
 * The allocation: maximise Σ F(λ_i, f_i), F(λ, f) = (f/λ)(1 − e^{−λ/f}), under Σ f_i = budget.
 * With r = λ/f, ∂F/∂f = g(r)/λ where g(r) = 1 − (1 + r)e^{−r} rises from 0 to 1. Setting
 * ∂F/∂f = μ (the Lagrange multiplier) gives g(λ/f) = μλ: a solution exists only when μλ < 1; a
 * page with μλ ≥ 1 changes too fast to be worth the budget and gets f = 0 (the class's longest
 * interval). As λ grows from 0, the optimal f first rises (≈ √(λ/2μ) for small λ), then falls to
 * 0 at λ = 1/μ: the faster pages get more checks only up to a point.
 */

const DAY_MS = 86_400_000;

/** One URL class of a topic (`revisit.classes[]`): which URLs it holds and its revisit interval bounds. */
export interface RevisitClassConfig {
  /** Class name: 'home', 'list', 'content', 'product' or a topic's own. */
  name: string;
  /** Regular expressions (JavaScript syntax, tested case-insensitively on the whole normalised URL). */
  patterns: readonly string[];
  /** Interval before the page has `min_checks` checks (ms). */
  initial_ms: number;
  /** Shortest interval (ms). */
  min_ms: number;
  /** Longest interval (ms); also the interval of a page that changes too fast or never. */
  max_ms: number;
}

/**
 * What the policy needs to know about one page's revisit history. A *check* is a revisit whose
 * result was compared with the stored copy (a 304 counts, unchanged); the first fetch is not a
 * check. `firstCheckAt` is the time (ms since epoch) of the fetch that gave the copy the first
 * check compared against, `lastCheckAt` the time of the latest check (or of that fetch when
 * checks = 0). So the estimator's span is lastCheckAt − firstCheckAt and f = checks / span.
 */
export interface PageRevisitState {
  /** Class name (see url-class.ts). */
  cls: string;
  /** Checks done. */
  checks: number;
  /** Checks that found a change (different hash of the normalised text). */
  changes: number;
  firstCheckAt: number;
  lastCheckAt: number;
  /**
   * What the server's Last-Modified told, while it has been trustworthy (see last-modified.ts):
   * checks that found a change and the summed age of their latest change, and the summed
   * intervals of checks that found none. Null or absent: not known, or not trustworthy; λ̂ then
   * comes from the counts above alone.
   */
  ages?: PageAges | null;
}

/** Last-Modified evidence of a page (see {@link PageRevisitState.ages}). */
export interface PageAges {
  changes: number;
  ageMs: number;
  unchangedMs: number;
}

/** Bounds on a page's check frequency, in checks per day. */
export interface FrequencyBounds {
  minPerDay: number;
  maxPerDay: number;
}

/**
 * r such that g(r) = 1 − (1 + r)e^{−r} = y, for 0 < y < 1. With 1 − y = (1 + r)e^{−r} this is φ(r) = r − ln(1 + r) =
 * −ln(1 − y) =: t, and φ is increasing and convex, so Newton's method started right of the root
 * converges monotonically (about 9 steps to 1e-13). r0 = (√t + 1)² is right of it: ln(1 + r) ≤ √r
 * (as 1 + r ≥ 2√r), so φ(r0) ≥ r0 − √r0 = t + √t. The log form stays accurate as y → 1, where
 * g(r) rounds to 1.
 */
function gInverse(y: number): number {
  if (y < 1e-10) return Math.sqrt(2 * y);
  const t = -Math.log1p(-y);
  let r = (Math.sqrt(t) + 1) ** 2;
  for (let i = 0; i < 60; i++) {
    const step = ((r - Math.log1p(r) - t) * (1 + r)) / r;
    r -= step;
    if (!(step > 1e-13 * r)) break;
  }
  return r;
}

/**
 * The freshness-optimal check frequency (checks per day) of a page with change rate `rate`
 * (changes per day) for the multiplier `mu` (days): the f that solves ∂F/∂f = μ, or 0 when
 * μ·rate ≥ 1 or rate ≤ 0 (a page that never changes needs no checks). Not clamped.
 */
export function optimalFrequency(rate: number, mu: number): number {
  if (!(rate > 0) || !Number.isFinite(rate)) return 0;
  if (!(mu > 0)) return Infinity;
  const y = mu * rate;
  if (y >= 1) return 0;
  return rate / gInverse(y);
}

/** The frequency bounds of a class: [1/max interval, 1/min interval] in checks per day. */
export function classFrequencyBounds(cls: RevisitClassConfig): FrequencyBounds {
  return { minPerDay: DAY_MS / cls.max_ms, maxPerDay: DAY_MS / cls.min_ms };
}

function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}

/**
 * Where a budget puts the pages: the multiplier μ (days), and how the pages whose rate is 1/μ to
 * floating-point precision share what is left. Near μλ = 1 the optimal frequency falls from about
 * λ/40 to 0 within a relative change of μ that a double cannot resolve (r = λ/f grows like
 * ln(1/(1 − μλ))), so when many pages have (nearly) the same rate, as estimated rates often do,
 * no single μ spends the budget. There the freshness is linear in f (F ≈ f/λ), so any split
 * among those pages is as good as another: each gets the share `fill` of the way from its
 * frequency at `mu` to its frequency at `muBelow`, which spends the budget exactly.
 */
export interface BudgetLevel {
  /** The multiplier: the upper end of the solver's final bracket (Σ f ≤ budget there). */
  mu: number;
  /** The lower end (Σ f > budget there); equal to `mu` when no page sits at the jump. */
  muBelow: number;
  /** In [0, 1]: how far each page moves from its frequency at `mu` towards that at `muBelow`. */
  fill: number;
}

const clampTo = (f: number, b: FrequencyBounds | undefined): number => (b ? clamp(f, b.minPerDay, b.maxPerDay) : f);

/**
 * A page's check frequency (checks per day) at a budget level, clamped to its bounds: the
 * optimal frequency at `level.mu`, moved `level.fill` of the way towards that at `level.muBelow`.
 */
export function frequencyAt(rate: number, level: BudgetLevel, bounds?: FrequencyBounds): number {
  const f = clampTo(optimalFrequency(rate, level.mu), bounds);
  if (level.fill === 0 || level.muBelow === level.mu) return f;
  return f + level.fill * (clampTo(optimalFrequency(rate, level.muBelow), bounds) - f);
}

/**
 * The budget level at which the pages' optimal frequencies add up to `budgetPerDay` checks per
 * day: Σ f_i = budget, solved on ln μ (Σ f_i falls as μ grows), then the `fill` that spends
 * what the jump at μλ = 1 leaves (see {@link BudgetLevel}). `bounds` (optional, one for all pages
 * or one per page) clamps each f_i first, as the intervals will be clamped, so that the clamped
 * schedule spends the budget. μ is Infinity when the budget is at or below what the lower bounds
 * alone spend (or no page has a positive rate: every page then gets its longest interval), and 0
 * when even the upper bounds cannot spend it.
 */
export function solveBudget(
  rates: readonly number[],
  budgetPerDay: number,
  bounds?: FrequencyBounds | readonly FrequencyBounds[],
): BudgetLevel {
  const boundAt = (i: number): FrequencyBounds | undefined =>
    bounds === undefined ? undefined : Array.isArray(bounds) ? (bounds as readonly FrequencyBounds[])[i] : (bounds as FrequencyBounds);
  const total = (mu: number): number => {
    let s = 0;
    for (let i = 0; i < rates.length; i++) s += clampTo(optimalFrequency(rates[i], mu), boundAt(i));
    return s;
  };
  const at = (mu: number): BudgetLevel => ({ mu, muBelow: mu, fill: 0 });
  let maxRate = 0;
  let minRate = Infinity;
  for (const r of rates) {
    if (r > 0 && Number.isFinite(r)) {
      maxRate = Math.max(maxRate, r);
      minRate = Math.min(minRate, r);
    }
  }
  if (maxRate === 0) return at(Infinity);
  // Above 1/minRate every f is 0 (only lower bounds spend); below, Σ f grows without bound as μ → 0.
  let hi = 1 / minRate;
  let spentHi = total(hi);
  if (spentHi >= budgetPerDay) return at(Infinity);
  let lo = hi;
  let spentLo = spentHi;
  for (let i = 0; i < 200 && spentLo < budgetPerDay; i++) {
    hi = lo;
    spentHi = spentLo;
    lo /= 4;
    spentLo = total(lo);
  }
  if (spentLo < budgetPerDay) return at(0);
  // Illinois (regula falsi that halves the value kept at an end chosen twice in a row) on ln μ, to
  // a relative width of 1e-12: about a dozen sums instead of bisection's forty
  let xLo = Math.log(lo);
  let xHi = Math.log(hi);
  let fLo = spentLo - budgetPerDay;
  let fHi = spentHi - budgetPerDay;
  let last = 0;
  for (let i = 0; i < 200 && xHi - xLo > 1e-12 && fHi < 0; i++) {
    let x = (xLo * fHi - xHi * fLo) / (fHi - fLo);
    if (!(x > xLo && x < xHi)) x = (xLo + xHi) / 2;
    const spent = total(Math.exp(x));
    if (spent > budgetPerDay) {
      xLo = x;
      spentLo = spent;
      fLo = spent - budgetPerDay;
      if (last === -1) fHi /= 2;
      last = -1;
    } else {
      xHi = x;
      spentHi = spent;
      fHi = spent - budgetPerDay;
      if (last === 1) fLo /= 2;
      last = 1;
    }
  }
  lo = Math.exp(xLo);
  hi = Math.exp(xHi);
  const fill = spentLo > spentHi ? clamp((budgetPerDay - spentHi) / (spentLo - spentHi), 0, 1) : 0;
  return { mu: hi, muBelow: lo, fill };
}

/** The multiplier μ of {@link solveBudget} alone. */
export function solveMu(
  rates: readonly number[],
  budgetPerDay: number,
  bounds?: FrequencyBounds | readonly FrequencyBounds[],
): number {
  return solveBudget(rates, budgetPerDay, bounds).mu;
}

/**
 * The rule used when no budget multiplier is known (`mu: null`): check about once per expected
 * change (I = 1/λ̂, expected freshness 63%).
 */
function intervalWithoutBudgetMs(rate: number): number {
  return rate > 0 ? DAY_MS / rate : Infinity;
}

/**
 * How far the interval may run ahead of the evidence: at most this many times the page's mean
 * interval so far (span / checks). An estimate of 0 changes from 3 daily checks says little about
 * a month, so such a page stretches its interval step by step instead of jumping to max_ms.
 */
export const MAX_GROWTH = 2;

/**
 * The next revisit interval (ms) of a page: the class's `initial_ms` until it has `minChecks`
 * checks; then λ̂ = estimateChangeRate(checks, changes, span in days) and, with `budget` from
 * {@link solveBudget}, the interval 1/f of the freshness-optimal frequency (a page changing too
 * fast for the budget, or not at all, gets `max_ms`); with `budget: null`, 1/λ̂. Then capped at
 * {@link MAX_GROWTH} × the page's mean interval so far (but never below initial_ms), and always
 * within [min_ms, max_ms].
 */
export function nextIntervalMs(
  state: PageRevisitState,
  cls: RevisitClassConfig,
  opts: { minChecks: number; budget: BudgetLevel | null },
): number {
  const lo = Math.min(cls.min_ms, cls.max_ms);
  const hi = Math.max(cls.min_ms, cls.max_ms);
  if (state.checks < Math.max(opts.minChecks, 1)) return clamp(cls.initial_ms, lo, hi);
  const rate = pageChangeRate(state);
  if (rate === null) return clamp(cls.initial_ms, lo, hi);
  let interval: number;
  if (opts.budget === null) interval = intervalWithoutBudgetMs(rate);
  else {
    const f = frequencyAt(rate, opts.budget, pageFrequencyBounds(state, cls));
    interval = f > 0 ? DAY_MS / f : Infinity;
  }
  const meanInterval = (state.lastCheckAt - state.firstCheckAt) / state.checks;
  interval = Math.min(interval, MAX_GROWTH * Math.max(meanInterval, cls.initial_ms / MAX_GROWTH));
  return clamp(interval, lo, hi);
}

/**
 * The frequency bounds (checks per day) {@link nextIntervalMs} will apply to this page once it has
 * an estimate: the class's, with the lower bound raised by the {@link MAX_GROWTH} cap. Pass these
 * to {@link solveMu} (one per page) so that the clamped schedule spends the budget.
 */
export function pageFrequencyBounds(state: PageRevisitState, cls: RevisitClassConfig): FrequencyBounds {
  const b = classFrequencyBounds(cls);
  if (state.checks <= 0) return b;
  const meanInterval = (state.lastCheckAt - state.firstCheckAt) / state.checks;
  const capMs = MAX_GROWTH * Math.max(meanInterval, cls.initial_ms / MAX_GROWTH);
  const minPerDay = Math.min(Math.max(b.minPerDay, DAY_MS / capMs), b.maxPerDay);
  return { minPerDay, maxPerDay: b.maxPerDay };
}

/**
 * λ̂ of a page state in changes per day (null before the first check): from the ages of its
 * changes when its Last-Modified has been trustworthy (estimateRateFromAges), else from the counts
 * of checks and changes (estimateChangeRate).
 */
export function pageChangeRate(state: PageRevisitState): number | null {
  const a = state.ages;
  if (a && (a.changes > 0 || a.unchangedMs > 0)) {
    const r = estimateRateFromAges(a.changes, a.ageMs / DAY_MS, a.unchangedMs / DAY_MS);
    if (r !== null) return r;
  }
  return estimateChangeRate(state.checks, state.changes, (state.lastCheckAt - state.firstCheckAt) / DAY_MS);
}
