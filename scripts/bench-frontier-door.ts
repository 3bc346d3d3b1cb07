/**
 * `scripts/bench-frontier.ts --door`: the frontier and store doors as openCrawlState builds them on
 * a crawl file (EmbeddedFrontier on the SqliteFrontier, its writes in the store's transaction;
 * CrawlFileStore), and the benchmark's dequeue loop through them: claim while there is room, then
 * per URL recordPage and settle, as the crawl engine does. Loaded by bench-frontier.ts only with
 * --door, so that its default path runs the same modules as before the doors existed.
 */
import { recordedUrl } from '../src/crawl/page-processor.js';
import { EmbeddedFrontier } from '../src/frontier/embedded-frontier.js';
import type { Lease } from '../src/frontier/frontier.js';
import type { SqliteFrontier } from '../src/frontier/sqlite-frontier.js';
import { CrawlFileStore } from '../src/store/crawl-file-store.js';
import { type SqliteStore, UrlState } from '../src/store/sqlite-store.js';

/** Lets timers run (the store's group commit), as a crawl's event loop does between pages. */
export const yieldToTimers = () => new Promise<void>((resolve) => setImmediate(resolve));

export class DoorBench {
  frontier: EmbeddedFrontier;
  readonly store: CrawlFileStore;
  /** Leases held: claimed, not yet recorded and settled. */
  private readonly leases: Lease[] = [];

  constructor(private readonly file: SqliteStore, local: SqliteFrontier) {
    this.frontier = this.open(local);
    this.store = new CrawlFileStore(file);
  }

  /** The door on a reopened SqliteFrontier. */
  reopen(local: SqliteFrontier): void {
    this.frontier = this.open(local);
  }

  /** As openCrawlState builds it, with an unlimited budget. */
  private open(local: SqliteFrontier): EmbeddedFrontier {
    return new EmbeddedFrontier(local, { maxPages: Infinity, maxPagesPerHost: Infinity, counted: 0, hostCounted: new Map() }, (fn) =>
      this.file.transaction(fn, false),
    );
  }

  /** One page recorded (outcome only: the rows of the default path's recordOutcome) and its lease settled. */
  private async record(lease: Lease, now: number): Promise<void> {
    await this.store.recordPage({
      url: recordedUrl(lease), state: UrlState.FETCHED, status: 200, error: null, note: null, relevance: 0.5, relevant: false,
      contentHash: null, fetchedAt: now, response: null, links: [], hostCounts: null,
    });
    await this.frontier.settle(lease, { state: 'done' }, now);
  }

  /**
   * bench-frontier's dequeue loop through the doors: up to `inFlight` leases held, the oldest
   * recorded and settled when full (or when nothing can be claimed), a `wait` jumping the simulated
   * clock; a yield to the event loop every `batch` dequeues (`afterBatch` then). Runs until
   * `stop(now)` or the frontier is empty; settles what it holds; returns the clock and the count.
   */
  async loop(o: { now: number; stop: (now: number) => boolean; inFlight: number; batch: number; afterBatch: () => void }): Promise<{ now: number; dequeued: number }> {
    let { now } = o;
    let dequeued = 0;
    let done = false;
    while (!done) {
      for (let n = 0; n < o.batch; ) {
        if (o.stop(now)) {
          done = true;
          break;
        }
        const c = await this.frontier.claim(o.inFlight - this.leases.length, now);
        if (c.kind === 'urls') {
          this.leases.push(...c.leases);
          dequeued += c.leases.length;
          n += c.leases.length;
          if (this.leases.length >= o.inFlight) await this.record(this.leases.shift()!, now);
          continue;
        }
        if (this.leases.length > 0) await this.record(this.leases.shift()!, now);
        else if (c.kind === 'wait') now = c.until;
        else {
          done = true;
          break;
        }
      }
      await yieldToTimers();
      o.afterBatch();
    }
    while (this.leases.length > 0) await this.record(this.leases.shift()!, now);
    return { now, dequeued };
  }
}
