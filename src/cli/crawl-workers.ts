import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { CrawlSummary } from '../crawl/crawler.js';
import { defaultAnalysisThreads } from '../crawl/analyzer-pool.js';
import { ErrorCodes, TopicrawlError, type ErrorCode } from '../errors.js';
import { crawlTotals } from '../store/crawl-report.js';
import { openCrawl } from '../store/segments.js';
import { TypedEmitter, type CrawlEvents, type ProgressSnapshot } from '../events.js';
import { startCorpusServer, type CorpusServer } from '../eval/corpus-server.js';
import { loadCorpus } from '../eval/corpus.js';
import { labelHarvest, type LabelHarvest } from '../eval/label-harvest.js';
import type { Config } from '../topic/config.js';
import type { CrawlArgs, CrawlRun } from './crawl-command.js';
import { fileNameFromTopic } from './default-paths.js';
import { formatSummary } from './format.js';
import { attachProgress, type ProgressStream } from './progress.js';
import type { MetricsAddress } from '../metrics/metrics-server.js';
import { DEFAULT_METRICS_HOST, metricsLine, workerMetricsPort } from './metrics-flags.js';
import { combinePipelines } from '../crawl/pipeline-meter.js';

/** What a worker process sends its parent over IPC (see runCrawl's `workerIpc`). */
export type WorkerMessage = { progress: ProgressSnapshot } | { warn: { code: string; message: string; url?: string } } | { metrics: MetricsAddress };

const BIN = new URL('../../bin/topicrawl.js', import.meta.url).pathname;

/**
 * `crawl --frontier redis://… --workers N`: N worker processes on this machine join the shared
 * crawl, each with its own segment file `<db>/worker-<i>.db`; one progress display for all (pages/s
 * summed, frontier size from Redis). Ctrl-C stops every worker gracefully (their leases in flight
 * are settled or released). A corpus (`--corpus`) is served once, by this process, for all of them.
 */
export async function runCrawlWorkers(args: CrawlArgs, config: Config, out: { log: (s: string) => void }, stderr: ProgressStream): Promise<CrawlRun> {
  const n = args.workers!;
  const dir = args.db ?? fileNameFromTopic(config.name, '-segments', '--db');
  mkdirSync(dir, { recursive: true });
  let server: CorpusServer | null = null;
  const resolve = [...(args.resolve ?? [])];
  if (args.corpus) {
    server = await startCorpusServer(args.corpus);
    for (const [h, a] of Object.entries(server.resolveMap())) resolve.push(`${h}=${a}`);
  }
  const common = [
    '--frontier', args.frontier!, '--crawl-id', args.crawlId!, '--json', '--worker-ipc',
    ...(args.leaseMs !== undefined ? ['--lease-ms', String(args.leaseMs)] : []),
    ...(args.strategy ? ['--strategy', args.strategy] : []),
    ...(args.maxPages !== undefined ? ['--max-pages', String(args.maxPages)] : []),
    ...(args.fresh ? ['--fresh'] : []),
    ...(args.set ?? []).flatMap((s) => ['--set', s]),
    ...resolve.flatMap((r) => ['--resolve', r]),
    ...(args.corpus || args.mappedOnly ? ['--mapped-only'] : []),
    // each worker writes its own WARC files into the one folder, named by its segment (worker-<i>)
    ...(args.warc ? ['--warc', args.warc] : []),
    ...(args.warcMaxBytes !== undefined ? ['--warc-max-bytes', String(args.warcMaxBytes)] : []),
    // the machine's cores shared among the workers, unless told
    '--analysis-threads', String(args.analysisThreads ?? defaultAnalysisThreads(availableParallelism(), n)),
  ];
  const bus = new TypedEmitter<CrawlEvents>();
  const latest = new Map<number, ProgressSnapshot>();
  const stopProgress = args.json ? () => {} : attachProgress(bus, { maxPages: config.limits.max_pages, tty: Boolean(stderr.isTTY), stream: stderr });
  const children: ChildProcess[] = [];
  /** Where each worker serves its metrics (`--metrics-port`), by worker number. */
  const served = new Map<number, MetricsAddress>();
  let stopping = false;
  const onSignal = () => {
    if (stopping) process.exit(130);
    stopping = true;
    stderr.write('\n[topicrawl] stopping every worker: letting requests in flight finish (Ctrl-C again to quit now)\n');
    for (const c of children) c.kill('SIGINT');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const runs = Array.from({ length: n }, (_, i) => {
      // each worker serves its own metrics, labelled worker="k", on port P+k−1 (any free port for 0)
      const metrics = args.metricsPort === undefined ? [] : [
        '--metrics-port', String(workerMetricsPort(args.metricsPort, i + 1)), '--metrics-host', args.metricsHost ?? DEFAULT_METRICS_HOST, '--metrics-worker', String(i + 1),
      ];
      const child = fork(BIN, ['crawl', args.topic, '--db', join(dir, `worker-${i + 1}.db`), ...common, ...metrics], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
      children.push(child);
      child.on('message', (m: WorkerMessage) => {
        if ('progress' in m) {
          latest.set(i, m.progress);
          bus.emit('progress', sumProgress([...latest.values()]));
        } else if ('metrics' in m) {
          served.set(i + 1, m.metrics);
          stderr.write(`${metricsLine(m.metrics, String(i + 1))}\n`);
        } else bus.emit('warn', m.warn);
      });
      return collect(child, i + 1);
    });
    const results = await Promise.all(runs);
    const failed = results.find((r) => r.code !== 0);
    if (failed) {
      // the worker's own one-line error, with its code (a metrics port in use is E_USAGE, as in one process)
      const line = lastLine(failed.stderr);
      const own = line ? /^(.*) \[(E_[A-Z_]+)\]$/.exec(line) : null;
      const code = own && own[2] in ErrorCodes ? (own[2] as ErrorCode) : failed.code === 2 ? 'E_CONFIG' : 'E_INTERNAL';
      throw new TopicrawlError(code, `worker ${failed.worker}: ${own && own[2] in ErrorCodes ? own[1] : line ?? `exited with code ${failed.code}`}`);
    }
    const summaries = results.map((r) => (JSON.parse(r.stdout) as CrawlSummary));
    const labels = args.corpus && config.evaluation.label ? { of: loadCorpus(args.corpus).labels, label: config.evaluation.label } : null;
    const { summary: merged, truth } = withTotals(combine(summaries, dir), summaries.map((s) => s.db), labels);
    const summary = { ...merged, frontier: (await sharedQueued(args.frontier!, args.crawlId!)) ?? merged.frontier };
    stopProgress();
    if (args.json) out.log(JSON.stringify({ ...summary, labels: truth, workers: summaries }, null, 2));
    else {
      out.log(formatSummary(summary, truth));
      summaries.forEach((s, i) => {
        const m = served.get(i + 1);
        out.log(`  worker ${i + 1}           ${s.fetchedThisRun} pages in this run, ${s.pagesPerSec.toFixed(1)} pages/s (${s.db})${m ? `, metrics at ${m.url}metrics` : ''}`);
      });
    }
    return { summary, truth };
  } finally {
    stopProgress();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await server?.close();
  }
}

function collect(child: ChildProcess, worker: number): Promise<{ worker: number; code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ worker, code, stdout, stderr })));
}

function lastLine(s: string): string | undefined {
  return s.trim().split('\n').filter(Boolean).pop()?.replace(/^topicrawl: /, '');
}

/** The workers' progress as one: counts and rates summed, the frontier (shared) as the latest report of it. */
export function sumProgress(xs: ProgressSnapshot[]): ProgressSnapshot {
  const sum = (k: keyof ProgressSnapshot) => xs.reduce((s, x) => s + (x[k] as number), 0);
  const fetched = sum('fetched');
  const relevant = xs.reduce((s, x) => s + x.harvest * x.fetched, 0);
  return {
    ...xs[xs.length - 1], fetched, pagesPerSec: sum('pagesPerSec'), errors: sum('errors'), bytes: sum('bytes'),
    harvest: fetched ? relevant / fetched : 0, frontier: Math.max(...xs.map((x) => x.frontier)),
  };
}

/**
 * The crawl's figures from its segments merged as `stats` reads them: a page two workers recorded
 * (a lease that expired while its first holder was still at it) counts once. With a corpus's labels,
 * the harvest by them, as a one-process crawl of a corpus reports it.
 */
function withTotals(s: CrawlSummary, segments: string[], labels: { of: Map<string, string[]>; label: string } | null): { summary: CrawlSummary; truth: LabelHarvest | null } {
  const c = openCrawl(segments);
  try {
    const t = crawlTotals(c.db);
    return {
      summary: { ...s, fetched: t.fetched, relevant: t.relevant, harvest: t.harvest, errors: t.errors, bytes: t.bytes, pruned: t.pruned, known: t.known },
      truth: labels ? labelHarvest(c.db, labels.of, labels.label) : null,
    };
  } finally {
    c.close();
  }
}

/**
 * URLs queued in the shared frontier now that every worker has ended (each worker's summary has the
 * size it saw when it ended, before the others had). Null when the server cannot say.
 */
async function sharedQueued(frontier: string, crawlId: string): Promise<number | null> {
  const { RedisConnection } = await import('../frontier/redis-connection.js');
  const { redisCrawlStats } = await import('../frontier/redis-crawl-stats.js');
  const conn = new RedisConnection(frontier);
  try {
    await conn.connect();
    return (await redisCrawlStats(conn, crawlId)).queued;
  } catch {
    return null;
  } finally {
    await conn.close().catch(() => {});
  }
}

/** One summary of the workers' summaries: counts summed, rates summed (the discovery rate weighted by pages), the shared frontier's size as last reported. */
export function combine(xs: CrawlSummary[], dir: string): CrawlSummary {
  const sum = (k: keyof CrawlSummary) => xs.reduce((s, x) => s + (x[k] as number), 0);
  const fetched = sum('fetched');
  const relevant = sum('relevant');
  const reason = xs.some((x) => x.reason === 'signal') ? 'signal' : xs.find((x) => x.reason !== 'done')?.reason ?? 'done';
  return {
    ...xs[0], reason, db: dir, fetched, fetchedThisRun: sum('fetchedThisRun'), relevant, harvest: fetched ? relevant / fetched : 0,
    errors: sum('errors'), bytes: sum('bytes'), frontier: Math.min(...xs.map((x) => x.frontier)), pruned: sum('pruned'),
    known: Math.max(...xs.map((x) => x.known)), elapsedMs: Math.max(...xs.map((x) => x.elapsedMs)), pagesPerSec: sum('pagesPerSec'),
    suspendedHosts: [...new Set(xs.flatMap((x) => x.suspendedHosts))], unreachable: xs.every((x) => x.unreachable),
    analysisThreads: sum('analysisThreads'), pipeline: combinePipelines(xs.map((x) => x.pipeline)),
    // a new crawl when any worker registered it (the others, started beside it, joined it)
    resumed: xs.every((x) => x.resumed),
    // new URLs a page over the workers' pages (a worker that fetched none says nothing of it)
    discoveryRate: sum('fetchedThisRun') > 0 ? xs.reduce((a, x) => a + x.discoveryRate * x.fetchedThisRun, 0) / sum('fetchedThisRun') : xs[0].discoveryRate,
  };
}
