/** The options of `crawl` that `demo` shares (yargs option specs). */
export const commonCrawl = {
  db: { type: 'string', describe: 'SQLite crawl file (default: <topic name>.db); re-run to resume' },
  strategy: { type: 'string', describe: 'ordering strategy, overrides strategy.name (`topicrawl strategies` lists them)' },
  'max-pages': { type: 'number', describe: 'page budget (limits.max_pages)' },
  set: { type: 'string', array: true, describe: 'override any topic key: --set strategy.x=0.4' },
  resolve: { type: 'string', array: true, describe: 'HOST=ADDR[:PORT]: reach HOST at ADDR, never through DNS' },
  'mapped-only': { type: 'boolean', describe: 'reach only the hosts of --resolve: any other fails (E_DNS) without a DNS lookup' },
  corpus: { type: 'string', describe: 'serve this corpus on loopback, map its hosts, report harvest against its labels' },
  fresh: { type: 'boolean', describe: 'delete the crawl file first instead of resuming' },
  json: { type: 'boolean', describe: 'print the summary as JSON (no progress display)' },
  'analysis-threads': { type: 'number', describe: 'threads that parse and score the pages (0: on the crawl\'s own thread; default one per core beyond the first, 1 to 4)' },
} as const;

/** The WARC options of crawl and recrawl. */
export const warcOptions = {
  warc: { type: 'string', describe: 'write every fetch as WARC/1.1 records (request, response, metadata; gzip per record) with a CDXJ index into this folder' },
  'warc-max-bytes': { type: 'number', describe: 'start a new WARC file once one would pass this many bytes (default 1000000000)' },
} as const;

/** The options of `crawl` that make it a worker of a shared crawl on Redis (see README). */
export const sharedCrawl = {
  frontier: { type: 'string', describe: 'a shared frontier, redis://HOST:PORT/DB: join crawl --crawl-id as a worker (--db is its segment)' },
  'crawl-id': { type: 'string', describe: 'the shared crawl every worker joins (with --frontier)' },
  'lease-ms': { type: 'number', describe: 'how long a worker holds a URL before others may fetch it (default 60000)' },
  workers: { type: 'number', describe: 'start N worker processes on this machine (with --frontier; --db is their folder)' },
  /** A worker of --workers: progress to the parent over IPC. */
  'worker-ipc': { type: 'boolean', hidden: true },
} as const;

/** The options of `crawl` that serve metrics and the live page (see README: Metrics and the live page). */
export const metricsOptions = {
  'metrics-port': { type: 'number', describe: 'serve Prometheus metrics (/metrics) and a live crawl page (/) on this port (0: any free port)' },
  'metrics-host': { type: 'string', describe: 'the address --metrics-port binds (default 127.0.0.1)' },
  /** A worker of --workers: its number, the `worker` label of its metrics. */
  'metrics-worker': { type: 'string', hidden: true },
} as const;
