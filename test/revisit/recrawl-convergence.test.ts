import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/sqlite-store.js';
import { pageChangeRate } from '../../src/revisit/revisit-policy.js';
import { tmpDir } from '../helpers/tmp.js';
import type { PoissonPage } from '../helpers/poisson-server.js';
import { DAY, HOUR, revisitWorld, type RevisitWorld } from './recrawl-helpers.js';

/**
 * Pages change as Poisson processes with known rates (0.25 to 4 changes a day); the recrawl, on an
 * injected clock, revisits them for 50 simulated days: each page's estimated rate λ̂ must come close
 * to its true rate, from hashes of the normalised text alone (every response also carries a date
 * and a counter that change on every request).
 */
const RATES = [0.25, 0.5, 1, 2, 4];
const pages: PoissonPage[] = Array.from({ length: 20 }, (_, i) => ({ path: `/p${i + 1}`, ratePerDay: RATES[i % RATES.length] }));
const SIM_DAYS = 50;

describe('recrawl: estimated change rates converge to the true ones', () => {
  let world: RevisitWorld;
  afterAll(async () => world?.server.close());

  it(`after ${SIM_DAYS} simulated days every λ̂ is within bounds of its true rate`, async () => {
    world = await revisitWorld(tmpDir(), pages, {
      revisit: {
        classes: [{ name: 'content', patterns: ['/p\\d+$'], initial_ms: 6 * HOUR, min_ms: HOUR, max_ms: 2 * DAY }],
        budget_per_day: 50, min_checks: 3, max_failures: 3,
      },
    }, { seed: 42 });
    const rc = world.recrawler();
    let summary;
    try {
      summary = await rc.runDue(world.clock.t + SIM_DAYS * DAY);
    } finally {
      await rc.close();
    }
    expect(summary.changed).toBeGreaterThan(0);
    const db = openDatabase(world.db, { readonly: true });
    try {
      const rows = db
        .prepare(`SELECT u.url, v.* FROM revisits v JOIN urls u ON u.id = v.url_id WHERE u.url LIKE 'http://poisson.test/p%'`)
        .all() as {
          url: string; class: string; checks: number; changes: number; first_check_at: number; last_check_at: number;
          lm_trusted: number; lm_changes: number; lm_age_ms: number; lm_unchanged_ms: number;
        }[];
      expect(rows).toHaveLength(pages.length);
      const errors: { path: string; rate: number; est: number; checks: number; relErr: number; ageErr: number }[] = [];
      for (const r of rows) {
        const path = new URL(r.url).pathname;
        const truth = pages.find((p) => p.path === path)!;
        // the changes the checks saw never exceed the true changes in the span
        const trueChanges = world.server.changeTimes(path).filter((t) => t > r.first_check_at && t <= r.last_check_at).length;
        expect(r.changes).toBeLessThanOrEqual(trueChanges);
        const state = { cls: r.class, checks: r.checks, changes: r.changes, firstCheckAt: r.first_check_at, lastCheckAt: r.last_check_at };
        const est = pageChangeRate(state)!;
        // this server's Last-Modified is the time of the latest change: believed to the end, and the
        // estimate from the ages of the changes it gives is the one the schedule used
        expect(r.lm_trusted).toBe(1);
        expect(r.lm_changes).toBe(r.changes);
        const fromAges = pageChangeRate({ ...state, ages: { changes: r.lm_changes, ageMs: r.lm_age_ms, unchangedMs: r.lm_unchanged_ms } })!;
        expect(fromAges).toBeCloseTo(r.lm_changes / ((r.lm_age_ms + r.lm_unchanged_ms) / DAY), 9);
        errors.push({
          path, rate: truth.ratePerDay, est, checks: r.checks, relErr: Math.abs(est - truth.ratePerDay) / truth.ratePerDay,
          ageErr: Math.abs(fromAges - truth.ratePerDay) / truth.ratePerDay,
        });
      }
      const mean = errors.reduce((s, e) => s + e.relErr, 0) / errors.length;
      const meanChecks = errors.reduce((s, e) => s + e.checks, 0) / errors.length;
      console.log(`λ̂ after ${SIM_DAYS} days, ${meanChecks.toFixed(0)} checks per page on average: mean relative error ${(mean * 100).toFixed(1)}%, max ${(Math.max(...errors.map((e) => e.relErr)) * 100).toFixed(1)}%`);
      for (const rate of RATES) {
        const of = errors.filter((e) => e.rate === rate);
        console.log(`  rate ${rate}/day: λ̂ ${of.map((e) => e.est.toFixed(2)).join(', ')}; checks ${of.map((e) => e.checks).join(', ')}`);
      }
      expect(mean).toBeLessThan(0.25);
      for (const e of errors) expect(e.relErr).toBeLessThan(0.6);
      // the estimate from the ages Last-Modified gives converges as well (at these rates, below the
      // check frequency, the two are about as good; change-rate.test.ts shows where ages do better)
      const meanAge = errors.reduce((s, e) => s + e.ageErr, 0) / errors.length;
      console.log(`  from Last-Modified ages: mean relative error ${(meanAge * 100).toFixed(1)}%, max ${(Math.max(...errors.map((e) => e.ageErr)) * 100).toFixed(1)}%`);
      expect(meanAge).toBeLessThan(0.25);
      for (const e of errors) expect(e.ageErr).toBeLessThan(0.6);
      // faster pages are checked more often than the slowest ones (the budget follows the rates)
      const checksOf = (rate: number) => errors.filter((e) => e.rate === rate).reduce((s, e) => s + e.checks, 0);
      expect(checksOf(4)).toBeGreaterThan(checksOf(0.25));
    } finally {
      db.close();
    }
  }, 60_000);
});
