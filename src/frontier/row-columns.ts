import type { KnownUrl } from './local-frontier.js';
import type { QueueKey } from './url-changes.js';
import type { CachedRow } from './url-row-cache.js';
import { lookupState } from './url-state.js';

/**
 * One generation of the frontier's row cache (url-row-cache.ts) as columns: each row's fields in
 * typed arrays at its slot, found by id through an open-addressing index (linear probes, a
 * tombstone for a deleted row). The rows are no objects and the index no `Map`: a full collection
 * of the crawl's thread marks a few typed arrays and one array of strings instead of 65,536 row
 * objects and a `Map`'s table of pointers, and a lookup by id is two array reads (the `Map` of
 * 65,536 rows missed the cache on most probes). Slots are handed out in order; a deleted row's
 * slot stays empty until the generation is emptied or compacted.
 */
export class RowColumns {
  readonly capacity: number;
  /** Rows held (slots in use less the deleted ones). */
  size = 0;
  /** Slots handed out so far (deleted rows' included). */
  private used = 0;
  private readonly mask: number;
  /** slot + 1 of the row whose id probes here; 0 empty, -1 a deleted row (a tombstone) */
  private readonly index: Int32Array;
  private readonly ids: Float64Array;
  private readonly hostIds: Float64Array;
  private readonly states: Int32Array;
  private readonly depths: Int32Array;
  private readonly priorities: Float64Array;
  private readonly lives: Float64Array;
  private readonly inlinks: Float64Array;
  private readonly inlinkScores: Float64Array;
  private readonly seqs: Float64Array;
  private readonly hashHex: string[];

  constructor(capacity: number) {
    this.capacity = Math.max(1, capacity);
    let size = 2;
    while (size < this.capacity * 2) size *= 2;
    this.mask = size - 1;
    this.index = new Int32Array(size);
    this.ids = new Float64Array(this.capacity);
    this.hostIds = new Float64Array(this.capacity);
    this.states = new Int32Array(this.capacity);
    this.depths = new Int32Array(this.capacity);
    this.priorities = new Float64Array(this.capacity);
    this.lives = new Float64Array(this.capacity);
    this.inlinks = new Float64Array(this.capacity);
    this.inlinkScores = new Float64Array(this.capacity);
    this.seqs = new Float64Array(this.capacity);
    this.hashHex = new Array<string>(this.capacity).fill('');
  }

  /** Where the index's probe for `id` starts (Fibonacci hashing of the id's low 32 bits). */
  private home(id: number): number {
    return (Math.imul(id | 0, 0x9e3779b1) >>> 0) & this.mask;
  }

  /** The slot of the row of `id`, or -1. */
  slotOf(id: number): number {
    for (let i = this.home(id); ; i = (i + 1) & this.mask) {
      const v = this.index[i];
      if (v === 0) return -1;
      if (v > 0 && this.ids[v - 1] === id) return v - 1;
    }
  }

  /** Whether a row can be added without emptying or compacting first. */
  get full(): boolean {
    return this.used >= this.capacity;
  }

  /** Writes `row` over the row of its id, or adds it (the caller makes room first: see {@link full}). */
  put(row: CachedRow): void {
    let slot = this.slotOf(row.id);
    if (slot < 0) {
      if (this.used >= this.capacity) throw new Error('RowColumns is full');
      slot = this.used++;
      let i = this.home(row.id);
      while (this.index[i] > 0) i = (i + 1) & this.mask;
      this.index[i] = slot + 1;
      this.size++;
    }
    this.ids[slot] = row.id;
    this.hostIds[slot] = row.hostId;
    this.states[slot] = row.state;
    this.depths[slot] = row.depth;
    this.priorities[slot] = row.priority;
    this.lives[slot] = row.life;
    this.inlinks[slot] = row.inlinks;
    this.inlinkScores[slot] = row.inlinkScore;
    this.seqs[slot] = row.seq;
    this.hashHex[slot] = row.hashHex;
  }

  /** The row at `slot` as an object (a new one: changing it changes nothing here). */
  row(slot: number): CachedRow {
    return {
      hashHex: this.hashHex[slot], id: this.ids[slot], hostId: this.hostIds[slot], state: this.states[slot], depth: this.depths[slot],
      priority: this.priorities[slot], life: this.lives[slot], inlinks: this.inlinks[slot], inlinkScore: this.inlinkScores[slot], seq: this.seqs[slot],
    };
  }

  /** The hash (hex) of the row at `slot`. */
  hashHexAt(slot: number): string {
    return this.hashHex[slot];
  }

  /** The row at `slot` as a lookup reports it (knownUrls' shape), without the whole row first. */
  known(slot: number, inFlight: Set<number>): KnownUrl {
    const id = this.ids[slot];
    return {
      id, hostId: this.hostIds[slot], state: lookupState(this.states[slot], id, inFlight),
      depth: this.depths[slot], priority: this.priorities[slot], life: this.lives[slot], inlinks: this.inlinks[slot], inlinkScore: this.inlinkScores[slot],
    };
  }

  /** Where the row at `slot` sits in the queues (readQueueKeys' shape), without the whole row. */
  queueKey(slot: number): QueueKey {
    return { id: this.ids[slot], host_id: this.hostIds[slot], state: this.states[slot], priority: this.priorities[slot], seq: this.seqs[slot] };
  }

  /** Sets fields of the row at `slot` (absent ones unchanged). */
  update(slot: number, c: { priority?: number; life?: number; state?: number; inlinks?: number; inlinkScore?: number }): void {
    if (c.priority !== undefined) this.priorities[slot] = c.priority;
    if (c.life !== undefined) this.lives[slot] = c.life;
    if (c.state !== undefined) this.states[slot] = c.state;
    if (c.inlinks !== undefined) this.inlinks[slot] = c.inlinks;
    if (c.inlinkScore !== undefined) this.inlinkScores[slot] = c.inlinkScore;
  }

  /** Drops the row of `id`, if held. */
  delete(id: number): void {
    for (let i = this.home(id); ; i = (i + 1) & this.mask) {
      const v = this.index[i];
      if (v === 0) return;
      if (v > 0 && this.ids[v - 1] === id) {
        this.index[i] = -1;
        this.hashHex[v - 1] = ''; // (the string is not kept by a dropped row)
        this.size--;
        return;
      }
    }
  }

  /** Empties the generation. */
  clear(): void {
    this.index.fill(0);
    this.hashHex.fill('', 0, this.used);
    this.used = 0;
    this.size = 0;
  }

  /** Rewrites the held rows into the first slots, in order, dropping deleted rows' slots and tombstones. */
  compact(): void {
    const held: CachedRow[] = [];
    for (let s = 0; s < this.used; s++) if (this.slotOf(this.ids[s]) === s) held.push(this.row(s));
    this.clear();
    for (const r of held) this.put(r);
  }
}
