import { TopicrawlError } from '../errors.js';
import type { Fetcher } from '../fetch/fetcher.js';
import type { PageHook } from '../crawl/crawl-types.js';
import type { CheckOutcome } from '../store/revisit-store.js';
import { readMetaOf } from '../store/url-report.js';
import { buildConfig, type Config } from '../topic/config.js';
import type { TopicInput } from '../topic/topic-schema.js';

/** The options, events and summary of a recrawl (see recrawl.ts), and the configuration it reads. */

/** How a Recrawler reaches its crawl file, the web and the clock; everything but dbPath is optional. */
export interface RecrawlerOptions {
  dbPath: string;
  /** The configuration; default: the one the crawl recorded in the file (meta 'config'). */
  config?: Config;
  /** A fetcher to use instead of undici (tests). */
  fetcher?: Fetcher;
  /** host → address[:port], as for the crawl. */
  resolve?: Record<string, string>;
  mappedOnly?: boolean;
  /** The clock (ms since epoch); default Date.now. */
  now?: () => number;
  /** Waits `ms` on that clock; default a timer that stop() cuts short. A test clock advances itself. */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Recompute the budget level (multiplier μ) every this many checks, or after one check per 1% of
   * the pages in scheduling if that is more (and at the start of each run); default 500.
   */
  budgetEvery?: number;
  /** Per-page outputs (WARC, metrics), as for the crawl: every fetch, and every check once recorded. */
  hooks?: PageHook[];
}

/** One revisit, as an event. */
export interface CheckEvent {
  url: string;
  status: number;
  outcome: CheckOutcome;
  cls: string;
  checks: number;
  changes: number;
  /** λ̂ in changes per day after this check (null before the first). */
  rate: number | null;
  /** When the page is due next (null once deleted). */
  nextAt: number | null;
  newUrls: number;
}

/** Events of a recrawl; library code never prints. */
export interface RecrawlEvents {
  check: [CheckEvent];
  warn: [{ code: string; message: string; url?: string }];
}

/** What one runDue() did: counts of this run's checks by outcome, bytes, and the schedule after it. */
export interface RecrawlSummary {
  db: string;
  /** Pages put into revisit scheduling in this run (fetched since the last run). */
  enrolled: number;
  checked: number;
  changed: number;
  unchanged: number;
  notModified: number;
  deleted: number;
  failed: number;
  /** Due pages robots.txt now disallows (postponed, not fetched). */
  robotsSkipped: number;
  /** Due pages not checked because their host's robots.txt could not be fetched (network error, 429, 5xx): retried soon. */
  robotsUnavailable: number;
  /** Sitemaps read (revisit.sitemap_interval_ms), pages their lastmod brought forward, and of those checked, the ones found changed. */
  sitemapsRead: number;
  sitemapSignals: number;
  sitemapConfirmed: number;
  /** URLs new to the crawl found on changed pages and queued for the next `crawl`. */
  newUrls: number;
  bytesSaved: number;
  wireBytes: number;
  /** Pages in scheduling after the run, and the earliest next due time (null: none). */
  scheduled: number;
  nextDueAt: number | null;
  reason: 'done' | 'signal';
}

/** The configuration recorded in a crawl file by its crawl (E_USAGE when there is none). */
export function storedConfig(dbPath: string): Config {
  const raw = readMetaOf(dbPath, 'config');
  if (!raw) throw new TopicrawlError('E_USAGE', `${dbPath}: no crawl configuration recorded (crawl it first)`);
  return buildConfig(JSON.parse(raw) as TopicInput);
}


/** Adds one check's outcome and bytes to a recrawl's summary. */
export function countCheck(s: RecrawlSummary, outcome: CheckOutcome, wire: number, saved: number, newUrls: number): void {
  s.checked++;
  s.wireBytes += wire;
  s.bytesSaved += saved;
  s.newUrls += newUrls;
  if (outcome === 'changed') s.changed++;
  else if (outcome === 'unchanged') s.unchanged++;
  else if (outcome === 'not_modified') s.notModified++;
  else if (outcome === 'deleted') s.deleted++;
  else s.failed++;
}
