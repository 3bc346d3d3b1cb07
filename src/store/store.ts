import type { UrlState } from '../frontier/url-state.js';

/**
 * The store door: the crawl's record of what happened. The crawl engine writes through this
 * interface only; reports (`stats`, `export`, `explain`, `eval`) read crawl files through the
 * query functions of `store/`.
 *
 * Contract:
 * - **One unit of work per page.** {@link Store.recordPage} writes a page's outcome, its response
 *   (headers, compressed body), its links and its host's counters together: after a crash the page
 *   is either wholly recorded or not at all (then its lease was never settled and the URL is served
 *   again).
 * - **Durable after the call returns** for pages of a group that was committed. The SQLite store
 *   commits in groups (every second or 1,024 pages, and on close); a crash loses at most the last group.
 * - **Ids are the frontier's.** URL and host ids in records are the ids the frontier gave. A store
 *   that is a segment of a shared crawl (one file per worker) writes the rows of the URLs it records
 *   (the page, its link targets) under those ids, so segments merge by id.
 * - **Resume** reads the file's counters, the hosts' page counts and the history the strategies
 *   replay (crawl-history.ts), which are exactly what was recorded.
 * - A broken store fails with `TopicrawlError('E_STORE')`: fatal for the crawl. A record that fails
 *   part-way leaves nothing of its group (the SQLite store rolls the whole group back, as a crash would).
 */
export interface Store {
  readonly path: string;
  getMeta(key: string): Promise<string | undefined>;
  setMeta(values: Record<string, string>): Promise<void>;
  /** Records one page (see the contract). Returns its fetch sequence number (null: not fetched, e.g. robots.txt). */
  recordPage(rec: PageRecord): Promise<number | null>;
  /**
   * Corrects links of page `fromId` recorded to ids reserved for new URLs that another worker of a
   * shared crawl added first (`from`: the reserved id, never used; `to`: the URL's id).
   */
  relinkTargets(fromId: number, moves: readonly { from: number; to: number }[]): Promise<void>;
  /**
   * Resolves once every record made before the call is durable (its commit group committed); rejects
   * E_STORE if that failed. With `urlId`: once that URL's page record is durable, not waiting for
   * records made after it in a later group (a store that does not know the page waits for all).
   */
  durable(urlId?: number): Promise<void>;
  /** Anchor texts of the recorded links pointing to a URL. */
  anchorsTo(urlId: number): Promise<string[]>;
  /** Id of a fetched page with this content hash, if any. */
  findByContentHash(hash: Buffer): Promise<number | undefined>;
  /**
   * The SimHash fingerprints of the pages recorded so far, in fetch order (the near-duplicate index
   * is rebuilt from them when a crawl starts). A segment of a shared crawl has only its own pages.
   */
  fingerprints(): Promise<{ id: number; simhash: Uint8Array }[]>;
  /** A host's robots.txt as read (status, Crawl-delay). */
  setHostRobots(host: HostRef, status: string, crawlDelayMs: number | null): Promise<void>;
  /** A host given up for the run because its robots.txt could not be fetched: an error of the crawl with no page outcome. */
  recordRobotsUnreachable(host: HostRef): Promise<void>;
  recordMetrics(m: MetricsRow): Promise<void>;
  /** Counters summed from what was recorded (cheap enough to call every second). */
  counters(): Promise<StoreCounters>;
  /**
   * Commits and closes. When it returns, nothing of this store touches the file any more
   * (background threads included), the WAL is folded into the file, and the file's lock is free.
   */
  close(): Promise<void>;
}

export interface HostRef {
  id: number;
  name: string;
}

/** The URL a record is about, as the frontier handed it out. */
export interface RecordedUrl {
  id: number;
  url: string;
  /** The 16-byte URL hash; a segment computes it when absent (the embedded file has the row already). */
  hash?: Buffer;
  host: HostRef;
  depth: number;
  priority: number;
  life: number;
  hops: number;
  parentId: number | null;
  anchor: string | null;
}

/** A link of a recorded page to a URL the frontier knows (`toId`); the rest describes the target for a segment. */
export interface RecordedLink {
  toId: number;
  anchor: string;
  url?: string;
  hash?: Buffer;
  host?: string;
  hostId?: number;
}

/** Everything one page adds to the record (see {@link Store.recordPage}). */
export interface PageRecord {
  url: RecordedUrl;
  /** FETCHED, FAILED or SKIPPED (robots.txt). */
  state: UrlState;
  status: number;
  error: string | null;
  note: string | null;
  relevance: number | null;
  relevant: boolean | null;
  contentHash: Buffer | null;
  /** The page's SimHash (8 bytes), language and the earlier page it duplicates (see PageOutcome); absent: none. */
  simhash?: Uint8Array | null;
  lang?: string | null;
  duplicateOf?: DuplicateOf | null;
  fetchedAt: number;
  /** false: recorded without a fetch sequence number (robots.txt skipped it); default true. */
  fetched?: boolean;
  response: Omit<ResponseRecord, 'urlId'> | null;
  links: RecordedLink[];
  /** Counts for the host's `fetched` and `errors` (none for a page robots.txt skipped). */
  hostCounts: { fetched: number; errors: number } | null;
}

/**
 * The SQLite crawl file's own writer, synchronous (SqliteStore): the door's implementation
 * (CrawlFileStore) and the revisit code that shares its connection use it.
 */
export interface SyncStore {
  readonly path: string;
  transaction<T>(fn: () => T, page?: boolean): T;
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
  /** See {@link Store.fingerprints}. */
  fingerprints(): { id: number; simhash: Uint8Array }[];
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
  state: UrlState;
  status: number;
  error: string | null;
  relevance: number | null;
  relevant: boolean | null;
  contentHash: Buffer | null;
  /** 8 bytes (src/dedup/simhash.ts); null: none (not HTML, too little text, dedup off) */
  simhash?: Uint8Array | null;
  /** ISO 639-1 code; null: not told */
  lang?: string | null;
  /** The earlier page whose content this page duplicates: exactly (distance 0) or within dedup.max_distance. */
  duplicateOf?: DuplicateOf | null;
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

/** The page a page duplicates, and how far apart their SimHashes are (0: the same content). */
export interface DuplicateOf {
  id: number;
  distance: number;
}
