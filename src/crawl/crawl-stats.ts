import type { ProgressSnapshot } from '../events.js';
import type { StoreCounters } from '../store/store.js';
import type { CrawlSummary } from './crawl-types.js';

/**
 * Running counters of a crawl, kept in memory (seeded from the store on resume) so progress and
 * metrics cost nothing per page. The discovery rate is new URLs per fetched page over the last
 * `window` pages.
 */
export class CrawlStats {
  fetched = 0;
  relevant = 0;
  errors = 0;
  bytes = 0;
  pruned = 0;
  known = 0;
  /** pages recorded in this run (not counting earlier runs on the same file) */
  fetchedThisRun = 0;
  private readonly started: number;
  /** discovery rates of completed windows of `flatWindow` pages */
  private readonly windows: number[] = [];
  private windowNew = 0;
  private windowPages = 0;
  private lastFlatWarning = -Infinity;
  private readonly recent: number[] = [];
  private recentSum = 0;

  constructor(base: StoreCounters, private readonly now: () => number, private readonly window = 100) {
    this.fetched = base.fetched;
    this.relevant = base.relevant;
    this.errors = base.errors;
    this.bytes = base.bytes;
    this.pruned = base.pruned;
    this.known = base.known;
    this.started = now();
  }

  page(p: { relevant: boolean; error: boolean; bytes: number; newUrls: number; pruned: number }): void {
    this.fetched++;
    this.fetchedThisRun++;
    if (p.relevant) this.relevant++;
    if (p.error) this.errors++;
    this.bytes += p.bytes;
    this.known += p.newUrls;
    this.pruned += p.pruned;
    this.windowNew += p.newUrls;
    if (++this.windowPages === CrawlStats.flatWindow) {
      this.windows.push(this.windowNew / this.windowPages);
      if (this.windows.length > 3) this.windows.shift();
      this.windowNew = 0;
      this.windowPages = 0;
    }
    this.recent.push(p.newUrls);
    this.recentSum += p.newUrls;
    if (this.recent.length > this.window) this.recentSum -= this.recent.shift()!;
  }

  /** A failure that is not a page's outcome (a host whose robots.txt could not be fetched): an error, no page. */
  hostError(): void {
    this.errors++;
  }

  static readonly flatWindow = 200;

  /**
   * A discovery rate that stays up and flat (≥ 1 new URL per page, three windows of 200 pages
   * within 15% of each other) means the crawl keeps finding as many new URLs as it fetches: the
   * mark of a URL trap (calendars, session ids, faceted navigation). Returns the rate to warn about,
   * at most once per 1,000 pages, else null.
   */
  flatDiscovery(): number | null {
    if (this.windows.length < 3 || this.fetchedThisRun - this.lastFlatWarning < 1000) return null;
    const lo = Math.min(...this.windows);
    const hi = Math.max(...this.windows);
    if (lo < 1 || hi > lo * 1.15) return null;
    this.lastFlatWarning = this.fetchedThisRun;
    return this.windows.reduce((a, b) => a + b, 0) / this.windows.length;
  }

  discoveryRate(): number {
    return this.recent.length ? this.recentSum / this.recent.length : 0;
  }

  snapshot(frontier: number): ProgressSnapshot {
    const elapsedMs = Math.max(1, this.now() - this.started);
    return {
      fetched: this.fetched,
      pagesPerSec: (this.fetchedThisRun * 1000) / elapsedMs,
      frontier,
      relevant: this.relevant,
      harvest: this.fetched ? this.relevant / this.fetched : 0,
      errors: this.errors,
      bytes: this.bytes,
      elapsedMs,
      discoveryRate: this.discoveryRate(),
      pruned: this.pruned,
    };
  }

  /**
   * The end-of-crawl summary: the crawl file's figures (`c`, as `topicrawl stats` reads them: one
   * definition of each) and this run's rates; `about` the rest.
   */
  summary(c: StoreCounters, about: Pick<CrawlSummary, 'reason' | 'db' | 'topic' | 'strategy' | 'resumed' | 'suspendedHosts' | 'unreachable' | 'feedback' | 'analysisThreads' | 'pipeline'>): CrawlSummary {
    const s = this.snapshot(c.queued);
    return {
      reason: about.reason, db: about.db, topic: about.topic, strategy: about.strategy, resumed: about.resumed,
      fetched: c.fetched, fetchedThisRun: this.fetchedThisRun, relevant: c.relevant, harvest: c.fetched ? c.relevant / c.fetched : 0,
      errors: c.errors, bytes: c.bytes, frontier: c.queued, pruned: c.pruned, known: c.known,
      discoveryRate: s.discoveryRate, elapsedMs: s.elapsedMs, pagesPerSec: s.pagesPerSec, suspendedHosts: about.suspendedHosts,
      unreachable: about.unreachable, feedback: about.feedback, analysisThreads: about.analysisThreads, pipeline: about.pipeline,
    };
  }
}
