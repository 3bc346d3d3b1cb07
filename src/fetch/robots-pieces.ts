/**
 * Every occurrence of many pieces in one path, in one pass (Aho–Corasick), for robots.txt files with
 * many wildcard rules that are all candidates for a path (rules starting with "/*" have no literal
 * prefix to index by). With the occurrences at hand, a rule's greedy match is a binary search per
 * piece instead of a scan of the path, so a check costs O(path + occurrences + Σ pieces · log path)
 * however many rules there are. Occurrences per position are at most the number of distinct pieces
 * that end there, all suffixes of one another: fewer than √(2 · total piece length).
 *
 * Pieces are canonical robots.txt text (robots-pattern.ts): ASCII only.
 */
export class PieceIndex {
  /** Transitions: state · 128 + character → state. */
  private readonly next = new Map<number, number>();
  private fail: Int32Array = new Int32Array(0);
  /** The piece ending at a state (−1: none), and the nearest state on the fail chain that ends one. */
  private out: number[] = [0];
  private outLink: Int32Array = new Int32Array(0);
  private readonly lengths: number[] = [];
  private readonly ids = new Map<string, number>();
  private states = 1;
  private built = false;

  constructor() {
    this.out[0] = -1;
  }

  /** The id of a (non-empty) piece, added if new. Call before {@link build}. */
  add(piece: string): number {
    const known = this.ids.get(piece);
    if (known !== undefined) return known;
    const id = this.lengths.length;
    this.ids.set(piece, id);
    this.lengths.push(piece.length);
    let s = 0;
    for (let i = 0; i < piece.length; i++) {
      const key = s * 128 + piece.charCodeAt(i);
      let t = this.next.get(key);
      if (t === undefined) {
        t = this.states++;
        this.next.set(key, t);
        this.out[t] = -1;
      }
      s = t;
    }
    this.out[s] = id;
    return id;
  }

  get size(): number {
    return this.lengths.length;
  }

  /** Computes the fail links (breadth first). */
  build(): void {
    const children: number[][] = Array.from({ length: this.states }, () => []);
    for (const key of this.next.keys()) children[Math.floor(key / 128)].push(key);
    this.fail = new Int32Array(this.states);
    this.outLink = new Int32Array(this.states).fill(-1);
    const queue: number[] = [];
    for (const key of children[0]) queue.push(this.next.get(key)!);
    for (let h = 0; h < queue.length; h++) {
      const s = queue[h];
      const f = this.fail[s];
      this.outLink[s] = this.out[f] >= 0 ? f : this.outLink[f];
      for (const key of children[s]) {
        const t = this.next.get(key)!;
        const c = key % 128;
        let g = f;
        let to = -1;
        for (;;) {
          to = s === 0 ? -1 : (this.next.get(g * 128 + c) ?? -1);
          if (to >= 0 || g === 0) break;
          g = this.fail[g];
        }
        this.fail[t] = to >= 0 && to !== t ? to : 0;
        queue.push(t);
      }
    }
    this.built = true;
  }

  /** Start positions of every piece in `s`, ascending, by piece id (undefined: the piece does not occur). */
  scan(s: string): (number[] | undefined)[] {
    if (!this.built) this.build();
    const occ: (number[] | undefined)[] = new Array(this.lengths.length);
    let state = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      for (;;) {
        const t = c < 128 ? this.next.get(state * 128 + c) : undefined;
        if (t !== undefined) {
          state = t;
          break;
        }
        if (state === 0) break;
        state = this.fail[state];
      }
      for (let o = this.out[state] >= 0 ? state : this.outLink[state]; o >= 0; o = this.outLink[o]) {
        const id = this.out[o];
        (occ[id] ??= []).push(i - this.lengths[id] + 1);
      }
    }
    return occ;
  }
}

/** The first value ≥ pos in an ascending list, or −1. */
export function firstAtOrAfter(list: number[] | undefined, pos: number): number {
  if (!list) return -1;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] < pos) lo = mid + 1;
    else hi = mid;
  }
  return lo < list.length ? list[lo] : -1;
}
