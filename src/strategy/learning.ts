import { childLife } from './fish-life.js';
import { Float64ById, Int32ById, Uint8ById } from './id-arrays.js';
import { hostOf, LinkFeaturizer, type LinkParent } from './link-features.js';
import { directoryOf, yieldFactor } from './directory-yield.js';
import { DEFAULT_MODEL, LinkModel, sigmoid } from './link-model.js';
import type { LinkDecision, LinkInfo, PageInfo, PriorityUpdate, ResumeState, Strategy, StrategyConfig } from './strategy.js';

/**
 * learning: best-first-fish whose priority is learnt while crawling (Chakrabarti's "apprentice",
 * ACHE's online link classifier). Every recorded page is an example for the link that found it:
 * its features (link-features.ts) and whether the page was relevant. An online logistic regression
 * on hashed features (link-model.ts) learns from it at once; a link's priority is the model's
 * P(relevant). Before any example the model orders links as best-first's I(p) does.
 *
 * - Which link: the first page that linked to the URL, or a later one whose link the model scores
 *   higher at the time it is seen (the model has then learnt from the same pages in both cases).
 * - Re-ranking: every `learn_every` recorded pages, queued URLs are re-scored round-robin, at most
 *   `rescore_budget` of them per round, and those whose priority moved by more than RESCORE_DELTA
 *   (0.02; measured against 10% of the priority: webkb's harvest 0.168 against 0.137 at 500 pages,
 *   with 52-77 re-ranked URLs per page against 51) get it through takeUpdates().
 * - Exploration: a share `explore` of the pages recorded goes to links the model is unsure about
 *   (uncertainty above UNSURE: their features are mostly unseen, see LinkModel.uncertainty): each
 *   recorded page earns `explore` of a credit; a new link that is unsure when a whole credit is
 *   there spends it and is queued at priority 1 + P (ahead of every learnt priority, which are < 1).
 * - Life and pruning are Fish-Search's, as best-first-fish's.
 * - Resume: the model is rebuilt by replaying the crawl file's history in fetch order with the same
 *   features (ResumeState.linkedHistory), so a resumed crawl has the model it had, bit for bit.
 * Not for a shared frontier: the model is per process.
 */
export const RESCORE_DELTA = 0.02;
export const UNSURE = 0.6;

const TRACKED = 1;
const RECORDED = 2;

export function createLearning(cfg: StrategyConfig): Strategy {
  const model = new LinkModel(DEFAULT_MODEL);
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
  // per host and directory: relevant and recorded pages (index 0 unused)
  const places = new Map<string, number>();
  const relevantAt: number[] = [0];
  const recordedAt: number[] = [0];
  /** per directory: pages' successes as directory-yield.ts counts them (1 relevant, else its relevance) */
  const softAt: number[] = [0];
  const k = cfg.feedback;
  /** the directory yield factor of best-first (directory-yield.ts) */
  const factorOf = (d: number) => (k > 0 && d > 0 ? yieldFactor(softAt[d], recordedAt[d], k) : 1);
  const waiting: number[] = [];
  let cursor = 0;
  let recorded = 0;
  let credit = 0;
  let explored = 0;
  let rescored = 0;
  /** the priority onPageFetched gave each link of the page in hand */
  let decided: number[] = [];

  const place = (key: string) => {
    let i = places.get(key);
    if (i === undefined) {
      i = relevantAt.length;
      places.set(key, i);
      relevantAt.push(0);
      recordedAt.push(0);
      softAt.push(0);
    }
    return i;
  };
  const yieldOf = (i: number) => (i > 0 ? (relevantAt[i] + 1) / (recordedAt[i] + 2) - 0.5 : 0);
  const dynamic = (h: number, d: number) => model.weight(fx.hostYield) * yieldOf(h) + model.weight(fx.dirYield) * yieldOf(d);
  /** logit of a tracked URL with its stored features */
  const logitOf = (id: number) => {
    const o = off.get(id);
    return model.logit(poolIdx, poolVal, len.get(id), o) + dynamic(hostIx.get(id), dirIx.get(id));
  };
  /** logit of the features in fx's scratch buffers for a URL */
  const logitOfScratch = () => model.logit(fx.idx, fx.val, fx.n) + dynamic(placeOf('h', fx.host), placeOf('d', fx.dir));
  const placeOf = (kind: string, key: string) => places.get(`${kind}${key}`) ?? 0;

  /** Stores fx's scratch features as URL `id`'s (replacing any it had) and tracks it. */
  const store = (id: number) => {
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
    hostIx.set(id, place(`h${fx.host}`));
    dirIx.set(id, place(`d${fx.dir}`));
    if (state.get(id) !== TRACKED) {
      state.set(id, TRACKED);
      waiting.push(id);
    }
  };

  /** A link to `id` (`url`, `anchor`) from `parent`: tracked if new, its features replaced if this link scores higher. */
  const linkTo = (id: number, url: string, anchor: string, anchorScore: number, parent: LinkParent | null, saved = -1) => {
    const s = state.get(id);
    if (s === RECORDED) return;
    if (saved >= 0) fx.restore(saved);
    else fx.build(url, anchor, anchorScore, parent);
    if (s === TRACKED && logitOfScratch() <= logitOf(id)) return;
    store(id);
  };

  const isRedirect = (page: PageInfo, ids: readonly number[]) => page.relevance === null && ids.length > 0;

  /**
   * The recorded page teaches the model (if the strategy knew the link to it) and the yields; a
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
      idx.push(fx.hostYield, fx.dirYield);
      val.push(yieldOf(hostIx.get(page.id)), yieldOf(dirIx.get(page.id)));
      model.learn(idx, val, idx.length, page.relevant ? 1 : 0);
    }
    state.set(page.id, RECORDED);
    for (const key of [`h${hostOf(page.url)}`, `d${directoryOf(page.url)}`]) {
      const i = place(key);
      recordedAt[i]++;
      if (page.relevant) relevantAt[i]++;
      softAt[i] += page.relevant ? 1 : (page.relevance ?? 0);
    }
  };

  const parentOf = (page: PageInfo): LinkParent => ({ url: page.url, relevance: page.relevance ?? 0, relevant: page.relevant, depth: page.depth });

  const decide = (logit: number, dir: number, unsure: () => boolean): number => {
    const p = sigmoid(logit) * factorOf(dir);
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
      return { priority: sigmoid(logitOfScratch()) * factorOf(placeOf('d', fx.dir)), life: cfg.max_life };
    },
    onSeeded(id, url) {
      linkTo(id, url, '', 0, null);
      given.set(id, sigmoid(logitOf(id)) * factorOf(dirIx.get(id)));
    },
    onPageFetched(page: PageInfo, links: LinkInfo[]): (LinkDecision | null)[] {
      const life = childLife(page.life, page.relevant, cfg.max_life);
      const parent = parentOf(page);
      decided = new Array<number>(links.length);
      fx.clearSaved();
      return links.map((l, i) => {
        fx.build(l.url, l.anchor, l.anchorScore ?? 0, parent);
        // kept for onLinksStored, which gets the same links: not built twice
        fx.save(i);
        const z = logitOfScratch();
        // a known URL keeps the better of its priority and this link's
        const dir = placeOf('d', fx.dir);
        const priority = l.known ? Math.max(sigmoid(z) * factorOf(dir), l.known.priority) : decide(z, dir, () => model.uncertainty(fx.idx, fx.n) > UNSURE);
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
      if (recorded % every !== 0 || budget === 0 || waiting.length === 0) return [];
      const out: PriorityUpdate[] = [];
      let live = 0;
      for (let k = 0; k < Math.min(budget, waiting.length); k++) {
        if (cursor >= waiting.length) {
          compact();
          if (waiting.length === 0) break;
        }
        const id = waiting[cursor++];
        if (state.get(id) !== TRACKED || boosted.get(id)) continue;
        live++;
        const p = sigmoid(logitOf(id)) * factorOf(dirIx.get(id));
        const was = given.get(id);
        if (Math.abs(p - was) > RESCORE_DELTA) {
          given.set(id, p);
          out.push({ id, priority: p });
        }
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
      credit = (recorded * share) % 1;
    },
    explain(id) {
      if (state.get(id) === 0) return null;
      const o = off.get(id);
      const top = model.contributions(poolIdx.subarray(o), poolVal.subarray(o), len.get(id), 6);
      return {
        model_score: +sigmoid(logitOf(id)).toFixed(6),
        model_examples: model.examples,
        model_positives: model.positives,
        host_yield: +yieldOf(hostIx.get(id)).toFixed(4),
        directory_yield: +yieldOf(dirIx.get(id)).toFixed(4),
        explored: boosted.get(id) ? 'yes' : 'no',
        largest_features: top.map((t) => `${t.feature}=${+t.value.toFixed(3)}×${+t.weight.toFixed(3)}`).join(', '),
      };
    },
    stats: () => ({ examples: model.examples, positives: model.positives, explored, rescored, checksum: model.checksum() }),
  } as Strategy & { stats(): Record<string, number> };

  function compact(): void {
    let w = 0;
    for (const id of waiting) if (state.get(id) === TRACKED) waiting[w++] = id;
    waiting.length = w;
    cursor = 0;
  }
}
