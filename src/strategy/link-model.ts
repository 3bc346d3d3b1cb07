/**
 * The online link model of the `learning` strategy: logistic regression on hashed link features,
 * learnt one fetched page at a time. P(the page a link leads to is relevant) = σ(Σ wᵢ·xᵢ).
 *
 * - Features are hashed into 2^bits weights (FNV-1a of the feature's name; collisions are shared
 *   weights, as in Vowpal Wabbit). A link's features are a sparse vector: `idx[i]` / `val[i]`.
 * - Prior: every weight starts at 0 except the bias and the `prior` feature (the link's best-first
 *   score I(p), in [0,1]): σ(priorWeight·I − priorWeight/2) orders links exactly as I(p) does, so
 *   before the model has seen anything the crawl behaves as best-first does.
 * - Learning: one AdaGrad step per example (outcome in [0, 1]) (a step of `rate`/√(Σ g²) per weight), with an L2 pull of
 *   `l2` towards each weight's starting value, applied to the weights the example touches. A step
 *   costs O(features of the link): microseconds.
 * - `seen[i]` counts the examples in which feature i was present: the model's certainty about it.
 *
 * Deterministic: the same examples in the same order give the same weights, bit for bit (the resume
 * of a crawl replays them; see learning.ts).
 */

import { fnv1a } from '../relevance/text-features.js';

export interface LinkModelOptions {
  bits: number;
  rate: number;
  l2: number;
  priorWeight: number;
}

export const DEFAULT_MODEL: LinkModelOptions = { bits: 18, rate: 0.2, l2: 1e-4, priorWeight: 8 };

export { fnv1a };

export const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/** Examples needed on each side (relevant and not, alive and dead) before the learnt weights are trusted fully: see {@link LinkModel.contrast}. */
export const CONTRAST_EXAMPLES = 10;

export class LinkModel {
  readonly mask: number;
  readonly bias: number;
  readonly prior: number;
  private readonly starts = new Map<number, number>();
  private readonly w: Float64Array;
  private readonly g2: Float64Array;
  private readonly seen: Uint32Array;
  /** the first name hashed into each weight seen so far (for explain) */
  private readonly names = new Map<number, string>();
  examples = 0;
  positives = 0;

  constructor(readonly opts: LinkModelOptions = DEFAULT_MODEL) {
    const size = 2 ** opts.bits;
    this.mask = size - 1;
    this.w = new Float64Array(size);
    this.g2 = new Float64Array(size);
    this.seen = new Uint32Array(size);
    this.bias = this.index('bias');
    this.prior = this.index('prior');
    this.starts.set(this.bias, -opts.priorWeight / 2);
    this.starts.set(this.prior, opts.priorWeight);
    for (const [i, v] of this.starts) this.w[i] = v;
  }

  /** The weight index of a feature name (remembered for explain). */
  index(name: string): number {
    const i = fnv1a(name) & this.mask;
    if (!this.names.has(i)) this.names.set(i, name);
    return i;
  }

  /** Starting value of weight i (what L2 pulls towards). */
  private start(i: number): number {
    return this.starts.get(i) ?? 0;
  }

  /** The weight of feature index i. */
  weight(i: number): number {
    return this.w[i];
  }

  /** Σ wᵢ·xᵢ over the `n` entries from `off` (default 0). */
  logit(idx: ArrayLike<number>, val: ArrayLike<number>, n: number, off = 0): number {
    let z = 0;
    for (let k = off; k < off + n; k++) z += this.w[idx[k]] * val[k];
    return z;
  }

  /** Σ startᵢ·xᵢ: the logit of the starting weights alone (the prior), over the same entries as {@link logit}. */
  priorLogit(idx: ArrayLike<number>, val: ArrayLike<number>, n: number, off = 0): number {
    let z = 0;
    for (let k = off; k < off + n; k++) {
      const i = idx[k];
      if (i === this.bias || i === this.prior) z += this.start(i) * val[k];
    }
    return z;
  }

  /**
   * How far the learnt weights are trusted over the prior, in [0, 1]: the smaller of the examples
   * seen on each side (y ≥ 0.5 and y < 0.5) over CONTRAST_EXAMPLES. Examples all on one side (every
   * page relevant, or every link alive) teach the model no order between links, only that the
   * features it met are good: until both sides have been seen, its score leans on the prior.
   */
  contrast(): number {
    return Math.min(1, Math.min(this.positives, this.examples - this.positives) / CONTRAST_EXAMPLES);
  }

  /**
   * One AdaGrad step on the example (idx, val) with outcome y ∈ [0, 1] (a soft target: the
   * cross-entropy gradient σ(z) − y); `positives` counts the examples with y ≥ 0.5.
   */
  learn(idx: ArrayLike<number>, val: ArrayLike<number>, n: number, y: number): void {
    const err = sigmoid(this.logit(idx, val, n)) - y;
    const { rate, l2 } = this.opts;
    for (let k = 0; k < n; k++) {
      const i = idx[k];
      const g = err * val[k] + l2 * (this.w[i] - this.start(i));
      this.g2[i] += g * g;
      if (this.g2[i] > 0) this.w[i] -= (rate * g) / Math.sqrt(this.g2[i]);
      if (this.seen[i] < 0xffffffff) this.seen[i]++;
    }
    this.examples++;
    if (y >= 0.5) this.positives++;
  }

  /**
   * How unsure the model is about a link: the mean of 1/√(1 + examples seen) over its features
   * other than the bias and the prior. 1 for a link made only of unseen features, towards 0 as they
   * are learnt.
   */
  uncertainty(idx: ArrayLike<number>, n: number): number {
    let s = 0;
    let m = 0;
    for (let k = 0; k < n; k++) {
      const i = idx[k];
      if (i === this.bias || i === this.prior) continue;
      s += 1 / Math.sqrt(1 + this.seen[i]);
      m++;
    }
    return m === 0 ? 0 : s / m;
  }

  /** The `top` largest contributions wᵢ·xᵢ of a link by magnitude, with the features' names. */
  contributions(idx: ArrayLike<number>, val: ArrayLike<number>, n: number, top: number): { feature: string; weight: number; value: number }[] {
    const out: { feature: string; weight: number; value: number }[] = [];
    for (let k = 0; k < n; k++) out.push({ feature: this.names.get(idx[k]) ?? `#${idx[k]}`, weight: this.w[idx[k]], value: val[k] });
    return out.sort((a, b) => Math.abs(b.weight * b.value) - Math.abs(a.weight * a.value)).slice(0, top);
  }

  /** A digest of the weights' exact bits (resume tests compare models with it). */
  checksum(): number {
    const bits = new Uint32Array(this.w.buffer);
    let h = 0x811c9dc5;
    for (let i = 0; i < bits.length; i++) h = Math.imul(h ^ bits[i], 0x01000193);
    return h >>> 0;
  }
}
