import { writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { renderReport } from '../eval/eval-report.js';
import { runEval } from '../eval/eval-runner.js';
import type { EvalResults, ReportMeta, StrategyResult } from '../eval/eval-types.js';
import { loadConfig, type Config } from '../topic/config.js';
import { fileNameFromTopic } from './default-paths.js';
import { table } from './format.js';
import { checkOutDir } from './output-paths.js';

export interface EvalArgs {
  corpus: string;
  topic: string;
  /** Comma-separated names (or repeated flags); `all`, `default` allowed. */
  strategies?: string[];
  budget?: number;
  /** Comma-separated URLs (or repeated flags). */
  seeds?: string[];
  out?: string;
  json?: boolean;
  randomSeed?: number;
  /** Requests in flight in every crawl (default 1). */
  concurrency?: number;
  /** `--set key.path=value` overrides of the topic. */
  set?: string[];
}

export interface EvalRun {
  results: EvalResults;
  outDir: string;
}

/** Splits repeated and comma-separated flag values into one list. */
export function splitList(values: readonly string[] | undefined): string[] | undefined {
  if (!values) return undefined;
  return values.flatMap((v) => String(v).split(',')).map((s) => s.trim()).filter((s) => s !== '');
}

/** results.json text: indented, with each curve point [n, rate] on one line. */
export function formatResultsJson(r: EvalResults): string {
  return JSON.stringify(r, null, 2).replace(/\[\s+(-?[\d.eE+-]+),\s+(-?[\d.eE+-]+)\s+\]/g, '[$1, $2]');
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The terminal table: one row per strategy; relative columns compare harvest rates. */
export function formatEvalTable(r: EvalResults): string {
  const bfs = r.strategies['breadth-first'];
  const oracle = r.strategies.oracle;
  const rel = (s: StrategyResult, ref: StrategyResult | undefined, f: (x: number) => string) => (ref && ref.harvest_rate > 0 ? f(s.harvest_rate / ref.harvest_rate) : '-');
  const rows = Object.entries(r.strategies).map(([name, s]) => [
    name, s.fetched, s.relevant, pct(s.harvest_rate), pct(s.target_recall), s.auc.toFixed(3),
    rel(s, bfs, (x) => `×${x.toFixed(2)}`), rel(s, oracle, (x) => `${(x * 100).toFixed(0)}%`), s.wall_s.toFixed(1),
  ]);
  const head = `eval: topic ${r.topic}, corpus ${r.corpus}, label "${r.label}" (${r.relevant_in_corpus} relevant pages), budget ${r.budget} pages, ${inFlightText(r)}`;
  return `${head}\n${table(['strategy', 'fetched', 'relevant', 'harvest', 'recall', 'auc', 'vs breadth-first', '% of oracle', 'wall s'], rows)}`;
}

/** "1 request in flight" or "16 requests in flight (1 per host)". */
export function inFlightText(r: Pick<EvalResults, 'concurrency' | 'per_host_concurrency'>): string {
  const n = r.concurrency ?? 1;
  return n === 1 ? '1 request in flight' : `${n} requests in flight (${r.per_host_concurrency ?? 1} per host)`;
}

function reportMeta(args: EvalArgs, config: Config, seeds: string[]): ReportMeta {
  return {
    topicFile: args.topic,
    corpusDir: args.corpus,
    description: config.description,
    seeds,
    strategy: { ...config.strategy },
    relevance: { threshold: config.relevance.threshold, fields: { ...config.relevance.fields } },
    keywords: { ...config.keywords },
    locationTokens: { ...config.location.tokens },
    generatedAt: new Date().toISOString(),
  };
}

/**
 * `topicrawl eval`: runs the strategies on the corpus (see runEval), writes results.json and
 * report.html to the out folder (default `eval-out/<topic>-<corpus folder>`), prints the table (or
 * results.json with --json) on `out` and one line per finished strategy on `progress`.
 */
export async function runEvalCommand(args: EvalArgs, out: { log: (s: string) => void }, progress: (s: string) => void): Promise<EvalRun> {
  const config = loadConfig(args.topic, { set: args.set });
  const seeds = splitList(args.seeds) ?? [...config.seeds];
  const outDir = resolve(args.out ?? join('eval-out', fileNameFromTopic(config.name, `-${basename(resolve(args.corpus))}`, '--out')));
  checkOutDir(outDir, ['results.json', 'report.html'], '--out'); // before the crawls, not after them
  const results = await runEval({
    config, corpusDir: args.corpus, strategies: splitList(args.strategies), budget: args.budget, seeds, dbDir: outDir, randomSeed: args.randomSeed,
    concurrency: args.concurrency,
    onResult: (name, s, i, n) =>
      progress(`[eval] ${i}/${n} ${name}: ${s.fetched} fetched, harvest ${pct(s.harvest_rate)}, recall ${pct(s.target_recall)}, auc ${s.auc.toFixed(3)}, ${s.wall_s.toFixed(1)} s`),
  });
  const json = formatResultsJson(results);
  writeFileSync(join(outDir, 'results.json'), `${json}\n`);
  writeFileSync(join(outDir, 'report.html'), renderReport(results, reportMeta(args, config, seeds)));
  if (args.json) out.log(json);
  else out.log(`${formatEvalTable(results)}\n\nwrote ${join(outDir, 'results.json')} and report.html (crawl files: <strategy>.db beside them)`);
  return { results, outDir };
}
