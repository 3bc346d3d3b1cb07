/**
 * Per-URL figures of graph strategies (OPIC cash, scores, flags), kept in typed arrays indexed by
 * URL id (ids are dense positive integers from 1), grown by doubling as larger ids appear. Reading
 * an id never stored gives 0. Memory: 8 bytes (Float64) or 1 byte (Uint8) per id.
 */

/** A growable Float64Array by URL id. */
export class Float64ById {
  private a: Float64Array;

  constructor(initial = 1024) {
    this.a = new Float64Array(Math.max(16, initial));
  }

  get(id: number): number {
    return id < this.a.length ? this.a[id] : 0;
  }

  set(id: number, v: number): void {
    this.fit(id);
    this.a[id] = v;
  }

  add(id: number, v: number): void {
    this.fit(id);
    this.a[id] += v;
  }

  private fit(id: number): void {
    if (id < this.a.length) return;
    let n = this.a.length;
    while (n <= id) n *= 2;
    const b = new Float64Array(n);
    b.set(this.a);
    this.a = b;
  }
}

type IntArray = Uint8Array | Int32Array;

/** A growable integer typed array by URL id. */
class IntById<A extends IntArray> {
  private a: A;

  constructor(private readonly make: (n: number) => A, initial: number) {
    this.a = make(Math.max(16, initial));
  }

  get(id: number): number {
    return id < this.a.length ? this.a[id] : 0;
  }

  set(id: number, v: number): void {
    if (id >= this.a.length) {
      let n = this.a.length;
      while (n <= id) n *= 2;
      const b = this.make(n);
      b.set(this.a);
      this.a = b;
    }
    this.a[id] = v;
  }
}

/** A growable Uint8Array by URL id (small states and flags). */
export class Uint8ById extends IntById<Uint8Array> {
  constructor(initial = 1024) {
    super((n) => new Uint8Array(n), initial);
  }
}

/** A growable Int32Array by URL id (ids of other URLs, small indexes). */
export class Int32ById extends IntById<Int32Array> {
  constructor(initial = 1024) {
    super((n) => new Int32Array(n), initial);
  }
}
