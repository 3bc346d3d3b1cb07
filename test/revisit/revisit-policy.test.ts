import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { freshnessOf } from '../../src/revisit/change-rate.js';
import {
  classFrequencyBounds, frequencyAt, MAX_GROWTH, nextIntervalMs, optimalFrequency, pageChangeRate, pageFrequencyBounds, solveBudget, solveMu,
  type PageRevisitState, type RevisitClassConfig,
} from '../../src/revisit/revisit-policy.js';
import { mulberry32 } from '../../src/eval/prng.js';
import { DEFAULT_REVISIT_CLASSES } from '../../src/revisit/default-classes.js';
import { budgetLevel } from '../../src/revisit/revisit-schedule.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const content: RevisitClassConfig = { name: 'content', patterns: [], initial_ms: 7 * DAY, min_ms: DAY, max_ms: 60 * DAY };
const F = (rate: number, f: number) => (f > 0 ? freshnessOf(rate, 1 / f) : 0);
/** A budget level with no page at the jump. */
const at = (mu: number) => ({ mu, muBelow: mu, fill: 0 });

function logUniformRates(n: number, seed: number, lo = 0.01, hi = 10): number[] {
  const rng = mulberry32(seed);
  return Array.from({ length: n }, () => lo * Math.pow(hi / lo, rng.next()));
}

describe('optimalFrequency', () => {
  it('solves ∂F/∂f = μ (finite differences of the freshness)', () => {
    const mu = 0.2;
    for (const rate of [0.01, 0.1, 0.5, 1, 3, 4.9]) {
      const f = optimalFrequency(rate, mu);
      expect(f).toBeGreaterThan(0);
      const h = f * 1e-5;
      const dF = (F(rate, f + h) - F(rate, f - h)) / (2 * h);
      expect(dF / mu).toBeCloseTo(1, 5);
    }
  });

  it('is 0 for pages that change too fast for μ (μλ ≥ 1) or never', () => {
    expect(optimalFrequency(5, 0.2)).toBe(0);
    expect(optimalFrequency(50, 0.2)).toBe(0);
    expect(optimalFrequency(0, 0.2)).toBe(0);
  });

  it('rises with the change rate, then falls to 0 at λ = 1/μ (Cho & Garcia-Molina 2000)', () => {
    const mu = 0.5;
    const lambdas = Array.from({ length: 400 }, (_, i) => 1e-3 * Math.pow(2000, i / 399)).filter((l) => l < 1 / mu);
    const fs = lambdas.map((l) => optimalFrequency(l, mu));
    const peak = fs.indexOf(Math.max(...fs));
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThan(fs.length - 1);
    for (let i = 1; i <= peak; i++) expect(fs[i]).toBeGreaterThan(fs[i - 1]);
    for (let i = peak + 1; i < fs.length; i++) expect(fs[i]).toBeLessThan(fs[i - 1]);
    // near λ = 1/μ it falls slowly (r = λ/f grows like ln(1/(1 − μλ))), and is 0 from there on
    expect(optimalFrequency(0.9999 / mu, mu)).toBeLessThan(0.5 * fs[peak]);
    expect(optimalFrequency(1 / mu, mu)).toBe(0);
  });
});

describe('solveMu', () => {
  const rates = logUniformRates(2000, 7);

  it('spends the budget: Σ f_i(μ) = budget', () => {
    for (const budget of [20, 200, 2000, 20_000]) {
      const mu = solveMu(rates, budget);
      const spent = rates.reduce((s, r) => s + optimalFrequency(r, mu), 0);
      expect(spent / budget).toBeCloseTo(1, 6);
    }
  });

  it('with bounds (one for all, or one per page), the clamped frequencies spend the budget', () => {
    const b = classFrequencyBounds({ ...content, min_ms: HOUR, max_ms: 30 * DAY });
    const mu = solveMu(rates, 1000, b);
    const spent = rates.reduce((s, r) => s + Math.min(Math.max(optimalFrequency(r, mu), b.minPerDay), b.maxPerDay), 0);
    expect(spent / 1000).toBeCloseTo(1, 6);
    const each = rates.map((_, i) => ({ minPerDay: i % 2 ? 0.1 : 0, maxPerDay: i % 3 ? 24 : 2 }));
    const mu2 = solveMu(rates, 1000, each);
    const spent2 = rates.reduce((s, r, i) => s + Math.min(Math.max(optimalFrequency(r, mu2), each[i].minPerDay), each[i].maxPerDay), 0);
    expect(spent2 / 1000).toBeCloseTo(1, 6);
  });

  it('gives faster pages more checks only up to a point; the fastest get none', () => {
    const sorted = [...rates].sort((a, b) => a - b);
    const mu = solveMu(sorted, 400);
    const fs = sorted.map((r) => optimalFrequency(r, mu));
    const peak = fs.indexOf(Math.max(...fs));
    expect(sorted[peak]).toBeGreaterThan(sorted[0]);
    expect(sorted[peak]).toBeLessThan(sorted[sorted.length - 1]);
    expect(fs[0]).toBeLessThan(fs[peak]);
    const starved = sorted.filter((r, i) => fs[i] === 0);
    expect(starved.length).toBeGreaterThan(0);
    for (const r of starved) expect(r * mu).toBeGreaterThanOrEqual(1);
  });

  it('beats the uniform allocation, which beats the proportional one (same budget)', () => {
    const budget = 1000; // 0.5 checks per page per day
    const mu = solveMu(rates, budget);
    const optimal = rates.reduce((s, r) => s + F(r, optimalFrequency(r, mu)), 0);
    const uniform = rates.reduce((s, r) => s + F(r, budget / rates.length), 0);
    const total = rates.reduce((s, r) => s + r, 0);
    const proportional = rates.reduce((s, r) => s + F(r, (budget * r) / total), 0);
    expect(optimal).toBeGreaterThan(uniform);
    expect(uniform).toBeGreaterThan(proportional);
    // no small transfer of checks between two pages improves on it (first-order optimality)
    const rng = mulberry32(3);
    for (let t = 0; t < 200; t++) {
      const i = rng.int(0, rates.length - 1);
      const j = rng.int(0, rates.length - 1);
      const fi = optimalFrequency(rates[i], mu);
      const fj = optimalFrequency(rates[j], mu);
      const d = Math.min(0.01, fi);
      if (d <= 0 || i === j) continue;
      const before = F(rates[i], fi) + F(rates[j], fj);
      const after = F(rates[i], fi - d) + F(rates[j], fj + d);
      expect(after).toBeLessThanOrEqual(before + 1e-12);
    }
  });

  it('spends the budget when many pages share a rate at the jump (μλ = 1), and then beats the uniform allocation', () => {
    // half the pages change 10 times a day, half once in 100 days; 0.2 checks per page per day. The
    // slow pages' marginal gain drops below 1/10 before the budget is spent, so the rest goes to
    // the fast pages, whose optimal frequency at μ = 1/10 is anywhere between 0 and about λ/40.
    const bimodal = Array.from({ length: 1000 }, (_, i) => (i % 2 ? 10 : 0.01));
    const budget = 200;
    const level = solveBudget(bimodal, budget);
    expect(level.mu * 10).toBeCloseTo(1, 9);
    expect(level.fill).toBeGreaterThan(0);
    expect(level.fill).toBeLessThan(1);
    const fs = bimodal.map((r) => frequencyAt(r, level));
    expect(fs.reduce((a, b) => a + b, 0) / budget).toBeCloseTo(1, 9);
    // μ alone leaves budget unspent: that allocation is worse than uniform, the filled one better
    const muOnly = bimodal.reduce((s, r) => s + F(r, optimalFrequency(r, level.mu)), 0);
    const filled = bimodal.reduce((s, r, i) => s + F(r, fs[i]), 0);
    const uniform = bimodal.reduce((s, r) => s + F(r, budget / bimodal.length), 0);
    expect(muOnly).toBeLessThan(uniform);
    expect(filled).toBeGreaterThan(uniform);
    // with bounds, the clamped and filled frequencies spend it too
    const b = { minPerDay: 1 / 60, maxPerDay: 24 };
    const bounded = solveBudget(bimodal, budget, b);
    expect(bimodal.reduce((s, r) => s + frequencyAt(r, bounded, b), 0) / budget).toBeCloseTo(1, 9);
  });

  it('edge cases: no changing page, a budget below the lower bounds, one above the upper bounds', () => {
    expect(solveMu([0, 0], 10)).toBe(Infinity);
    expect(solveMu([], 10)).toBe(Infinity);
    expect(solveMu([1, 2], 1, { minPerDay: 1, maxPerDay: 24 })).toBe(Infinity);
    expect(solveMu([1, 2], 100, { minPerDay: 0, maxPerDay: 24 })).toBe(0);
  });
});

function state(checks: number, changes: number, spanDays: number): PageRevisitState {
  return { cls: 'content', checks, changes, firstCheckAt: 1_000_000, lastCheckAt: 1_000_000 + spanDays * DAY };
}

describe('nextIntervalMs', () => {
  it('uses the class initial interval until min_checks checks', () => {
    for (const checks of [0, 1, 2]) {
      expect(nextIntervalMs(state(checks, checks, checks * 7), content, { minChecks: 3, budget: at(0.1) })).toBe(7 * DAY);
    }
    expect(nextIntervalMs(state(3, 3, 21), content, { minChecks: 3, budget: at(0.1) })).not.toBe(7 * DAY);
  });

  it('follows the freshness-optimal frequency of λ̂ inside the bounds', () => {
    const s = state(20, 5, 20); // λ̂ = −ln(15.5/20.5) ≈ 0.28/day
    const mu = 0.5;
    const expected = DAY / optimalFrequency(pageChangeRate(s)!, mu);
    expect(expected).toBeGreaterThan(DAY);
    expect(nextIntervalMs(s, content, { minChecks: 3, budget: at(mu) })).toBeCloseTo(expected, 3);
    // without a budget multiplier: one check per expected change
    expect(nextIntervalMs(s, content, { minChecks: 3, budget: null })).toBeCloseTo(DAY / pageChangeRate(s)!, 3);
  });

  it('a page changing too fast for the budget gets the longest interval; one never seen changing stretches by at most ×2', () => {
    // every one of 30 checks changed: λ̂ = ln 61 · f; μ = 0.5 → μλ̂ > 1: no checks wanted, so the
    // longest interval the evidence allows: max_ms over a long history, 2 × max(mean interval,
    // initial/2) over a short one
    expect(nextIntervalMs(state(30, 30, 900), content, { minChecks: 3, budget: at(10) })).toBe(60 * DAY); // λ̂ = ln 61 / 30, μλ̂ ≈ 1.4
    expect(nextIntervalMs(state(30, 30, 30), content, { minChecks: 3, budget: at(0.5) })).toBe(7 * DAY);
    expect(nextIntervalMs(state(30, 30, 120), content, { minChecks: 3, budget: at(1) })).toBe(8 * DAY); // λ̂ = ln 61 / 4 ≈ 1.03
    // no change in 10 checks over 20 days: λ̂ = 0, capped at 2 × the mean interval (2 days)…
    const daily = { ...content, initial_ms: DAY };
    expect(nextIntervalMs(state(10, 0, 20), daily, { minChecks: 3, budget: at(0.5) })).toBe(MAX_GROWTH * 2 * DAY);
    // …or at 2 × initial/2 when the mean interval is shorter than that
    expect(nextIntervalMs(state(10, 0, 20), content, { minChecks: 3, budget: at(0.5) })).toBe(7 * DAY);
    // …which grows with the evidence until max_ms
    expect(nextIntervalMs(state(10, 0, 400), content, { minChecks: 3, budget: at(0.5) })).toBe(60 * DAY);
  });

  it('always lies within [min_ms, max_ms], and matches pageFrequencyBounds (property)', () => {
    const classArb = fc.constantFrom(...DEFAULT_REVISIT_CLASSES);
    fc.assert(
      fc.property(
        classArb, fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 500 }), fc.double({ min: 0, max: 400, noNaN: true }),
        fc.option(fc.double({ min: 1e-4, max: 100, noNaN: true })), fc.integer({ min: 1, max: 10 }),
        (cls, checks, changes, spanDays, mu, minChecks) => {
          const s = { ...state(checks, Math.min(changes, checks), spanDays), cls: cls.name };
          const ms = nextIntervalMs(s, cls, { minChecks, budget: mu === null ? null : at(mu) });
          expect(ms).toBeGreaterThanOrEqual(cls.min_ms);
          expect(ms).toBeLessThanOrEqual(cls.max_ms);
          const rate = pageChangeRate(s);
          if (mu !== null && checks >= minChecks && rate !== null) {
            const b = pageFrequencyBounds(s, cls);
            const f = Math.min(Math.max(optimalFrequency(rate, mu), b.minPerDay), b.maxPerDay);
            expect(DAY / ms / f).toBeCloseTo(1, 9);
          }
        },
      ),
      { seed: 42, numRuns: 500 },
    );
  });
});

describe('budgetLevel', () => {
  it('shares what is left of budget_per_day after the pages still learning and the checks sitemap signals caused', () => {
    const settings = {
      classes: [{ ...content, patterns: [] }], budget_per_day: 100, min_checks: 3, max_failures: 3, sitemap_interval_ms: 0,
    };
    const rates = logUniformRates(200, 11, 0.05, 5);
    const row = (i: number, checks: number) => ({
      urlId: i, cls: 'content', nextAt: 0, checks, changes: Math.round(checks * (1 - Math.exp(-rates[i]))), firstCheckAt: 0, lastCheckAt: checks * DAY,
      etag: null, lastModified: null, textHash: null, failures: 0, deletedAt: null, ages: null,
    });
    const rows = rates.map((_, i) => row(i, 30));
    const spentBy = (level: ReturnType<typeof budgetLevel>, rs = rows) =>
      rs.reduce((s, r) => s + frequencyAt(pageChangeRate(r)!, level!, pageFrequencyBounds(r, content)), 0);
    expect(spentBy(budgetLevel(rows, settings))).toBeCloseTo(100, 6);
    // 30 checks a day went to sitemap signals: the schedule plans 70
    expect(spentBy(budgetLevel(rows, settings, 30))).toBeCloseTo(70, 6);
    // 20 pages still on their initial interval (7 days) take 20/7 a day first
    const mixed = rows.map((r, i) => (i < 20 ? row(i, 1) : r));
    expect(spentBy(budgetLevel(mixed, settings), mixed.slice(20))).toBeCloseTo(100 - 20 / 7, 6);
  });
});
