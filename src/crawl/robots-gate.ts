import type { RobotsCache } from '../fetch/robots.js';
import type { Frontier, FrontierItem } from '../frontier/frontier.js';
import { UrlState } from '../store/schema.js';
import type { Store } from '../store/store.js';

/**
 * robots.txt before every fetch (RFC 9309): reads the host's rules (cached per host), sets the
 * host's delay to max(topic delay, Crawl-delay) up to a cap, and records a disallowed URL as
 * skipped (E_ROBOTS) without fetching it. Fetching robots.txt is a request to the host too, so the
 * page request waits one delay after it.
 */
export class RobotsGate {
  constructor(
    private readonly robots: RobotsCache,
    private readonly frontier: Frontier,
    private readonly store: Store,
    private readonly politeness: { delayMs: number; maxCrawlDelayMs: number },
  ) {}

  /** True if the URL may be fetched; false when it was recorded as disallowed. */
  async admit(item: FrontierItem): Promise<boolean> {
    let rules = this.robots.cached(item.url);
    const fetchedNow = !rules;
    if (!rules) rules = await this.robots.get(item.url);
    const delay = Math.max(this.politeness.delayMs, Math.min(rules.crawlDelayMs ?? 0, this.politeness.maxCrawlDelayMs));
    this.frontier.setHostDelay(item.hostId, delay);
    if (fetchedNow) this.store.setHostRobots(item.hostId, rules.status, rules.crawlDelayMs);
    if (!rules.isAllowed(item.url)) {
      this.store.recordOutcome({
        urlId: item.id, state: UrlState.SKIPPED, status: 0, error: 'E_ROBOTS', relevance: null, relevant: null,
        contentHash: null, fetchedAt: Date.now(), fetchSeq: null, fetchPriority: item.priority, note: `robots.txt (${rules.status})`,
      });
      return false;
    }
    if (fetchedNow && delay > 0) await new Promise((r) => setTimeout(r, delay));
    return true;
  }
}
