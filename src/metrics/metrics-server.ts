import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { TypedEmitter } from '../events.js';
import type { CrawlMetrics } from './crawl-metrics.js';
import { httpUrl, listenOn } from './http-listen.js';
import { harvestChartSvg } from './live-chart.js';
import { LIVE_PAGE_CSP, renderLivePage } from './live-page.js';

/** Where `crawl --metrics-port` serves, once bound. */
export interface MetricsAddress {
  host: string;
  port: number;
  /** `http://host:port/`: the live page; `${url}metrics` the Prometheus endpoint. */
  url: string;
}

export interface MetricsServerEvents {
  /** The server is bound (port 0: the port the system chose). */
  listening: [MetricsAddress];
}

/**
 * The HTTP server of `crawl --metrics-port` (node:http, no framework), on 127.0.0.1 unless told:
 * - `GET /metrics`: the Prometheus text exposition format (version 0.0.4) of the crawl's registry;
 * - `GET /status.json`: the live status (StatusJson);
 * - `GET /harvest.svg`: the live harvest chart;
 * - `GET /`: the live page, which polls the two above.
 * HEAD too; any other method 405, any other path 404. Nothing is written to the console: the bound
 * address is the `listening` event's (and `address`).
 */
export class MetricsServer extends TypedEmitter<MetricsServerEvents> {
  private readonly server = createServer((req, res) => {
    this.handle(req, res).catch(() => {
      if (!res.headersSent) send(res, req, 500, 'text/plain; charset=utf-8', '500\n');
      else res.destroy();
    });
  });
  private readonly page: string;
  address: MetricsAddress | null = null;
  private closing: Promise<void> | null = null;

  constructor(private readonly metrics: CrawlMetrics) {
    super();
    this.page = renderLivePage(metrics.meta);
    this.server.keepAliveTimeout = 5_000;
  }

  /** Binds `host:port` (0: any free port). A port that cannot be had is E_USAGE naming `--metrics-port`. */
  async listen(host: string, port: number): Promise<MetricsAddress> {
    const addr = await listenOn(this.server, host, port, 'serve metrics', '--metrics-port');
    this.address = { host: addr.address, port: addr.port, url: httpUrl(addr) };
    this.emit('listening', this.address);
    return this.address;
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((ok) => {
      if (!this.server.listening) return ok();
      this.server.close(() => ok());
      this.server.closeAllConnections();
    });
    return this.closing;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, req, 405, 'text/plain; charset=utf-8', '405\n', { allow: 'GET, HEAD' });
    const path = (req.url ?? '/').replace(/[?#].*$/, '');
    switch (path) {
      case '/metrics':
        return send(res, req, 200, this.metrics.registry.contentType, await this.metrics.metrics());
      case '/status.json':
        return send(res, req, 200, 'application/json; charset=utf-8', JSON.stringify(await this.metrics.status()));
      case '/harvest.svg':
        return send(res, req, 200, 'image/svg+xml; charset=utf-8', harvestChartSvg({ harvestCurve: this.metrics.live.harvestCurve(), strategy: this.metrics.meta.strategy }));
      case '/':
        return send(res, req, 200, 'text/html; charset=utf-8', this.page, { 'content-security-policy': LIVE_PAGE_CSP });
      default:
        return send(res, req, 404, 'text/plain; charset=utf-8', '404\n');
    }
  }
}

function send(res: ServerResponse, req: IncomingMessage, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'content-type': type, 'content-length': String(Buffer.byteLength(body)), 'cache-control': 'no-store', 'x-content-type-options': 'nosniff',
    ...headers,
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
