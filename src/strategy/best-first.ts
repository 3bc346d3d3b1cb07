import { DirectoryYield } from './directory-yield.js';
import { childLife } from './fish-life.js';
import { createLocationMetric } from './location-metric.js';
import type { LinkDecision, LinkInfo, PageInfo, Strategy, StrategyConfig } from './strategy.js';

/**
 * best-first (seed 001): priority I(p) = x·IB(p) + y·IL(p) + z·ID(p), each term in [0,1].
 *
 * - IB, backlink importance: the best evidence among the fetched pages linking to p, each giving
 *   max(its relevance, the link's anchor-text relevance, half its context's relevance) — see
 *   `inlinkContribution`. A maximum, not a count: being linked from many off-topic pages (a site's
 *   navigation) does not lift a URL; one on-topic parent or one on-topic anchor does.
 * - IL, the Location Metric of the URL (see location-metric.ts).
 * - ID, link depth: 1 / (1 + depth).
 *
 * The priority is I(p) times the yield factor of the URL's directory (directory-yield.ts), which
 * the crawl learns from the pages it records there. Parameters (topic `strategy:`): x, y, z and
 * feedback (0: no yield factor). Queued URLs found again get their priority recomputed, since IB
 * may have grown. Life is carried unchanged (no pruning); see best-first-fish for pruning.
 */
/** IB from a URL's stored inlink score, clamped to [0,1] (files written before it was a maximum hold sums). */
export function backlinkImportance(inlinkScore: number): number {
  return Math.min(1, Math.max(0, inlinkScore));
}

export function createImportance(cfg: StrategyConfig) {
  const il = createLocationMetric(cfg.location);
  /** `location`: the URL's IL when page analysis computed it with these weights (LinkInfo.location), else computed here */
  const score = (url: string, depth: number, inlinkScore: number, location?: number) => {
    const ib = backlinkImportance(inlinkScore);
    const id = 1 / (1 + depth);
    return cfg.x * ib + cfg.y * (location ?? il(url)) + cfg.z * id;
  };
  return { score, il };
}

export function createBestFirst(cfg: StrategyConfig): Strategy {
  return createBestFirstFamily(cfg, false);
}

/**
 * best-first and best-first-fish: the base priority I(p) of each URL times its directory's yield
 * factor (directory-yield.ts; `strategy.feedback` = 0 turns it off and leaves I(p) alone), and with
 * `fish` Fish-Search life and pruning (fish-life.ts).
 */
export function createBestFirstFamily(cfg: StrategyConfig, fish: boolean): Strategy {
  const { score } = createImportance(cfg);
  const yieldOf = new DirectoryYield(cfg.feedback);
  /** base priority of each link of the page in hand that is queued by its decision (NaN: not tracked) */
  let pending: number[] = [];
  return {
    name: fish ? 'best-first-fish' : 'best-first',
    seed: (url) => ({ priority: score(url, 0, 0) * yieldOf.factorFor(url), life: cfg.max_life }),
    onSeeded: (id, url) => yieldOf.track(id, url, score(url, 0, 0)),
    onPageFetched(page: PageInfo, links: LinkInfo[]): (LinkDecision | null)[] {
      const life = fish ? childLife(page.life, page.relevant, cfg.max_life) : cfg.max_life;
      pending = new Array<number>(links.length).fill(Number.NaN);
      return links.map((l, i) => {
        const base = score(l.url, l.depth, l.inlinkScore, l.location);
        const priority = base * yieldOf.factorFor(l.url, l.known?.id);
        if (!fish) {
          pending[i] = base;
          return { priority, life: l.known ? l.known.life : cfg.max_life };
        }
        const best = Math.max(life, l.known?.life ?? 0);
        if (best <= 0) return { prune: true, priority, life: 0 };
        pending[i] = base;
        return { priority, life: best };
      });
    },
    onLinksStored(page, links, ids) {
      yieldOf.recorded(page, ids);
      for (let i = 0; i < links.length; i++) if (!Number.isNaN(pending[i])) yieldOf.track(ids[i], links[i].url, pending[i]);
      pending = [];
    },
    takeUpdates: () => yieldOf.takeUpdates(),
    resume: (state) => yieldOf.resume(state),
    explain: (id) => yieldOf.explain(id),
  };
}
