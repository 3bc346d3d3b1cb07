/**
 * The crawl's pages/s from a small budget to a large one (issue 16: "pages/s within 10% from 1,000
 * to 100,000 pages"), each budget beside a bare loop's pages/s on the same server in the same run.
 *
 *   npx tsx scripts/bench-scale.ts --corpus /tmp/synth100k [--pages 1000,5000,20000,100000]
 *       [--topic topics/synth-astronomy.yaml] [--concurrency 16] [--bare-runs 3] [--markdown]
 *
 * (`/tmp/synth100k`: `npx tsx scripts/gen-corpus.ts --out /tmp/synth100k --pages 105000 --hosts 1000`;
 * the bundled corpora/synth has ~6,000 pages, enough for budgets up to that.)
 *
 * For each budget, smallest first: the compiled crawl as bench-crawl.ts runs it (a child process,
 * a fresh crawl file, delay 0, robots.txt off, the topic's strategy and per-host concurrency), then
 * the bare loop (bench-bare-loop.ts) over as many pages, the median of --bare-runs runs (one run's
 * rate moves by 20-30% on a shared machine), each in a fresh process as the crawl is: a loop run
 * again in a warm process gets code V8 has optimised already (at 1,000 pages the same loop did
 * 1,016 pages/s cold and 1,763 as the median of three runs in one process). A corpus's first pages come from its few
 * seed hosts, one request at a time each, so a small budget is slower for the bare loop too: the
 * crawl ÷ bare loop ratio says whether the crawl keeps pace with what the corpus and the machine
 * allow at each budget, the rates alone what a user sees. Prints JSON (every point, and each
 * figure's spread: max ÷ min − 1, and the smallest budget from which the larger ones are within
 * 10%), or with --markdown a table and those lines. A budget that fetched nothing is an error.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCorpus } from '../src/eval/corpus.js';
import { loadConfig } from '../src/topic/config.js';
import { coldBareLoop } from './bench-bare-loop.js';
import { median } from './bench-compare.js';
import { benchSets, runCliCrawl, sharedBenchOptions } from './bench-cli-crawl.js';
import { startBenchServer } from './bench-server.js';
import { renderScale, summariseScale, type ScalePoint } from './scale-summary.js';

const root = new URL('../', import.meta.url).pathname;
const { values: a } = parseArgs({
  options: {
    ...sharedBenchOptions(root),
    pages: { type: 'string', default: '1000,5000,20000,100000' },
    'bare-runs': { type: 'string', default: '3' },
    markdown: { type: 'boolean', default: false },
  },
});
const fail = (msg: string): never => {
  process.stderr.write(`bench-scale: ${msg}\n`);
  process.exit(1);
};

const budgets = a.pages!.split(',').map((s) => Number(s.trim()));
if (budgets.some((b) => !Number.isInteger(b) || b < 1)) fail(`--pages takes page counts separated by commas, got "${a.pages}"`);
budgets.sort((x, y) => x - y);
const concurrency = Number(a.concurrency);
if (!Number.isInteger(concurrency) || concurrency < 1) fail(`--concurrency takes a positive integer, got "${a.concurrency}"`);
const bareRuns = Number(a['bare-runs']);
if (!Number.isInteger(bareRuns) || bareRuns < 1) fail(`--bare-runs takes a positive integer, got "${a['bare-runs']}"`);
if (!existsSync(join(a.corpus!, 'corpus.json'))) fail(`no corpus at ${a.corpus} (make one: npx tsx scripts/gen-corpus.ts --out ${a.corpus} --pages 105000 --hosts 1000)`);
const corpus = loadCorpus(a.corpus!);
process.once('SIGINT', () => process.exit(130));

const sets = benchSets(concurrency);
const server = await startBenchServer(a.corpus!);
process.stderr.write(`serving ${corpus.hosts.length} hosts with ${server.label} on 127.0.0.1:${server.port}\n`);
try {
  const points: ScalePoint[] = [];
  for (const budget of budgets) {
    const config = loadConfig(a.topic!, { maxPages: budget, set: sets });
    const c = await runCliCrawl({ topic: a.topic!, hosts: corpus.hosts, server, maxPages: budget, sets });
    const rates: number[] = [];
    const cpus: number[] = [];
    for (let i = 0; i < bareRuns; i++) {
      const b = await coldBareLoop({ seeds: [...config.seeds], hosts: new Set(corpus.hosts), port: server.port, inFlight: concurrency, maxPages: c.fetched });
      rates.push(b.pagesPerSec);
      if (b.pages > 0) cpus.push(b.cpuMs / b.pages);
    }
    const bare = { pagesPerSec: median(rates), cpuMsPerPage: cpus.length ? median(cpus) : 0 };
    await server.window();
    points.push({
      budget, pages: c.fetched, crawlPagesPerS: c.fetched / c.crawlS, barePagesPerS: bare.pagesPerSec,
      cpuMsPerPage: c.cpuMs / c.fetched, bareCpuMsPerPage: bare.cpuMsPerPage, peakRssMb: c.peakRssMb, firstRequestMs: c.firstRequestMs,
    });
    process.stderr.write(`${budget} pages: crawl ${c.fetched / c.crawlS | 0} pages/s, bare loop ${bare.pagesPerSec | 0}\n`);
  }
  const s = summariseScale(points);
  const command = `npx tsx scripts/bench-scale.ts --corpus ${a.corpus} --pages ${budgets.join(',')} --concurrency ${concurrency} --bare-runs ${bareRuns}`;
  if (a.markdown) {
    process.stdout.write(`${renderScale(s)}\n\n(${server.label}; ${command})\n`);
  } else {
    const r = (x: number) => +x.toFixed(2);
    process.stdout.write(`${JSON.stringify({
      command, server: server.label,
      points: s.points.map((p) => ({ ...p, crawlPagesPerS: r(p.crawlPagesPerS), barePagesPerS: r(p.barePagesPerS), cpuMsPerPage: r(p.cpuMsPerPage), bareCpuMsPerPage: r(p.bareCpuMsPerPage), cpuToBareLoop: r(p.cpuMsPerPage / p.bareCpuMsPerPage), peakRssMb: r(p.peakRssMb), firstRequestMs: Math.round(p.firstRequestMs) })),
      spread_within: s.bound, crawl_spread: s.crawl, bare_loop_spread: s.bare, ratio_spread: s.ratio,
    }, null, 2)}\n`);
  }
} catch (err) {
  fail((err as Error).message);
} finally {
  await server.stop();
}
