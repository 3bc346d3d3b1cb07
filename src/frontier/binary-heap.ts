/** A plain binary min-heap ordered by `less(a, b)` (true when a must come out before b). */
export class BinaryHeap<T> {
  private items: T[] = [];
  constructor(private readonly less: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(item, a[p])) break;
      a[i] = a[p];
      i = p;
    }
    a[i] = item;
  }

  pop(): T | undefined {
    const a = this.items;
    if (a.length === 0) return undefined;
    const top = a[0];
    const last = a.pop() as T;
    if (a.length > 0) this.siftDown(last, 0);
    return top;
  }

  /** Keeps only the items for which `keep` is true (O(n) rebuild): drops stale entries in bulk. */
  retain(keep: (item: T) => boolean): void {
    this.items = this.items.filter(keep);
    for (let i = (this.items.length >> 1) - 1; i >= 0; i--) this.siftDown(this.items[i], i);
  }

  clear(): void {
    this.items.length = 0;
  }

  /** Places `item` at `i` and moves it down to where it belongs. */
  private siftDown(item: T, i: number): void {
    const a = this.items;
    const n = a.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const m = r < n && this.less(a[r], a[l]) ? r : l;
      if (!this.less(a[m], item)) break;
      a[i] = a[m];
      i = m;
    }
    a[i] = item;
  }
}
