import type { Lease } from './frontier.js';
import { TopicrawlError } from '../errors.js';

/** How long a lease holds unless `leaseMs` says otherwise (ms). */
export const DEFAULT_LEASE_MS = 60_000;

/** How a RedisFrontier schedules; every worker of one crawl must use the same (see registerCrawl). */
export interface RedisFrontierOptions {
  /** The crawl's name: its keys are `tc:{<crawlId>}:…`. Letters, digits, `.`, `_`, `-`. */
  crawlId: string;
  /** Default politeness delay between two requests to one host (ms). */
  delayMs: number;
  /** Leases out per host at once. */
  perHostConcurrency: number;
  /** Pages in all (0 or absent: no limit). */
  maxPages?: number;
  /** Pages per host (0 or absent: no limit). */
  maxPagesPerHost?: number;
  /** How long a lease holds (ms, default {@link DEFAULT_LEASE_MS}): a worker that died loses its URLs after this. */
  leaseMs?: number;
  /** This client's name in the worker registry (default host name:pid:random). */
  workerId?: string;
  /**
   * Awaited before a lease is confirmed done: its page's record must be durable before its lease
   * ends (Store.durable with the lease's URL id), so that a worker killed after a settle has lost
   * nothing; and no later, so that one killed with its page durable has not left it unconfirmed
   * (its lease would expire and give its page back to the budget: the crawl records more than it).
   */
  beforeSettle?: (lease: Lease) => Promise<void>;
}

/** The key prefix of a crawl: the braces are a Cluster hash tag, so all its keys share one slot. */
export function crawlPrefix(crawlId: string): string {
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(crawlId)) {
    throw new TopicrawlError('E_CONFIG', `--crawl-id ${JSON.stringify(crawlId)}: use 1 to 100 letters, digits, '.', '_' or '-'`, { key: 'crawl-id' });
  }
  return `tc:{${crawlId}}:`;
}
