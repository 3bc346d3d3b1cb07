/**
 * The crawl's persistent record. One SQLite file per crawl holds URLs and their state (through the
 * frontier, which shares the connection), responses with compressed raw bodies, links with anchor
 * text, hosts, and metrics over time. Writes for one page happen in one transaction
 * ({@link Store.transaction}), so a crash never leaves a page half-recorded.
 *
 * Every method throws `TopicrawlError('E_STORE')` if the file is unusable; that is fatal.
 */
export interface Store {
  readonly path: string;
  transaction<T>(fn: () => T): T;
  getMeta(key: string): string | undefined;
  setMeta(key: string, value: string): void;
  /** Records the outcome of fetching a URL (any status, or a failure) and marks it done. */
  recordOutcome(o: PageOutcome): void;
  /** Stores a response with its raw body (compressed here). */
  recordResponse(r: ResponseRecord): void;
  /** Stores links from a fetched page (one row per distinct target; anchors of repeats are joined). */
  recordLinks(fromId: number, links: { toId: number; anchor: string }[]): void;
  /** Anchor texts of the recorded links pointing to a URL. */
  anchorsTo(urlId: number): string[];
  /** Id of a fetched page with this content hash, if any. */
  findByContentHash(hash: Buffer): number | undefined;
  /** Host counters. */
  bumpHost(hostId: number, fetched: number, errors: number): void;
  setHostRobots(hostId: number, status: string, crawlDelayMs: number | null): void;
  /** A host given up for the run because its robots.txt could not be fetched: an error of the crawl with no page outcome. */
  recordRobotsUnreachable(hostId: number): void;
  recordMetrics(m: MetricsRow): void;
  /** Counters summed from the tables (cheap enough to call every second). */
  counters(): StoreCounters;
  /** Next fetch sequence number (continues across resumes). */
  nextFetchSeq(): number;
  /**
   * Commits and closes the file. When it returns, nothing of this store touches the file any more
   * (background threads included), the WAL is folded into the file, and the file's lock is free.
   */
  close(): void;
}

export interface PageOutcome {
  urlId: number;
  state: number;
  status: number;
  error: string | null;
  relevance: number | null;
  relevant: boolean | null;
  contentHash: Buffer | null;
  fetchedAt: number;
  /** null for URLs never fetched (robots.txt) */
  fetchSeq: number | null;
  fetchPriority: number;
  note?: string | null;
}

export interface ResponseRecord {
  urlId: number;
  status: number;
  headers: Record<string, string>;
  contentType: string | null;
  charset: string | null;
  title: string | null;
  /** The body already compressed (compressBody); null when there was none. */
  stored: { data: Uint8Array; codec: 'br' | 'identity' } | null;
  /** Size of the body before compression. */
  bodyBytes: number;
  wireBytes: number;
  fetchedAt: number;
  elapsedMs: number;
}

export interface MetricsRow {
  at: number;
  fetched: number;
  queued: number;
  relevant: number;
  errors: number;
  bytes: number;
  known: number;
  pruned: number;
  pagesPerSec: number;
  discoveryRate: number;
}

export interface StoreCounters {
  fetched: number;
  relevant: number;
  errors: number;
  bytes: number;
  known: number;
  queued: number;
  pruned: number;
}
