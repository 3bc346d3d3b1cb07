import type { LookupAddress, LookupOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';
import type { CachingLookup } from './dns-cache.js';
import { ipVersion } from '../url/ip-literal.js';

/**
 * Which addresses a crawl may connect to. Only globally routable unicast addresses are allowed by
 * default; private (10/8, 172.16/12, 192.168/16), loopback, link-local, unique-local (fc00::/7),
 * carrier-grade NAT, unspecified, multicast, broadcast and reserved ranges are refused, so a page
 * cannot point the crawler at the machine's own network. Refused before any connection is opened:
 * an IP-literal host by its address ({@link refusedLiteral}), a name by what DNS answers
 * ({@link publicOnlyLookup}); and checked again on the address the socket actually connected to
 * (host-map.ts), so DNS rebinding cannot get round it. Hosts the user mapped (`--resolve`, a corpus)
 * are exempt, as is everything when `fetch.allow_private` is on.
 */
export function isRefusedAddress(address: string | undefined): boolean {
  if (!address || !ipaddr.isValid(address)) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() !== 'unicast';
}

/** The error code the fetch layer maps to E_ADDRESS_REFUSED (fetch-errors.ts). */
export const ADDRESS_REFUSED = 'E_ADDRESS_REFUSED';

function refusal(message: string): Error {
  return Object.assign(new Error(message), { code: ADDRESS_REFUSED });
}

/**
 * The refusal of a URL host that is an IP literal in a refused range ("10.0.0.1", "[::1]"), or null
 * for names and public addresses. `hostname` may carry IPv6 brackets.
 */
export function refusedLiteral(hostname: string): Error | null {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (!ipVersion(host) || !isRefusedAddress(host)) return null;
  return refusal(`${host} is a private or reserved address: refused without connecting (fetch.allow_private, or --resolve, allows it)`);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
type LookupFn = (hostname: string, options: LookupOptions | number | LookupCallback, callback?: LookupCallback) => void;

/**
 * A lookup (for net/tls connect) that drops private and reserved answers of `inner`; when nothing is
 * left it fails with E_ADDRESS_REFUSED, so no connection is opened to them.
 */
export function publicOnlyLookup(inner: CachingLookup | LookupFn): LookupFn {
  return (hostname, options, callback) => {
    const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
    const o: LookupOptions = typeof options === 'object' ? options : typeof options === 'number' ? { family: options } : {};
    inner(hostname, { ...o, all: true }, (err, addresses) => {
      if (err) return cb(err, o.all ? [] : '', 0);
      const all = addresses as LookupAddress[];
      const ok = all.filter((a) => !isRefusedAddress(a.address));
      if (ok.length === 0) {
        const list = all.map((a) => a.address).join(', ');
        return cb(refusal(`${hostname} resolves only to private or reserved addresses (${list}): refused without connecting`) as NodeJS.ErrnoException, o.all ? [] : '', 0);
      }
      if (o.all) cb(null, ok);
      else cb(null, ok[0].address, ok[0].family);
    });
  };
}
