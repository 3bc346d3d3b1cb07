/** How a {@link SqliteFrontier} schedules and how much of its queues it keeps in memory. */
export interface SqliteFrontierOptions {
  /** Default politeness delay between two requests to one host (ms). */
  delayMs: number;
  /** Requests in flight per host. */
  perHostConcurrency: number;
  /**
   * Requests in flight in all (the crawl's limit). When given, next() keeps best-first order across
   * them: it holds back a URL that this many better URLs outrank (see `SqliteFrontier.next`).
   * Default: no such limit, the best URL of a host that may be contacted is always handed out.
   */
  concurrency?: number;
  /** Best queued URLs of a host kept in memory (default 4): one store query per this many hand-outs. */
  candidatesPerHost?: number;
  /** Page cache of the on-disk queues, in MB (default 32); the rest of the queues stay on disk. */
  queueCacheMb?: number;
  /** Queue entries buffered in memory before they are written to disk as runs (default 1,048,576). */
  runBuffer?: number;
  /** Rows of known URLs kept in memory (default ROW_CACHE_ROWS, url-row-cache.ts). */
  rowCache?: number;
}
