import { TopicrawlError } from '../errors.js';
import { createBestFirst } from './best-first.js';
import { createBestFirstFish } from './best-first-fish.js';
import { createBreadthFirst } from './breadth-first.js';
import { createDepthFirst } from './depth-first.js';
import type { Strategy, StrategyConfig } from './strategy.js';

/** Every ordering strategy by name. Adding one is one file plus one line here. */
export const STRATEGIES: Record<string, { description: string; create: (cfg: StrategyConfig) => Strategy }> = {
  'best-first-fish': { description: 'I(p) = x·IB + y·IL + z·ID with Fish-Search life pruning (default)', create: createBestFirstFish },
  'best-first': { description: 'I(p) = x·IB + y·IL + z·ID, no pruning', create: createBestFirst },
  'breadth-first': { description: 'first in, first out', create: createBreadthFirst },
  'depth-first': { description: 'last in, first out; links in document order', create: createDepthFirst },
};

export function createStrategy(name: string, cfg: StrategyConfig): Strategy {
  const entry = STRATEGIES[name];
  if (!entry) {
    throw new TopicrawlError('E_CONFIG', `unknown strategy "${name}" (known: ${Object.keys(STRATEGIES).join(', ')})`, { key: 'strategy.name' });
  }
  return entry.create(cfg);
}
