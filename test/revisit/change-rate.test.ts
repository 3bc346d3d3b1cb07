import { describe, expect, it } from 'vitest';
import { ageOf, estimateChangeRate, estimateRateFromAges, freshnessOf } from '../../src/revisit/change-rate.js';
import { mulberry32 } from '../../src/eval/prng.js';

/** Simpson's rule on [a, b] with n (even) steps: an independent check of the closed forms. */
function integrate(fn: (t: number) => number, a: number, b: number, n = 2000): number {
  const h = (b - a) / n;
  let s = fn(a) + fn(b);
  for (let i = 1; i < n; i++) s += fn(a + i * h) * (i % 2 === 1 ? 4 : 2);
  return (s * h) / 3;
}

describe('estimateChangeRate (Cho & Garcia-Molina)', () => {
  it('matches hand-computed values', () => {
    // 10 checks in 10 days, 3 changes: r = −ln(7.5/10.5) = ln(1.4), f = 1/day
    expect(estimateChangeRate(10, 3, 10)).toBeCloseTo(Math.log(1.4), 12);
    // 5 checks in 10 days, every one changed: r = −ln(0.5/5.5) = ln 11, f = 0.5/day
    expect(estimateChangeRate(5, 5, 10)).toBeCloseTo(Math.log(11) * 0.5, 12);
    // 4 checks in 8 days, 1 change: r = −ln(3.5/4.5), f = 0.5
    expect(estimateChangeRate(4, 1, 8)).toBeCloseTo(-Math.log(3.5 / 4.5) * 0.5, 12);
    // no change seen: 0
    expect(estimateChangeRate(4, 0, 8)).toBe(0);
  });

  it('is null with nothing to estimate from, and clamps impossible change counts', () => {
    expect(estimateChangeRate(0, 0, 5)).toBeNull();
    expect(estimateChangeRate(3, 1, 0)).toBeNull();
    expect(estimateChangeRate(3, 1, -2)).toBeNull();
    expect(estimateChangeRate(3, 7, 3)).toBe(estimateChangeRate(3, 3, 3));
    expect(estimateChangeRate(3, -1, 3)).toBe(0);
  });

  it('grows with the changes seen and scales with the check frequency', () => {
    const seq = [0, 1, 2, 3, 4, 5].map((x) => estimateChangeRate(5, x, 5)!);
    for (let i = 1; i < seq.length; i++) expect(seq[i]).toBeGreaterThan(seq[i - 1]);
    expect(estimateChangeRate(6, 2, 3)! / estimateChangeRate(6, 2, 6)!).toBeCloseTo(2, 12);
  });
});

describe('freshnessOf and ageOf', () => {
  it('agree with the time averages of e^{−λt} and E[age(t)] integrated numerically', () => {
    for (const [rate, interval] of [[1, 1], [0.3, 2], [5, 0.5], [0.01, 30], [20, 1]]) {
      const fresh = integrate((t) => Math.exp(-rate * t), 0, interval) / interval;
      // E[age at t] = ∫₀ᵗ (t − s) λe^{−λs} ds = t − (1 − e^{−λt})/λ
      const age = integrate((t) => t - (1 - Math.exp(-rate * t)) / rate, 0, interval) / interval;
      expect(freshnessOf(rate, interval)).toBeCloseTo(fresh, 8);
      expect(ageOf(rate, interval)).toBeCloseTo(age, 8);
    }
  });

  it('hand-computed points and limits', () => {
    expect(freshnessOf(1, 1)).toBeCloseTo(1 - Math.exp(-1), 12);
    expect(freshnessOf(2, 0.5)).toBeCloseTo(freshnessOf(1, 1), 12);
    expect(ageOf(1, 1)).toBeCloseTo(0.5 - 1 + (1 - Math.exp(-1)), 12);
    expect(freshnessOf(0, 10)).toBe(1);
    expect(freshnessOf(3, 0)).toBe(1);
    expect(ageOf(0, 10)).toBe(0);
    expect(freshnessOf(1000, 1)).toBeCloseTo(1 / 1000, 9);
    // small λI: the series branch is continuous with the closed form
    expect(ageOf(0.999e-3, 1) / ageOf(1.001e-3, 1)).toBeCloseTo(0.999 / 1.001, 4);
    expect(ageOf(1e-6, 1) / (1e-6 / 6)).toBeCloseTo(1, 5);
  });
});

/**
 * Convergence on simulated Poisson histories. A page with rate λ checked every 1/f days changes
 * between two checks with probability 1 − e^{−r}, r = λ/f. By the delta method, r̂ ≈ −ln(p̂) with
 * p̂ the unchanged share has variance (e^r − 1)/n, so the relative error of λ̂ has standard
 * deviation σ(r, n) = √((e^r − 1)/n) / r: at n = 300, 18.7% for r = 0.1, 7.6% for r = 1, 8.4% for
 * r = 3 — about 1/√(expected changes) for small r, and exploding as e^{r/2} near saturation. The
 * test asserts the RMS relative error over many pages is below 1.25·σ + 2% (sampling slack of the
 * RMS over 400 pages ≈ σ/√800 ≈ 3.5% of σ, plus the estimator's small bias).
 */
describe('estimated rates converge to the true ones', () => {
  const f = 1; // checks per day
  const rates = [0.01, 0.0316, 0.1, 0.316, 1, 3.16, 10]; // 3 orders of magnitude, changes per day
  const ns = [10, 30, 100, 300];
  const pagesPerRate = 400;
  const rng = mulberry32(20260601);
  const rmsError = new Map<number, number[]>();
  const meanEstimate = new Map<number, number>();
  for (const rate of rates) {
    const pChange = 1 - Math.exp(-rate / f);
    const sq = ns.map(() => 0);
    let sum300 = 0;
    for (let p = 0; p < pagesPerRate; p++) {
      let changes = 0;
      let checks = 0;
      for (const [k, n] of ns.entries()) {
        for (; checks < n; checks++) if (rng.next() < pChange) changes++;
        const est = estimateChangeRate(n, changes, n / f)!;
        sq[k] += ((est - rate) / rate) ** 2;
        if (n === 300) sum300 += est;
      }
    }
    rmsError.set(rate, sq.map((s) => Math.sqrt(s / pagesPerRate)));
    meanEstimate.set(rate, sum300 / pagesPerRate);
  }
  const sigma = (r: number, n: number) => Math.sqrt(Math.expm1(r) / n) / r;
  const unsaturated = rates.filter((r) => r / f >= 0.1 && r / f <= 3.2);

  it('the error falls as checks accumulate (every rate the checks can resolve)', () => {
    for (const rate of rates.filter((r) => r / f <= 3.2)) {
      const e = rmsError.get(rate)!;
      for (let k = 1; k < e.length; k++) expect(e[k], `λ=${rate}, n=${ns[k]}`).toBeLessThan(e[k - 1]);
    }
  });

  it('at n = 300 the RMS relative error is within the delta-method bound for 0.1 ≤ λ/f ≤ 3.2', () => {
    for (const rate of unsaturated) {
      const e300 = rmsError.get(rate)![3];
      expect(e300, `λ=${rate}`).toBeLessThan(1.25 * sigma(rate / f, 300) + 0.02);
      expect(e300, `λ=${rate}`).toBeLessThan(0.25);
    }
  });

  it('near saturation (λ ≫ f) the estimator cannot see the rate: it stays far below it', () => {
    // λ = 10, f = 1: almost every check sees a change; λ̂ ≤ ln(2n + 1)·f ≈ 6.4 at n = 300
    expect(meanEstimate.get(10)!).toBeLessThan(Math.log(601) + 1e-9);
    expect(rmsError.get(10)![3]).toBeGreaterThan(0.3);
  });
});

describe('estimateRateFromAges (with a trustworthy Last-Modified)', () => {
  it('is changes over the time watched: summed ages of the latest changes plus unchanged intervals', () => {
    expect(estimateRateFromAges(3, 0.5, 5.5)).toBeCloseTo(0.5, 12);
    expect(estimateRateFromAges(0, 0, 10)).toBe(0);
    expect(estimateRateFromAges(2, 0, 0)).toBeNull();
  });

  it('sees rates the checks alone cannot: daily checks of pages changing 0.01 to 100 times a day', () => {
    // the same daily checks of Poisson pages; at each check that finds a change the age of the
    // latest change is Exp(λ) cut at the interval (memoryless: the time back to the last event)
    const rng = mulberry32(77);
    const n = 30;
    for (const rate of [0.01, 0.1, 1, 10, 100]) {
      let sq = 0;
      let sqCho = 0;
      const pages = 300;
      for (let p = 0; p < pages; p++) {
        let x = 0;
        let age = 0;
        let unchanged = 0;
        for (let c = 0; c < n; c++) {
          const back = -Math.log(1 - rng.next()) / rate; // time back from the check to the latest change
          if (back < 1) {
            x++;
            age += back;
          } else unchanged += 1;
        }
        const est = estimateRateFromAges(x, age, unchanged) ?? 0;
        sq += ((est - rate) / rate) ** 2;
        sqCho += ((estimateChangeRate(n, x, n)! - rate) / rate) ** 2;
      }
      const rms = Math.sqrt(sq / pages);
      const rmsCho = Math.sqrt(sqCho / pages);
      // error ~ 1/√(expected changes seen): small once changes are seen often, never saturating
      if (rate >= 1) expect(rms, `λ=${rate}`).toBeLessThan(0.25);
      if (rate >= 10) expect(rmsCho, `λ=${rate}`).toBeGreaterThan(0.3); // the counts alone saturate
      // and no worse than the counts where few changes are seen (both then mostly see 0 or 1)
      expect(rms, `λ=${rate}`).toBeLessThanOrEqual(rate >= 1 ? rmsCho : 1.1 * rmsCho);
    }
  });
});

