import ipaddr from 'ipaddr.js';

/**
 * Which addresses a crawl may connect to. Only globally routable unicast addresses are allowed by
 * default; private (10/8, 172.16/12, 192.168/16), loopback, link-local, unique-local (fc00::/7),
 * carrier-grade NAT, unspecified, multicast, broadcast and reserved ranges are refused, so a page
 * cannot point the crawler at the machine's own network. The check is made on the address the
 * socket actually connected to, after DNS, so DNS rebinding cannot get round it.
 */
export function isRefusedAddress(address: string | undefined): boolean {
  if (!address || !ipaddr.isValid(address)) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() !== 'unicast';
}
