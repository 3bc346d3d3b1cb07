/**
 * One crawl as a user runs it, for the crawl benchmarks (scripts/bench-crawl.ts, bench-peers.ts):
 * the compiled command (`bin/topicrawl.js crawl TOPIC`, built first with scripts/build.ts when
 * dist/ is stale) in a child process against a {@link BenchServer}, every corpus host mapped to it
 * with --resolve and --mapped-only, a fresh crawl file in a temporary folder, --json.
 *
 * A preload (scripts/bench-probe.mjs, through NODE_OPTIONS) counts the child's SQLite calls and
 * writes its resource usage at exit: CPU of all its threads and peak RSS (getrusage). The product
 * is not changed. Times: the whole process (spawn to exit) and the crawl alone (the server's first
 * request to its last), and spawn to the first request the server received.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { distIsFresh } from '../bin/runtime.cjs';
import type { BenchServer } from './bench-server.js';
import { gcCounts, type IsolateGc } from './gc-trace.js';
import type { PipelineSummary } from '../src/crawl/pipeline-meter.js';

const root = new URL('../', import.meta.url).pathname;

export interface CliCrawlOptions {
  topic: string;
  hosts: string[];
  server: BenchServer;
  maxPages: number;
  strategy?: string;
  /** `--set` values, in order. */
  sets: string[];
  /** Write WARC files too (`--warc` into the temporary folder). */
  warc?: boolean;
  /** Write V8 CPU profiles of the crawl's threads into this folder (node --cpu-prof; the #! line's flags are then not applied). */
  cpuProfDir?: string;
  /** Called with the crawl process's id once it is spawned (scripts/profile-crawl.ts attaches `perf` to it). */
  onSpawn?: (pid: number) => void;
  /**
   * Called, and awaited, once the crawl process has exited with 0, with its working folder (where
   * node's `--perf-prof` writes its jit-PID.dump), before the folder is removed.
   */
  onExit?: (dir: string) => Promise<void> | void;
}

export interface CliCrawlResult {
  /** The command, with the --resolve flags abridged. */
  command: string;
  fetched: number;
  /**
   * The crawl's own harvest rate (its summary's `harvest`: pages at or above the topic's relevance
   * threshold, duplicates and pages in a language out of scope left out, ÷ pages fetched), so that
   * a change of speed is seen with what it did to the crawl's order.
   */
  harvest: number;
  strategy: string;
  /** Requests the server answered during the crawl. */
  served: number;
  /** Spawn to exit. */
  processS: number;
  /** The server's first request to its last. */
  crawlS: number;
  /** Spawn to the first request's arrival. */
  firstRequestMs: number;
  /** The last request's end to the process's exit. */
  afterLastRequestMs: number;
  cpuMs: number;
  /** of cpuMs, the kernel's share (system CPU: syscalls, wakes of other threads and processes) */
  systemCpuMs: number;
  /** context switches of the process: voluntary (it waited) and involuntary (preempted) */
  contextSwitches: { voluntary: number; involuntary: number };
  /** the CPU by kind of thread (bench-probe.mjs cpuByThread; null where /proc is not there) */
  threadsCpuMs: { main: number; node: number; later: number; ended: number } | null;
  peakRssMb: number;
  sqlite: Record<string, number>;
  sqliteCalls: number;
  /** the share of the time since its event loop started that the main thread was busy (event loop utilisation; null: not reported) */
  mainThreadBusy: number | null;
  /** the crawl's own figures of its pipeline (the summary's `pipeline`: pages in flight, empty slots, threads busy) */
  pipeline: PipelineSummary | null;
  /** the most called statements (SQL cut at 90 characters) and their calls */
  sqliteTop: Record<string, number>;
  /** wall ms of the crawl's thread in SQLite calls, in all and for the costliest statements */
  sqliteMs: number;
  sqliteMsTop: Record<string, number>;
  /** with --trace-deopt in BENCH_NODE_FLAGS: V8's deoptimisations in all threads (null otherwise) */
  deopts: DeoptCounts | null;
  /** with --trace-gc-nvp in BENCH_NODE_FLAGS: V8's garbage collections by thread and kind (null otherwise) */
  gc: IsolateGc[] | null;
}

/** Deoptimisations V8 traced, in all and by function and reason, most frequent first. */
export interface DeoptCounts {
  total: number;
  top: Record<string, number>;
}

/**
 * The crawl's --json summary out of its stdout. V8's tracing flags (BENCH_NODE_FLAGS, e.g.
 * --trace-deopt or --trace-opt) print there too, before and after it; the summary is the object
 * that starts with a line holding only `{` and ends with the next line holding only `}`.
 */
export function crawlSummaryJson(stdout: string): unknown {
  try {
    return JSON.parse(stdout);
  } catch {
    const start = stdout.search(/^\{$/m);
    const end = start < 0 ? -1 : stdout.indexOf('\n}', start);
    if (start < 0 || end < 0) throw new Error(`no JSON summary in the crawl's output: ${stdout.trim().split('\n').pop() ?? ''}`);
    return JSON.parse(stdout.slice(start, end + 2));
  }
}

/**
 * V8's deoptimisations in an output of --trace-deopt (`[bailout (kind: …, reason: R): begin.
 * deoptimizing … <JSFunction NAME …`), counted by "NAME: R"; null when there is none. A function
 * deoptimised dozens of times for one reason is a loop of deoptimisation and recompilation worth
 * fixing (it cost 8% of the crawl's CPU once: test/frontier/candidate-shape.test.ts).
 */
export function deoptCounts(stdout: string, top = 12): DeoptCounts | null {
  const by = new Map<string, number>();
  let total = 0;
  for (const m of stdout.matchAll(/^\[bailout \(kind: [^,]*, reason: (.*?)\): begin\. deoptimizing \S+ <JSFunction (\S*)/gm)) {
    const key = `${m[2] === '(sfi' ? '(anonymous)' : m[2]}: ${m[1]}`;
    by.set(key, (by.get(key) ?? 0) + 1);
    total++;
  }
  if (total === 0) return null;
  return { total, top: Object.fromEntries([...by].sort((a, b) => b[1] - a[1]).slice(0, top)) };
}

/** Builds dist/ when it is not a build of src/ as it is (the crawl must not run through tsx). */
export function ensureBuilt(): void {
  if (distIsFresh(root)) return;
  process.stderr.write('dist/ is not a build of src/ as it is: building (scripts/build.ts)…\n');
  const b = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts/build.ts')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (b.status !== 0 || !distIsFresh(root)) throw new Error('the build failed: the crawl would run from the sources through tsx');
}

/** Runs the crawl; throws when it exits non-zero or fetched no page. */
export async function runCliCrawl(o: CliCrawlOptions): Promise<CliCrawlResult> {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'bench-cli-crawl-'));
  try {
    const probe = join(dir, 'probe.jsonl');
    const args = [
      'crawl', resolve(o.topic), '--db', join(dir, 'bench.db'), '--fresh', '--json', '--mapped-only', '--max-pages', String(o.maxPages),
      ...(o.strategy ? ['--strategy', o.strategy] : []),
      ...o.sets.flatMap((s) => ['--set', s]),
      ...(o.warc ? ['--warc', join(dir, 'warc')] : []),
      // BENCH_CRAWL_ARGS: more arguments for the crawl command to try, e.g. "--analysis-threads 2"
      ...(process.env.BENCH_CRAWL_ARGS ?? '').split(' ').filter(Boolean),
      ...o.hosts.flatMap((h) => ['--resolve', `${h}=127.0.0.1:${o.server.port}`]),
    ];
    const env: NodeJS.ProcessEnv = { ...process.env, BENCH_PROBE_OUT: probe, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${join(root, 'scripts/bench-probe.mjs')}`.trim() };
    delete env.TOPICRAWL_FROM_SOURCE;
    await o.server.window(); // clears the window
    const t0 = Date.now();
    const p0 = performance.now();
    // bin/topicrawl.js itself, so that its #! line's node flags apply as they do for a user
    // BENCH_NODE_FLAGS: node flags to try (any V8 flag, unlike NODE_OPTIONS), e.g. "--single-threaded-gc";
    // "--trace-deopt" adds the deoptimisations to the result (deoptCounts)
    const nodeFlags = [...(o.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', resolve(o.cpuProfDir)] : []), ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean)];
    const child = nodeFlags.length > 0
      ? spawn(process.execPath, [...nodeFlags, join(root, 'bin/topicrawl.js'), ...args], { cwd: dir, env, stdio: ['ignore', 'pipe', 'inherit'] })
      : spawn(join(root, 'bin/topicrawl.js'), args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'inherit'] });
    if (child.pid !== undefined) o.onSpawn?.(child.pid);
    let stdout = '';
    child.stdout!.on('data', (d) => (stdout += d));
    const code = await new Promise<number | null>((ok) => child.on('close', (c) => ok(c)));
    const processS = (performance.now() - p0) / 1000;
    if (code !== 0) throw new Error(`the crawl exited ${code}: ${stdout.trim().split('\n').pop() ?? ''}`);
    await o.onExit?.(dir);
    const summary = crawlSummaryJson(stdout) as { fetched: number; harvest: number; strategy: string; pipeline?: PipelineSummary | null };
    const served = await o.server.window();
    if (summary.fetched === 0 || served.count === 0) throw new Error('the crawl fetched no page: no figure');
    const lines = readFileSync(probe, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { thread: string; sqlite: Record<string, number>; sqliteTop?: Record<string, number>; sqliteMs?: number; sqliteMsTop?: Record<string, number>; usage?: NodeJS.ResourceUsage; elu?: { utilization: number }; threadsCpuMs?: { main: number; node: number; later: number; ended: number } | null });
    const mainLine = lines.find((l) => l.thread === 'main');
    const usage = mainLine?.usage;
    if (!usage) throw new Error('the probe wrote no resource usage from the main thread');
    const sqlite: Record<string, number> = {};
    const sqliteTop: Record<string, number> = {};
    const sqliteMsTop: Record<string, number> = {};
    let sqliteMs = 0;
    for (const l of lines) {
      for (const [k, v] of Object.entries(l.sqlite)) sqlite[k] = (sqlite[k] ?? 0) + v;
      for (const [k, v] of Object.entries(l.sqliteTop ?? {})) sqliteTop[k] = (sqliteTop[k] ?? 0) + v;
      for (const [k, v] of Object.entries(l.sqliteMsTop ?? {})) sqliteMsTop[k] = (sqliteMsTop[k] ?? 0) + v;
      sqliteMs += l.sqliteMs ?? 0;
    }
    return {
      command: `bin/topicrawl.js ${args.slice(0, args.indexOf('--resolve')).join(' ')} --resolve HOST=127.0.0.1:${o.server.port} (×${o.hosts.length})`,
      fetched: summary.fetched,
      harvest: summary.harvest,
      strategy: summary.strategy,
      served: served.count,
      processS,
      crawlS: (served.last - served.first) / 1000,
      firstRequestMs: served.first - t0,
      afterLastRequestMs: t0 + processS * 1000 - served.last,
      cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
      systemCpuMs: usage.systemCPUTime / 1000,
      contextSwitches: { voluntary: usage.voluntaryContextSwitches, involuntary: usage.involuntaryContextSwitches },
      threadsCpuMs: mainLine?.threadsCpuMs ?? null,
      peakRssMb: usage.maxRSS / 1024,
      mainThreadBusy: mainLine?.elu?.utilization ?? null,
      pipeline: summary.pipeline ?? null,
      sqlite,
      sqliteCalls: Object.values(sqlite).reduce((s, v) => s + v, 0),
      sqliteTop,
      sqliteMs,
      sqliteMsTop,
      deopts: deoptCounts(stdout),
      gc: gcCounts(stdout),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The topic keys every crawl benchmark sets (issue 16's measurement): no politeness delay,
 * `concurrency` requests in flight, robots.txt off unless `robots`.
 */
export function benchSets(concurrency: number, robots = false): string[] {
  return ['politeness.delay_ms=0', `politeness.concurrency=${concurrency}`, `politeness.robots=${robots}`];
}

/** The options bench-crawl.ts, bench-peers.ts and bench-scale.ts share (parseArgs specs): corpus, topic, page budget, requests in flight. */
export function sharedBenchOptions(root: string) {
  return {
    corpus: { type: 'string', default: `${root}corpora/synth` },
    topic: { type: 'string', default: `${root}topics/synth-astronomy.yaml` },
    pages: { type: 'string', default: '6000' },
    concurrency: { type: 'string', default: '16' },
  } as const;
}
