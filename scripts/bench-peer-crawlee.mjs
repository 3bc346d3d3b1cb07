// Crawlee's side of scripts/bench-peers.ts: a CheerioCrawler following every link within the corpus hosts.
//
//   CRAWLEE_DIR=/tmp/crawlee-bench node scripts/bench-peer-crawlee.mjs PROXY_URL PAGES IN_FLIGHT SEED,... HOST,...
//
// Crawlee is loaded from CRAWLEE_DIR (an `npm install crawlee` in a temporary folder: it is no
// dependency of topicrawl). Crawlee's defaults except: exactly IN_FLIGHT requests in flight
// (minConcurrency = maxConcurrency, so its autoscaling does not hold back on a loaded machine),
// maxRequestsPerCrawl = PAGES, no session pool, storage in memory only (persistStorage false), log
// level WARNING. Links: enqueueLinks with strategy 'all', kept when their host is a corpus host.
// The hosts are reached through PROXY_URL (the benchmark's nginx serves absolute-form requests by
// their host). Prints the crawler's final statistics as one JSON line.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const [proxyUrl, pages, inFlight, seeds, hostList] = process.argv.slice(2);
const require = createRequire(join(process.env.CRAWLEE_DIR ?? '/tmp/crawlee-bench', 'package.json'));
const { CheerioCrawler, Configuration, ProxyConfiguration, log } = require('crawlee');
log.setLevel(log.LEVELS.WARNING);
const hosts = new Set(hostList.split(','));
let handled = 0;
const crawler = new CheerioCrawler(
  {
    proxyConfiguration: new ProxyConfiguration({ proxyUrls: [proxyUrl] }),
    maxRequestsPerCrawl: Number(pages),
    minConcurrency: Number(inFlight),
    maxConcurrency: Number(inFlight),
    useSessionPool: false,
    async requestHandler({ enqueueLinks }) {
      handled++;
      await enqueueLinks({ strategy: 'all', transformRequestFunction: (r) => (hosts.has(new URL(r.url).hostname) ? r : false) });
    },
    async failedRequestHandler() {},
  },
  new Configuration({ persistStorage: false }),
);
const stats = await crawler.run(seeds.split(','));
process.stdout.write(`${JSON.stringify({ handled, ...stats })}\n`);
