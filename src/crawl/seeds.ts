import type { Frontier } from '../frontier/frontier.js';
import type { Store } from '../store/store.js';
import type { Strategy } from '../strategy/strategy.js';
import { hostKey } from '../url/host.js';
import { tryNormalizeUrl, type NormalizeOptions } from '../url/normalize.js';
import { urlHash } from '../url/url-hash.js';

/**
 * Puts the topic's seeds in the frontier at depth 0 with the strategy's seed priority and life.
 * Seeds already known (a resumed crawl) are left as they are, so re-running is harmless. Seeds are
 * in scope by definition: the scope is not applied to them. Returns how many were added.
 */
export function seedFrontier(frontier: Frontier, strategy: Strategy, seeds: readonly string[], store: Store, normalize?: NormalizeOptions): number {
  let added = 0;
  store.transaction(() => {
    for (const raw of seeds) {
      const url = tryNormalizeUrl(raw, normalize);
      if (url && queueAsSeed(frontier, strategy, url, 0)) added++;
    }
  });
  return added;
}

/**
 * Queues a normalised URL that no page linked to (a seed, a sitemap entry) with the strategy's
 * seed priority and life, unless it is already known. Returns whether it was added.
 */
export function queueAsSeed(frontier: Frontier, strategy: Strategy, url: string, depth: number, note: string | null = null): boolean {
  const hash = urlHash(url);
  if (frontier.lookup([hash]).size > 0) return false;
  const d = strategy.seed(url);
  const [id] = frontier.add([{ hash, url, host: hostKey(url), depth, priority: d.priority, life: d.life, parentId: null, anchor: null, note }]);
  strategy.onSeeded?.(id, url);
  return true;
}
