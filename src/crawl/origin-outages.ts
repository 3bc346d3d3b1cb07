import type { Lease } from '../frontier/frontier.js';
import type { RobotsCache } from '../fetch/robots.js';
import type { RobotsGate } from './robots-gate.js';

/**
 * Origins given up on in this run because their robots.txt could not be fetched while another origin
 * of the same host name answered (RFC 9309 §2.3.1.4: an unreachable robots.txt means "disallow all"
 * for its origin, and robots.txt rules are per origin: https://h and http://h are two).
 *
 * The frontier queues URLs by host name, so suspending the host for one origin's outage would also
 * stop the other origin's URLs (a site whose https port is closed while http serves it). So when a
 * host's robots.txt is judged unfetchable for good (retries spent), the other scheme's origin
 * (http ↔ https, default port) is asked for its robots.txt through the same gate (its Crawl-delay
 * and status are recorded as for any origin). If it answers, only the failed origin is given up:
 * its URLs are recorded as failed (E_ROBOTS_UNREACHABLE, not counted in the page budget) as they
 * come, and the host goes on with its other URLs. If it does not answer either, the host is
 * suspended as before (its URLs stay queued for a later run).
 *
 * Per process: with a shared frontier each worker finds out for itself.
 */
export class OriginOutages {
  private readonly dead = new Map<string, string>();

  constructor(private readonly gate: RobotsGate, private readonly cache: RobotsCache) {}

  /** Why the origin of `url` was given up on in this run, or undefined if it was not. */
  why(url: string): string | undefined {
    if (this.dead.size === 0) return undefined; // (every page asks: no URL parse while no origin is out)
    const o = originOf(url);
    return o === null ? undefined : this.dead.get(o);
  }

  /**
   * The robots.txt of `item`'s origin could not be fetched (retries spent, `why`). Returns true when
   * the origin alone was given up (the other scheme's origin of the host answered), false when the
   * host should be suspended.
   */
  async giveUp(item: Lease, why: string): Promise<boolean> {
    const origin = originOf(item.url);
    const sibling = siblingOf(item.url);
    if (origin === null || sibling === null) return false;
    if (this.dead.has(sibling)) return false; // both origins are out: the host is
    const probe = `${sibling}/robots.txt`;
    const v = await this.gate.admit({ url: probe, hostId: item.hostId, host: item.host });
    // (a refused address is not an answer either: the gate lets such a URL through to be refused)
    if (v.kind === 'unavailable' || this.cache.cached(probe)?.failure) return false;
    this.dead.set(origin, why);
    return true;
  }
}

function originOf(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}

/** The other scheme's origin of a URL's host (http ↔ https, default port); null if not http(s). */
function siblingOf(url: string): string | null {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return `${u.protocol === 'http:' ? 'https:' : 'http:'}//${u.hostname.includes(':') ? `[${u.hostname.replace(/^\[|\]$/g, '')}]` : u.hostname}`;
  } catch {
    return null;
  }
}
