import { tokenize } from '../relevance/tokenize.js';
import { urlWords } from '../url/url-words.js';
import { directoryOf } from './directory-yield.js';
import type { LinkModel } from './link-model.js';
import { createLocationMetric } from './location-metric.js';
import type { StrategyConfig } from './strategy.js';

/**
 * The features of a link for the online link model (link-model.ts), from what the crawl file keeps
 * of it, so that a resumed crawl rebuilds them exactly: the URL, the anchor text, and the page that
 * linked to it (its URL, relevance, class and depth).
 *
 * Static features (fixed once the link is known):
 * - `prior`: best-first's I(p) = x·IB + y·IL + z·ID, with IB the larger of the linking page's
 *   relevance and the anchor text's (best-first's IB without the link context's share, which the
 *   crawl file cannot rebuild); the model starts as a monotone function of it (link-model.ts);
 * - `ib`, `il` (−0.5 … 0.5), `id`: the three terms on their own;
 * - `pc:0|1|seed`: the linking page's class (relevant or not; none for a seed);
 * - `dep:k`: depth (6 and more together); `sh`: the link stays on the linking page's host;
 * - `h:host`, `d:directory`: where the URL lives;
 * - `u:word`: the words of the URL (host and path), `a:token`: the anchor text's tokens (the
 *   relevance tokeniser's stems and CJK words; `a:` alone for an empty anchor), each group
 *   weighted 1/√n so that long URLs and anchors do not outweigh short ones.
 * Dynamic features (read when the link is scored, from the crawl so far): `hy`, `dy` and `py`, the
 * yield of the URL's host, of its directory and of the pages found through the same linking page
 * (its siblings): (relevant + 1)/(recorded + 2) − 0.5, 0 while nothing is known (link-places.ts).
 *
 * Link context (the text around the link) is not a feature: the crawl file keeps only the anchor.
 */

export interface LinkParent {
  url: string;
  relevance: number;
  relevant: boolean;
  depth: number;
}

/** Most words taken from a URL and from an anchor. */
const MAX_WORDS = 12;

export class LinkFeaturizer {
  /** scratch output of {@link LinkFeaturizer.build}: the first `n` entries are the link's features */
  readonly idx = new Int32Array(64);
  readonly val = new Float64Array(64);
  n = 0;
  /** I(p), host and directory of the last built link */
  prior = 0;
  host = '';
  dir = '';
  readonly hostYield: number;
  readonly dirYield: number;
  readonly parentYield: number;
  private readonly il: (url: string) => number;
  /** anchors repeat (navigation): their tokens, remembered (bounded) */
  private anchorTokens = new Map<string, string[]>();
  private readonly saved = {
    idx: new Int32Array(4096), val: new Float64Array(4096), end: 0, count: 0,
    links: [] as { off: number; n: number; host: string; dir: string; prior: number }[],
  };
  private parentUrl = '';
  private parentHost = '';

  constructor(
    private readonly model: LinkModel,
    private readonly cfg: Pick<StrategyConfig, 'x' | 'y' | 'z' | 'location'>,
  ) {
    this.il = createLocationMetric(cfg.location);
    this.hostYield = model.index('hy');
    this.dirYield = model.index('dy');
    this.parentYield = model.index('py');
  }

  private push(name: string, value: number): void {
    if (this.n >= this.idx.length) return;
    this.idx[this.n] = this.model.index(name);
    this.val[this.n] = value;
    this.n++;
  }

  /**
   * Builds the static features of a link to `url` with `anchor` (and its relevance, `anchorScore`)
   * from `parent` (null: a seed). `location`: the URL's IL when page analysis computed it with the
   * topic's weights (LinkInfo.location), else computed here.
   */
  build(url: string, anchor: string, anchorScore: number, parent: LinkParent | null, location?: number): void {
    this.n = 0;
    const depth = parent ? parent.depth + 1 : 0;
    const ib = Math.min(1, Math.max(0, parent ? parent.relevance : 0, anchorScore));
    const il = location ?? this.il(url);
    const id = 1 / (1 + depth);
    this.prior = this.cfg.x * ib + this.cfg.y * il + this.cfg.z * id;
    this.push('bias', 1);
    this.push('prior', this.prior);
    this.push('ib', ib);
    this.push('il', il - 0.5);
    this.push('id', id);
    this.push(parent ? (parent.relevant ? 'pc:1' : 'pc:0') : 'pc:seed', 1);
    this.push(`dep:${Math.min(depth, 6)}`, 1);
    let u: URL | null = null;
    try {
      u = new URL(url);
    } catch {
      // not a URL the crawl would queue; its string features only
    }
    this.host = u ? u.hostname : '';
    if (u) {
      this.push(`h:${u.hostname}`, 1);
      if (parent && this.hostOfParent(parent.url) === u.hostname) this.push('sh', 1);
      this.bag('u:', urlWords(u));
    }
    this.dir = directoryOf(url);
    this.push(`d:${this.dir}`, 1);
    const tokens = this.tokensOf(anchor);
    if (tokens.length === 0) this.push('a:', 1);
    else this.bag('a:', tokens);
  }

  /**
   * Keeps a copy of the last built link's features as number `slot` of a page's links (slot 0
   * starts the page over); {@link LinkFeaturizer.restore} brings it back.
   */
  save(slot: number): void {
    const s = this.saved;
    if (slot === 0) s.end = 0;
    if (s.end + this.n > s.idx.length) {
      const idx = new Int32Array(2 * (s.end + this.n));
      idx.set(s.idx.subarray(0, s.end));
      const val = new Float64Array(idx.length);
      val.set(s.val.subarray(0, s.end));
      s.idx = idx;
      s.val = val;
    }
    s.idx.set(this.idx.subarray(0, this.n), s.end);
    s.val.set(this.val.subarray(0, this.n), s.end);
    s.links[slot] = { off: s.end, n: this.n, host: this.host, dir: this.dir, prior: this.prior };
    s.end += this.n;
    s.count = slot + 1;
  }

  /** How many links of the page in hand were saved. */
  get savedCount(): number {
    return this.saved.count;
  }

  /** Makes saved link `slot` the last built one, as if it had been built again. */
  restore(slot: number): void {
    const s = this.saved;
    const l = s.links[slot];
    this.idx.set(s.idx.subarray(l.off, l.off + l.n));
    this.val.set(s.val.subarray(l.off, l.off + l.n));
    this.n = l.n;
    this.host = l.host;
    this.dir = l.dir;
    this.prior = l.prior;
  }

  /** Forgets the saved links. */
  clearSaved(): void {
    this.saved.count = 0;
    this.saved.end = 0;
  }

  private hostOfParent(url: string): string {
    if (url !== this.parentUrl) {
      this.parentUrl = url;
      this.parentHost = hostOf(url);
    }
    return this.parentHost;
  }

  private tokensOf(anchor: string): string[] {
    if (!anchor) return [];
    let t = this.anchorTokens.get(anchor);
    if (t === undefined) {
      if (this.anchorTokens.size >= 20_000) this.anchorTokens = new Map();
      t = tokenize(anchor);
      this.anchorTokens.set(anchor, t);
    }
    return t;
  }

  /** Distinct words with a prefix, each weighted 1/√(their number). */
  private bag(prefix: string, words: readonly string[]): void {
    const distinct = [...new Set(words)].slice(0, MAX_WORDS);
    const v = 1 / Math.sqrt(distinct.length);
    for (const w of distinct) this.push(prefix + w, v);
  }
}

export function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}
