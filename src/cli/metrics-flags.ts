import { TopicrawlError } from '../errors.js';
import type { CrawlMetrics } from '../metrics/crawl-metrics.js';
import { checkPort } from '../metrics/http-listen.js';
import type { MetricsAddress, MetricsServer } from '../metrics/metrics-server.js';
import type { StatusMeta } from '../metrics/live-status.js';

/** The flags of `crawl` that serve metrics and the live page (see README: Metrics and the live page). */
export interface MetricsFlags {
  /** Serve `/metrics`, `/status.json` and the live page on this port (0: any free port). */
  metricsPort?: number;
  /** The address to bind (default 127.0.0.1). */
  metricsHost?: string;
  /** The `worker` label (a worker of `--workers`: its number); hidden. */
  metricsWorker?: string;
}

export const DEFAULT_METRICS_HOST = '127.0.0.1';

/** Checks the flags before anything starts; with `workers` N, ports P … P+N−1 must all be ports. */
export function checkMetricsFlags(f: MetricsFlags, workers?: number): void {
  if (f.metricsPort === undefined) {
    if (f.metricsHost !== undefined) throw new TopicrawlError('E_USAGE', '--metrics-host goes with --metrics-port N');
    return;
  }
  checkPort(f.metricsPort, '--metrics-port');
  if (workers && f.metricsPort > 0 && f.metricsPort + workers - 1 > 65535) {
    throw new TopicrawlError('E_USAGE', `--metrics-port ${f.metricsPort} with --workers ${workers}: worker k serves on port ${f.metricsPort}+k−1, over 65535; choose a lower port, or 0 for any free ports`);
  }
  if (f.metricsHost !== undefined && f.metricsHost.trim() === '') throw new TopicrawlError('E_USAGE', '--metrics-host: give an address, e.g. 127.0.0.1, ::1 or 0.0.0.0');
}

/** The port worker `k` (1…N) of `--workers` serves on: P+k−1, or any free port for 0. */
export function workerMetricsPort(port: number, k: number): number {
  return port === 0 ? 0 : port + k - 1;
}

/** The line that tells where metrics are served. */
export function metricsLine(addr: MetricsAddress, worker?: string | null): string {
  return `[topicrawl] ${worker ? `worker ${worker}: ` : ''}metrics at ${addr.url}metrics, live page at ${addr.url}`;
}

/**
 * Starts the metrics of a crawl when `--metrics-port` is given (null otherwise: no metrics, no
 * cost): binds the server first, so a port in use fails before the crawl file is touched.
 * `announce` hears the server's `listening` event (the address bound).
 */
export async function serveMetrics(f: MetricsFlags, meta: StatusMeta, announce: (a: MetricsAddress) => void): Promise<{ metrics: CrawlMetrics; server: MetricsServer; address: MetricsAddress } | null> {
  if (f.metricsPort === undefined) return null;
  // loaded only now: a crawl without --metrics-port does not load prom-client
  const [{ CrawlMetrics }, { MetricsServer }] = await Promise.all([import('../metrics/crawl-metrics.js'), import('../metrics/metrics-server.js')]);
  const metrics = new CrawlMetrics(meta);
  const server = new MetricsServer(metrics);
  server.on('listening', announce);
  const address = await server.listen(f.metricsHost ?? DEFAULT_METRICS_HOST, f.metricsPort);
  return { metrics, server, address };
}
