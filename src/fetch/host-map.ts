import type { Socket } from 'node:net';
import { ipVersion } from '../url/ip-literal.js';
import { isRefusedAddress, refusedLiteral } from './address-policy.js';
import type { buildConnector } from 'undici';
import { TopicrawlError } from '../errors.js';

/** Where a mapped host is connected to. `port` null means "the URL's port". */
export interface MappedAddress {
  address: string;
  port: number | null;
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Splits "host", "host:port", "[v6]", "[v6]:port" or a bare IPv6 address. */
function splitHostPort(spec: string): { host: string; port: number | null } {
  const s = spec.trim();
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(s);
  if (bracket) return { host: bracket[1], port: bracket[2] ? Number(bracket[2]) : null };
  const colons = s.split(':').length - 1;
  if (colons === 1) {
    const [host, port] = s.split(':');
    if (!/^\d+$/.test(port)) throw new TopicrawlError('E_CONFIG', `bad port in host mapping "${spec}"`, { spec });
    return { host, port: Number(port) };
  }
  return { host: s, port: null }; // plain name, IPv4, or bare IPv6
}

/**
 * Host → address mapping, like curl's `--resolve`. Keys are "host" or "host:port" (a key with a
 * port only applies to URLs on that port and wins over the plain host key); values are "address" or
 * "address:port" (without a port the URL's port is kept). Host names compare case-insensitively.
 */
export class HostMap {
  private readonly entries = new Map<string, MappedAddress>();

  constructor(mapping: Record<string, string> = {}) {
    for (const [key, value] of Object.entries(mapping)) {
      const k = splitHostPort(key);
      const v = splitHostPort(value);
      if (!k.host || !v.host) throw new TopicrawlError('E_CONFIG', `bad host mapping "${key}" → "${value}"`, { key, value });
      for (const p of [k.port, v.port]) {
        if (p !== null && (p < 1 || p > 65535)) throw new TopicrawlError('E_CONFIG', `bad port in host mapping "${key}" → "${value}"`, { key, value });
      }
      const host = k.host.toLowerCase();
      this.entries.set(k.port === null ? host : `${host}:${k.port}`, { address: v.host, port: v.port });
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /** The mapped address for a host (brackets allowed) and its effective port, or null. */
  lookup(hostname: string, port: number): MappedAddress | null {
    const host = stripBrackets(hostname).toLowerCase();
    return this.entries.get(`${host}:${port}`) ?? this.entries.get(host) ?? null;
  }
}

/** Key under which the remote address of an origin's connections is remembered. */
export function originKey(protocol: string, hostname: string, port: string | number): string {
  const p = Number(port) || (protocol === 'https:' ? 443 : 80);
  return `${protocol}//${stripBrackets(hostname).toLowerCase()}:${p}`;
}

/**
 * Wraps an undici connector so that mapped hosts connect to their mapped address and port (no DNS)
 * while the request URL, Host header and TLS servername stay the original host's.
 * `onConnect` is told the remote address of every new socket, by {@link originKey}.
 */
export function mappedConnector(
  base: buildConnector.connector,
  map: HostMap,
  onConnect?: (key: string, remoteAddress: string, socket: Socket) => void,
  mappedOnly = false,
  /**
   * Refuse unmapped hosts at private, loopback, link-local… addresses (address-policy.ts): an IP literal
   * before connecting, and any host on the address the socket connected to.
   */
  refusePrivate = false,
  /** The connector of unmapped hosts (default `base`): with refusePrivate, one whose DNS lookup drops private answers. */
  unmappedBase: buildConnector.connector = base,
): buildConnector.connector {
  return (opts, callback) => {
    const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
    const hostname = stripBrackets(opts.hostname);
    const mapped = map.size > 0 ? map.lookup(hostname, port) : null;
    if (!mapped && refusePrivate) {
      // a link to http://10.0.0.1:22/ must not even open a connection (a hostile page probing ports)
      const refused = refusedLiteral(hostname);
      if (refused) return void callback(refused, null);
    }
    if (!mapped && mappedOnly) {
      // a crawl of a local corpus must never look a host up in DNS
      const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname} (not in the host map; DNS is off)`), { code: 'ENOTFOUND', hostname });
      callback(err, null);
      return;
    }
    const next: buildConnector.Options = mapped
      ? {
          ...opts,
          hostname: mapped.address,
          port: String(mapped.port ?? port),
          servername: opts.servername ?? (ipVersion(hostname) ? undefined : hostname),
        }
      : opts;
    (mapped ? base : unmappedBase)(next, (err, socket) => {
      if (socket && onConnect && socket.remoteAddress) onConnect(originKey(opts.protocol, hostname, port), socket.remoteAddress, socket);
      if (err) return callback(err, null);
      if (!mapped && refusePrivate && isRefusedAddress(socket!.remoteAddress)) {
        // checked on the address actually connected to: DNS rebinding cannot get round it
        socket!.destroy();
        const refused = Object.assign(new Error(`${hostname} connected to ${socket!.remoteAddress}, a private or reserved address`), { code: 'E_ADDRESS_REFUSED' });
        return callback(refused, null);
      }
      callback(null, socket!);
    });
  };
}
