import type { ProgressSnapshot } from '../events.js';
import type { StoreCounters } from '../store/store.js';

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
    this.recent.push(p.newUrls);
    this.recentSum += p.newUrls;
    if (this.recent.length > this.window) this.recentSum -= this.recent.shift()!;
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
}
