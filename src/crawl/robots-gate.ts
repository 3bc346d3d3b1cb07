import type { ErrorCode } from '../errors.js';
import type { FetchResult } from '../fetch/fetcher.js';
import type { RobotsCache, RobotsFailure } from '../fetch/robots.js';
import type { Lease } from '../frontier/frontier.js';
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

/** What robots.txt says of a URL, and the host's delay it set (topic delay raised by Crawl-delay). */
export type RobotsVerdict =
  | { kind: 'fetch'; fetchedNow: boolean; delayMs: number }
  | { kind: 'disallowed'; status: string; fetchedNow: boolean; delayMs: number }
  | { kind: 'unavailable'; failure: RobotsFailure; fetchedNow: boolean; delayMs: number };

/** Where the gate sets a host's politeness delay: the frontier, or the revisit schedule. */
export interface HostDelays {
  setHostDelay(hostId: number, delayMs: number): Promise<void>;
}

/**
 * robots.txt before every fetch (RFC 9309), for the crawl and the recrawl alike: reads the host's
 * rules (cached per host), sets the host's delay to max(topic delay, Crawl-delay) up to a cap,
 * records the host's robots.txt status, and says whether the URL may be fetched. Fetching robots.txt
 * is a request to the host too, so a page request that follows waits one delay after it.
 */
export class RobotsGate {
  constructor(
    private readonly robots: RobotsCache,
    private readonly hosts: HostDelays,
    private readonly store: Store,
    private readonly politeness: { delayMs: number; maxCrawlDelayMs: number },
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  async admit(item: { url: string; hostId: number; host: string }): Promise<RobotsVerdict> {
    let rules = this.robots.cached(item.url);
    const fetchedNow = !rules;
    if (!rules) rules = await this.robots.get(item.url);
    const delayMs = Math.max(this.politeness.delayMs, Math.min(rules.crawlDelayMs ?? 0, this.politeness.maxCrawlDelayMs));
    if (fetchedNow) {
      await this.hosts.setHostDelay(item.hostId, delayMs);
      await this.store.setHostRobots({ id: item.hostId, name: item.host }, rules.status, rules.crawlDelayMs);
    }
    // refused by our own address policy, not the host's failure: the page's own request is refused
    // the same way, without connecting, and recorded as its outcome (E_ADDRESS_REFUSED)
    if (rules.failure?.code === 'E_ADDRESS_REFUSED') return { kind: 'fetch', fetchedNow, delayMs };
    if (rules.failure) {
      this.robots.forget(item.url); // fetched again next time
      return { kind: 'unavailable', failure: rules.failure, fetchedNow, delayMs };
    }
    if (!rules.isAllowed(item.url)) return { kind: 'disallowed', status: rules.status, fetchedNow, delayMs };
    if (fetchedNow && delayMs > 0) await this.sleep(delayMs);
    return { kind: 'fetch', fetchedNow, delayMs };
  }
}

/**
 * The crawl's reading of a verdict: a disallowed URL is recorded as skipped (E_ROBOTS) without
 * fetching it; a robots.txt that cannot be fetched (network error, 429, 5xx) is judged like a failed
 * page fetch: `retry` (the URL goes back to its queue, the host backs off) or, retries exhausted or
 * not retryable, `suspend` the host.
 */
export async function crawlAdmission(gate: RobotsGate, retry: RetryPolicy, store: Store, item: Lease): Promise<Admission> {
  const v = await gate.admit(item);
  if (v.kind === 'fetch') return { kind: 'fetch' };
  if (v.kind === 'disallowed') {
    await store.recordPage({
      url: recordedUrl(item), state: UrlState.SKIPPED, status: 0, error: 'E_ROBOTS', relevance: null, relevant: null,
      contentHash: null, fetchedAt: Date.now(), fetched: false, note: `robots.txt (${v.status})`, response: null, links: [], hostCounts: null,
    });
    return { kind: 'skipped' };
  }
  const f = v.failure;
  const now = Date.now();
  const d = retry.decide(item.id, item.hostId, failureAsFetchResult(item.url, f, now), now);
  const deferUntil = d.kind !== 'done' ? d.deferUntil : undefined;
  if (d.kind === 'retry') return { kind: 'retry', code: f.code, message: `retry ${d.attempt} after robots.txt ${f.reason}`, deferUntil: d.deferUntil };
  return { kind: 'suspend', why: `its robots.txt could not be fetched (${f.reason}${d.attempts > 1 ? `, ${d.attempts} attempts` : ''})`, deferUntil };
}

/** A robots.txt failure as the fetch result the retry policy judges (its status, or its network error). */
export function failureAsFetchResult(url: string, f: RobotsFailure, now: number): FetchResult {
  return {
    url, status: f.httpStatus, headers: f.retryAfter ? { 'retry-after': f.retryAfter } : {}, body: Buffer.alloc(0),
    contentType: null, location: null, wireBytes: 0, startedAt: now, elapsedMs: 0,
    ...(f.httpStatus === 0 ? { error: { code: f.code, message: f.reason } } : {}),
  };
}
