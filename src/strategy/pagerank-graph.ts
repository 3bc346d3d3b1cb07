/**
 * A sparse directed graph over URL ids (dense positive integers) that grows while a crawl runs,
 * and PageRank on it by power iteration (the engine of partial-pagerank).
 *
 * Storage: per-node typed arrays indexed by id (present flag, first edge, out-degree) and one
 * growable Int32Array of edge targets. A node's out-links are one contiguous run of that array;
 * adding links to a node that already has some appends the union as a new run (the old run is left
 * as garbage: a fetched page gets its links once, so this is rare). No per-edge JS objects.
 *
 * PageRank, the seed-003 (non-normalised) form, initial value 1:
 *
 *     IR(p) = (1 − d) + d · Σ IR(a) / c(a)   over the nodes a linking to p, c(a) = out-degree of a
 *
 * Dangling nodes (queued URLs, whose links are not known yet, failed pages, pages without links)
 * pass nothing on: the share they would give is dropped, not spread over all nodes. The map
 * x ↦ (1 − d) + d·M·x is then a contraction of factor d in the L1 norm (every column of M sums to
 * 1 or 0), so the iteration converges to the unique fixed point from any start, and every score is
 * at least 1 − d. One iteration is O(nodes + edges): the out-links are walked once, pushing
 * d·IR(a)/c(a) to each target. It stops when Σ|IR_k+1 − IR_k| ≤ tolerance · nodes (then the L1
 * distance to the fixed point is at most d/(1 − d) times that), or at the iteration cap.
 *
 * Runs start from the previous run's scores (nodes added since start at 1): a crawl adds few links
 * between two runs, so few iterations are needed. `restart` starts every node at 1 again.
 */

export interface PageRankOptions {
  /** damping factor d, in (0, 1) */
  damping: number;
  /** stop when the mean absolute change per node of one iteration is at most this (default 1e-6) */
  tolerance?: number;
  /** iteration cap (default 100) */
  maxIterations?: number;
  /** start every node at 1 instead of the previous run's scores */
  restart?: boolean;
}

export interface PageRankRun {
  iterations: number;
  /** Σ|IR_k+1 − IR_k| of the last iteration */
  delta: number;
  converged: boolean;
  nodes: number;
  edges: number;
}

export const DEFAULT_TOLERANCE = 1e-6;
export const DEFAULT_MAX_ITERATIONS = 100;

export class PageRankGraph {
  private cap = 0;
  private present = new Uint8Array(0);
  private outStart = new Int32Array(0);
  private outCount = new Int32Array(0);
  private stamp = new Int32Array(0);
  private rankA = new Float64Array(0);
  private rankB = new Float64Array(0);
  private targets = new Int32Array(1 << 12);
  private used = 0;
  private sources = new Int32Array(1 << 10);
  private nSources = 0;
  private nNodes = 0;
  private nEdges = 0;
  private maxId = 0;
  private stampSeq = 0;

  /** Number of nodes. */
  get nodeCount(): number {
    return this.nNodes;
  }

  /** Number of distinct edges. */
  get edgeCount(): number {
    return this.nEdges;
  }

  /** Largest node id so far (0 when empty). */
  get maxNodeId(): number {
    return this.maxId;
  }

  has(id: number): boolean {
    return id > 0 && id < this.cap && this.present[id] === 1;
  }

  /** Adds a node (no-op if present); it starts with score 1. Ids must be positive integers. */
  addNode(id: number): void {
    if (!Number.isInteger(id) || id <= 0) throw new RangeError(`node id must be a positive integer, got ${id}`);
    if (id >= this.cap) this.grow(id + 1);
    if (this.present[id]) return;
    this.present[id] = 1;
    this.rankA[id] = 1;
    this.nNodes++;
    if (id > this.maxId) this.maxId = id;
  }

  /**
   * Adds edges from `from` to each of `to` (both added as nodes if new). Duplicates, within the
   * call or with edges `from` already has, count once. Returns the out-degree of `from` after.
   */
  addEdges(from: number, to: ArrayLike<number>): number {
    this.addNode(from);
    for (let i = 0; i < to.length; i++) this.addNode(to[i]);
    const seq = this.nextStamp();
    const oldCount = this.outCount[from];
    const oldStart = this.outStart[from];
    for (let e = oldStart; e < oldStart + oldCount; e++) this.stamp[this.targets[e]] = seq;
    let fresh = 0;
    for (let i = 0; i < to.length; i++) if (this.stamp[to[i]] !== seq) (this.stamp[to[i]] = seq), fresh++;
    if (fresh === 0) return oldCount;
    const count = oldCount + fresh;
    this.reserveEdges(count);
    const start = this.used;
    // the old run is copied first so its targets keep their order; fresh ones follow
    this.targets.copyWithin(start, oldStart, oldStart + oldCount);
    let w = start + oldCount;
    const seq2 = this.nextStamp();
    for (let e = start; e < w; e++) this.stamp[this.targets[e]] = seq2;
    for (let i = 0; i < to.length; i++) {
      const t = to[i];
      if (this.stamp[t] !== seq2) (this.stamp[t] = seq2), (this.targets[w++] = t);
    }
    this.used = w;
    if (oldCount === 0) this.pushSource(from);
    this.outStart[from] = start;
    this.outCount[from] = count;
    this.nEdges += fresh;
    return count;
  }

  /** Out-degree of a node (0 if unknown or dangling). */
  outDegree(id: number): number {
    return id > 0 && id < this.cap ? this.outCount[id] : 0;
  }

  /** Out-link targets of a node (a copy). */
  outlinks(id: number): number[] {
    const n = this.outDegree(id);
    return n ? Array.from(this.targets.subarray(this.outStart[id], this.outStart[id] + n)) : [];
  }

  /** Score of a node from the last run (1 for a node added since; NaN if unknown). */
  rank(id: number): number {
    return this.has(id) ? this.rankA[id] : NaN;
  }

  /** Scores by id after the last run (index 0 and absent ids hold 0). A view: read it before the next change. */
  ranks(): Float64Array {
    return this.rankA.subarray(0, this.maxId + 1);
  }

  /** Runs PageRank (see the file header) over every node and edge added so far. */
  compute(opts: PageRankOptions): PageRankRun {
    const d = opts.damping;
    if (!(d > 0 && d < 1)) throw new RangeError(`damping must be in (0, 1), got ${d}`);
    const tol = (opts.tolerance ?? DEFAULT_TOLERANCE) * this.nNodes;
    const cap = opts.maxIterations ?? DEFAULT_MAX_ITERATIONS;
    const n = this.maxId + 1;
    const present = this.present;
    const outStart = this.outStart;
    const outCount = this.outCount;
    const targets = this.targets;
    const sources = this.sources;
    const nSources = this.nSources;
    const base = 1 - d;
    let x = this.rankA;
    let y = this.rankB;
    if (opts.restart) for (let i = 0; i < n; i++) x[i] = present[i];
    let iterations = 0;
    let delta = Infinity;
    while (iterations < cap && !(delta <= tol)) {
      for (let i = 0; i < n; i++) y[i] = base * present[i];
      for (let k = 0; k < nSources; k++) {
        const s = sources[k];
        const start = outStart[s];
        const end = start + outCount[s];
        const share = (d * x[s]) / outCount[s];
        for (let e = start; e < end; e++) y[targets[e]] += share;
      }
      delta = 0;
      for (let i = 0; i < n; i++) delta += Math.abs(y[i] - x[i]);
      const t = x;
      x = y;
      y = t;
      iterations++;
    }
    this.rankA = x;
    this.rankB = y;
    return { iterations, delta: iterations ? delta : 0, converged: delta <= tol, nodes: this.nNodes, edges: this.nEdges };
  }

  private nextStamp(): number {
    if (this.stampSeq === 0x7fffffff) {
      this.stamp.fill(0);
      this.stampSeq = 0;
    }
    return ++this.stampSeq;
  }

  private pushSource(id: number): void {
    if (this.nSources === this.sources.length) this.sources = growInt32(this.sources, this.nSources * 2);
    this.sources[this.nSources++] = id;
  }

  private reserveEdges(extra: number): void {
    const need = this.used + extra;
    if (need <= this.targets.length) return;
    if (need > 0x7fffffff) throw new RangeError('too many edges for the PageRank graph');
    this.targets = growInt32(this.targets, Math.min(0x7fffffff, Math.max(need, this.targets.length * 2)));
  }

  private grow(min: number): void {
    const cap = Math.max(min, this.cap * 2, 1024);
    const u8 = new Uint8Array(cap);
    u8.set(this.present);
    this.present = u8;
    this.outStart = growInt32(this.outStart, cap);
    this.outCount = growInt32(this.outCount, cap);
    this.stamp = growInt32(this.stamp, cap);
    const a = new Float64Array(cap);
    a.set(this.rankA);
    this.rankA = a;
    this.rankB = new Float64Array(cap);
    this.cap = cap;
  }
}

function growInt32(a: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(size);
  b.set(a.subarray(0, Math.min(a.length, size)));
  return b;
}
