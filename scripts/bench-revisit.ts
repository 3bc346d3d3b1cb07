/**
 * Revisit benchmark (issue 6): the same fetch budget spent (a) on a uniform schedule and (b) on the
 * adaptive schedule the product uses (estimateChangeRate → solveBudget → nextIntervalMs), on simulated
 * pages whose changes are Poisson processes with known rates. (c) "oracle" is the same allocation
 * computed from the TRUE rates: the ceiling any estimator-driven schedule can reach.
 *
 *   npx tsx scripts/bench-revisit.ts [--pages 10000] [--budget 10000] [--days 30] [--warmup 7]
 *                                    [--min-rate 0.01] [--max-rate 10] [--rates log-uniform|bimodal]
 *                                    [--fast-share 0.5] [--solve-every 500] [--last-modified 0]
 *                                    [--seed 1] [--json]
 *
 * - Rates λ log-uniform in [min-rate, max-rate] changes/day (or, with --rates bimodal, each page
 *   at max-rate with probability fast-share, else at min-rate); page sizes log-normal (median 30 KB,
 *   σ 0.8), 300 header bytes per response; a check that finds no change is answered 304 (headers
 *   only), one that finds a change 200 (headers + body).
 * - Every page is fetched at t = 0 (that copy is the baseline, not counted). Uniform: every page
 *   every pages/budget days, first checks staggered over one interval. Adaptive: one class
 *   'page', initial interval = the uniform interval, bounds [1 h, 60 d], min_checks 3; as in the
 *   recrawler, the budget level is solved again every --solve-every checks (or one per 1% of the
 *   pages, if more) by solveBudget over the current estimates λ̂ (pages with ≥ 3 checks) with the
 *   budget left after the pages still on their initial interval, each page clamped by its bounds;
 *   until some page has an estimate there is no level (interval 1/λ̂). With --last-modified S, a
 *   share S of the pages (drawn with the seed) also tell the time of their latest change at each
 *   check that finds one, as a believable Last-Modified does, and their λ̂ comes from those ages
 *   (estimateRateFromAges); default 0: every λ̂ from the counts of checks and changes.
 * - Freshness (share of pages whose stored copy is current) and age (days since the first change
 *   the copy missed, 0 when fresh) are sampled every simulated hour after the warm-up.
 * Deterministic for a given --seed. Prints a table and the command (or one JSON object with --json).
 */
import { parseArgs } from 'node:util';
import { BinaryHeap } from '../src/frontier/binary-heap.js';
import { mulberry32, type Rng } from '../src/eval/prng.js';
import { freshnessOf } from '../src/revisit/change-rate.js';
import { emptyAges } from '../src/revisit/last-modified.js';
import {
  classFrequencyBounds, frequencyAt, nextIntervalMs, pageChangeRate, pageFrequencyBounds, solveBudget, type BudgetLevel, type FrequencyBounds, type PageRevisitState, type RevisitClassConfig,
} from '../src/revisit/revisit-policy.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const HEADER_BYTES = 300;

const { values: args } = parseArgs({
  options: {
    pages: { type: 'string', default: '10000' },
    budget: { type: 'string', default: '10000' },
    days: { type: 'string', default: '30' },
    warmup: { type: 'string', default: '7' },
    'min-rate': { type: 'string', default: '0.01' },
    'max-rate': { type: 'string', default: '10' },
    rates: { type: 'string', default: 'log-uniform' },
    'fast-share': { type: 'string', default: '0.5' },
    'solve-every': { type: 'string', default: '500' },
    'last-modified': { type: 'string', default: '0' },
    seed: { type: 'string', default: '1' },
    json: { type: 'boolean', default: false },
  },
});
const N = Number(args.pages);
const BUDGET = Number(args.budget);
const DAYS = Number(args.days);
const WARMUP = Number(args.warmup);
const MIN_RATE = Number(args['min-rate']);
const MAX_RATE = Number(args['max-rate']);
const RATES = args.rates;
if (RATES !== 'log-uniform' && RATES !== 'bimodal') throw new Error(`--rates: expected log-uniform or bimodal, got ${RATES}`);
const FAST_SHARE = Number(args['fast-share']);
const RATES_TEXT = RATES === 'bimodal' ? `bimodal: ${MAX_RATE}/day for a share ${FAST_SHARE}, else ${MIN_RATE}/day` : `log-uniform in [${MIN_RATE}, ${MAX_RATE}]/day`;
const SEED = Number(args.seed);
const END_MS = DAYS * DAY_MS;
const UNIFORM_MS = (N / BUDGET) * DAY_MS;
const MIN_CHECKS = 3;
const SOLVE_EVERY = Number(args['solve-every']);
const LAST_MODIFIED = Number(args['last-modified']);

interface Page {
  rate: number;
  bytes: number;
  /** Change times (ms), ascending. */
  changes: Float64Array;
}

function normal(rng: Rng): number {
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

function makePages(rng: Rng): Page[] {
  const pages: Page[] = [];
  for (let i = 0; i < N; i++) {
    const u = rng.next();
    const rate = RATES === 'bimodal' ? (u < FAST_SHARE ? MAX_RATE : MIN_RATE) : MIN_RATE * Math.pow(MAX_RATE / MIN_RATE, u);
    const bytes = Math.round(30_000 * Math.exp(0.8 * normal(rng)));
    const times: number[] = [];
    for (let t = 0; ; ) {
      t += (-Math.log(1 - rng.next()) / rate) * DAY_MS;
      if (t > END_MS) break;
      times.push(t);
    }
    pages.push({ rate, bytes, changes: Float64Array.from(times) });
  }
  return pages;
}

/** A schedule: the first check time of page i, and the time of the next check after one at `now`. */
interface Schedule {
  first(i: number): number;
  after(i: number, now: number, changed: boolean, lastChangeAt: number | null): number;
}

interface SimResult {
  fetches: number;
  fetchesPerDay: number;
  freshness: number;
  ageDays: number;
  changedChecks: number;
  notModified: number;
  wireBytes: number;
  savedBytes: number;
  savedShare: number;
  /** Freshness and fetches per decade of the true rate, slowest first. */
  byDecade: { rates: string; pages: number; freshness: number; fetches: number }[];
}

function simulate(pages: Page[], schedule: Schedule): SimResult {
  const next = new Float64Array(N); // pointer: index of the first change after the last sync
  const heap = new BinaryHeap<{ at: number; i: number }>((a, b) => a.at < b.at || (a.at === b.at && a.i < b.i));
  for (let i = 0; i < N; i++) heap.push({ at: schedule.first(i), i });
  const decades = Math.max(1, Math.ceil(Math.log10(MAX_RATE / MIN_RATE) - 1e-9));
  const decadeOf = pages.map((p) => Math.min(decades - 1, Math.floor(Math.log10(p.rate / MIN_RATE))));
  const decFresh = new Float64Array(decades), decFetch = new Float64Array(decades), decCount = new Float64Array(decades);
  for (const d of decadeOf) decCount[d]++;
  let fetches = 0, changed = 0, notModified = 0, wire = 0, saved = 0, samples = 0, freshSum = 0, ageSum = 0;
  for (let tick = HOUR_MS; tick <= END_MS; tick += HOUR_MS) {
    for (let top = heap.peek(); top && top.at <= tick; top = heap.peek()) {
      heap.pop();
      const { at, i } = top;
      const p = pages[i];
      let k = next[i];
      const didChange = k < p.changes.length && p.changes[k] <= at;
      while (k < p.changes.length && p.changes[k] <= at) k++;
      next[i] = k;
      fetches++;
      decFetch[decadeOf[i]]++;
      if (didChange) {
        changed++;
        wire += HEADER_BYTES + p.bytes;
      } else {
        notModified++;
        wire += HEADER_BYTES;
        saved += p.bytes;
      }
      const nextAt = schedule.after(i, at, didChange, didChange ? p.changes[k - 1] : null);
      if (nextAt <= END_MS) heap.push({ at: nextAt, i });
    }
    if (tick <= WARMUP * DAY_MS) continue;
    samples++;
    let fresh = 0, age = 0;
    for (let i = 0; i < N; i++) {
      const c = pages[i].changes, k = next[i];
      if (k >= c.length || c[k] > tick) {
        fresh++;
        decFresh[decadeOf[i]]++;
      } else age += (tick - c[k]) / DAY_MS;
    }
    freshSum += fresh / N;
    ageSum += age / N;
  }
  return {
    fetches, fetchesPerDay: fetches / DAYS, freshness: freshSum / samples, ageDays: ageSum / samples, changedChecks: changed,
    notModified, wireBytes: wire, savedBytes: saved, savedShare: saved / (wire + saved),
    byDecade: Array.from({ length: decades }, (_, d) => ({
      rates: `${+(MIN_RATE * 10 ** d).toPrecision(3)}–${+Math.min(MAX_RATE, MIN_RATE * 10 ** (d + 1)).toPrecision(3)}`,
      pages: decCount[d], freshness: decCount[d] ? decFresh[d] / (decCount[d] * samples) : 0, fetches: decFetch[d],
    })),
  };
}

const stagger = (i: number, interval: number) => ((i + 0.5) / N) * interval;

function uniformSchedule(): Schedule {
  return { first: (i) => stagger(i, UNIFORM_MS), after: (_i, now) => now + UNIFORM_MS };
}

const CLASS: RevisitClassConfig = { name: 'page', patterns: [], initial_ms: UNIFORM_MS, min_ms: HOUR_MS, max_ms: 60 * DAY_MS };
const BOUNDS = classFrequencyBounds(CLASS);

function adaptiveSchedule(): Schedule & { muLog: number[] } {
  const lmRng = mulberry32(SEED + 1);
  const states: PageRevisitState[] = Array.from({ length: N }, () => ({
    cls: 'page', checks: 0, changes: 0, firstCheckAt: 0, lastCheckAt: 0,
    ages: lmRng.next() < LAST_MODIFIED ? emptyAges() : null,
  }));
  let budget: BudgetLevel | null = null;
  const muLog: number[] = [];
  let sinceSolve = 0;
  const solve = () => {
    const rates: number[] = [];
    const bounds: FrequencyBounds[] = [];
    let learning = 0;
    for (const s of states) {
      const r = s.checks >= MIN_CHECKS ? pageChangeRate(s) : null;
      if (r === null) learning++;
      else {
        rates.push(r);
        bounds.push(pageFrequencyBounds(s, CLASS));
      }
    }
    if (rates.length === 0) return;
    budget = solveBudget(rates, BUDGET - learning * (DAY_MS / CLASS.initial_ms), bounds);
    muLog.push(budget.mu);
  };
  return {
    muLog,
    first: (i) => stagger(i, CLASS.initial_ms),
    after(i, now, changed, lastChangeAt) {
      const s = states[i];
      // a page whose server tells the time of its latest change (a trustworthy Last-Modified)
      if (s.ages) {
        if (changed) {
          s.ages.changes++;
          s.ages.ageMs += now - lastChangeAt!;
        } else s.ages.unchangedMs += now - s.lastCheckAt;
      }
      s.checks++;
      if (changed) s.changes++;
      s.lastCheckAt = now;
      // as the recrawler: a new solve every SOLVE_EVERY checks, or one per 1% of the pages if more
      if (++sinceSolve >= Math.max(SOLVE_EVERY, Math.ceil(N / 100))) {
        solve();
        sinceSolve = 0;
      }
      return now + nextIntervalMs(s, CLASS, { minChecks: MIN_CHECKS, budget });
    },
  };
}

function oracleSchedule(pages: Page[]): Schedule {
  const level = solveBudget(pages.map((p) => p.rate), BUDGET, BOUNDS);
  const interval = pages.map((p) => DAY_MS / frequencyAt(p.rate, level, BOUNDS));
  return { first: (i) => stagger(i, interval[i]), after: (i, now) => now + interval[i] };
}

/** Expected freshness of each schedule in steady state with known rates (no simulation noise, no learning). */
/** `bounds` null: no interval bounds. */
function analytic(pages: Page[], budget = BUDGET, bounds: FrequencyBounds | null = BOUNDS): { uniform: number; optimal: number } {
  const level = solveBudget(pages.map((p) => p.rate), budget, bounds ?? undefined);
  let u = 0, o = 0;
  for (const p of pages) {
    u += freshnessOf(p.rate, N / budget);
    const f = frequencyAt(p.rate, level, bounds ?? undefined);
    o += f > 0 ? freshnessOf(p.rate, 1 / f) : 0;
  }
  return { uniform: u / pages.length, optimal: o / pages.length };
}

const started = performance.now();
const pages = makePages(mulberry32(SEED));
const uniform = simulate(pages, uniformSchedule());
const adaptiveSched = adaptiveSchedule();
const adaptive = simulate(pages, adaptiveSched);
const oracle = simulate(pages, oracleSchedule(pages));
const expected = analytic(pages);
/** The same steady-state ceiling at other budgets (checks per page per day), for context. */
/**
 * The same steady-state ceiling at other budgets (checks per page per day), without interval bounds:
 * the largest gain over uniform that any schedule can get from these rates, whatever the budget.
 */
const ceilingByBudget = [0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20].map((perPage) => {
  const a = analytic(pages, perPage * N, null);
  return { checksPerPagePerDay: perPage, uniform: a.uniform, optimal: a.optimal, gainPoints: (a.optimal - a.uniform) * 100 };
});
const bestCeiling = ceilingByBudget.reduce((a, b) => (b.gainPoints > a.gainPoints ? b : a));
/** The budget a uniform schedule needs to be as fresh as the adaptive one (expected steady state; bisection). */
function uniformBudgetFor(freshness: number): number {
  let lo = 1e-3 * BUDGET, hi = 1e3 * BUDGET;
  for (let i = 0; i < 100; i++) {
    const mid = Math.sqrt(lo * hi);
    let u = 0;
    for (const p of pages) u += freshnessOf(p.rate, N / mid);
    if (u / N < freshness) lo = mid;
    else hi = mid;
  }
  return Math.sqrt(lo * hi);
}
/** How long one budget solve takes over 100,000 pages (these rates, repeated), in ms: the recrawler runs one every 1,000 checks at that size. */
function solveMs(pagesCount = 100_000): number {
  const rates = Array.from({ length: pagesCount }, (_, i) => pages[i % N].rate * (1 + i * 1e-9));
  const t = performance.now();
  solveBudget(rates, (pagesCount / N) * BUDGET, BOUNDS);
  return performance.now() - t;
}
const result = {
  command: `npx tsx scripts/bench-revisit.ts --pages ${N} --budget ${BUDGET} --days ${DAYS} --warmup ${WARMUP} --min-rate ${MIN_RATE} --max-rate ${MAX_RATE} --rates ${RATES}${RATES === 'bimodal' ? ` --fast-share ${FAST_SHARE}` : ''} --seed ${SEED}`,
  setup: {
    pages: N, budgetPerDay: BUDGET, days: DAYS, warmupDays: WARMUP, rates: `${RATES_TEXT} (changes/day)`,
    sizes: 'log-normal, median 30 KB, sigma 0.8', headerBytes: HEADER_BYTES, uniformIntervalDays: UNIFORM_MS / DAY_MS,
    adaptiveClass: { initialDays: CLASS.initial_ms / DAY_MS, minHours: CLASS.min_ms / HOUR_MS, maxDays: CLASS.max_ms / DAY_MS, minChecks: MIN_CHECKS },
    sampling: 'hourly, after the warm-up', seed: SEED,
  },
  uniform, adaptive, oracle,
  expectedSteadyFreshness: expected,
  ceilingByBudget,
  bestCeiling,
  /** Checks per day a uniform schedule needs for the adaptive schedule's freshness, and the share of them adaptive saves. */
  uniformBudgetForAdaptive: uniformBudgetFor(adaptive.freshness),
  fetchSaving: 1 - adaptive.fetches / DAYS / uniformBudgetFor(adaptive.freshness),
  finalMu: adaptiveSched.muLog.at(-1) ?? null,
  solveMs100k: solveMs(),
  budgetRatio: adaptive.fetches / uniform.fetches,
  freshnessGainPoints: (adaptive.freshness - uniform.freshness) * 100,
  targetMet: adaptive.freshness - uniform.freshness >= 0.1,
  seconds: (performance.now() - started) / 1000,
};

if (args.json) {
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
} else {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const mb = (x: number) => `${(x / 1e6).toFixed(0)} MB`;
  const row = (name: string, r: SimResult) =>
    `${name.padEnd(9)} ${String(r.fetches).padStart(8)} ${r.fetchesPerDay.toFixed(0).padStart(8)} ${pct(r.freshness).padStart(9)} ${r.ageDays.toFixed(3).padStart(8)} ${pct(r.changedChecks / r.fetches).padStart(8)} ${mb(r.wireBytes).padStart(9)} ${mb(r.savedBytes).padStart(9)} ${pct(r.savedShare).padStart(7)}`;
  process.stdout.write(
    [
      `$ ${result.command}`,
      `${N} pages, λ ${RATES_TEXT}, budget ${BUDGET} checks/day, ${DAYS} days (freshness and age sampled hourly after day ${WARMUP})`,
      '',
      'schedule   fetches    per day  freshness  age (d)  changed      wire  304 saved   saved',
      row('uniform', uniform),
      row('adaptive', adaptive),
      row('oracle', oracle),
      '',
      'by true rate (changes/day): freshness, fetches',
      ...uniform.byDecade.flatMap((d, k) => {
        if (d.pages === 0) return [];
        const cell = (r: SimResult) => `${pct(r.byDecade[k].freshness).padStart(6)} ${String(r.byDecade[k].fetches).padStart(7)}`;
        return [`  ${d.rates.padEnd(10)} uniform ${cell(uniform)}   adaptive ${cell(adaptive)}   oracle ${cell(oracle)}`];
      }),
      '',
      `adaptive − uniform: ${result.freshnessGainPoints.toFixed(1)} freshness points (target ≥ 10: ${result.targetMet ? 'met' : 'NOT met'}); fetches adaptive/uniform = ${result.budgetRatio.toFixed(4)}`,
      `steady-state expectation with known rates: uniform ${pct(expected.uniform)}, optimal ${pct(expected.optimal)} (the most any schedule with this budget and these bounds can reach)`,
      `a uniform schedule needs ${result.uniformBudgetForAdaptive.toFixed(0)} checks/day to be as fresh as adaptive: adaptive saves ${pct(result.fetchSaving)} of the fetches for the same freshness`,
      `the same ceiling at other budgets, no interval bounds (checks/page/day: uniform → optimal):`,
      `  ${ceilingByBudget.map((c) => `${c.checksPerPagePerDay}: ${pct(c.uniform)} → ${pct(c.optimal)}`).join(', ')}`,
      `  largest gain any schedule can get from these rates: ${bestCeiling.gainPoints.toFixed(1)} points, at ${bestCeiling.checksPerPagePerDay} checks/page/day`,
      `one budget solve over 100,000 pages: ${result.solveMs100k.toFixed(0)} ms`,
      `${result.seconds.toFixed(1)} s`,
      '',
    ].join('\n'),
  );
  process.stdout.write(JSON.stringify(result) + '\n');
}
