import { TopicrawlError, type ErrorCode } from '../errors.js';
import type { RobotsCache } from '../fetch/robots.js';
import type { Lease, Settlement } from '../frontier/frontier.js';
import type { Store } from '../store/store.js';
import { OriginOutages } from './origin-outages.js';
import type { RetryPolicy } from './retry-policy.js';
import { crawlAdmission, type RobotsGate } from './robots-gate.js';

/** What the robots.txt step needs of the crawl around it. */
export interface RobotsStepHost {
  warn(w: { code: ErrorCode | string; message: string; url: string }): void;
  /** A host's robots.txt could not be fetched for good: counted as an error of the run. */
  hostError(): void;
  suspendHost(item: Lease, why: string): Promise<void>;
  /** Records the URL as failed with this error (its outcome), as an unexpected error on a page is. */
  recordFailure(item: Lease, err: unknown): Promise<void>;
}

/**
 * The robots.txt step of the page pipeline (RFC 9309), before any fetch of a page: `null` when the
 * URL may be fetched (its host answered), else how to settle its lease without fetching it:
 * - disallowed: recorded as skipped (crawlAdmission), outside the page budget;
 * - robots.txt unavailable (§2.3.1.4: 429, 5xx, network error): the URL goes back to its queue and
 *   the host backs off (retry), then, retries spent, the host is suspended for the run and counted
 *   as an error, unless the host's other origin answers: then only this origin is given up
 *   (origin-outages.ts) and its URLs are recorded as failed (E_ROBOTS_UNREACHABLE) as they come.
 */
export class RobotsStep {
  private readonly origins: OriginOutages;

  constructor(
    private readonly gate: RobotsGate,
    cache: RobotsCache,
    private readonly retry: RetryPolicy,
    private readonly store: Store,
    private readonly host: RobotsStepHost,
  ) {
    this.origins = new OriginOutages(gate, cache);
  }

  /** `reached`: called when the URL's host answered (its robots.txt was read). */
  async admit(item: Lease, reached: () => void): Promise<Settlement | null> {
    const gaveUp = this.origins.why(item.url);
    if (gaveUp) return this.givenUp(item, gaveUp);
    const a = await crawlAdmission(this.gate, this.retry, this.store, item);
    if (a.kind === 'retry') {
      this.host.warn({ code: a.code, message: a.message, url: item.url });
      return { state: 'requeue', counted: false, deferUntil: a.deferUntil };
    }
    if (a.kind === 'suspend') {
      if (await this.origins.giveUp(item, a.why)) {
        this.host.warn({ code: 'E_ROBOTS_UNREACHABLE', message: `${new URL(item.url).origin} given up for this run because ${a.why}; the host's other origin answered`, url: item.url });
        return this.givenUp(item, a.why);
      }
      this.host.hostError();
      await this.store.recordRobotsUnreachable({ id: item.hostId, name: item.host }); // in the file too: `stats` counts it as the summary does
      await this.host.suspendHost(item, a.why);
      return { state: 'requeue', counted: false, deferUntil: a.deferUntil };
    }
    reached(); // its robots.txt answered
    if (a.kind === 'skipped') return { state: 'done', counted: false };
    return null;
  }

  /** A URL of an origin given up on: recorded as failed, outside the page budget. */
  private async givenUp(item: Lease, why: string): Promise<Settlement> {
    await this.host.recordFailure(item, new TopicrawlError('E_ROBOTS_UNREACHABLE', `not fetched: ${why}`));
    return { state: 'done', counted: false };
  }
}
