/**
 * Crawl benchmark (issues 2 and 16): the product as users run it, against a bare crawl loop, in one run.
 *
 *   npx tsx scripts/bench-crawl.ts [--corpus corpora/synth] [--topic topics/synth-astronomy.yaml]
 *       [--pages 6000] [--concurrency 16] [--strategy NAME] [--robots] [--bare-runs 3] [--warc] [--set KEY=VALUE ...]
 *
 * 1. The corpus (generated with seed 1 if its folder does not exist) is served by a process of its
 *    own: nginx when /usr/sbin/nginx exists, else topicrawl's corpus server (scripts/bench-server.ts;
 *    BENCH_SERVER=corpus forces the latter). Which one is printed.
 * 2. The crawl is the compiled command (`bin/topicrawl.js crawl TOPIC`, built first with
 *    scripts/build.ts when dist/ is stale) in a child process, with the topic's strategy and
 *    per-host concurrency (the defaults unless --strategy / --set say otherwise), politeness delay 0,
 *    --concurrency requests in flight, robots.txt off (--robots: on), every corpus host mapped to the
 *    server with --resolve and --mapped-only, a fresh crawl file, --json. A preload
 *    (scripts/bench-probe.mjs, through NODE_OPTIONS) counts its SQLite calls and writes its
 *    resource usage at exit (CPU of all its threads, peak RSS); the product is not changed.
 *    Measured: the whole process (spawn to exit), the crawl alone (the server's first request to its
 *    last), the time from spawn to the first request the server receives.
 * 3. The bare loop (scripts/bench-bare-loop.ts: undici + parse5 + links + FIFO + seen-set, no store)
 *    on the same server, same seeds, same number of requests in flight, as many pages as the crawl
 *    fetched; the median of --bare-runs runs.
 *
 * Prints one JSON object: pages/s of the crawl and of the bare loop, their ratio, CPU ms per page,
 * peak RSS, SQLite calls per page, the start-up figures, and the command. A run that fetched no page
 * is an error, not a figure.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { distIsFresh } from '../bin/runtime.js';
import { loadCorpus } from '../src/eval/corpus.js';
import { generateSynthCorpus } from '../src/eval/synth-corpus.js';
import { loadConfig } from '../src/topic/config.js';
import { bareLoop } from './bench-bare-loop.js';
import { startBenchServer } from './bench-server.js';

const root = new URL('../', import.meta.url).pathname;
const { values: a } = parseArgs({
  options: {
    corpus: { type: 'string', default: join(root, 'corpora/synth') },
    topic: { type: 'string', default: join(root, 'topics/synth-astronomy.yaml') },
    pages: { type: 'string', default: '6000' },
    concurrency: { type: 'string', default: '16' },
    strategy: { type: 'string' },
    robots: { type: 'boolean', default: false },
    'bare-runs': { type: 'string', default: '3' },
    warc: { type: 'boolean' },
    set: { type: 'string', multiple: true, default: [] },
  },
});
const concurrency = Number(a.concurrency);
const fail = (msg: string): never => {
  process.stderr.write(`bench-crawl: ${msg}\n`);
  process.exit(1);
};

if (!existsSync(join(a.corpus!, 'corpus.json'))) {
  process.stderr.write(`generating the synthetic corpus in ${a.corpus} (seed 1)…\n`);
  generateSynthCorpus(a.corpus!, { seed: 1 });
}
const corpus = loadCorpus(a.corpus!);
if (!distIsFresh(root)) {
  process.stderr.write('dist/ is not a build of src/ as it is: building (scripts/build.ts)…\n');
  const b = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts/build.ts')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (b.status !== 0 || !distIsFresh(root)) fail('the build failed: the crawl would run from the sources through tsx');
}

const sets = [`politeness.delay_ms=0`, `politeness.concurrency=${concurrency}`, `politeness.robots=${a.robots}`, ...a.set!];
const config = loadConfig(a.topic!, { strategy: a.strategy, maxPages: Number(a.pages), set: sets });
const server = await startBenchServer(a.corpus!);
process.stderr.write(`serving ${corpus.hosts.length} hosts with ${server.label} on 127.0.0.1:${server.port}\n`);
const dir = mkdtempSync(join(tmpdir(), 'bench-crawl-'));
try {
  // 1. the crawl, as a user runs it
  const probe = join(dir, 'probe.jsonl');
  const args = [
    'crawl', resolve(a.topic!), '--db', join(dir, 'bench.db'), '--fresh', '--json', '--mapped-only', '--max-pages', a.pages!,
    ...(a.strategy ? ['--strategy', a.strategy] : []),
    ...sets.flatMap((s) => ['--set', s]),
    ...(a.warc ? ['--warc', join(dir, 'warc')] : []),
    ...corpus.hosts.flatMap((h) => ['--resolve', `${h}=127.0.0.1:${server.port}`]),
  ];
  const env: NodeJS.ProcessEnv = { ...process.env, BENCH_PROBE_OUT: probe, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${join(root, 'scripts/bench-probe.mjs')}`.trim() };
  delete env.TOPICRAWL_FROM_SOURCE;
  await server.window(); // (nothing yet: clears the window)
  const t0 = Date.now();
  const p0 = performance.now();
  // bin/topicrawl.js itself, so that its #! line's node flags apply as they do for a user
  const child = spawn(join(root, 'bin/topicrawl.js'), args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout!.on('data', (d) => (stdout += d));
  const code = await new Promise<number | null>((ok) => child.on('close', (c) => ok(c)));
  const processS = (performance.now() - p0) / 1000;
  if (code !== 0) fail(`the crawl exited ${code}: ${stdout.trim().split('\n').pop() ?? ''}`);
  const summary = JSON.parse(stdout) as { fetched: number; elapsedMs: number; strategy: string };
  const served = await server.window();
  if (summary.fetched === 0 || served.count === 0) fail('the crawl fetched no page: no figure');
  const lines = readFileSync(probe, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { thread: string; sqlite: Record<string, number>; usage?: NodeJS.ResourceUsage });
  const main = lines.find((l) => l.thread === 'main');
  if (!main?.usage) fail('the probe wrote no resource usage from the main thread');
  const sqlite: Record<string, number> = {};
  for (const l of lines) for (const [k, v] of Object.entries(l.sqlite)) sqlite[k] = (sqlite[k] ?? 0) + v;
  const sqliteCalls = Object.values(sqlite).reduce((s, v) => s + v, 0);
  const cpuMs = (main!.usage!.userCPUTime + main!.usage!.systemCPUTime) / 1000;
  const crawlS = (served.last - served.first) / 1000;
  const crawlRate = summary.fetched / crawlS;

  // 2. the bare loop: same server, seeds, requests in flight and page count (median of N runs)
  const bare = [];
  for (let i = 0; i < Number(a['bare-runs']); i++) {
    bare.push(await bareLoop({ seeds: [...config.seeds], hosts: new Set(corpus.hosts), port: server.port, inFlight: concurrency, maxPages: summary.fetched }));
  }
  await server.window();
  const bareSorted = [...bare].sort((x, y) => x.pagesPerSec - y.pagesPerSec);
  const bareMedian = bareSorted[Math.floor(bareSorted.length / 2)];
  if (bareMedian.pages === 0) fail('the bare loop fetched no page: no figure');

  const out = {
    command: `npx tsx scripts/bench-crawl.ts --pages ${a.pages} --concurrency ${concurrency}${a.strategy ? ` --strategy ${a.strategy}` : ''}${a.robots ? ' --robots' : ''}${a.warc ? ' --warc' : ''}${a.set!.map((x) => ` --set ${x}`).join('')}`,
    crawl_command: `bin/topicrawl.js ${args.slice(0, args.indexOf('--resolve')).join(' ')} --resolve HOST=127.0.0.1:${server.port} (×${corpus.hosts.length})`,
    server: server.label,
    topic: config.name,
    strategy: summary.strategy,
    in_flight: config.politeness.concurrency,
    per_host_concurrency: config.politeness.per_host_concurrency,
    robots: config.politeness.robots,
    pages: summary.fetched,
    requests_served: served.count,
    end_to_end_pages_per_s: +crawlRate.toFixed(0),
    crawl_s: +crawlS.toFixed(2),
    process_s: +processS.toFixed(2),
    process_pages_per_s: +(summary.fetched / processS).toFixed(0),
    first_request_ms: Math.round(served.first - t0),
    after_last_request_ms: Math.round(t0 + processS * 1000 - served.last),
    bare_loop_pages_per_s: +bareMedian.pagesPerSec.toFixed(0),
    bare_loop_runs: bare.map((b) => +b.pagesPerSec.toFixed(0)),
    bare_loop_pages: bareMedian.pages,
    ratio_to_bare_loop: +(crawlRate / bareMedian.pagesPerSec).toFixed(2),
    cpu_s: +(cpuMs / 1000).toFixed(2),
    cpu_ms_per_page: +(cpuMs / summary.fetched).toFixed(2),
    peak_rss_mb: +(main!.usage!.maxRSS / 1024).toFixed(0),
    sqlite_calls: sqliteCalls,
    sqlite_calls_per_page: +(sqliteCalls / summary.fetched).toFixed(1),
    sqlite_calls_by_method: sqlite,
  };
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
