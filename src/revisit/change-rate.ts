/**
 * Change-rate estimation and the freshness/age of a page under a Poisson change model
 * (Cho & Garcia-Molina, "Estimating frequency of change", 2003; "Synchronizing a database to
 * improve freshness", 2000). Rates are in changes per day, intervals in days.
 */

/**
 * λ̂ in changes per day from `checks` revisits, `changes` of which found the page changed, spread
 * over `spanDays` (the time from the copy the first check compared against to the last check).
 * The check frequency is the average f = checks / spanDays, and
 *
 *   r̂ = −ln((n − X + 0.5) / (n + 0.5)),   λ̂ = r̂ · f
 *
 * (the bias-reduced estimator of Cho & Garcia-Molina). `changes` is clamped to [0, checks]; when
 * every check saw a change the estimate is finite (ln(2n + 1)·f), a lower bound on the true rate:
 * a page changing much faster than it is checked cannot be told from one changing "just" fast.
 * Null when checks = 0 or spanDays ≤ 0 (nothing to estimate from).
 */
export function estimateChangeRate(checks: number, changes: number, spanDays: number): number | null {
  if (!(checks > 0) || !(spanDays > 0) || !Number.isFinite(spanDays)) return null;
  const n = checks;
  const x = Math.min(Math.max(changes, 0), n);
  if (x === 0) return 0;
  const r = -Math.log((n - x + 0.5) / (n + 0.5));
  return r * (n / spanDays);
}

/**
 * λ̂ in changes per day when the server tells the time of a page's latest change (a trustworthy
 * Last-Modified): the maximum-likelihood estimate of a Poisson rate from `changes` checks that
 * found a change, whose latest change came `ageSumDays` (summed) before the check, and checks that
 * found none after `unchangedDays` (summed intervals). A check that found a change says "a change
 * at that moment, none since" (density λe^{−λT}); one that found none says "none in the interval"
 * (e^{−λI}); the likelihood is largest at λ̂ = X / (ΣI + ΣT). Unlike the estimator above, it does
 * not saturate: a page changing 100 times a day, checked daily, shows ages of about 15 minutes.
 * Null when there is no time to divide by.
 */
export function estimateRateFromAges(changes: number, ageSumDays: number, unchangedDays: number): number | null {
  const exposure = ageSumDays + unchangedDays;
  if (!(exposure > 0) || !Number.isFinite(exposure)) return null;
  return Math.max(0, changes) / exposure;
}

/**
 * Expected (time-averaged) freshness of a page whose changes are a Poisson process of rate λ per
 * day, synchronised every `intervalDays`: F = (1 − e^{−λI}) / (λI). 1 when λ = 0 or I = 0.
 */
export function freshnessOf(rate: number, intervalDays: number): number {
  const x = rate * intervalDays;
  if (!(x > 0)) return 1;
  if (!Number.isFinite(x)) return 0;
  return -Math.expm1(-x) / x;
}

/**
 * Expected (time-averaged) age in days of the same page: the time since the first change the
 * stored copy missed, 0 while it is fresh. A = I/2 − 1/λ + (1 − e^{−λI}) / (λ²I)
 * (= I · (1/2 − 1/x + (1 − e^{−x})/x²) with x = λI; a series for small x avoids cancellation).
 */
export function ageOf(rate: number, intervalDays: number): number {
  const x = rate * intervalDays;
  if (!(x > 0)) return 0;
  if (!Number.isFinite(intervalDays)) return Infinity;
  if (!Number.isFinite(rate)) return intervalDays / 2;
  if (x < 1e-3) return intervalDays * (x / 6 - (x * x) / 24 + (x * x * x) / 120);
  return intervalDays * (0.5 - 1 / x + -Math.expm1(-x) / (x * x));
}
