import { childLife } from './fish-life.js';
import { Float64ById, Int32ById, Uint8ById } from './id-arrays.js';
import { hostOf, LinkFeaturizer, type LinkParent } from './link-features.js';
import { directoryOf } from './directory-yield.js';
import { DEFAULT_MODEL, LinkModel, sigmoid } from './link-model.js';
import { LinkPlaces } from './link-places.js';
import type { LinkDecision, LinkInfo, PageInfo, PriorityUpdate, ResumeState, Strategy, StrategyConfig } from './strategy.js';

/**
 * learning: best-first-fish whose priority is learnt while crawling (Chakrabarti's "apprentice",
 * ACHE's online link classifier). Every recorded page is an example for the link that found it:
 * its features (link-features.ts) and its outcome. Two online logistic regressions on hashed
 * features (link-model.ts) learn from it at once: `alive`, P(the link leads to a page with content)
 * (a 404, an error or a page that is not HTML: 0), and `model`, the relevance the page will have
 * (learnt from pages with content only, its target the page's relevance in [0, 1], not the 0/1 of
 * the threshold). A link's score is their product, its priority the score × best-first's directory
 * yield factor. Before any example the score is a monotone function of best-first's I(p).
 *
 * - Which link: the first page that linked to the URL, or a later one whose link the model scores
 *   higher at the time it is seen (the model has then learnt from the same pages in both cases).
 * - Places (link-places.ts): the yields of the URL's host, directory and linking page (its
 *   siblings) are features; when a page is recorded, the URLs waiting in its directory and among
 *   its siblings are re-scored at once (a course list whose first course page was relevant lifts
 *   the others before the next fetch).
 * - Re-ranking: every `learn_every` recorded pages, queued URLs are re-scored round-robin, at most
 *   `rescore_budget` of them per round. Re-scored URLs whose priority moved by more than
 *   RESCORE_DELTA (0.02; measured against 10% of the priority: webkb's harvest 0.168 against 0.137
 *   at 500 pages) get it through takeUpdates().
 * - Exploration: a share `explore` of the pages recorded goes to links the model is unsure about
 *   (uncertainty above UNSURE: their features are mostly unseen, see LinkModel.uncertainty): each
 *   recorded page earns `explore` of a credit; a new link that is unsure when a whole credit is
 *   there spends it and is queued at priority 1 + P (ahead of every learnt priority, which are < 1).
 * - Life and pruning are Fish-Search's, as best-first-fish's.
 * - Resume: the models are rebuilt by replaying the crawl file's history in fetch order with the
 *   same features (ResumeState.linkedHistory), so a resumed crawl has the models it had, bit for bit.
 * Not for a shared frontier: the model is per process.
 */
export const RESCORE_DELTA = 0.02;
export const UNSURE = 0.6;

const TRACKED = 1;
const RECORDED = 2;

export function createLearning(cfg: StrategyConfig): Strategy {
  const model = new LinkModel(DEFAULT_MODEL);
  // no prior: P(alive) starts at 1/2 for every link, so the score starts as the model's
  const alive = new LinkModel({ ...DEFAULT_MODEL, priorWeight: 0 });
  const fx = new LinkFeaturizer(model, cfg);
  const every = Math.max(1, cfg.learn_every);
  const budget = Math.max(0, cfg.rescore_budget);
  const share = Math.min(1, Math.max(0, cfg.explore));

  // features of each tracked URL, in two pools: idx/val[off .. off+len)
  let poolIdx = new Int32Array(1 << 16);
  let poolVal = new Float32Array(1 << 16);
  let poolEnd = 0;
  const off = new Int32ById();
  const len = new Uint8ById();
  const state = new Uint8ById();
  const boosted = new Uint8ById();
  const given = new Float64ById();
  const hostIx = new Int32ById();
  const dirIx = new Int32ById();
  const parIx = new Int32ById();
  const places = new LinkPlaces();
  const k = cfg.feedback;
  const factorOf = (d: number) => places.factorOf(d, k);
  const yieldOf = (i: number) => places.yieldOf(i);
  const waiting: number[] = [];
  let cursor = 0;
  let recorded = 0;
  let credit = 0;
  let explored = 0;
  let rescored = 0;
  /** the priority onPageFetched gave each link of the page in hand */
  let decided: number[] = [];

  const dynamic = (m: LinkModel, h: number, d: number, p: number) =>
    m.weight(fx.hostYield) * yieldOf(h) + m.weight(fx.dirYield) * yieldOf(d) + m.weight(fx.parentYield) * yieldOf(p);
  /** relevance × P(alive) of features idx/val[o .. o+n) at places h, d, p */
  const score = (idx: ArrayLike<number>, val: ArrayLike<number>, n: number, o: number, h: number, d: number, p: number) =>
    sigmoid(leaned(model, idx, val, n, o, h, d, p)) * sigmoid(leaned(alive, idx, val, n, o, h, d, p));
  /** a model's logit, leaning on its prior until it has seen examples on both sides (LinkModel.contrast) */
  const leaned = (m: LinkModel, idx: ArrayLike<number>, val: ArrayLike<number>, n: number, o: number, h: number, d: number, p: number) => {
    const c = m.contrast();
    const learnt = m.logit(idx, val, n, o) + dynamic(m, h, d, p);
    return c >= 1 ? learnt : c * learnt + (1 - c) * m.priorLogit(idx, val, n, o);
  };
  /** score of a tracked URL with its stored features */
  const scoreOf = (id: number) => score(poolIdx, poolVal, len.get(id), off.get(id), hostIx.get(id), dirIx.get(id), parIx.get(id));
  /** score of the features in fx's scratch buffers for a URL */
  const scoreOfScratch = (parent: number) => score(fx.idx, fx.val, fx.n, 0, placeOf('h', fx.host), placeOf('d', fx.dir), parent);
  const placeOf = (kind: string, key: string) => places.find(`${kind}${key}`);
  const place = (kind: string, key: string) => places.place(`${kind}${key}`);

  /** Stores fx's scratch features as URL `id`'s, found on parent place `par` (replacing any it had), and tracks it. */
  const store = (id: number, par: number) => {
    if (poolEnd + fx.n > poolIdx.length) {
      const size = Math.max(poolIdx.length * 2, poolEnd + fx.n);
      const i2 = new Int32Array(size);
      i2.set(poolIdx.subarray(0, poolEnd));
      const v2 = new Float32Array(size);
      v2.set(poolVal.subarray(0, poolEnd));
      poolIdx = i2;
      poolVal = v2;
    }
    off.set(id, poolEnd);
    len.set(id, fx.n);
    poolIdx.set(fx.idx.subarray(0, fx.n), poolEnd);
    for (let k = 0; k < fx.n; k++) poolVal[poolEnd + k] = fx.val[k];
    poolEnd += fx.n;
    hostIx.set(id, place('h', fx.host));
    const d = place('d', fx.dir);
    dirIx.set(id, d);
    if (parIx.get(id) !== par) places.join(par, id);
    parIx.set(id, par);
    if (state.get(id) !== TRACKED) {
      state.set(id, TRACKED);
      waiting.push(id);
      places.join(d, id);
    }
  };

  /** A link to `id` (`url`, `anchor`) from `parent`: tracked if new, its features replaced if this link scores higher. */
  const linkTo = (id: number, url: string, anchor: string, anchorScore: number, parent: LinkParent | null, saved = -1) => {
    const s = state.get(id);
    if (s === RECORDED) return;
    if (saved >= 0) fx.restore(saved);
    else fx.build(url, anchor, anchorScore, parent);
    const par = parent ? place('p', parent.url) : 0;
    if (s === TRACKED && scoreOfScratch(par) <= scoreOf(id)) return;
    store(id, par);
  };

  const isRedirect = (page: PageInfo, ids: readonly number[]) => page.relevance === null && ids.length > 0;

  /**
   * The recorded page teaches the models (if the strategy knew the link to it) and the yields; a
   * redirect teaches neither (the link led on to its target, whose own outcome counts, as in
   * directory-yield.ts).
   */
  const learnFrom = (page: PageInfo, ids: readonly number[]) => {
    recorded++;
    credit += share;
    if (isRedirect(page, ids)) {
      state.set(page.id, RECORDED);
      return;
    }
    if (state.get(page.id) === TRACKED) {
      const o = off.get(page.id);
      const n = len.get(page.id);
      // the dynamic features as they were before this page: copied into the example
      const idx = Array.from(poolIdx.subarray(o, o + n));
      const val = Array.from(poolVal.subarray(o, o + n));
      idx.push(fx.hostYield, fx.dirYield, fx.parentYield);
      val.push(yieldOf(hostIx.get(page.id)), yieldOf(dirIx.get(page.id)), yieldOf(parIx.get(page.id)));
      alive.learn(idx, val, idx.length, page.relevance === null ? 0 : 1);
      if (page.relevance !== null) model.learn(idx, val, idx.length, Math.min(1, Math.max(0, page.relevance)));
    }
    state.set(page.id, RECORDED);
    places.count(place('h', hostOf(page.url)), page.relevant, page.relevance, false);
    places.count(place('d', directoryOf(page.url)), page.relevant, page.relevance, true);
    places.count(parIx.get(page.id), page.relevant, page.relevance, true);
  };

  /** Re-scores URL `id` if it waits and was not explored; its new priority if it moved enough. */
  const rescore = (id: number, out: PriorityUpdate[]): boolean => {
    if (state.get(id) !== TRACKED || boosted.get(id)) return false;
    const p = scoreOf(id) * factorOf(dirIx.get(id));
    if (Math.abs(p - given.get(id)) > RESCORE_DELTA) {
      given.set(id, p);
      out.push({ id, priority: p });
    }
    return true;
  };

  const parentOf = (page: PageInfo): LinkParent => ({ url: page.url, relevance: page.relevance ?? 0, relevant: page.relevant, depth: page.depth });

  const decide = (s: number, dir: number, unsure: () => boolean): number => {
    const p = s * factorOf(dir);
    if (credit >= 1 && unsure()) {
      credit -= 1;
      explored++;
      return 1 + p;
    }
    return p;
  };

  return {
    name: 'learning',
    seed(url) {
      fx.build(url, '', 0, null);
      return { priority: scoreOfScratch(0) * factorOf(placeOf('d', fx.dir)), life: cfg.max_life };
    },
    onSeeded(id, url) {
      linkTo(id, url, '', 0, null);
      given.set(id, scoreOf(id) * factorOf(dirIx.get(id)));
    },
    onPageFetched(page: PageInfo, links: LinkInfo[]): (LinkDecision | null)[] {
      const life = childLife(page.life, page.relevant, cfg.max_life);
      const parent = parentOf(page);
      decided = new Array<number>(links.length);
      fx.clearSaved();
      return links.map((l, i): LinkDecision => {
        fx.build(l.url, l.anchor, l.anchorScore ?? 0, parent, l.location);
        // kept for onLinksStored, which gets the same links: not built twice
        fx.save(i);
        // the page's own children: none recorded yet, so its parent yield is 0
        const z = scoreOfScratch(0);
        // a known URL keeps the better of its priority and this link's
        const dir = placeOf('d', fx.dir);
        const priority = l.known ? Math.max(z * factorOf(dir), l.known.priority) : decide(z, dir, () => model.uncertainty(fx.idx, fx.n) > UNSURE);
        decided[i] = priority;
        const best = Math.max(life, l.known?.life ?? 0);
        if (best <= 0) return { prune: true, priority, life: 0 };
        return { priority, life: best };
      });
    },
    onLinksStored(page, links, ids) {
      learnFrom(page, ids);
      if (isRedirect(page, ids)) return;
      const parent = parentOf(page);
      for (let i = 0; i < links.length; i++) {
        linkTo(ids[i], links[i].url, links[i].anchor, links[i].anchorScore ?? 0, parent, fx.savedCount === links.length ? i : -1);
        if (decided[i] !== undefined) {
          given.set(ids[i], decided[i]);
          if (decided[i] >= 1) boosted.set(ids[i], 1);
        }
      }
      decided = [];
      fx.clearSaved();
    },
    takeUpdates(): PriorityUpdate[] {
      const out: PriorityUpdate[] = [];
      // the directory and the siblings of the page just recorded follow their yields at once
      const moved = places.takeDirty((id, i) => state.get(id) === TRACKED && (dirIx.get(id) === i || parIx.get(id) === i));
      for (const id of moved) rescore(id, out);
      if (recorded % every !== 0 || budget === 0 || waiting.length === 0) return out;
      let live = 0;
      for (let k = 0; k < Math.min(budget, waiting.length); k++) {
        if (cursor >= waiting.length) {
          compact();
          if (waiting.length === 0) break;
        }
        if (rescore(waiting[cursor++], out)) live++;
      }
      rescored += live;
      return out;
    },
    resume(rs: ResumeState) {
      const scoreText = rs.scoreText ?? (() => 0);
      for (const s of rs.seeds()) linkTo(s.id, s.url, '', 0, null);
      for (const h of rs.linkedHistory!()) {
        learnFrom(h.page, h.outlinks);
        if (isRedirect(h.page, h.outlinks)) continue;
        const parent = parentOf(h.page);
        for (let i = 0; i < h.outlinks.length; i++) linkTo(h.outlinks[i], h.urls[i], h.anchors[i], scoreText(h.anchors[i]), parent);
      }
      for (const q of rs.queued()) {
        given.set(q.id, q.priority);
        if (q.priority >= 1) boosted.set(q.id, 1);
      }
      waiting.sort((a, b) => a - b);
      places.clearDirty();
      credit = (recorded * share) % 1;
    },
    explain(id) {
      if (state.get(id) === 0) return null;
      const o = off.get(id);
      const top = model.contributions(poolIdx.subarray(o), poolVal.subarray(o), len.get(id), 6);
      return {
        model_score: +scoreOf(id).toFixed(6),
        model_examples: alive.examples,
        model_positives: model.positives,
        host_yield: +yieldOf(hostIx.get(id)).toFixed(4),
        directory_yield: +yieldOf(dirIx.get(id)).toFixed(4),
        sibling_yield: +yieldOf(parIx.get(id)).toFixed(4),
        explored: boosted.get(id) ? 'yes' : 'no',
        largest_features: top.map((t) => `${t.feature}=${+t.value.toFixed(3)}×${+t.weight.toFixed(3)}`).join(', '),
      };
    },
    stats: () => ({ examples: alive.examples, positives: model.positives, explored, rescored, checksum: (model.checksum() ^ Math.imul(alive.checksum(), 31)) >>> 0 }),
  } as Strategy & { stats(): Record<string, number> };

  function compact(): void {
    let w = 0;
    for (const id of waiting) if (state.get(id) === TRACKED) waiting[w++] = id;
    waiting.length = w;
    cursor = 0;
  }
}
