/**
 * The near-duplicate index of a crawl (NearDupIndex): 64-bit fingerprints split into bands, one
 * exact-match table per band (Manku, Jain & Das Sarma, "Detecting near-duplicates for web
 * crawling", WWW 2007). Two fingerprints at most k bits apart agree exactly on at least one of any
 * k + 1 disjoint bands (pigeonhole: k differing bits fall in at most k bands), so looking up each
 * band's table and checking the candidates' full distance finds every fingerprint within k and
 * nothing further.
 *
 * Layout: max(k + 1, 2) bands of ⌊64 / bands⌋ or ⌈64 / bands⌉ bits (so each fits 32 bits; k = 3:
 * four bands of 16 bits). Entries are parallel typed arrays (id, hi, lo); each band chains the
 * entries with the same band value (newest first) through an Int32Array, from a head table: a
 * direct array for bands of up to 16 bits, a Map for wider ones. About 28 bytes per page for
 * k = 3 (plus 4 × 256 KB of head tables). A lookup checks (entries / 2^bits) candidates per band on
 * average: 15 per band at a million pages with k = 3; with larger k the bands get narrower and
 * lookups dearer (k = 7: 8-bit bands, 1/256 of the pages per band).
 */
import type { NearDupIndex, NearDupMatch } from './near-dup-index.js';
import { popcount32, type Fingerprint } from './simhash.js';

/** The largest max_distance the index accepts (16 bands of 4 bits: already a scan of 1/16 of the pages per band). */
export const MAX_INDEX_DISTANCE = 15;

interface Band {
  start: number;
  width: number;
  mask: number;
  /**
   * head of the chain for a band value: in an array (width ≤ 16) the entry + 1 (0: none, so the
   * array needs no filling: 1 MB written and faulted in at every crawl's start, 1.5 ms here), in a map
   * the entry itself
   */
  heads: Int32Array | Map<number, number>;
  /** per entry: the previous entry with the same band value (−1: none) */
  next: Int32Array;
}

export class BandIndex implements NearDupIndex {
  private readonly bands: Band[];
  private ids = new Int32Array(1024);
  private his = new Uint32Array(1024);
  private los = new Uint32Array(1024);
  private n = 0;

  constructor(readonly maxDistance: number) {
    if (!Number.isInteger(maxDistance) || maxDistance < 0 || maxDistance > MAX_INDEX_DISTANCE) {
      throw new RangeError(`max distance must be an integer from 0 to ${MAX_INDEX_DISTANCE}, got ${maxDistance}`);
    }
    const count = Math.max(maxDistance + 1, 2);
    this.bands = [];
    let start = 0;
    for (let i = 0; i < count; i++) {
      const width = Math.floor((64 - start) / (count - i));
      const heads = width <= 16 ? new Int32Array(1 << width) : new Map<number, number>();
      this.bands.push({ start, width, mask: width === 32 ? 0xffffffff : (2 ** width - 1), heads, next: new Int32Array(1024) });
      start += width;
    }
  }

  get size(): number {
    return this.n;
  }

  /** Bits [start, start + width) of the 64-bit value hi:lo (bit 0 is hi's highest), as an unsigned integer. */
  private static bandValue(hi: number, lo: number, b: Band): number {
    const end = b.start + b.width;
    if (end <= 32) return ((hi >>> (32 - end)) & b.mask) >>> 0;
    if (b.start >= 32) return ((lo >>> (64 - end)) & b.mask) >>> 0;
    const lowBits = end - 32; // taken from lo's top
    const high = (hi & (2 ** (32 - b.start) - 1)) >>> 0;
    return (high * 2 ** lowBits + (lo >>> (32 - lowBits))) >>> 0;
  }

  find(f: Fingerprint, self?: number): NearDupMatch | null {
    const hi = f.hi >>> 0;
    const lo = f.lo >>> 0;
    let best = -1;
    let bestD = this.maxDistance + 1;
    for (const b of this.bands) {
      const v = BandIndex.bandValue(hi, lo, b);
      let e = b.heads instanceof Int32Array ? b.heads[v] - 1 : (b.heads.get(v) ?? -1);
      while (e >= 0) {
        if (this.ids[e] !== self) {
          const d = popcount32((this.his[e] ^ hi) >>> 0) + popcount32((this.los[e] ^ lo) >>> 0);
          if (d < bestD || (d === bestD && e < best)) {
            bestD = d;
            best = e;
          }
        }
        e = b.next[e];
      }
    }
    return best < 0 ? null : { id: this.ids[best], distance: bestD };
  }

  add(id: number, f: Fingerprint): void {
    const e = this.n;
    if (e === this.ids.length) this.grow();
    this.ids[e] = id;
    this.his[e] = f.hi >>> 0;
    this.los[e] = f.lo >>> 0;
    for (const b of this.bands) {
      const v = BandIndex.bandValue(this.his[e], this.los[e], b);
      if (b.heads instanceof Int32Array) {
        b.next[e] = b.heads[v] - 1;
        b.heads[v] = e + 1;
      } else {
        b.next[e] = b.heads.get(v) ?? -1;
        b.heads.set(v, e);
      }
    }
    this.n++;
  }

  private grow(): void {
    const cap = this.ids.length * 2;
    const more = <T extends Int32Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a);
      return b;
    };
    this.ids = more(this.ids, (n) => new Int32Array(n));
    this.his = more(this.his, (n) => new Uint32Array(n));
    this.los = more(this.los, (n) => new Uint32Array(n));
    for (const b of this.bands) b.next = more(b.next, (n) => new Int32Array(n));
  }
}
