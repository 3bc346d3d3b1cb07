import type { UrlChange } from './local-frontier.js';
import type { QueueKey } from './url-changes.js';
import { MemoMap } from '../memo-map.js';

/** A URL's row as the frontier reads it for a lookup and for moving its queue entry. */
export interface CachedRow {
  /** The URL's hash in hex (a string of its own: ~50 bytes where a Buffer takes ~200). */
  hashHex: string;
  id: number;
  hostId: number;
  state: number;
  depth: number;
  priority: number;
  life: number;
  inlinks: number;
  inlinkScore: number;
  seq: number;
}

/**
 * Rows kept at most by default (two generations of half as many): 27 MB of heap when full (210
 * bytes a row). A 6,000-page crawl of the synth corpus reads ~5,600 known URLs; 100,000 pages of a
 * 1,000-host corpus read over 100,000, where 32,768 rows emptied at once when full missed often.
 */
export const ROW_CACHE_ROWS = 131_072;

/**
 * The `urls` rows of known URLs that the frontier read or wrote lately, as they are on disk. A
 * page's links are mostly URLs that other pages linked to before (a site's navigation): on the
 * synth corpus 91% of the known URLs a lookup found had been looked up before, and each lookup
 * read them again (the costliest statement of the crawl, 82 µs a page).
 *
 * The copy stays equal to the row because every write to a cached row goes through here: the
 * frontier's own (its inserts, {@link UrlRowCache.apply} after its changes, {@link
 * UrlRowCache.setPriority} after a reprioritisation) and, for the store's outcome of a URL in
 * flight, {@link UrlRowCache.forget} when the URL is released (until then it is reported in flight,
 * whatever its row says, and no change touches it).
 *
 * Two generations (memo-map.ts): rows in use (a site's navigation) survive a turnover; only rows
 * unused for a whole generation are dropped.
 */
export class UrlRowCache {
  private readonly rows: MemoMap<number, CachedRow>;

  constructor(max = ROW_CACHE_ROWS) {
    this.rows = new MemoMap(max);
  }

  get(id: number): CachedRow | undefined {
    return this.rows.get(id);
  }

  /** Where a cached URL sits in the queues (see readQueueKeys), or undefined. */
  queueKey(id: number): QueueKey | undefined {
    const r = this.rows.get(id);
    return r && { id: r.id, host_id: r.hostId, state: r.state, priority: r.priority, seq: r.seq };
  }

  put(row: CachedRow): void {
    this.rows.set(row.id, row);
  }

  /** A row's fields after a write of `c` (absent fields unchanged, as writeChanges writes them). */
  apply(c: UrlChange): void {
    const r = this.get(c.id);
    if (!r) return;
    if (c.priority !== undefined) r.priority = c.priority;
    if (c.life !== undefined) r.life = c.life;
    if (c.state !== undefined) r.state = c.state;
    if (c.inlinks !== undefined) r.inlinks = c.inlinks;
    if (c.inlinkScore !== undefined) r.inlinkScore = c.inlinkScore;
  }

  setPriority(id: number, priority: number): void {
    const r = this.get(id);
    if (r) r.priority = priority;
  }

  /** The row was written elsewhere (an outcome recorded, a URL set aside): read it again next time. */
  forget(id: number): void {
    this.rows.delete(id);
  }

  /** Rows held (both generations). */
  get size(): number {
    return this.rows.size;
  }
}
