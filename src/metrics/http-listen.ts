import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TopicrawlError } from '../errors.js';

/** Why listening failed, in words, by errno. */
const LISTEN_REASONS: Record<string, string> = {
  EADDRINUSE: 'is in use by another program',
  EACCES: 'needs privileges this user lacks (ports below 1024)',
  EADDRNOTAVAIL: 'is on an address this machine does not have',
};

/** Checks a port number given on the command line (`flag` names it): an integer from 0 to 65535, else E_USAGE. */
export function checkPort(port: number, flag: string): void {
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TopicrawlError('E_USAGE', `${flag} ${String(port)}: expected a port number from 0 to 65535 (0: any free port)`, { port });
  }
}

/**
 * Listens on `host` and `port` (0: any free port) and resolves to the address bound. A port that
 * cannot be listened on (in use, privileged, an address this machine lacks) is E_USAGE with one line
 * naming what (`what`: "serve", "serve metrics"), the port and the flag to change (`flag`).
 */
export function listenOn(server: Server, host: string, port: number, what: string, flag: string): Promise<AddressInfo> {
  checkPort(port, flag);
  return new Promise<AddressInfo>((ok, ko) => {
    const failed = (err: NodeJS.ErrnoException) => {
      const reason = LISTEN_REASONS[err.code ?? ''] ?? err.message;
      ko(new TopicrawlError('E_USAGE', `cannot ${what} on ${host} port ${port}: the port ${reason} (${err.code ?? 'error'}); choose another ${flag}, or 0 for any free port`, { port, host, errno: err.code }, { cause: err }));
    };
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      ok(server.address() as AddressInfo);
    });
  });
}

/** `http://host:port/` of an address bound (IPv6 in brackets). */
export function httpUrl(addr: AddressInfo): string {
  return addr.family === 'IPv6' || addr.address.includes(':') ? `http://[${addr.address}]:${addr.port}/` : `http://${addr.address}:${addr.port}/`;
}
