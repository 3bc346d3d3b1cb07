/**
 * 64-bit SimHash (Charikar 2002; Manku, Jain & Das Sarma, WWW 2007): every feature of a page (here
 * its text shingles, shingles.ts) has a 64-bit hash; bit i of the page's fingerprint is 1 when more
 * of its features have bit i set than not (each occurrence of a feature counts once). Two pages
 * whose features mostly agree get fingerprints a few bits apart: the Hamming distance estimates
 * the angle θ between their feature-count vectors (each bit differs with probability θ/π).
 *
 * A fingerprint is two unsigned 32-bit halves (`hi`, `lo`): JavaScript's bit operators work on 32
 * bits, and a BigInt per feature would cost more than the rest of the hash. The counts per bit are
 * kept bit-sliced (a binary counter per bit position, its planes as 32-bit words: adding one hash
 * costs a few word operations, not 64 increments).
 */

/** A 64-bit fingerprint as two unsigned 32-bit halves. */
export interface Fingerprint {
  hi: number;
  lo: number;
}

/**
 * Bit-sliced counters for the 64 bit positions: plane j of a half holds bit j of every position's
 * count (planes of the high half at even indexes, of the low half at odd ones). Adding a hash
 * ripples a carry word up the planes, both halves in one loop: a few word operations, not 64
 * increments.
 */
class SlicedCounter {
  private readonly planes = new Int32Array(64);
  private top = 0;

  add(hi: number, lo: number): void {
    const planes = this.planes;
    let ch = hi | 0;
    let cl = lo | 0;
    let k = 0;
    while ((ch | cl) !== 0) {
      const ph = planes[k];
      const pl = planes[k + 1];
      planes[k] = ph ^ ch;
      planes[k + 1] = pl ^ cl;
      ch &= ph;
      cl &= pl;
      k += 2;
    }
    if (k > this.top) this.top = k;
  }

  /**
   * The word whose bit b is 1 when position b of the half (0: high, 1: low) counted more than
   * `n / 2` ones: the counts compared with floor(n / 2) bit-sliced, from the top plane down.
   */
  majority(half: 0 | 1, n: number): number {
    const planes = this.planes;
    const t = Math.floor(n / 2);
    const bits = this.top / 2; // planes in use per half: every count is below 2 ** bits
    if (bits < 31 && t >= 2 ** bits) return 0;
    let gt = 0; // positions whose count is already known to be greater
    let eq = -1; // positions whose count equals t in the planes seen so far
    for (let j = bits - 1; j >= 0; j--) {
      const p = planes[2 * j + half];
      if ((t / 2 ** j) & 1) eq &= p;
      else {
        gt |= eq & p;
        eq &= ~p;
      }
    }
    return gt >>> 0;
  }
}

/** Accumulates feature hashes into a SimHash. */
export class SimHashBuilder {
  private readonly counts = new SlicedCounter();
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
