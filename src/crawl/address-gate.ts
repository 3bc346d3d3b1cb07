import type { FetchResult } from '../fetch/fetcher.js';
import { refusedLiteral } from '../fetch/address-policy.js';
import { HostMap } from '../fetch/host-map.js';

/**
 * The crawl loop's address check, before robots.txt or any request (address-policy.ts): a URL whose
 * host is an IP literal in a private or reserved range (`http://10.0.0.1:22/`, `http://[::1]:6379/`)
 * gets a failed fetch result with E_ADDRESS_REFUSED, and no connection is opened, not even for its
 * robots.txt. Hosts mapped by the user (`--resolve`, a corpus) pass, and everything passes when
 * `fetch.allow_private` is on. Names are checked by the fetcher, on what DNS answers.
 */
export type AddressGate = (url: string) => FetchResult | null;

export function createAddressGate(opts: { allowPrivate: boolean; resolve?: Record<string, string> }): AddressGate {
  if (opts.allowPrivate) return () => null;
  const map = new HostMap(opts.resolve);
  return (url) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return null; // the fetcher reports it as E_INVALID_URL
    }
    const port = Number(u.port) || (u.protocol === 'https:' ? 443 : 80);
    if (map.size > 0 && map.lookup(u.hostname, port)) return null;
    const refused = refusedLiteral(u.hostname);
    if (!refused) return null;
    return {
      url, status: 0, headers: {}, body: Buffer.alloc(0), contentType: null, location: null, wireBytes: 0,
      startedAt: Date.now(), elapsedMs: 0, error: { code: 'E_ADDRESS_REFUSED', message: refused.message },
    };
  };
}
