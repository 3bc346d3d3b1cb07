import type { Frontier } from '../frontier/frontier.js';
import type { Strategy } from '../strategy/strategy.js';
import { hostKey } from '../url/host.js';
import { tryNormalizeUrl, type NormalizeOptions } from '../url/normalize.js';
import { urlHash } from '../url/url-hash.js';

/**
 * Puts the topic's seeds in the frontier at depth 0 with the strategy's seed priority and life.
 * Seeds already known (a resumed crawl, or another worker of a shared crawl) are left as they are,
 * so re-running is harmless. Seeds are in scope by definition: the scope is not applied to them.
 * Returns how many were added.
 */
export async function seedFrontier(frontier: Frontier, strategy: Strategy, seeds: readonly string[], normalize?: NormalizeOptions): Promise<number> {
  const urls = seeds.map((raw) => tryNormalizeUrl(raw, normalize)).filter((u): u is string => !!u);
  return queueAsSeeds(frontier, strategy, urls.map((url) => ({ url, depth: 0, note: null })));
}

/**
 * Queues normalised URLs that no page linked to (seeds, sitemap entries) with the strategy's seed
 * priority and life, unless they are already known, in one frontier intake. Returns how many were added.
 */
export async function queueAsSeeds(frontier: Frontier, strategy: Strategy, entries: { url: string; depth: number; note: string | null }[]): Promise<number> {
  const unique = new Map<string, { url: string; depth: number; note: string | null; hash: Buffer; host: string }>();
  for (const e of entries) if (!unique.has(e.url)) unique.set(e.url, { ...e, hash: urlHash(e.url), host: hostKey(e.url) });
  const list = [...unique.values()];
  if (list.length === 0) return 0;
  const known = await frontier.known(list);
  const fresh = list.filter((e) => !known.has(e.hash.toString('hex')));
  if (fresh.length === 0) return 0;
  const adds = fresh.map((e) => {
    const d = strategy.seed(e.url);
    return { hash: e.hash, url: e.url, host: e.host, depth: e.depth, priority: d.priority, life: d.life, parentId: null, anchor: null, note: e.note };
  });
  const r = await frontier.intake({ adds });
  const existing = new Set(r.existingAt);
  r.ids.forEach((id, i) => {
    if (!existing.has(i)) strategy.onSeeded?.(id, adds[i].url);
  });
  return adds.length - r.existing;
}
