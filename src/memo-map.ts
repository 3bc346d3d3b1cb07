/**
 * A bounded memo of two generations, for answers that repeat across pages (a site's navigation):
 * entries go into the young generation; when it holds `max / 2`, it becomes the old one and the
 * previous old one is dropped. An entry found in the old generation moves to the young one. So an
 * entry in use survives a turnover, where a map emptied when full loses everything at once (and
 * computes the navigation's answers again); an entry unused for a whole generation is dropped.
 * Holds at most `max` entries.
 */
export class MemoMap<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private readonly half: number;

  constructor(max: number) {
    this.half = Math.max(1, Math.floor(max / 2));
  }

  get(key: K): V | undefined {
    const v = this.young.get(key);
    if (v !== undefined) return v;
    const o = this.old.get(key);
    if (o === undefined) return undefined;
    this.set(key, o); // (out of the old generation)
    return o;
  }

  set(key: K, value: V): void {
    this.old.delete(key);
    if (this.young.size >= this.half && !this.young.has(key)) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }

  /** Forgets a key (in either generation). */
  delete(key: K): void {
    this.young.delete(key);
    this.old.delete(key);
  }

  /** Entries held (both generations). */
  get size(): number {
    return this.young.size + this.old.size;
  }
}
