import type { Strategy, StrategyConfig } from './strategy.js';

/**
 * breadth-first: every URL gets the same priority, so the frontier's first-in first-out tie-break
 * gives the order of discovery (level by level). No parameters; life is carried, never pruned.
 */
export function createBreadthFirst(cfg: StrategyConfig): Strategy {
  return {
    name: 'breadth-first',
    seed: () => ({ priority: 0, life: cfg.max_life }),
    onPageFetched: (_page, links) => links.map((l) => (l.known ? null : { priority: 0, life: cfg.max_life })),
  };
}
