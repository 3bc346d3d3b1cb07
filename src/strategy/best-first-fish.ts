import { createImportance } from './best-first.js';
import { childLife } from './fish-life.js';
import type { LinkDecision, LinkInfo, PageInfo, Strategy, StrategyConfig } from './strategy.js';

/**
 * best-first-fish, the default: priority from best-first's I(p) = x·IB + y·IL + z·ID, pruning
 * from Fish-Search life (parameter max_life). A link whose life would be 0 is pruned; a queued URL
 * found again keeps the larger of its lives; a pruned URL found by a better parent is revived.
 */
export function createBestFirstFish(cfg: StrategyConfig): Strategy {
  const { score } = createImportance(cfg);
  return {
    name: 'best-first-fish',
    seed: (url) => ({ priority: score(url, 0, 0), life: cfg.max_life }),
    onPageFetched(page: PageInfo, links: LinkInfo[]): (LinkDecision | null)[] {
      const life = childLife(page.life, page.relevant, cfg.max_life);
      return links.map((l) => {
        const priority = score(l.url, l.depth, l.inlinkScore);
        const best = Math.max(life, l.known?.life ?? 0);
        return best <= 0 ? { prune: true, priority, life: 0 } : { priority, life: best };
      });
    },
  };
}
