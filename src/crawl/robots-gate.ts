import type { ErrorCode } from '../errors.js';
import type { FetchResult } from '../fetch/fetcher.js';
import type { RobotsCache, RobotsFailure } from '../fetch/robots.js';
import type { Frontier, Lease } from '../frontier/frontier.js';
import type { RetryPolicy } from './retry-policy.js';
import { UrlState } from '../frontier/url-state.js';
import type { Store } from '../store/store.js';
import { recordedUrl } from './page-processor.js';

/**
 * What robots.txt says about one URL now: fetch it; it was disallowed (recorded as skipped); or the
 * host's robots.txt could not be fetched (network error, 429, 5xx): nothing of the host may be
 * fetched for now (RFC 9309 §2.3.1.4). Then nothing is recorded for the URL (it is back in its
 * queue) and the failure is judged like a failed page fetch: `retry` (the host backs off, the
 * robots.txt is fetched again next time) or, retries exhausted or not retryable, `suspend` the host.
 */
export type Admission =
  | { kind: 'fetch' }
  | { kind: 'skipped' }
  | { kind: 'retry'; code: ErrorCode; message: string; deferUntil: number }
  | { kind: 'suspend'; why: string; deferUntil?: number };

/**
 * robots.txt before every fetch (RFC 9309): reads the host's rules (cached per host), sets the
 * host's delay to max(topic delay, Crawl-delay) up to a cap, and records a disallowed URL as
 * skipped (E_ROBOTS) without fetching it. The caller settles the lease as the admission says. Fetching robots.txt is a request to the host too, so the
 * page request waits one delay after it.
 */
export class RobotsGate {
  constructor(
    private readonly robots: RobotsCache,
    private readonly frontier: Frontier,
    private readonly store: Store,
    private readonly politeness: { delayMs: number; maxCrawlDelayMs: number },
    private readonly retry: RetryPolicy,
  ) {}

  async admit(item: Lease): Promise<Admission> {
    let rules = this.robots.cached(item.url);
    const fetchedNow = !rules;
    if (!rules) rules = await this.robots.get(item.url);
    const delay = Math.max(this.politeness.delayMs, Math.min(rules.crawlDelayMs ?? 0, this.politeness.maxCrawlDelayMs));
    if (fetchedNow) {
      await this.frontier.setHostDelay(item.hostId, delay);
      await this.store.setHostRobots({ id: item.hostId, name: item.host }, rules.status, rules.crawlDelayMs);
    }
    // refused by our own address policy, not the host's failure: the page's own request is refused
    // the same way, without connecting, and recorded as its outcome (E_ADDRESS_REFUSED)
    if (rules.failure?.code === 'E_ADDRESS_REFUSED') return { kind: 'fetch' };
    if (rules.failure) return this.unavailable(item, rules.failure);
    if (!rules.isAllowed(item.url)) {
      await this.store.recordPage({
        url: recordedUrl(item), state: UrlState.SKIPPED, status: 0, error: 'E_ROBOTS', relevance: null, relevant: null,
        contentHash: null, fetchedAt: Date.now(), fetched: false, note: `robots.txt (${rules.status})`, response: null, links: [], hostCounts: null,
      });
      return { kind: 'skipped' };
    }
    if (fetchedNow && delay > 0) await new Promise((r) => setTimeout(r, delay));
    return { kind: 'fetch' };
  }

  /** The URL goes back to its queue (the caller settles it so) and its host backs off. */
  private unavailable(item: Lease, f: RobotsFailure): Admission {
    const now = Date.now();
    const d = this.retry.decide(item.id, item.hostId, failureAsFetchResult(item.url, f, now), now);
    this.robots.forget(item.url);
    const deferUntil = d.kind !== 'done' ? d.deferUntil : undefined;
    if (d.kind === 'retry') return { kind: 'retry', code: f.code, message: `retry ${d.attempt} after robots.txt ${f.reason}`, deferUntil: d.deferUntil };
    return { kind: 'suspend', why: `its robots.txt could not be fetched (${f.reason}${d.attempts > 1 ? `, ${d.attempts} attempts` : ''})`, deferUntil };
  }
}

/** A robots.txt failure as the fetch result the retry policy judges (its status, or its network error). */
export function failureAsFetchResult(url: string, f: RobotsFailure, now: number): FetchResult {
  return {
    url, status: f.httpStatus, headers: f.retryAfter ? { 'retry-after': f.retryAfter } : {}, body: Buffer.alloc(0),
    contentType: null, location: null, wireBytes: 0, startedAt: now, elapsedMs: 0,
    ...(f.httpStatus === 0 ? { error: { code: f.code, message: f.reason } } : {}),
  };
}
