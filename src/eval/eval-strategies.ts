import type { Strategy, StrategyConfig } from '../strategy/strategy.js';
import { mulberry32 } from './prng.js';

/**
 * Two orderings for evaluation only (not in the strategy registry, so `crawl --strategy oracle`
 * stays an error): the ceiling and the floor a real strategy is measured against. Both give every
 * URL the topic's max life and never prune.
 */

/** Names of the evaluation-only strategies. */
export const EVAL_ONLY_STRATEGIES: Record<string, string> = {
  oracle: 'knows the true labels: labelled URLs first (priority 1, else 0), first in first out within; the ceiling',
  random: 'a uniform random priority from a seeded generator (--random-seed); the floor',
};

/**
 * oracle: priority 1 for a URL in `truth` (the normalised URLs that carry the evaluation label),
 * else 0; ties first in first out. A URL's priority never changes once queued (its label is fixed).
 */
export function createOracle(truth: ReadonlySet<string>, cfg: Pick<StrategyConfig, 'max_life'>): Strategy {
  const decide = (url: string) => ({ priority: truth.has(url) ? 1 : 0, life: cfg.max_life });
  return {
    name: 'oracle',
    seed: decide,
    onPageFetched: (_page, links) => links.map((l) => (l.known ? null : decide(l.url))),
  };
}

/**
 * random: each new URL (seeds included) gets a priority drawn uniformly in [0, 1) from mulberry32
 * seeded with `seed`, in the order URLs are offered; a known URL keeps its priority. The same seed
 * on the same corpus gives the same crawl order (with one request in flight).
 */
export function createRandom(seed: number, cfg: Pick<StrategyConfig, 'max_life'>): Strategy {
  const rng = mulberry32(seed);
  const decide = () => ({ priority: rng.next(), life: cfg.max_life });
  return {
    name: 'random',
    seed: decide,
    onPageFetched: (_page, links) => links.map((l) => (l.known ? null : decide())),
  };
}
