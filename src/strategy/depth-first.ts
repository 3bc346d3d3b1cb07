import type { Strategy, StrategyConfig } from './strategy.js';

/**
 * depth-first: last in, first out, with a page's links taken in document order. The children of
 * each fetched page get priorities above everything queued so far, the first link highest:
 * child i of n gets K + n − i, then K grows by n + 1. URLs already known keep their place (a page
 * already fetched or queued is not fetched again). No parameters.
 */
export function createDepthFirst(cfg: StrategyConfig): Strategy {
  let k = 1;
  return {
    name: 'depth-first',
    seed: () => ({ priority: k++, life: cfg.max_life }),
    onPageFetched(_page, links) {
      const fresh = links.filter((l) => !l.known).length;
      let i = 0;
      const out = links.map((l) => (l.known ? null : { priority: k + fresh - i++, life: cfg.max_life }));
      k += fresh + 1;
      return out;
    },
    resume({ maxPriority }) {
      k = Math.max(k, Math.ceil(maxPriority) + 1);
    },
  };
}
