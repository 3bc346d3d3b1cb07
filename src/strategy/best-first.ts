import { createLocationMetric } from './location-metric.js';
import type { LinkDecision, LinkInfo, PageInfo, Strategy, StrategyConfig } from './strategy.js';

/**
 * best-first (seed 001): priority I(p) = x·IB(p) + y·IL(p) + z·ID(p), each term in [0,1].
 *
 * - IB, backlink importance: s / (s + 1), where s sums over the fetched pages linking to p
 *   0.5 + 0.5·relevance of each (so more and better parents rank higher).
 * - IL, the Location Metric of the URL (see location-metric.ts).
 * - ID, link depth: 1 / (1 + depth).
 *
 * Parameters (topic `strategy:`): x, y, z. Queued URLs found again get their priority recomputed,
 * since IB grew. Life is carried unchanged (no pruning); see best-first-fish for pruning.
 */
export function createImportance(cfg: StrategyConfig) {
  const il = createLocationMetric(cfg.location);
  const score = (url: string, depth: number, inlinkScore: number) => {
    const ib = inlinkScore / (inlinkScore + 1);
    const id = 1 / (1 + depth);
    return cfg.x * ib + cfg.y * il(url) + cfg.z * id;
  };
  return { score, il };
}

export function createBestFirst(cfg: StrategyConfig): Strategy {
  const { score } = createImportance(cfg);
  return {
    name: 'best-first',
    seed: (url) => ({ priority: score(url, 0, 0), life: cfg.max_life }),
    onPageFetched(_page: PageInfo, links: LinkInfo[]): (LinkDecision | null)[] {
      return links.map((l) => ({ priority: score(l.url, l.depth, l.inlinkScore), life: l.known ? l.known.life : cfg.max_life }));
    },
  };
}
