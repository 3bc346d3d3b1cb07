import type { StopReason } from '../events.js';
import type { Fetcher } from '../fetch/fetcher.js';
import type { Strategy } from '../strategy/strategy.js';
import type { Config } from '../topic/config.js';

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
  /** Page-analysis worker threads (0: analyse on the main thread). Default: one per core, 1 to 4. */
  workers?: number;
  /**
   * An ordering strategy instance to use instead of `createStrategy(config.strategy.name, …)`; for
   * evaluation-only strategies outside the registry (`eval`'s oracle and random). Its `name` is
   * recorded as the crawl's strategy. Must be fresh (not used by another crawl).
   */
  strategy?: Strategy;
  /** Start the crawl file over (`crawl --fresh`): deleted once it is known to be a crawl file and locked. */
  fresh?: boolean;
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
}

