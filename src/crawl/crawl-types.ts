import type { PipelineSummary } from './pipeline-meter.js';
import type { FeedbackRecord } from './relevance-feedback.js';
import type { StopReason } from '../events.js';
import type { Fetcher, FetchResult } from '../fetch/fetcher.js';
import type { Frontier } from '../frontier/frontier.js';
import type { CheckEvent } from '../revisit/recrawl-types.js';
import type { Store } from '../store/store.js';
import type { PageEvent } from '../events.js';
import type { Strategy } from '../strategy/strategy.js';
import type { Config } from '../topic/config.js';
import type { StrategyTiming } from './strategy-timing.js';

export interface CrawlerOptions {
  config: Config;
  dbPath: string;
  /** host → address[:port] (like curl --resolve); such hosts never go through DNS. */
  resolve?: Record<string, string>;
  /** Reach only the hosts in `resolve` (a corpus crawl): others fail with E_DNS, never looked up. */
  mappedOnly?: boolean;
  /** For tests: a fetcher to use instead of undici. */
  fetcher?: Fetcher;
  /** Most a robots.txt Crawl-delay may raise a host's delay (ms); default politeness.max_crawl_delay_ms. */
  maxCrawlDelayMs?: number;
  /** How often progress events and metrics rows are emitted (ms). */
  progressEveryMs?: number;
  /** Page-analysis worker threads (0: analyse on the main thread). Default: defaultAnalysisThreads(), one per core beyond the first, 1 to 4. */
  workers?: number;
  /**
   * An ordering strategy instance to use instead of `createStrategy(config.strategy.name, …)`; for
   * evaluation-only strategies outside the registry (`eval`'s oracle and random). Its `name` is
   * recorded as the crawl's strategy. Must be fresh (not used by another crawl).
   */
  strategy?: Strategy;
  /** Start the crawl file over (`crawl --fresh`): deleted once it is known to be a crawl file and locked. */
  fresh?: boolean;
  /**
   * Where the crawl keeps its frontier and record; default the embedded one (openCrawlState on
   * `dbPath`). A shared crawl passes its Redis frontier and its segment store here.
   */
  backend?: (strategy?: Strategy) => Promise<CrawlBackend>;
  /** Per-page outputs (WARC, metrics): called for every fetch and every recorded page, in order. */
  hooks?: PageHook[];
  /** Hears how long the ordering strategy's calls take (metrics); absent: they are not timed. */
  timing?: StrategyTiming;
}

/** The doors a crawl runs on, and how to close them. */
export interface CrawlBackend {
  store: Store;
  frontier: Frontier;
  strategy: Strategy;
  /** The store held a crawl already (a resume, or another worker's start). */
  resumed: boolean;
  /**
   * A shared crawl's start: the worker that created it (`create`) queues the seeds, reads the
   * sitemaps and then calls `done()`; the others (`join`) `wait()` for that. None: embedded.
   */
  start?: { role: 'create' | 'join'; done(): Promise<void>; wait(): Promise<void> };
  /** Closes the frontier (saving what it must) then the store; `pending` is an error already on its way (then failures are dropped). */
  close(pending?: unknown): Promise<void>;
}

/**
 * A per-page output on the crawl pipeline (like an undici interceptor): `fetched` sees every response
 * as it came (before analysis), `recorded` every page once its outcome is in the store. A hook that
 * throws fails that page (recorded as a failure), never the crawl.
 */
export interface PageHook {
  /** The fetcher keeps each exchange as on the wire (`FetchResult.wire`) for this hook (WARC); off by default: it costs memory. */
  wantsWire?: boolean;
  fetched?(item: HookItem, res: FetchResult): void | Promise<void>;
  recorded?(item: HookItem, what: { page: PageEvent; outlinks?: Outlink[] } | { check: CheckEvent }): void | Promise<void>;
}

/** A link found on a page (after normalisation and scope), with its anchor text. */
export interface Outlink {
  url: string;
  anchor: string;
}

/** The URL a hook hears of: a crawl's lease, or a recrawl's due page. */
export interface HookItem {
  id: number;
  url: string;
  host: string;
  hostId: number;
}

export interface CrawlSummary {
  reason: StopReason;
  db: string;
  topic: string;
  strategy: string;
  resumed: boolean;
  fetched: number;
  fetchedThisRun: number;
  relevant: number;
  harvest: number;
  errors: number;
  bytes: number;
  frontier: number;
  pruned: number;
  known: number;
  discoveryRate: number;
  elapsedMs: number;
  pagesPerSec: number;
  /** Hosts suspended in this run after repeated failures (pages, or their robots.txt). */
  suspendedHosts: string[];
  /** URLs were handed out in this run but no host answered (no page, no robots.txt): the seeds could not be reached. */
  unreachable: boolean;
  /** The terms relevance feedback added to the keywords (in this run or an earlier one); null: none (off, or not chosen yet). */
  feedback: FeedbackRecord | null;
  /** Page-analysis threads this run used (0: on the crawl's own thread; `--workers`: all processes' together). */
  analysisThreads: number;
  /** How full the pipeline was in this run, and how busy its threads (pipeline-meter.ts); null: the run did not start. */
  pipeline: PipelineSummary | null;
}

