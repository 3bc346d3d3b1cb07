import type { KnownUrl, UrlChange } from './local-frontier.js';
import type { QueueKey } from './url-changes.js';
import { RowColumns } from './row-columns.js';

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
 * Rows kept at most by default (two generations of half as many), in columns (row-columns.ts):
 * about 19 MB when full (68 bytes a row in typed arrays, the index, and each hash's hex string);
 * as objects in a Map they took 27 MB of heap (210 bytes a row) that every full collection marked. A 6,000-page crawl of the synth corpus reads ~5,600 known URLs; 100,000 pages of a
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
 * Two generations (as memo-map.ts's MemoMap): rows in use (a site's navigation) survive a
 * turnover; only rows unused for a whole generation are dropped. Each generation is columns of
 * typed arrays (row-columns.ts), not objects in a Map: `npx tsx --expose-gc
 * scripts/bench-row-cache.ts --base <commit>` (the calls of a crawl, the same answers checked)
 * measured a full collection with the cache full at 0.55 of the Map's (51 against 92 ms) for 1.07
 * of its time a page (30 against 28 µs).
 */
export class UrlRowCache {
  private young: RowColumns;
  private old: RowColumns;
  private readonly half: number;

  constructor(max = ROW_CACHE_ROWS) {
    this.half = Math.max(1, Math.floor(max / 2));
    // room for a quarter more than a generation's rows: slots of rows forgotten meanwhile are only
    // taken back by a compaction, which then frees at least that quarter (not one slot at a time)
    const slots = this.half + Math.ceil(this.half / 4);
    this.young = new RowColumns(slots);
    this.old = new RowColumns(slots);
  }

  /** The row of `id` (a new object each time), moved to the young generation if found in the old one. */
  get(id: number): CachedRow | undefined {
    const s = this.slot(id);
    return s < 0 ? undefined : this.young.row(s);
  }

  /**
   * A lookup's answer for `id` from the cache, read from the columns (no row object): undefined
   * when its row is not held; null when it is but its hash is not `hashHex` (another URL with the
   * same fingerprint); else the known URL, reported in flight when it is queued and `inFlight` has it.
   */
  known(id: number, hashHex: string, inFlight: Set<number>): KnownUrl | null | undefined {
    const s = this.slot(id);
    if (s < 0) return undefined;
    return this.young.hashHexAt(s) === hashHex ? this.young.known(s, inFlight) : null;
  }

  /** Where a cached URL sits in the queues (see readQueueKeys), or undefined. */
  queueKey(id: number): QueueKey | undefined {
    const s = this.slot(id);
    return s < 0 ? undefined : this.young.queueKey(s);
  }

  put(row: CachedRow): void {
    this.old.delete(row.id);
    if (this.young.slotOf(row.id) < 0) {
      if (this.young.size >= this.half) {
        // the young generation becomes the old one; the old one's rows, unused for a generation, go
        const dropped = this.old;
        this.old = this.young;
        this.young = dropped;
        this.young.clear();
      } else if (this.young.full) this.young.compact(); // (forgotten rows left their slots empty)
    }
    this.young.put(row);
  }

  /** A row's fields after a write of `c` (absent fields unchanged, as writeChanges writes them). */
  apply(c: UrlChange): void {
    const s = this.slot(c.id);
    if (s >= 0) this.young.update(s, c);
  }

  setPriority(id: number, priority: number): void {
    const s = this.slot(id);
    if (s >= 0) this.young.update(s, { priority });
  }

  /** The row was written elsewhere (an outcome recorded, a URL set aside): read it again next time. */
  forget(id: number): void {
    this.young.delete(id);
    this.old.delete(id);
  }

  /** Rows held (both generations). */
  get size(): number {
    return this.young.size + this.old.size;
  }

  /** The slot of `id` in the young generation (moved there from the old one if need be), or -1. */
  private slot(id: number): number {
    const y = this.young.slotOf(id);
    if (y >= 0) return y;
    const o = this.old.slotOf(id);
    if (o < 0) return -1;
    this.put(this.old.row(o)); // (out of the old generation)
    return this.young.slotOf(id);
  }
}
