import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Crawler, type CrawlSummary } from '../crawl/crawler.js';
import { MAX_ANALYSIS_THREADS } from '../crawl/analyzer-pool.js';
import { TopicrawlError } from '../errors.js';
// what only some crawls use is imported when used (--corpus, --frontier, --warc): a plain crawl's first
// request waits for none of it (ioredis, warcio, the corpus server)
import type { Corpus } from '../eval/corpus.js';
import type { CorpusServer } from '../eval/corpus-server.js';
import type { LabelHarvest } from '../eval/label-harvest.js';
import { openDatabase } from '../store/sqlite-store.js';
import { loadConfig, type ConfigFlags } from '../topic/config.js';
import type { RecrawlSummary } from '../revisit/recrawl.js';
import { fileNameFromTopic } from './default-paths.js';
import { formatSummary } from './format.js';
import { attachProgress, type ProgressStream } from './progress.js';
import type { ProgressSnapshot } from '../events.js';
import type { WorkerMessage } from './crawl-workers.js';
import { checkMetricsFlags, metricsLine, serveMetrics, type MetricsFlags } from './metrics-flags.js';
import type { WarcOutput } from '../warc/warc-output.js';

/** A worker of `--workers` sends its progress and warnings to its parent, which shows them for all. */
function forwardProgress(crawler: Crawler): () => void {
  const send = (m: WorkerMessage) => process.send?.(m);
  const onProgress = (p: ProgressSnapshot) => send({ progress: p });
  const onWarn = (w: { code: string; message: string; url?: string }) => send({ warn: w });
  crawler.on('progress', onProgress);
  crawler.on('warn', onWarn);
  return () => {
    crawler.off('progress', onProgress);
    crawler.off('warn', onWarn);
  };
}

export interface CrawlArgs extends ConfigFlags, MetricsFlags {
  topic: string;
  db?: string;
  resolve?: string[];
  corpus?: string;
  json?: boolean;
  fresh?: boolean;
  /** After the crawl, revisit the pages that are due (`topicrawl recrawl` on the same file). */
  revisit?: boolean;
  /** A shared frontier (`redis://host:port/db`): this process is a worker of crawl `crawlId`, its --db a segment. */
  frontier?: string;
  crawlId?: string;
  leaseMs?: number;
  /** Start this many worker processes on this machine (with `frontier`); --db is then their folder. */
  workers?: number;
  /** Report progress to the parent process over IPC instead of a display (a worker of `--workers`). */
  workerIpc?: boolean;
  /** Reach only the hosts in --resolve (a worker of a corpus crawl). */
  mappedOnly?: boolean;
  /** Write every fetch as WARC records (with a CDXJ index) into this folder. */
  warc?: string;
  /** Start a new WARC file once one would pass this size (default 1 GB). */
  warcMaxBytes?: number;
  /** Page-analysis threads of each crawl process (0: on the crawl's thread); default defaultAnalysisThreads(). */
  analysisThreads?: number;
}

/** Parses repeated `--resolve HOST=ADDR[:PORT]` flags. */
export function parseResolve(list: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list ?? []) {
    const m = /^([^=\s]+)=([^=\s]+)$/.exec(item);
    if (!m) throw new TopicrawlError('E_USAGE', `--resolve ${item}: expected HOST=ADDRESS[:PORT], e.g. www.example.com=127.0.0.1:8080`);
    out[m[1].toLowerCase()] = m[2];
  }
  return out;
}

export interface CrawlRun {
  summary: CrawlSummary;
  truth: LabelHarvest | null;
  /** The revisit pass of `--revisit`. */
  revisit?: RecrawlSummary;
}

/**
 * `topicrawl crawl`: loads the configuration (defaults ← topic file ← flags), optionally serves a
 * corpus on loopback and maps its hosts, crawls into the SQLite file, and prints the summary (or
 * JSON). Ctrl-C stops gracefully; a second Ctrl-C exits at once (state is safe either way).
 */
export async function runCrawl(args: CrawlArgs, out: { log: (s: string) => void }, stderr: ProgressStream = process.stderr): Promise<CrawlRun> {
  const config = loadConfig(args.topic, { strategy: args.strategy, maxPages: args.maxPages, set: args.set, sharedFrontier: Boolean(args.frontier || args.workers) });
  if (args.frontier && !args.crawlId) throw new TopicrawlError('E_USAGE', '--frontier needs --crawl-id NAME: the name every worker of the crawl uses');
  if (!args.frontier && (args.crawlId || args.workers || args.leaseMs !== undefined)) throw new TopicrawlError('E_USAGE', '--crawl-id, --workers and --lease-ms go with --frontier redis://HOST:PORT/DB');
  if (args.frontier && args.revisit) throw new TopicrawlError('E_USAGE', '--revisit works on one crawl file, not on a shared crawl');
  if (args.workers !== undefined && (!Number.isInteger(args.workers) || args.workers < 1)) throw new TopicrawlError('E_USAGE', `--workers ${args.workers}: give a whole number of processes, 1 or more`);
  if (args.analysisThreads !== undefined && !(Number.isInteger(args.analysisThreads) && args.analysisThreads >= 0 && args.analysisThreads <= MAX_ANALYSIS_THREADS)) {
    throw new TopicrawlError('E_USAGE', `--analysis-threads ${args.analysisThreads}: give a whole number from 0 (analyse on the crawl's thread) to ${MAX_ANALYSIS_THREADS}`);
  }
  if (args.leaseMs !== undefined && !(args.leaseMs >= 1000)) throw new TopicrawlError('E_USAGE', `--lease-ms ${args.leaseMs}: give at least 1000 (ms)`);
  checkMetricsFlags(args, args.workers);
  if (args.warcMaxBytes !== undefined && !args.warc) throw new TopicrawlError('E_USAGE', '--warc-max-bytes goes with --warc DIR');
  if (args.warc) (await import('../warc/warc-output.js')).checkMaxBytes(args.warcMaxBytes);
  if (args.workers) return (await import('./crawl-workers.js')).runCrawlWorkers(args, config, out, stderr);
  // --fresh: the crawler deletes the file once it holds its lock and knows it is a crawl file
  const dbPath = args.db ?? fileNameFromTopic(config.name, '.db', '--db');
  let corpus: Corpus | null = null;
  let server: CorpusServer | null = null;
  const resolve = parseResolve(args.resolve);
  let crawler: Crawler | null = null;
  const onSignal = () => {
    if (crawler && !stopping) {
      stopping = true;
      stderr.write('\n[topicrawl] stopping: letting requests in flight finish (Ctrl-C again to quit now)\n');
      crawler.stop();
    } else process.exit(130);
  };
  let stopping = false;
  // a worker of its own on a shared crawl is labelled by its name in the frontier (as `stats --frontier` lists it)
  const workerName = args.frontier ? `${hostname()}:${process.pid}` : undefined;
  let served: Awaited<ReturnType<typeof serveMetrics>> = null;
  let warc: WarcOutput | null = null;
  try {
    // first: a metrics port in use fails before anything else starts
    served = await serveMetrics(args, { topic: config.name, strategy: config.strategy.name, worker: args.metricsWorker ?? workerName ?? null }, (a) => {
      if (args.workerIpc && process.send) process.send({ metrics: a } satisfies WorkerMessage);
      else stderr.write(`${metricsLine(a)}\n`);
    });
    if (args.corpus) {
      corpus = (await import('../eval/corpus.js')).loadCorpus(args.corpus);
      server = await (await import('../eval/corpus-server.js')).startCorpusServer(args.corpus);
      for (const [h, a] of Object.entries(server.resolveMap())) resolve[h] ??= a;
    }
    const warcFlags = args.warc ? { dir: args.warc, maxBytes: args.warcMaxBytes } : null;
    // the WARC folder and its first file before the crawl: an unwritable folder is an error now (E_WARC)
    if (warcFlags) warc = await (await import('../warc/warc-output.js')).openCrawlWarc(warcFlags, config, args.crawlId ?? config.name, args.frontier ? basename(dbPath).replace(/\.db$/, '') : '0');
    // a corpus crawl stays on loopback: hosts outside the corpus (and --resolve) are not looked up
    const shared = args.frontier ? { frontier: args.frontier, crawlId: args.crawlId!, leaseMs: args.leaseMs, fresh: args.fresh, worker: workerName } : null;
    crawler = new Crawler({
      config, dbPath, resolve, mappedOnly: Boolean(args.corpus) || Boolean(args.mappedOnly), fresh: args.fresh, workers: args.analysisThreads,
      backend: shared ? async (s) => (await import('../crawl/shared-backend.js')).openSharedBackend(config, dbPath, shared, s) : undefined,
      hooks: [...(warc ? [warc.hook] : []), ...(served ? [served.metrics] : [])],
      ...(served ? { timing: served.metrics } : {}),
    });
    const unwatch = served?.metrics.watch(crawler);
    const address = served?.address;
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    const stopProgress = args.workerIpc && process.send
      ? forwardProgress(crawler)
      : args.json ? () => {} : attachProgress(crawler, { maxPages: config.limits.max_pages, tty: Boolean(stderr.isTTY), stream: stderr });
    let summary: CrawlSummary;
    try {
      summary = await crawler.run();
    } finally {
      stopProgress();
      unwatch?.();
      try {
        await crawler.close();
      } finally {
        await warc?.close();
      }
    }
    let truth: LabelHarvest | null = null;
    if (corpus && config.evaluation.label) {
      const db = openDatabase(dbPath, { readonly: true });
      try {
        truth = (await import('../eval/label-harvest.js')).labelHarvest(db, corpus.labels, config.evaluation.label);
      } finally {
        db.close();
      }
    }
    let revisit: RecrawlSummary | undefined;
    if (args.revisit && !stopping) {
      // the revisit pass on the same file, with the same host map (and corpus server)
      const { Recrawler } = await import('../revisit/recrawl.js');
      const rwarc = warcFlags ? await (await import('../warc/warc-output.js')).openRecrawlWarc(warcFlags, config, dbPath, config.name) : null;
      const rc = new Recrawler({ dbPath, config, resolve, mappedOnly: Boolean(args.corpus) || Boolean(args.mappedOnly), hooks: [...(rwarc ? [rwarc.hook] : []), ...(served ? [served.metrics] : [])] });
      const stopRevisit = () => rc.stop();
      process.on('SIGINT', stopRevisit);
      try {
        revisit = await rc.runDue();
      } finally {
        process.off('SIGINT', stopRevisit);
        try {
          await rc.close();
        } finally {
          await rwarc?.close();
        }
      }
    }
    const metrics = address ? { metrics: address } : {};
    if (args.json) out.log(JSON.stringify({ ...summary, labels: truth, ...(revisit ? { revisit } : {}), ...metrics }, null, 2));
    else {
      out.log(formatSummary(summary, truth));
      if (address) out.log(`  metrics            ${address.url}metrics and ${address.url} (served while the crawl ran)`);
      if (revisit) out.log((await import('./recrawl-command.js')).formatRecrawlSummary(revisit));
    }
    if (summary.unreachable) {
      // after the summary: a crawl that reached none of its hosts is a failure, not "nothing left to fetch"
      const hosts = summary.suspendedHosts.length ? ` (${summary.suspendedHosts.join(', ')})` : '';
      throw new TopicrawlError('E_HOST_SUSPENDED', `no host could be reached${hosts}: check the seeds and the network; run again to retry the queued URLs`);
    }
    return { summary, truth, revisit };
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await warc?.close(); // (closed already after the crawl; here when the crawl never started)
    await server?.close();
    await served?.server.close();
  }
}

/** `npm start`: the main job on the bundled corpus, in a fresh temporary crawl file. */
export async function runDemo(args: { json?: boolean; db?: string; topic?: string; corpus?: string; set?: string[] }, out: { log: (s: string) => void }, stderr: ProgressStream = process.stderr): Promise<CrawlRun> {
  const root = new URL('../../', import.meta.url).pathname;
  const dir = args.db ? null : mkdtempSync(join(tmpdir(), 'topicrawl-demo-'));
  try {
    return await runCrawl(
      {
        topic: args.topic ?? join(root, 'topics/tobacco.yaml'),
        corpus: args.corpus ?? join(root, 'corpora/tobacco-demo'),
        db: args.db ?? join(dir!, 'demo.db'),
        fresh: true,
        json: args.json,
        // a corpus on loopback needs no real politeness delay (keep a small one so the scheduler
        // shows); a budget of half the corpus shows the focus: harvest above the corpus's base rate
        set: ['politeness.delay_ms=20', 'politeness.concurrency=8', 'limits.max_pages=50', ...(args.set ?? [])],
      },
      out,
      stderr,
    );
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}
