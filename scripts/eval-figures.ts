/**
 * Harvest@budget of every strategy, oracle and random included, on a set of (corpus, topic) pairs:
 * the figures of the issue "measure and tune harvest rate". Each pair is one `topicrawl eval` run
 * (the same code: runEval), so every strategy crawls the corpus on loopback from the topic's seeds.
 *
 *   npx tsx scripts/eval-figures.ts [--budget 500] [--strategies all] [--sets synth,webkb,rustdoc] [--seeds topic|far] [--json] [--set KEY=VALUE ...]
 *
 * --seeds far starts every crawl from three pages of other labels (corpus-sets.ts farSeeds) instead of
 * the topic's seeds.
 *
 * Sets: synth = corpora/synth with topics/synth-*.yaml (build it with `npm run gen-corpus`);
 * webkb = corpora/webkb with topics/webkb-*.yaml (`npm run build-webkb`); rustdoc = corpora/rustdoc
 * with topics/rustdoc-*.yaml (`npx tsx scripts/build-rustdoc.ts`, from the Rust documentation rustup installs). A set whose corpus is
 * missing is skipped with a note. Prints one markdown table per set (harvest rate at the budget,
 * and auc), then the means and the two ratios of the target: default ÷ breadth-first and
 * default ÷ oracle (both on the mean harvest at the budget), then one row per strategy
 * (eval-summary.ts): mean harvest and auc, the share of the oracle per topic (mean, and the worst
 * topic), × breadth-first and CPU ms per fetched page. The CPU time is process.cpuUsage() over each
 * crawl and the reading of its file (user + system, every thread of the process: the crawl loop,
 * page analysis, SQLite, and the corpus server, which runs in the same process); --json carries it
 * as cpu_s per strategy.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { runEval } from '../src/eval/eval-runner.js';
import { corpusSet, farSeeds } from './corpus-sets.js';
import { summarizeSet, summaryTable } from './eval-summary.js';
import type { EvalResults } from '../src/eval/eval-types.js';
import { loadConfig } from '../src/topic/config.js';

const { values: a } = parseArgs({
  options: {
    budget: { type: 'string', default: '500' },
    strategies: { type: 'string', default: 'all' },
    sets: { type: 'string', default: 'synth,webkb,rustdoc' },
    json: { type: 'boolean', default: false },
    set: { type: 'string', multiple: true, default: [] },
    seeds: { type: 'string', default: 'topic' },
  },
});
const root = new URL('../', import.meta.url).pathname;
const budget = Number(a.budget);
const strategies = a.strategies.split(',').map((s) => s.trim()).filter(Boolean);

const out: Record<string, EvalResults[]> = {};
const dbRoot = mkdtempSync(join(tmpdir(), 'eval-figures-'));
try {
  for (const set of a.sets.split(',')) {
    const found = corpusSet(root, set);
    if (!found) continue;
    const { corpusDir } = found;
    out[set] = [];
    for (const file of found.topics) {
      const t = basename(file);
      const config = loadConfig(file, { set: a.set });
      // far: seeds on pages of other labels (corpus-sets.ts farSeeds), the same for every strategy
      const seeds = a.seeds === 'far' ? farSeeds(corpusDir, config.evaluation.label!) : undefined;
      if (seeds) process.stderr.write(`${set}/${t}: far seeds ${seeds.join(' ')}\n`);
      const r = await runEval({ config, corpusDir, strategies, budget, seeds, dbDir: join(dbRoot, `${set}-${t}`) });
      process.stderr.write(`${set}/${t}: done\n`);
      out[set].push(r);
    }
  }
} finally {
  rmSync(dbRoot, { recursive: true, force: true });
}

if (a.json) {
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
} else {
  process.stdout.write(`command: npx tsx scripts/eval-figures.ts --budget ${budget} --strategies ${a.strategies} --sets ${a.sets} --seeds ${a.seeds}${a.set.map((x) => ` --set ${x}`).join('')}\n`);
  for (const [set, results] of Object.entries(out)) {
    if (results.length === 0) continue;
    const names = Object.keys(results[0].strategies);
    const mean = (name: string, key: 'harvest_rate' | 'auc') => results.reduce((t, r) => t + (r.strategies[name]?.[key] ?? 0), 0) / results.length;
    process.stdout.write(`\n${set}: harvest rate at ${budget} pages (auc)\n\n`);
    process.stdout.write(`| topic (relevant in corpus) | ${names.join(' | ')} |\n|---|${names.map(() => '---').join('|')}|\n`);
    for (const r of results) {
      process.stdout.write(`| ${r.topic} (${r.relevant_in_corpus}) | ${names.map((n) => `${r.strategies[n].harvest_rate.toFixed(3)} (${r.strategies[n].auc.toFixed(2)})`).join(' | ')} |\n`);
    }
    process.stdout.write(`| **mean** | ${names.map((n) => `**${mean(n, 'harvest_rate').toFixed(3)}** (${mean(n, 'auc').toFixed(2)})`).join(' | ')} |\n`);
    // the default strategy: "default" when it was run under that name, else the topics' own (the shipped topics use best-first-fish)
    const def = names.includes('default') ? 'default' : 'best-first-fish';
    const d = mean(def, 'harvest_rate');
    const b = mean('breadth-first', 'harvest_rate');
    const o = mean('oracle', 'harvest_rate');
    if (names.includes(def)) {
      process.stdout.write(`\n${def} ÷ breadth-first: ${b > 0 ? `×${(d / b).toFixed(2)}` : '-'}; ${def} ÷ oracle: ${o > 0 ? `${((d / o) * 100).toFixed(0)}%` : '-'}\n`);
    }
    process.stdout.write(`\n${set}: per strategy over the ${results.length} topics\n\n${summaryTable(summarizeSet(results))}\n`);
  }
}
