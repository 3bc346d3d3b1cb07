/**
 * Crawl benchmark (issues 2 and 16): the product as users run it, against a bare crawl loop, in one run.
 *
 *   npx tsx scripts/bench-crawl.ts [--corpus corpora/synth] [--topic topics/synth-astronomy.yaml]
 *       [--pages 6000] [--concurrency 16] [--strategy NAME] [--robots] [--bare-runs 3] [--bare-per-host-runs 1] [--bare-in-process] [--warc]
 *       [--cpu-prof DIR] [--set KEY=VALUE ...]
 *
 * 1. The corpus (generated with seed 1 if its folder does not exist) is served by a process of its
 *    own: nginx when /usr/sbin/nginx exists, else topicrawl's corpus server (scripts/bench-server.ts;
 *    BENCH_SERVER=corpus forces the latter). Which one is printed.
 * 2. The crawl is the compiled command in a child process (scripts/bench-cli-crawl.ts: CPU, peak
 *    RSS and SQLite calls from a preload, the product unchanged), with the topic's strategy and
 *    per-host concurrency (the defaults unless --strategy / --set say otherwise), politeness delay 0,
 *    --concurrency requests in flight, robots.txt off (--robots: on). Measured: the whole process
 *    (spawn to exit), the crawl alone (the server's first request to its last), the time from spawn
 *    to the first request the server receives.
 * 3. The bare loop (scripts/bench-bare-loop.ts: undici + parse5 + links + FIFO + seen-set, no store)
 *    on the same server, same seeds, same number of requests in flight, as many pages as the crawl
 *    fetched; the median of --bare-runs runs, each in a fresh node process as cold as the crawl's
 *    (--bare-in-process: in this one, as until 2026-12-05: the runs after the first get code V8 has
 *    already optimised: 1.2-1.8 times faster at 6,000 pages than cold loops in the same minutes).
 *    Its requests share one pool of connections whatever their host (the loopback server serves
 *    them all): the yardstick of `ratio_to_bare_loop`, as the issue set it. Then the median of
 *    --bare-per-host-runs (default 1; 0: none) of the same loop with a connection per host, as a
 *    crawler must keep them on the web and the crawl does: `bare_loop_per_host`,
 *    `ratio_to_bare_loop_per_host`.
 *
 * Prints one JSON object: pages/s of the crawl and of the bare loop, their ratio, CPU ms per page
 * of each (the crawl's whole process; the bare loop's process while it ran, V8's helper threads
 * included) and theirs, peak RSS, SQLite calls per page, the start-up figures, and the command;
 * `cpu_bound`: what a request cost the server (its CPU from /proc, Linux), the pages/s each side
 * could reach at its CPU a page if it kept every core busy, and so the most the ratio can be at the
 * crawl's CPU a page (scripts/cpu-bound.ts). A run that fetched no page is an error, not a figure.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCorpus } from '../src/eval/corpus.js';
import { generateSynthCorpus } from '../src/eval/synth-corpus.js';
import { loadConfig } from '../src/topic/config.js';
import { bareLoop, coldBareLoop } from './bench-bare-loop.js';
import { benchSets, runCliCrawl, sharedBenchOptions } from './bench-cli-crawl.js';
import { startBenchServer } from './bench-server.js';
import { cpuBound } from './cpu-bound.js';

const root = new URL('../', import.meta.url).pathname;
const { values: a } = parseArgs({
  options: {
    ...sharedBenchOptions(root),
    strategy: { type: 'string' },
    robots: { type: 'boolean', default: false },
    'bare-runs': { type: 'string', default: '3' },
    'bare-per-host-runs': { type: 'string', default: '1' },
    'bare-in-process': { type: 'boolean', default: false },
    warc: { type: 'boolean' },
    'cpu-prof': { type: 'string' },
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
if (!(Number(a['bare-runs']) >= 1)) fail('--bare-runs must be 1 or more: the ratio needs a bare loop');
const corpus = loadCorpus(a.corpus!);
process.once('SIGINT', () => process.exit(130));

const sets = [...benchSets(concurrency, a.robots), ...a.set!];
const config = loadConfig(a.topic!, { strategy: a.strategy, maxPages: Number(a.pages), set: sets });
const server = await startBenchServer(a.corpus!);
process.stderr.write(`serving ${corpus.hosts.length} hosts with ${server.label} on 127.0.0.1:${server.port}\n`);
try {
  // 1. the crawl, as a user runs it (and the server's CPU around it, for what its requests cost)
  const serverCpu0 = server.cpuMs();
  const c = await runCliCrawl({ topic: a.topic!, hosts: corpus.hosts, server, maxPages: Number(a.pages), strategy: a.strategy, sets, warc: a.warc, cpuProfDir: a['cpu-prof'] });
  const crawlRate = c.fetched / c.crawlS;
  const serverCpu1 = server.cpuMs();

  // 2. the bare loop: same server, seeds, requests in flight and page count (median of N runs)
  const bare = [];
  for (let i = 0; i < Number(a['bare-runs']); i++) {
    bare.push(await (a['bare-in-process'] ? bareLoop : coldBareLoop)({ seeds: [...config.seeds], hosts: new Set(corpus.hosts), port: server.port, inFlight: concurrency, maxPages: c.fetched }));
  }
  const bareServed = (await server.window()).count;
  const serverCpu2 = server.cpuMs();
  const bareSorted = [...bare].sort((x, y) => x.pagesPerSec - y.pagesPerSec);
  const bareMedian = bareSorted[Math.floor(bareSorted.length / 2)];
  if (bareMedian.pages === 0) fail('the bare loop fetched no page: no figure');

  // 3. the bare loop with a connection per host, as a crawler must open them (the crawl does)
  const perHost = [];
  for (let i = 0; i < Number(a['bare-per-host-runs']); i++) {
    perHost.push(await (a['bare-in-process'] ? bareLoop : coldBareLoop)({ seeds: [...config.seeds], hosts: new Set(corpus.hosts), port: server.port, inFlight: concurrency, maxPages: c.fetched, perHostConnections: true }));
  }
  const perHostServed = (await server.window()).count;
  const serverCpu3 = server.cpuMs();
  const perHostMedian = [...perHost].sort((x, y) => x.pagesPerSec - y.pagesPerSec)[Math.floor(perHost.length / 2)];
  if (perHostMedian && perHostMedian.pages === 0) fail('the bare loop with a connection per host fetched no page: no figure');

  const bound = cpuBound({
    cores: availableParallelism(), crawlPages: c.fetched, crawlRate, crawlCpuMs: c.cpuMs, crawlServed: c.served,
    bareRate: bareMedian.pagesPerSec, bareCpuMsPerPage: bareMedian.cpuMs / bareMedian.pages, bareServed,
    serverCrawlMs: serverCpu1 === null || serverCpu0 === null ? null : serverCpu1 - serverCpu0,
    serverBareMs: serverCpu2 === null || serverCpu1 === null ? null : serverCpu2 - serverCpu1,
  });
  const out = {
    command: `npx tsx scripts/bench-crawl.ts --pages ${a.pages} --concurrency ${concurrency}${a.strategy ? ` --strategy ${a.strategy}` : ''}${a.robots ? ' --robots' : ''}${a.warc ? ' --warc' : ''}${a['bare-in-process'] ? ' --bare-in-process' : ''}${a.set!.map((x) => ` --set ${x}`).join('')}`,
    crawl_command: c.command,
    server: server.label,
    topic: config.name,
    strategy: c.strategy,
    in_flight: config.politeness.concurrency,
    per_host_concurrency: config.politeness.per_host_concurrency,
    robots: config.politeness.robots,
    pages: c.fetched,
    harvest: +c.harvest.toFixed(4),
    requests_served: c.served,
    end_to_end_pages_per_s: +crawlRate.toFixed(0),
    crawl_s: +c.crawlS.toFixed(2),
    process_s: +c.processS.toFixed(2),
    process_pages_per_s: +(c.fetched / c.processS).toFixed(0),
    first_request_ms: Math.round(c.firstRequestMs),
    after_last_request_ms: Math.round(c.afterLastRequestMs),
    bare_loop_pages_per_s: +bareMedian.pagesPerSec.toFixed(0),
    bare_loop_runs: bare.map((b) => +b.pagesPerSec.toFixed(0)),
    bare_loop_pages: bareMedian.pages,
    // each bare loop in a fresh process (as cold as the crawl's), or all in this one (--bare-in-process)
    bare_loop_process: a['bare-in-process'] ? 'this one' : 'fresh',
    // the median run's CPU while its loop ran (its start-up left out; the crawl's start-up is ~1% of its CPU at 6,000 pages)
    bare_loop_cpu_ms_per_page: +(bareMedian.cpuMs / bareMedian.pages).toFixed(2),
    ratio_to_bare_loop: +(crawlRate / bareMedian.pagesPerSec).toFixed(2),
    // the same loop with a connection per host (each host a server of its own, as on the web), its
    // server's CPU a request, and the crawl's ratio to it (null with --bare-per-host-runs 0)
    bare_loop_per_host: perHostMedian ? {
      pages_per_s: +perHostMedian.pagesPerSec.toFixed(0),
      runs: perHost.map((b) => +b.pagesPerSec.toFixed(0)),
      cpu_ms_per_page: +(perHostMedian.cpuMs / perHostMedian.pages).toFixed(2),
      server_cpu_ms_per_request: serverCpu3 === null || serverCpu2 === null || perHostServed === 0 ? null : +((serverCpu3 - serverCpu2) / perHostServed).toFixed(3),
    } : null,
    ratio_to_bare_loop_per_host: perHostMedian ? +(crawlRate / perHostMedian.pagesPerSec).toFixed(2) : null,
    cpu_s: +(c.cpuMs / 1000).toFixed(2),
    cpu_ms_per_page: +(c.cpuMs / c.fetched).toFixed(2),
    // what a page costs the machine, against the bare loop: on a machine the crawl keeps busy, its
    // pages/s can reach the bare loop's only as far as its extra threads make up for this factor
    cpu_ms_per_page_to_bare_loop: +(c.cpuMs / c.fetched / (bareMedian.cpuMs / bareMedian.pages)).toFixed(2),
    system_cpu_ms_per_page: +(c.systemCpuMs / c.fetched).toFixed(2),
    context_switches_per_page: +((c.contextSwitches.voluntary + c.contextSwitches.involuntary) / c.fetched).toFixed(1),
    involuntary_switches_per_page: +(c.contextSwitches.involuntary / c.fetched).toFixed(1),
    // CPU a page by thread: the crawl's, node's own (started before the CLI's code: V8's compiler and GC
    // helpers, libuv's pool), others alive at exit, and the threads that ended before exit (page
    // analysis, WAL checkpoints)
    cpu_ms_per_page_by_thread: c.threadsCpuMs && {
      main: +(c.threadsCpuMs.main / c.fetched).toFixed(2),
      node_helpers: +(c.threadsCpuMs.node / c.fetched).toFixed(2),
      later_threads: +(c.threadsCpuMs.later / c.fetched).toFixed(2),
      analysis_and_wal: +(c.threadsCpuMs.ended / c.fetched).toFixed(2),
    },
    peak_rss_mb: +c.peakRssMb.toFixed(0),
    main_thread_busy: c.mainThreadBusy === null ? null : +c.mainThreadBusy.toFixed(2),
    // the crawl's own summary: pages in the pipeline on average (fetching, at analysis), its empty
    // slots by why, and how busy the analysis threads were (crawl_thread_busy counts from the run's
    // start, main_thread_busy from the process's)
    pipeline: c.pipeline && {
      concurrency: c.pipeline.concurrency,
      mean_in_flight: +c.pipeline.meanInFlight.toFixed(2),
      mean_fetching: +c.pipeline.meanFetching.toFixed(2),
      mean_analysing: +c.pipeline.meanAnalysing.toFixed(2),
      empty_slots: {
        best_first_order: +c.pipeline.idleSlots.order.toFixed(2),
        politeness: +c.pipeline.idleSlots.politeness.toFixed(2),
        nothing_to_fetch: +c.pipeline.idleSlots.other.toFixed(2),
      },
      crawl_thread_busy: +c.pipeline.crawlThreadBusy.toFixed(2),
      analysis_threads_busy: c.pipeline.analysisThreadsBusy === null ? null : +c.pipeline.analysisThreadsBusy.toFixed(2),
      // a page at analysis, ms on average: queued for the thread, analysed, back to the crawl's thread
      analysis_ms: c.pipeline.analysisWaits ? {
        queued: +c.pipeline.analysisWaits.queuedMs.toFixed(2),
        analysed: +c.pipeline.analysisWaits.analysingMs.toFixed(2),
        returning: +c.pipeline.analysisWaits.returningMs.toFixed(2),
      } : null,
    },
    // how near the machine's CPU the crawl runs (scripts/cpu-bound.ts), and the most its ratio to the
    // bare loop with a connection per host can be at its CPU a page
    cpu_bound: bound,
    ratio_at_bound_per_host: bound && perHostMedian ? +(bound.pages_per_s_at_bound / perHostMedian.pagesPerSec).toFixed(2) : null,
    sqlite_calls: c.sqliteCalls,
    sqlite_calls_per_page: +(c.sqliteCalls / c.fetched).toFixed(1),
    sqlite_calls_by_method: c.sqlite,
    sqlite_us_per_page: Math.round((c.sqliteMs * 1000) / c.fetched),
    sqlite_us_per_page_by_statement: Object.fromEntries(Object.entries(c.sqliteMsTop).sort((x, y) => y[1] - x[1]).map(([k, v]) => [k, Math.round((v * 1000) / c.fetched)])),
    sqlite_calls_per_page_by_statement: Object.fromEntries(Object.entries(c.sqliteTop).sort((x, y) => y[1] - x[1]).slice(0, 15).map(([k, v]) => [k, +(v / c.fetched).toFixed(2)])),
    // with BENCH_NODE_FLAGS=--trace-deopt: V8's deoptimisations, by function and reason
    ...(c.deopts ? { deopts: c.deopts } : {}),
    // with BENCH_NODE_FLAGS=--trace-gc-nvp: V8's collections by thread (the crawl's first) and kind,
    // and their pauses in µs a page
    ...(c.gc ? { gc: c.gc.map((iso) => ({ ...iso, pause_us_per_page: Math.round((Object.values(iso.by_kind).reduce((t, k) => t + k.pause_ms, 0) * 1000) / c.fetched) })) } : {}),
  };
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
} catch (err) {
  fail((err as Error).message);
} finally {
  await server.stop();
}
