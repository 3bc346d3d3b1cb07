import { createBestFirstFamily } from './best-first.js';
import type { Strategy, StrategyConfig } from './strategy.js';

/**
 * best-first-fish, the default: priority from best-first's I(p) = x·IB + y·IL + z·ID times its
 * directory's yield factor (see best-first.ts and directory-yield.ts), pruning from Fish-Search life
 * (parameter max_life). A link whose life would be 0 is pruned; a queued URL found again keeps the
 * larger of its lives; a pruned URL found by a better parent is revived.
 */
export function createBestFirstFish(cfg: StrategyConfig): Strategy {
  return createBestFirstFamily(cfg, true);
}
