import type { KnownUrl, NewUrl, UrlChange, FrontierItem } from './local-frontier.js';

export type { KnownUrl, NewUrl, UrlChange, FrontierItem } from './local-frontier.js';

/**
 * The crawl's frontier door: every URL the crawl knows, deduplicated by the 16-byte hash of its
 * normalised form, the queued ones handed out best first under per-host politeness, and the page
 * budget. Asynchronous and batched in the style of crawler-commons' URLFrontier API, so that one
 * crawl engine runs on the embedded SQLite frontier (one process) or on a shared one (Redis, many
 * worker processes on many machines).
 *
 * Contract:
 * - **Seen once.** A URL is known from the moment an {@link Frontier.intake} that adds it returns,
 *   whatever its state, to every client of the frontier. Adding a URL that is known by then (another
 *   page or worker added it in between) does not add it again: its known id is returned instead
 *   and it is counted in `IntakeResult.existing`.
 * - **Order.** {@link Frontier.claim} hands out, among the hosts that may be contacted at that time
 *   (politeness delay since the host's last request elapsed, host not closed or over its budget),
 *   the host whose best queued URL has the highest priority, and that host's best URLs (higher
 *   priority first; ties first-in first-out by discovery). A shared frontier decides "may be
 *   contacted" with its own clock, never the client's.
 * - **Leases.** A URL handed out is leased to the caller and is not handed out again while the
 *   lease holds. Every lease ends with one {@link Frontier.settle}: `done` (its outcome is recorded
 *   in the store), or `requeue` (a retry, or robots.txt could not be read: back in its host's
 *   queue). A lease not settled in time (`Lease.expiresAt`; the caller died) expires and the URL is
 *   served again; a settle of an expired lease whose URL was served again returns false, and the
 *   caller must not record it (it is, or will be, recorded by the new holder).
 * - **Politeness.** Handing out a URL puts its host to sleep for its delay (topic delay raised by
 *   robots.txt Crawl-delay, {@link Frontier.setHostDelay}); settling it starts the delay again from
 *   then, so two requests to one host are at least the delay apart whoever makes them.
 * - **Budget.** Leases count against the page budget (all pages and per host) from claim on; a
 *   settle with `counted: false` gives the page back (robots.txt disallowed it, a retry). When the
 *   budget is spent, claim says `budget`.
 * - **Call order.** One client's calls take effect in the order they are made, whether or not the
 *   caller awaited the earlier ones: a caller may send an intake and go on (a later `known` of the
 *   same client sees it), and await it later to learn that it failed.
 * - **Durability.** When a call's promise resolves, its effect is visible to every client. What
 *   survives a crash: the embedded frontier keeps URLs in the crawl file (committed in groups: a
 *   crash loses at most the last group of pages, which are fetched again); a shared frontier keeps
 *   what its server keeps (Redis with AOF: everything acknowledged).
 * - **Resume.** A frontier reopened after a stop or a crash serves every URL that was queued or
 *   leased without a recorded outcome; nothing is lost, nothing fetched is served again (beyond the
 *   last commit group of the embedded frontier).
 */
export interface Frontier {
  /** What the frontier knows of these URLs, by hash (hex). `host` lets a sharded frontier find them. */
  known(urls: readonly UrlKey[]): Promise<Map<string, KnownUrl>>;
  /** New URLs, changes to known ones and priority updates, in one call (one page's links, or seeds). */
  intake(batch: IntakeBatch): Promise<IntakeResult>;
  /**
   * Optional: ids for `n` URLs about to be added, reserved for this client (a shared frontier), so
   * that the caller knows its adds' ids without waiting for the intake's answer: given as
   * {@link IntakeBatch.reserved}, each add is queued under its id, unless its URL is known by then
   * (another client added it meanwhile): the answer then gives its real id (`existingAt`). The ids
   * one client is given increase in the order given (equal priorities are served first found,
   * first served). Nearly always at hand (an array), else a promise.
   */
  reserveIds?(n: number): number[] | Promise<number[]>;
  /**
   * Optional: how many URLs a claim should ask for at least, when a claim costs a round trip (a
   * shared frontier): the crawl engine then waits until that many of its slots are free (at most a
   * quarter of them, and never while none is busy) and claims them in one call. Absent: 1.
   */
  readonly claimBatch?: number;
  /** Up to `max` URLs to fetch now, leased; or when to ask again; or why there is nothing. */
  claim(max: number, now: number): Promise<Claim>;
  /** Ends a lease (see the contract). Returns false when the lease had expired and the URL was served again. */
  settle(lease: Lease, how: Settlement, now: number): Promise<boolean>;
  /** The id of a host (created if new). */
  hostId(name: string): Promise<number>;
  /** A host's politeness delay: the topic delay raised by its robots.txt Crawl-delay. */
  setHostDelay(hostId: number, delayMs: number): Promise<void>;
  /** Keeps a host from being contacted before `until` (ms): back-off, Retry-After, sitemap requests. */
  deferHost(hostId: number, until: number): Promise<void>;
  /** Stops handing out a host's URLs for this run (it keeps failing); they stay queued. */
  suspendHost(hostId: number): Promise<void>;
  /** Number of queued URLs (not leased). */
  size(): Promise<number>;
  /**
   * How many hosts are in each scheduling state at `now` (ms; a shared frontier uses its own clock):
   * for monitoring, read on demand (a scrape, a status poll), never per page. Its cost is one pass
   * over the hosts in memory (embedded) or one script call (shared), so callers should not ask
   * more than about once a second.
   */
  hostStates(now: number): Promise<HostStates>;
  /** Leases this client holds. */
  leased(): number;
  /** Releases what this client holds (unsettled leases go back to the queue) and saves what must be saved. */
  close(): Promise<void>;
}

/**
 * Hosts by scheduling state (Heritrix calls them ready, snoozed and retired queues). A host with
 * queued URLs is `waiting` when it may be contacted now (it waits for a free slot) and `sleeping`
 * when its politeness delay or a back-off keeps it until later; a host with all its requests in
 * flight, over its page budget, or with nothing queued is in neither. `suspended`: hosts suspended
 * after repeated failures (their URLs stay queued), whatever their queue.
 */
export interface HostStates {
  waiting: number;
  sleeping: number;
  suspended: number;
}

export interface UrlKey {
  hash: Buffer;
  host: string;
}

export interface IntakeBatch {
  adds?: NewUrl[];
  changes?: UrlChange[];
  /** Priority changes of known URLs decided by the strategy on its own; applied to queued URLs only. */
  updates?: { id: number; priority: number }[];
  /** The ids of `adds`, one each, from {@link Frontier.reserveIds} (not given: the frontier gives them). */
  reserved?: number[];
}

export interface IntakeResult {
  /** The id of each of `adds`, in order. */
  ids: number[];
  /** How many of `adds` were known by the time they reached the frontier (not added again). */
  existing: number;
  /** Which of `adds` those were (their index), so the caller records them as links, not as new URLs. */
  existingAt: number[];
}

/** A URL handed out, with its lease. */
export interface Lease extends FrontierItem {
  /** Opaque token of this lease ('' for a frontier whose leases end only with the process). */
  token: string;
  /** When the lease expires (ms on the frontier's clock); Infinity: when the process ends. */
  expiresAt: number;
}

export type Claim =
  | { kind: 'urls'; leases: Lease[] }
  /** Nothing may be contacted before `until` (ms). */
  | { kind: 'wait'; until: number }
  /**
   * URLs are ready, but the best ranks below `concurrency` better ones in flight (embedded frontier,
   * see SqliteFrontier.next): ask again when a lease is settled, or at `until`.
   */
  | { kind: 'hold'; until: number | null }
  /** The page budget is spent (by leases and pages counted). */
  | { kind: 'budget' }
  /** Nothing queued and nothing leased by anyone: the crawl is complete. */
  | { kind: 'empty' };

export interface Settlement {
  /** done: the outcome is recorded; requeue: back to its host's queue, fetched again later. */
  state: 'done' | 'requeue';
  /** Whether the page counts against the budget (false: robots.txt disallowed it, a retry). Default true. */
  counted?: boolean;
  /** The host may not be contacted again before this time (ms): back-off, Retry-After. */
  deferUntil?: number;
  /**
   * With done: the caller wrote the URL's outcome through the store (its row is no longer QUEUED),
   * so the frontier need not mark it as out of the queue itself. Default false: a done whose outcome
   * may not be written (a failure) is kept from being handed out again until a resume.
   */
  recorded?: boolean;
}
