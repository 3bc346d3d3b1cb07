import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { normalizeOptions } from '../crawl/crawl-settings.js';
import { Crawler, type CrawlSummary } from '../crawl/crawler.js';
import { TopicrawlError } from '../errors.js';
import { inspectCrawlFile } from '../store/crawl-file-identity.js';
import { openCrawl, type OpenCrawl } from '../store/segments.js';
import { storeError } from '../store/sqlite-store.js';
import { recordedInFetchOrder } from '../store/url-report.js';
import { STRATEGIES } from '../strategy/registry.js';
import type { Strategy } from '../strategy/strategy.js';
import { buildConfig, type Config } from '../topic/config.js';
import { tryNormalizeUrl } from '../url/normalize.js';
import { loadCorpus, type Corpus } from './corpus.js';
import { startCorpusServer, type CorpusServer } from './corpus-server.js';
import { harvestFigures } from './eval-curve.js';
import { createOracle, createRandom, EVAL_ONLY_STRATEGIES } from './eval-strategies.js';
import type { EvalResults, StrategyResult } from './eval-types.js';

/**
 * Requests in flight during an evaluation crawl unless `--concurrency` says otherwise. One: each
 * page's links are scored and queued before the next URL is chosen, so every strategy's order is
 * exactly its own (with more in flight, a best-first crawl picks URLs before the links of pages
 * still in flight are known, and timing decides the order) and a run repeats exactly.
 */
export const EVAL_CONCURRENCY = 1;

/** Requests in flight per host in an evaluation crawl at `concurrency`: the topic's, at most `concurrency`. */
export function evalPerHostConcurrency(config: Config, concurrency: number): number {
  return Math.min(config.politeness.per_host_concurrency, concurrency);
}

/** E_USAGE unless `n` is a whole number of requests in flight, at least 1. */
export function checkConcurrency(n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new TopicrawlError('E_USAGE', `--concurrency ${n}: expected a whole number of requests in flight, at least 1`, { flag: '--concurrency' });
  return n;
}

/** The strategies `eval` runs when none are named. */
export const DEFAULT_EVAL_STRATEGIES = ['default', 'breadth-first', 'best-first', 'shark', 'oracle', 'random'];

/** Seed of the random strategy's generator when none is given. */
export const DEFAULT_RANDOM_SEED = 1;

/**
 * The configuration an evaluation crawl runs with: the given one with the page budget set and
 * politeness off (no delay between requests, robots.txt Crawl-delay ignored by the runner, rules
 * still honoured) and `concurrency` requests in flight (default {@link EVAL_CONCURRENCY}), per host
 * the topic's `per_host_concurrency` (at most `concurrency`), as `crawl` would.
 */
export function evalConfig(config: Config, budget: number, concurrency: number = EVAL_CONCURRENCY): Config {
  const t = structuredClone(config) as Record<string, unknown> & { limits: Record<string, unknown>; politeness: Record<string, unknown> };
  t.limits = { ...t.limits, max_pages: budget };
  t.politeness = { ...t.politeness, delay_ms: 0, concurrency, per_host_concurrency: evalPerHostConcurrency(config, concurrency) };
  return buildConfig(t as unknown as Config);
}

/**
 * The corpus URLs carrying `label`, normalised with the configuration's URL rules (as the crawl
 * stores them).
 */
export function truthSet(corpus: Corpus, label: string, config?: Config): Set<string> {
  const opts = config ? normalizeOptions(config) : undefined;
  const truth = new Set<string>();
  for (const [url, ls] of corpus.labels) if (ls.includes(label)) truth.add(tryNormalizeUrl(url, opts) ?? url);
  return truth;
}

/** The topic's evaluation label; E_CONFIG if it has none or the corpus does not declare it. */
export function evaluationLabel(config: Config, corpus: Corpus): string {
  const label = config.evaluation.label;
  if (!label) throw new TopicrawlError('E_CONFIG', `topic "${config.name}" has no evaluation.label: name the corpus label that marks a page as on-topic`, { key: 'evaluation.label' });
  if (!Object.hasOwn(corpus.meta.labels, label)) {
    const known = Object.keys(corpus.meta.labels).join(', ') || 'none';
    throw new TopicrawlError('E_CONFIG', `evaluation.label "${label}" is not a label of corpus ${corpus.meta.name} (labels: ${known})`, { key: 'evaluation.label' });
  }
  return label;
}

/**
 * Whether each fetched page of a crawl was relevant, in fetch order (`fetch_seq`): labelled, and no
 * duplicate of a page fetched before it (exact or near: README, near-duplicates). `dbPath` is a
 * crawl file, or the segments of a distributed crawl (files or folders; merged in order of fetch
 * time, see store/segments.ts). E_STORE if a file is not a complete crawl file (its tables missing).
 */
export function fetchOrderRelevance(dbPath: string | readonly string[], truth: ReadonlySet<string>): boolean[] {
  return fetchOrder(dbPath, truth).relevant;
}

/** {@link fetchOrderRelevance}, and how many of those pages answered 2xx. */
function fetchOrder(dbPath: string | readonly string[], truth: ReadonlySet<string>): { relevant: boolean[]; ok: number } {
  const paths = typeof dbPath === 'string' ? [dbPath] : dbPath;
  const name = paths.join(', ');
  let crawl: OpenCrawl;
  try {
    crawl = openCrawl(paths); // a clean close left no WAL beside it
  } catch (err) {
    throw storeError(name, err, 'reading the crawl: ');
  }
  try {
    const rows = recordedInFetchOrder(crawl.db);
    return { relevant: rows.map((r) => truth.has(r.url) && !r.dup), ok: rows.filter((r) => r.status !== null && r.status >= 200 && r.status < 300).length };
  } catch (err) {
    throw storeError(name, err, 'reading the crawl: ');
  } finally {
    crawl.close();
  }
}

export interface StrategyRunOptions {
  /** A running server of `corpus` (start it once, reuse it across runs). */
  server: CorpusServer;
  corpus: Corpus;
  /** The configuration; its strategy block configures the strategy. Budget and politeness are set here. */
  config: Config;
  /** A fresh strategy instance to use instead of `config.strategy.name` (oracle, random). */
  strategy?: Strategy;
  /** Pages to fetch at most. */
  budget: number;
  /** The corpus label that marks a page as relevant. */
  label: string;
  /** The crawl file; started over if it exists (it must be a crawl file), kept afterwards. */
  dbPath: string;
  /** Aborting it stops the crawl gracefully (as Ctrl-C does a crawl); the result is then partial. */
  signal?: AbortSignal;
  /** Requests in flight (default {@link EVAL_CONCURRENCY}). */
  concurrency?: number;
}

/**
 * Runs ONE crawl of a served corpus through the real crawl loop (politeness off, see
 * {@link evalConfig}) into a fresh SQLite file, and measures it against the corpus labels.
 *
 * `cpu_s` is the process's CPU time over the crawl and the reading of its file (see StrategyResult).
 * A crawl that fetched no page (none answered 2xx) is an error (E_CONFIG: its seeds are not pages
 * the corpus serves), and so is a file that does not hold every page the crawl recorded (E_STORE):
 * neither is a figure.
 */
export async function runStrategyOnCorpus(o: StrategyRunOptions): Promise<StrategyResult> {
  const config = evalConfig(o.config, o.budget, o.concurrency);
  const truth = truthSet(o.corpus, o.label, config);
  const started = performance.now();
  const cpu = process.cpuUsage();
  const crawler = new Crawler({
    config, dbPath: o.dbPath, resolve: o.server.resolveMap(), mappedOnly: true, strategy: o.strategy,
    workers: 0, maxCrawlDelayMs: 0, progressEveryMs: 60_000, fresh: true,
  });
  const stop = () => crawler.stop();
  o.signal?.addEventListener('abort', stop);
  let summary: CrawlSummary;
  try {
    if (o.signal?.aborted) crawler.stop();
    summary = await crawler.run();
  } finally {
    o.signal?.removeEventListener('abort', stop);
    await crawler.close();
  }
  const wall_s = Math.round(performance.now() - started) / 1000;
  const { relevant: order, ok } = fetchOrder(o.dbPath, truth);
  const used = process.cpuUsage(cpu);
  const cpu_s = Math.round((used.user + used.system) / 1000) / 1000;
  const name = o.strategy?.name ?? config.strategy.name;
  if (order.length !== summary.fetched) {
    throw new TopicrawlError('E_STORE', `${o.dbPath}: the ${name} crawl recorded ${summary.fetched} pages but its file holds ${order.length}: not a figure`, { path: o.dbPath });
  }
  if (ok === 0 && !o.signal?.aborted) {
    const tried = order.length ? ` (${order.length} attempts, none answered 2xx)` : '';
    throw new TopicrawlError('E_CONFIG', `the ${name} crawl fetched no page${tried} from ${config.seeds.join(', ')}: are they pages of corpus ${o.corpus.meta.name}?`, { key: 'seeds' });
  }
  return { ...harvestFigures(order, truth.size), wall_s, cpu_s };
}

/**
 * Expands a list of strategy names: `all` = every registered strategy plus oracle and random;
 * `default` = the topic's own strategy; duplicates dropped, order kept. E_USAGE for an unknown name.
 */
export function resolveStrategyNames(names: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of names) {
    const name = raw.trim();
    if (name === '') continue;
    const expanded = name === 'all' ? [...Object.keys(STRATEGIES), ...Object.keys(EVAL_ONLY_STRATEGIES)] : [name];
    for (const n of expanded) {
      if (n !== 'default' && !Object.hasOwn(STRATEGIES, n) && !Object.hasOwn(EVAL_ONLY_STRATEGIES, n)) {
        const known = ['default', 'all', ...Object.keys(STRATEGIES), ...Object.keys(EVAL_ONLY_STRATEGIES)].join(', ');
        throw new TopicrawlError('E_USAGE', `--strategies: unknown strategy "${n}" (known: ${known})`, { flag: '--strategies' });
      }
      if (!out.includes(n)) out.push(n);
    }
  }
  if (out.length === 0) throw new TopicrawlError('E_USAGE', '--strategies: name at least one strategy', { flag: '--strategies' });
  return out;
}

export interface EvalOptions {
  /** The topic's configuration (defaults ← topic file ← flags). */
  config: Config;
  corpusDir: string;
  /** Strategy names (see {@link resolveStrategyNames}); default {@link DEFAULT_EVAL_STRATEGIES}. */
  strategies?: readonly string[];
  /** Pages per strategy; default the topic's limits.max_pages. */
  budget?: number;
  /** Start URLs; default the topic's seeds. */
  seeds?: readonly string[];
  /** Folder for the crawl files, one `<strategy>.db` each (fresh every run); created if missing. */
  dbDir: string;
  /** Seed of the random strategy; default {@link DEFAULT_RANDOM_SEED}. */
  randomSeed?: number;
  /** Requests in flight in every crawl (default {@link EVAL_CONCURRENCY}). */
  concurrency?: number;
  /** Called as each strategy finishes, with its position (1-based) and the count. */
  onResult?: (name: string, result: StrategyResult, index: number, total: number) => void;
}

/** What runEval settled on besides the results: for the report and the terminal. */
export interface EvalPlan {
  corpus: Corpus;
  label: string;
  budget: number;
  seeds: string[];
  strategies: string[];
  concurrency: number;
}

/** Checks the options and works out what to run, before anything starts. E_USAGE / E_CONFIG / E_CORPUS. */
export function planEval(o: EvalOptions): EvalPlan {
  const strategies = resolveStrategyNames(o.strategies ?? DEFAULT_EVAL_STRATEGIES);
  const budget = o.budget ?? o.config.limits.max_pages;
  if (!Number.isInteger(budget) || budget < 1) throw new TopicrawlError('E_USAGE', `--budget ${budget}: expected a whole number of pages, at least 1`, { flag: '--budget' });
  if (o.randomSeed !== undefined && !Number.isInteger(o.randomSeed)) throw new TopicrawlError('E_USAGE', `--random-seed ${o.randomSeed}: expected a whole number`, { flag: '--random-seed' });
  const concurrency = checkConcurrency(o.concurrency ?? EVAL_CONCURRENCY);
  const seeds = [...(o.seeds ?? o.config.seeds)];
  if (seeds.length === 0) throw new TopicrawlError('E_USAGE', '--seeds: name at least one URL', { flag: '--seeds' });
  for (const s of seeds) {
    const u = tryNormalizeUrl(s);
    if (!u || !/^https?:/.test(u)) throw new TopicrawlError('E_USAGE', `--seeds: not an http(s) URL: ${JSON.stringify(s)}`, { flag: '--seeds' });
  }
  const corpus = loadCorpus(o.corpusDir);
  const label = evaluationLabel(o.config, corpus);
  return { corpus, label, budget, seeds, strategies, concurrency };
}

/** The configuration and strategy instance (if any) one named strategy runs with. */
function strategySetup(name: string, base: Config, truth: ReadonlySet<string>, randomSeed: number): { config: Config; strategy?: Strategy } {
  if (name === 'default') return { config: base };
  if (name === 'oracle') return { config: base, strategy: createOracle(truth, base.strategy) };
  if (name === 'random') return { config: base, strategy: createRandom(randomSeed, base.strategy) };
  return { config: buildConfig(base, { strategy: name }) };
}

/**
 * `topicrawl eval`: serves the corpus on loopback once and runs each strategy from the same seeds
 * on the same budget, each into a fresh `<dbDir>/<strategy>.db`, in the order given.
 */
export async function runEval(o: EvalOptions): Promise<EvalResults> {
  const plan = planEval(o);
  const base = buildConfig({ ...structuredClone(o.config), seeds: plan.seeds } as unknown as Config);
  const truth = truthSet(plan.corpus, plan.label, base);
  mkdirSync(o.dbDir, { recursive: true });
  // a file there that is not a crawl file is refused before the first crawl, not at its turn
  for (const name of plan.strategies) inspectCrawlFile(join(o.dbDir, `${name}.db`), true);
  const server = await startCorpusServer(o.corpusDir);
  const results: EvalResults = {
    corpus: plan.corpus.meta.name, topic: base.name, label: plan.label, budget: plan.budget, relevant_in_corpus: truth.size,
    concurrency: plan.concurrency, per_host_concurrency: evalPerHostConcurrency(base, plan.concurrency), strategies: {},
  };
  try {
    for (const [i, name] of plan.strategies.entries()) {
      const { config, strategy } = strategySetup(name, base, truth, o.randomSeed ?? DEFAULT_RANDOM_SEED);
      const r = await runStrategyOnCorpus({ server, corpus: plan.corpus, config, strategy, budget: plan.budget, label: plan.label, dbPath: join(o.dbDir, `${name}.db`), concurrency: plan.concurrency });
      results.strategies[name] = r;
      o.onResult?.(name, r, i + 1, plan.strategies.length);
    }
  } finally {
    await server.close();
  }
  return results;
}
