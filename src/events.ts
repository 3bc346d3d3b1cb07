import { EventEmitter } from 'node:events';
import type { FeedbackRecord } from './crawl/relevance-feedback.js';

/**
 * Events the crawl emits. Library code never writes to the console; the progress display, stats and
 * logs subscribe to these.
 */
export interface CrawlEvents {
  /** A page (or a failed attempt) was recorded. */
  page: [PageEvent];
  /** Periodic snapshot for progress displays (about once per second and at the end). */
  progress: [ProgressSnapshot];
  /** A non-fatal notice worth logging (robots fetch failed, discovery rate flat, …). */
  warn: [{ code: string; message: string; url?: string }];
  /** Crawl started (fresh or resumed). */
  start: [{ resumed: boolean; queued: number; fetched: number }];
  /** Crawl ended. */
  end: [{ reason: StopReason }];
  /** Relevance feedback (`relevance.feedback`) chose the terms it adds to the keywords. */
  feedback: [FeedbackRecord];
}

export type StopReason = 'done' | 'max-pages' | 'max-bytes' | 'signal' | 'error';

export interface PageEvent {
  url: string;
  /** The URL's host (as the frontier keys it). */
  host: string;
  status: number;
  depth: number;
  relevance: number | null;
  relevant: boolean | null;
  priority: number;
  error?: string;
  bytes: number;
  seq: number;
  /** URLs this page added to the frontier (seen for the first time, queued or pruned). */
  newUrls: number;
  /** Set when the page had more links than `limits.max_links_per_page`: the first `kept` of `found` were read. */
  linksCut?: { kept: number; found: number };
  /** The page's language (ISO 639-1), when it could be told. */
  lang?: string;
  /**
   * Set when the page duplicates an earlier one: its URL id and the SimHash distance (0: the same
   * content). Such a page counts in no harvest (`relevant` still says what its content scored).
   */
  duplicateOf?: { id: number; distance: number };
}

export interface ProgressSnapshot {
  fetched: number;
  pagesPerSec: number;
  frontier: number;
  relevant: number;
  harvest: number;
  errors: number;
  bytes: number;
  elapsedMs: number;
  discoveryRate: number;
  pruned: number;
}

export class TypedEmitter<E extends { [K in keyof E]: unknown[] }> {
  private readonly ee = new EventEmitter();
  on<K extends keyof E & string>(event: K, listener: (...args: E[K]) => void): this {
    this.ee.on(event, listener as (...args: unknown[]) => void);
    return this;
  }
  off<K extends keyof E & string>(event: K, listener: (...args: E[K]) => void): this {
    this.ee.off(event, listener as (...args: unknown[]) => void);
    return this;
  }
  emit<K extends keyof E & string>(event: K, ...args: E[K]): boolean {
    return this.ee.emit(event, ...args);
  }
}
