/**
 * Re-renders report.html from a saved eval run, e.g. after changing the report's layout.
 *   npx tsx scripts/render-report.ts <results.json> [--out report.html]
 * Reads results.json (src/eval/eval-types.ts: EvalResults) and, when present, meta.json in the same
 * folder (ReportMeta: topic file, seeds, weights, …); without it the topic section is left mostly empty.
 * --out defaults to report.html next to results.json.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { TopicrawlError } from '../src/errors.js';
import { renderReport } from '../src/eval/eval-report.js';
import type { EvalResults, ReportMeta } from '../src/eval/eval-types.js';

const argv = yargs(hideBin(process.argv))
  .scriptName('render-report')
  .usage('$0 <results.json> [--out report.html]')
  .command('$0 <results>', 'render report.html from results.json (+ meta.json beside it)')
  .positional('results', { type: 'string', demandOption: true, describe: 'path of results.json' })
  .option('out', { type: 'string', describe: 'output file (default: report.html next to results.json)' })
  .strict()
  .help()
  .parseSync();

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (err) {
    throw new TopicrawlError('E_CONFIG', `cannot read ${path}: ${(err as Error).message}`, { path }, { cause: err });
  }
}

try {
  const resultsPath = String(argv.results);
  const results = readJson(resultsPath) as EvalResults;
  if (!results || typeof results !== 'object' || typeof results.strategies !== 'object' || results.strategies === null) {
    throw new TopicrawlError('E_CONFIG', `${resultsPath} is not an eval results.json (no "strategies" object)`, { path: resultsPath });
  }
  const metaPath = join(dirname(resultsPath), 'meta.json');
  const fallback: ReportMeta = {
    topicFile: '(unknown: no meta.json)',
    corpusDir: results.corpus ?? '',
    description: '',
    seeds: [],
    strategy: {},
    relevance: { threshold: NaN, fields: {} },
    keywords: {},
    locationTokens: {},
    generatedAt: '',
  };
  const meta: ReportMeta = existsSync(metaPath) ? { ...fallback, ...(readJson(metaPath) as Partial<ReportMeta>) } : fallback;
  const out = argv.out ?? join(dirname(resultsPath), 'report.html');
  writeFileSync(out, renderReport(results, meta));
  console.log(`wrote ${out}${existsSync(metaPath) ? ` (with ${metaPath})` : ' (no meta.json found)'}`);
} catch (err) {
  if (err instanceof TopicrawlError) {
    console.error(`render-report: ${err.code}: ${err.message}`);
    process.exit(2);
  }
  throw err;
}
