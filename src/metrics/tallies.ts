/**
 * Counts by key, for the live page's tables (top hosts, errors by kind): O(1) per count, the top k
 * read by one pass (k small), never a sort of every key.
 */
export class Tallies<V extends object> {
  private readonly byKey = new Map<string, V>();

  constructor(private readonly fresh: () => V) {}

  /** The entry of `key`, created if new, to be counted on by the caller. */
  of(key: string): V {
    let v = this.byKey.get(key);
    if (v === undefined) this.byKey.set(key, (v = this.fresh()));
    return v;
  }

  get size(): number {
    return this.byKey.size;
  }

  /** The k entries with the highest `score`, highest first (ties: first counted first). */
  top(k: number, score: (v: V) => number): { key: string; value: V }[] {
    const best: { key: string; value: V; s: number }[] = [];
    for (const [key, value] of this.byKey) {
      const s = score(value);
      if (best.length === k && s <= best[k - 1].s) continue;
      let i = best.length;
      while (i > 0 && best[i - 1].s < s) i--;
      best.splice(i, 0, { key, value, s });
      if (best.length > k) best.pop();
    }
    return best.map(({ key, value }) => ({ key, value }));
  }
}
