/**
 * 64-bit SimHash (Charikar 2002; Manku, Jain & Das Sarma, WWW 2007): every feature of a page (here
 * its text shingles, shingles.ts) has a 64-bit hash; bit i of the page's fingerprint is 1 when more
 * of its features have bit i set than not (each occurrence of a feature counts once). Two pages
 * whose features mostly agree get fingerprints a few bits apart: the Hamming distance estimates
 * the angle θ between their feature-count vectors (each bit differs with probability θ/π).
 *
 * A fingerprint is two unsigned 32-bit halves (`hi`, `lo`): JavaScript's bit operators work on 32
 * bits, and a BigInt per feature would cost more than the rest of the hash. The counts per bit are
 * kept in nibble lanes (see BitCounter: adding one hash costs a few word operations, not 64
 * increments).
 */

/** A 64-bit fingerprint as two unsigned 32-bit halves. */
export interface Fingerprint {
  hi: number;
  lo: number;
}

/** Nibble lanes of a 32-bit word: bits 0, 4, 8, …, 28. */
const LANES = 0x11111111;
/** Adds a lane holds before it could pass 15 and carry into the next. */
const LANE_MAX = 15;

/**
 * Counters of the 64 bit positions. Adding a hash spreads each half into 4 words of nibble lanes
 * (word k, lane j: bit 4j + k) and adds them whole (SWAR: 8 counts in one addition, no branch on
 * the data); every 15 adds the lanes are emptied into one counter per position. A binary counter
 * per bit position, bit-sliced, cost a carry ripple of ~7 steps a hash whose length no branch
 * predictor can guess: 26 µs of the 107 a page's SimHash took (1,200 pages of /tmp/synth100k);
 * with these counters it takes 93–96.
 */
class BitCounter {
  /** nibble lanes of the high half (words 0–3) and the low half (words 4–7) */
  private readonly lanes = new Int32Array(8);
  /** per bit position: high half 0–31, low half 32–63 */
  private readonly counts = new Int32Array(64);
  private pending = 0;

  add(hi: number, lo: number): void {
    const l = this.lanes;
    l[0] = (l[0] + (hi & LANES)) | 0;
    l[1] = (l[1] + ((hi >>> 1) & LANES)) | 0;
    l[2] = (l[2] + ((hi >>> 2) & LANES)) | 0;
    l[3] = (l[3] + ((hi >>> 3) & LANES)) | 0;
    l[4] = (l[4] + (lo & LANES)) | 0;
    l[5] = (l[5] + ((lo >>> 1) & LANES)) | 0;
    l[6] = (l[6] + ((lo >>> 2) & LANES)) | 0;
    l[7] = (l[7] + ((lo >>> 3) & LANES)) | 0;
    if (++this.pending === LANE_MAX) this.flush();
  }

  /** Empties the lanes into the counters. */
  private flush(): void {
    const l = this.lanes;
    const c = this.counts;
    for (let w = 0; w < 8; w++) {
      const v = l[w];
      if (v === 0) continue;
      const base = (w >> 2) * 32 + (w & 3);
      for (let j = 0; j < 8; j++) c[base + 4 * j] += (v >>> (4 * j)) & 15;
      l[w] = 0;
    }
    this.pending = 0;
  }

  /** The word whose bit b is 1 when position b of the half (0: high, 1: low) counted more than `n / 2` ones. */
  majority(half: 0 | 1, n: number): number {
    this.flush();
    const c = this.counts;
    const t = Math.floor(n / 2);
    let out = 0;
    for (let b = 0; b < 32; b++) if (c[half * 32 + b] > t) out |= 1 << b;
    return out >>> 0;
  }
}

/** Accumulates feature hashes into a SimHash. */
export class SimHashBuilder {
  private readonly counts = new BitCounter();
  /** Features added (occurrences). */
  count = 0;

  add(hi: number, lo: number): void {
    this.counts.add(hi, lo);
    this.count++;
  }

  /** The fingerprint of what was added (all zero bits when nothing was). */
  digest(): Fingerprint {
    return { hi: this.counts.majority(0, this.count), lo: this.counts.majority(1, this.count) };
  }
}

/** Number of 1 bits of a 32-bit word. */
export function popcount32(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

/** Hamming distance of two fingerprints (0 to 64). */
export function hamming(a: Fingerprint, b: Fingerprint): number {
  return popcount32((a.hi ^ b.hi) >>> 0) + popcount32((a.lo ^ b.lo) >>> 0);
}

/** The fingerprint as 8 bytes, big-endian (hi first): how the crawl file stores it. */
export function fingerprintBytes(f: Fingerprint): Uint8Array {
  const out = new Uint8Array(8);
  const v = new DataView(out.buffer);
  v.setUint32(0, f.hi >>> 0);
  v.setUint32(4, f.lo >>> 0);
  return out;
}

/** A fingerprint from its 8 stored bytes (see {@link fingerprintBytes}). */
export function fingerprintOf(bytes: Uint8Array): Fingerprint {
  if (bytes.length !== 8) throw new RangeError(`a SimHash fingerprint is 8 bytes, got ${bytes.length}`);
  const v = new DataView(bytes.buffer, bytes.byteOffset, 8);
  return { hi: v.getUint32(0), lo: v.getUint32(4) };
}

/** 16 lower-case hex digits (hi first), as `export` prints it. */
export function fingerprintHex(f: Fingerprint): string {
  return (f.hi >>> 0).toString(16).padStart(8, '0') + (f.lo >>> 0).toString(16).padStart(8, '0');
}
