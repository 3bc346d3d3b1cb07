import type { HostStates } from '../frontier/frontier.js';
import type { StopReason } from '../events.js';

/**
 * What `/status.json` of `crawl --metrics-port` answers (the live page polls it): one crawl
 * process's figures now. Counts marked "crawl" are the crawl file's (earlier runs on it included,
 * as in the summary: the crawl's latest progress snapshot, about once a second, plus this process's
 * pages since); those marked "run" are this process's since it started. Times are ms since
 * the epoch. Contract: every field is always present (null where unknown yet); lists are bounded.
 */
export interface StatusJson {
  topic: string;
  strategy: string;
  /** The worker's label in a shared crawl (`--workers`: 1…N; a worker of its own: its name), else null. */
  worker: string | null;
  /** `starting` until the crawl's start event, `running`, then `ended` (see `reason`). */
  state: 'starting' | 'running' | 'ended';
  reason: StopReason | null;
  startedAt: number;
  /** When this answer was made. */
  now: number;
  /** Since this process started serving (ms). */
  elapsedMs: number;
  /** Crawl: pages with a recorded outcome (failed ones included), as the summary's `fetched`. */
  pages: number;
  /** Run: pages recorded by this process. */
  pagesThisRun: number;
  /** Run: pages per second over the last 10 s. */
  pagesPerSec: number;
  /** Run: pages per second since the crawl started (the summary's figure). */
  pagesPerSecAvg: number;
  /** Crawl: pages at or above the relevance threshold, and their share of `pages` (estimated harvest). */
  relevant: number;
  harvest: number;
  /** Crawl: outcomes with an error code (and hosts whose robots.txt could not be fetched). */
  errors: number;
  /** Crawl: body bytes fetched. */
  bytes: number;
  /** URLs queued (the shared frontier's, for a worker), and pruned by Fish life. */
  frontier: number;
  pruned: number;
  /** New URLs per page over the last 100 pages. */
  discoveryRate: number;
  /** Hosts by scheduling state (Frontier.hostStates), null until the frontier is open. */
  hosts: HostStates | null;
  /**
   * Run: the estimated harvest after n pages of this run, `[n, relevant/n]`: n = 1, then every
   * `step` pages (step doubles whenever the curve reaches 400 points), always ending at the latest n.
   */
  harvestCurve: [number, number][];
  /** Run: the hosts with the most pages recorded by this process (at most 10), most first. */
  topHosts: { host: string; pages: number; relevant: number; errors: number }[];
  /** Run: the latest pages at or above the relevance threshold (at most 15), newest first. */
  latestRelevant: { url: string; relevance: number; seq: number; at: number }[];
  /** Run: pages recorded with an error, by kind (the error code; `E_HTTP 404` with its status), most first. */
  errorsByKind: { kind: string; count: number }[];
  /** Run: warnings by code (retries, suspended hosts, `W_*`), most first. */
  warningsByKind: { kind: string; count: number }[];
}
