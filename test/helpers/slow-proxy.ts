import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An HTTP server on 127.0.0.1 that forwards every request to another after a delay. */
export interface SlowProxy {
  /** "127.0.0.1:PORT", for a crawl's --resolve */
  address: string;
  close(): Promise<void>;
}

/**
 * Forwards each request to 127.0.0.1:`targetPort` (Host header and all) `delayMs` after it came.
 * For tests that kill a crawl mid-way: a crawl of one request at a time then lasts longer than a
 * commit group whatever the machine's speed, and its order (one request at a time) is unchanged.
 */
export async function startSlowProxy(targetPort: number, delayMs: number): Promise<SlowProxy> {
  const server: Server = createServer((req, res) => {
    setTimeout(() => {
      const up = request({ host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      req.pipe(up);
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** A crawl's `--resolve` arguments for a corpus server's hosts (its resolveMap), each mapped to `to` when given. */
export function resolveArgs(map: Record<string, string>, to?: string): string[] {
  return Object.entries(map).flatMap(([h, a]) => ['--resolve', `${h}=${to ?? a}`]);
}
