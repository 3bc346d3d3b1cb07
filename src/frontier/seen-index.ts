/**
 * The frontier's "seen?" test: an open-addressing hash table in one typed array, from the first 32
 * bits of a URL hash (its fingerprint) to the URL's id. 8 bytes per slot, at most 70% full, so about
 * 12–23 bytes per known URL (128 MB at 10 million URLs) and no store access for a URL never seen.
 *
 * Fingerprints can collide: a lookup yields every id whose fingerprint matches, and the caller
 * confirms each against the full hash stored with the URL. Ids must be positive (0 marks an empty
 * slot). Entries are never removed; a stale id (its row was rolled back) simply fails confirmation.
 */
export class SeenIndex {
  /** pairs [fingerprint, id] */
  private slots: Uint32Array;
  private mask: number;
  private count = 0;

  constructor(expected = 0) {
    let cap = 1 << 12;
    while (cap * 0.7 < expected) cap *= 2;
    this.slots = new Uint32Array(cap * 2);
    this.mask = cap - 1;
  }

  /** The table as bytes (for a snapshot). */
  toBuffer(): Buffer {
    return Buffer.from(this.slots.buffer, this.slots.byteOffset, this.slots.byteLength);
  }

  /** A table from {@link SeenIndex.toBuffer}'s bytes and its entry count. */
  static fromBuffer(buf: Buffer, count: number): SeenIndex {
    const idx = new SeenIndex();
    let slots: Uint32Array;
    if (buf.byteOffset % 4 === 0) {
      slots = new Uint32Array(buf.buffer, buf.byteOffset, buf.length / 4); // the bytes as they are: no second copy of a large table
    } else {
      slots = new Uint32Array(buf.length / 4);
      new Uint8Array(slots.buffer).set(buf); // a source that is not 4-byte aligned is copied
    }
    idx.slots = slots;
    idx.mask = slots.length / 2 - 1;
    idx.count = count;
    return idx;
  }

  /** Fingerprint of a URL hash: its first four bytes. */
  static fingerprint(hash: Uint8Array): number {
    return (hash[0] | (hash[1] << 8) | (hash[2] << 16) | (hash[3] << 24)) >>> 0;
  }

  get size(): number {
    return this.count;
  }

  /** Bytes held by the table. */
  get bytes(): number {
    return this.slots.byteLength;
  }

  add(hash: Uint8Array, id: number): void {
    this.addFingerprint(SeenIndex.fingerprint(hash), id);
  }

  /** Adds an id under a fingerprint computed by {@link SeenIndex.fingerprint} (stored with the URL). */
  addFingerprint(fp: number, id: number): void {
    if ((this.count + 1) > (this.mask + 1) * 0.7) this.grow();
    this.put(fp >>> 0, id);
    this.count++;
  }

  /** Appends to `out` the ids whose fingerprint matches this hash. */
  find(hash: Uint8Array, out: number[]): void {
    const fp = SeenIndex.fingerprint(hash);
    const s = this.slots;
    for (let i = this.home(fp); ; i = (i + 1) & this.mask) {
      const id = s[2 * i + 1];
      if (id === 0) return;
      if (s[2 * i] === fp) out.push(id);
    }
  }

  /** Slot where a fingerprint's probe sequence starts (Fibonacci hashing of the 32 bits). */
  private home(fp: number): number {
    return (Math.imul(fp, 0x9e3779b1) >>> 0) & this.mask;
  }

  private put(fp: number, id: number): void {
    const s = this.slots;
    let i = this.home(fp);
    while (s[2 * i + 1] !== 0) i = (i + 1) & this.mask;
    s[2 * i] = fp;
    s[2 * i + 1] = id;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(old.length * 2);
    this.mask = this.mask * 2 + 1;
    for (let i = 0; i < old.length; i += 2) if (old[i + 1] !== 0) this.put(old[i], old[i + 1]);
  }
}
