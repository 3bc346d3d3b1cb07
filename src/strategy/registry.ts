import { TopicrawlError } from '../errors.js';
import { createBestFirst } from './best-first.js';
import { createBestFirstFish } from './best-first-fish.js';
import { createBreadthFirst } from './breadth-first.js';
import { createDepthFirst } from './depth-first.js';
import { createNutchOpic } from './nutch-opic.js';
import { createOpic } from './opic.js';
import { createPartialPageRank } from './partial-pagerank.js';
import { createFish } from './fish.js';
import { createLargerSitesFirst } from './larger-sites-first.js';
import { createLearning } from './learning.js';
import { createShark } from './shark.js';
import type { Strategy, StrategyConfig } from './strategy.js';

/** Every ordering strategy by name. Adding one is one file plus one line here. */
export const STRATEGIES: Record<string, { description: string; create: (cfg: StrategyConfig) => Strategy }> = {
  'best-first-fish': { description: 'I(p) = x·IB + y·IL + z·ID with Fish-Search life pruning (the default on a shared frontier)', create: createBestFirstFish },
  'best-first': { description: 'I(p) = x·IB + y·IL + z·ID, no pruning', create: createBestFirst },
  'breadth-first': { description: 'first in, first out', create: createBreadthFirst },
  'depth-first': { description: 'last in, first out; links in document order', create: createDepthFirst },
  opic: { description: 'OPIC (Abiteboul 2003): priority = cash; cash, history, G and a virtual root; cash conserved', create: createOpic },
  'nutch-opic': { description: "Nutch 0.9's OPIC: a page's whole score shared among its outlinks, never reset; priority = score", create: createNutchOpic },
  'partial-pagerank': { description: 'PageRank of the known graph every K pages (pagerank_every, damping); new URLs get Σ IR(q)/c(q) of their parents meanwhile', create: createPartialPageRank },
  fish: { description: 'Fish-Search: children of relevant pages first, newest page first; life pruning', create: createFish },
  shark: { description: 'Shark-Search: γ·inherited + (1−γ)·(β·anchor + (1−β)·context), fuzzy relevance; life pruning', create: createShark },
  learning: { description: 'best-first-fish whose priority online link models learn while crawling (hashed features, logistic regression: P(alive) × relevance), with exploration (the default)', create: createLearning },
  'larger-sites-first': { description: 'the site (registrable domain or host) with the most URLs waiting first', create: createLargerSitesFirst },
};

export function createStrategy(name: string, cfg: StrategyConfig): Strategy {
  const entry = STRATEGIES[name];
  if (!entry) {
    throw new TopicrawlError('E_CONFIG', `unknown strategy "${name}" (known: ${Object.keys(STRATEGIES).join(', ')})`, { key: 'strategy.name' });
  }
  return entry.create(cfg);
}
