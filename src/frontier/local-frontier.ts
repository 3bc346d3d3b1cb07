import type { UrlState } from './url-state.js';

/**
 * The embedded frontier's synchronous interface (SqliteFrontier; the async door, {@link Frontier} in
 * frontier.ts, wraps it): every URL the crawl knows, deduplicated by a fixed-length hash of its normalised
 * form, and the queued ones kept in per-host queues ordered by priority (higher first), ties
 * broken first-in first-out by discovery sequence.
 *
 * Contract:
 * - A URL is "seen" from the moment it is added, whatever its state; adding it again is a no-op
 *   (use {@link LocalFrontier.update} to change a queued URL's priority or revive a pruned one).
 * - {@link LocalFrontier.next} never sleeps: it hands out the best URL among hosts that may be
 *   contacted now (politeness delay elapsed, per-host and global concurrency not exceeded),
 *   or says when to ask again, or that nothing is queued. With a global concurrency N, it keeps
 *   best-first order across the requests in flight: it holds back a URL that N better URLs
 *   outrank, counting the requests in flight and the queued URLs of hosts that only their own
 *   requests in flight keep from being contacted (they may be asked again as soon as one ends).
 * - Every URL handed out must be given back with {@link LocalFrontier.release}, after its outcome is
 *   recorded, so that its host can be scheduled again.
 * - State survives in the store: a URL handed out but never recorded is queued again on reopen.
 */
export interface LocalFrontier {
  /** Known URLs among these hashes. */
  lookup(hashes: Buffer[]): Map<string, KnownUrl>;
  /** Adds new URLs (callers checked they are unknown). Returns their ids in order. */
  add(entries: NewUrl[]): number[];
  /** Changes known URLs: priority, life, inlink counters, and QUEUED ⇄ PRUNED revival. */
  update(changes: UrlChange[]): void;
  /** Sets the priority of URLs that are still queued (others are left alone). Returns how many changed. */
  reprioritize(updates: { id: number; priority: number }[]): number;
  /** The next URL to fetch at time `now` (ms). */
  next(now: number): NextResult;
  /**
   * Gives a handed-out URL's host slot back; the host may be contacted again after its delay.
   * `recorded`: its outcome is written (else it is kept out of the queue until a reopen).
   */
  release(item: FrontierItem, now: number, recorded?: boolean): void;
  /** Sets a host's politeness delay (topic delay raised by robots Crawl-delay). */
  setHostDelay(hostId: number, delayMs: number): void;
  /** Stops handing out a host's URLs (per-host budget reached, host suspended); they stay queued. */
  closeHost(hostId: number): void;
  /** Hands out a closed host's URLs again (a page it counted turned out not to count). */
  openHost(hostId: number): void;
  /** Keeps a host from being contacted before `until` (ms): back-off, Retry-After. */
  deferHost(hostId: number, until: number): void;
  /**
   * Puts a handed-out URL back in its queue (a retry); call instead of recording an outcome, then
   * {@link LocalFrontier.release} as usual.
   */
  requeue(item: FrontierItem): void;
  /** Number of queued URLs. */
  size(): number;
  /** Number of URLs handed out and not yet released. */
  inFlight(): number;
  /** Id of a host (created if new). */
  hostId(name: string): number;
}

export interface NewUrl {
  hash: Buffer;
  url: string;
  host: string;
  depth: number;
  priority: number;
  life: number;
  parentId: number | null;
  anchor: string | null;
  hops?: number;
  inlinks?: number;
  inlinkScore?: number;
  /** QUEUED (default), PRUNED or SKIPPED. */
  state?: UrlState;
  note?: string | null;
}

export interface KnownUrl {
  id: number;
  hostId: number;
  state: UrlState;
  depth: number;
  priority: number;
  life: number;
  inlinks: number;
  inlinkScore: number;
}

export interface UrlChange {
  id: number;
  hostId: number;
  /** The URL's hash, when the caller has it (a shared frontier then finds the URL without its id index). */
  hash?: Buffer;
  priority?: number;
  life?: number;
  /** Set to QUEUED to revive a PRUNED URL. */
  state?: UrlState;
  inlinks?: number;
  inlinkScore?: number;
}

export interface FrontierItem {
  id: number;
  url: string;
  hostId: number;
  host: string;
  depth: number;
  priority: number;
  life: number;
  seq: number;
  hops: number;
  parentId: number | null;
  anchor: string | null;
  /**
   * The anchor texts of the links to this URL recorded when it was handed out (up to 50), when the
   * frontier reads them with its row (the embedded one does, in the same statement); absent: the
   * crawl reads them from the store (Store.anchorsTo) when the page is analysed.
   */
  anchors?: string[];
}

export type NextResult =
  | { kind: 'url'; item: FrontierItem }
  | { kind: 'wait'; until: number }
  /**
   * URLs are ready, but the best of them ranks below `concurrency` better ones (in flight, or
   * queued on hosts busy with their requests in flight): ask again when a request ends, or at
   * `until` (a waiting host may be contacted then; null: none waits).
   */
  | { kind: 'hold'; until: number | null }
  | { kind: 'empty' };
