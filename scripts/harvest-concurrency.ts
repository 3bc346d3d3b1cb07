/**
 * Harvest rate at the budget against requests in flight: the topic's own strategy crawls each shipped
 * topic of a corpus set through the real crawl loop (as `topicrawl eval --concurrency N` does:
 * politeness delay off, the corpus on loopback) at each concurrency, and the table shows what
 * more requests in flight cost.
 *
 *   npx tsx scripts/harvest-concurrency.ts [--budget 500] [--concurrency 1,16,64] [--sets synth,webkb]
 *                                          [--per-host 1|N|both] [--repeat 1] [--json]
 *
 * `--per-host 1` (default) runs with the topics' `per_host_concurrency` (1), as `crawl` does; `N`
 * lets every request go to one host (per-host limit = concurrency), which takes politeness out and
 * leaves only what a crawl at N cannot know (the links of the N − 1 other pages in flight); `both`
 * runs the two, to split the drop between them. `--repeat R` runs each crawl R times (a crawl with
 * more than one request in flight depends on timing) and prints the mean.
 * Sets as in scripts/corpus-sets.ts (corpora/synth: `npm run gen-corpus`; corpora/webkb: `npm run build-webkb`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCorpus } from '../src/eval/corpus.js';
import { corpusSet } from './corpus-sets.js';
import { startCorpusServer } from '../src/eval/corpus-server.js';
import { evaluationLabel, runStrategyOnCorpus } from '../src/eval/eval-runner.js';
import { buildConfig, loadConfig } from '../src/topic/config.js';

const { values: a } = parseArgs({
  options: {
    budget: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '1,16,64' },
    sets: { type: 'string', default: 'synth,webkb' },
    'per-host': { type: 'string', default: '1' },
    repeat: { type: 'string', default: '1' },
    json: { type: 'boolean', default: false },
  },
});
const root = new URL('../', import.meta.url).pathname;
const budget = Number(a.budget);
const repeat = Number(a.repeat);
const levels = a.concurrency.split(',').map(Number);
const perHostModes = a['per-host'] === 'both' ? ['1', 'N'] : [a['per-host']];

interface Row { set: string; topic: string; perHost: string; harvest: Record<number, number>; auc: Record<number, number>; pagesPerSec: Record<number, number> }
const rows: Row[] = [];
const dbRoot = mkdtempSync(join(tmpdir(), 'harvest-concurrency-'));
try {
  for (const set of a.sets.split(',')) {
    const found = corpusSet(root, set);
    if (!found) continue;
    const { corpusDir } = found;
    const corpus = loadCorpus(corpusDir);
    const server = await startCorpusServer(corpusDir);
    try {
      for (const file of found.topics) {
        const t = basename(file);
        const topic = loadConfig(file);
        const label = evaluationLabel(topic, corpus);
        for (const mode of perHostModes) {
          const row: Row = { set, topic: topic.name, perHost: mode, harvest: {}, auc: {}, pagesPerSec: {} };
          for (const n of levels) {
            const config = mode === 'N' ? buildConfig(topic, { set: [`politeness.per_host_concurrency=${n}`] }) : topic;
            let h = 0;
            let u = 0;
            let wall = 0;
            let pages = 0;
            for (let i = 0; i < repeat; i++) {
              const r = await runStrategyOnCorpus({ server, corpus, config, budget, label, concurrency: n, dbPath: join(dbRoot, `${set}-${t}-${mode}-${n}-${i}.db`) });
              h += r.harvest_rate / repeat;
              u += r.auc / repeat;
              wall += r.wall_s;
              pages += r.fetched;
            }
            row.harvest[n] = h;
            row.auc[n] = u;
            row.pagesPerSec[n] = pages / wall;
            process.stderr.write(`${set}/${topic.name} per-host ${mode === 'N' ? n : 1} concurrency ${n}: harvest ${h.toFixed(3)} auc ${u.toFixed(3)} ${(pages / wall).toFixed(0)} pages/s\n`);
          }
          rows.push(row);
        }
      }
    } finally {
      await server.close();
    }
  }
} finally {
  rmSync(dbRoot, { recursive: true, force: true });
}

if (a.json) {
  process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
} else {
  process.stdout.write(`command: npx tsx scripts/harvest-concurrency.ts --budget ${budget} --concurrency ${a.concurrency} --sets ${a.sets} --per-host ${a['per-host']} --repeat ${repeat}\n`);
  process.stdout.write(`harvest rate at ${budget} pages (auc) by requests in flight; per host: 1 = the topics' limit, N = as many as in all\n\n`);
  process.stdout.write(`| topic | per host | ${levels.map((n) => `c=${n}`).join(' | ')} | c=${levels.at(-1)} ÷ c=${levels[0]} |\n|---|---|${levels.map(() => '---').join('|')}|---|\n`);
  const line = (name: string, ph: string, hv: (n: number) => number, au: (n: number) => number) =>
    `| ${name} | ${ph} | ${levels.map((n) => `${hv(n).toFixed(3)} (${au(n).toFixed(2)})`).join(' | ')} | ${(hv(levels.at(-1)!) / hv(levels[0])).toFixed(2)} |\n`;
  for (const set of new Set(rows.map((r) => r.set))) {
    for (const mode of perHostModes) {
      const rs = rows.filter((r) => r.set === set && r.perHost === mode);
      for (const r of rs) process.stdout.write(line(`${set}/${r.topic}`, mode, (n) => r.harvest[n], (n) => r.auc[n]));
      const mean = (f: (r: Row) => number) => rs.reduce((t, r) => t + f(r), 0) / rs.length;
      process.stdout.write(line(`**${set} mean**`, mode, (n) => mean((r) => r.harvest[n]), (n) => mean((r) => r.auc[n])));
    }
  }
  process.stdout.write(`\npages/s (mean over the topics; wall time of each crawl, corpus server in the same process)\n\n| set | per host | ${levels.map((n) => `c=${n}`).join(' | ')} |\n|---|---|${levels.map(() => '---').join('|')}|\n`);
  for (const set of new Set(rows.map((r) => r.set))) {
    for (const mode of perHostModes) {
      const rs = rows.filter((r) => r.set === set && r.perHost === mode);
      process.stdout.write(`| ${set} | ${mode} | ${levels.map((n) => (rs.reduce((t, r) => t + r.pagesPerSec[n], 0) / rs.length).toFixed(0)).join(' | ')} |\n`);
    }
  }
}
