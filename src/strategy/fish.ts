import { childLife } from './fish-life.js';
import type { LinkDecision, LinkInfo, PageInfo, Strategy, StrategyConfig } from './strategy.js';

/**
 * fish (Fish-Search, De Bra & Post 1994; seed 003). Parameter (topic `strategy:`): max_life.
 *
 * Life: seeds start at max_life; the children of a fetched page get life + 1 (capped at max_life)
 * if the page is relevant (relevance ≥ the topic's threshold), life − 1 if not (fish-life.ts). A new
 * link whose life is 0 is pruned (recorded, not queued, counted by the crawl); a URL found again
 * keeps the larger of its lives, so a better parent revives a pruned URL.
 *
 * Order: Fish-Search's own list. The original inserts the children of a relevant page at the head
 * of its list and those of an irrelevant page after the children of relevant pages, so among each
 * kind the newest page's children go first (depth-first) and a page's children keep document order.
 * Here: the children of the k-th fetched page get priority BAND + k if the page is relevant, k if
 * not (every child of one page the same priority, so the frontier's first-in first-out tie-break
 * gives document order). Seeds get BAND, ahead of irrelevant children, behind relevant ones. A URL
 * found again while queued moves up to the newer priority if it is higher (the larger of both).
 */
export const RELEVANT_BAND = 2 ** 40;

export function createFish(cfg: StrategyConfig): Strategy {
  /** pages handled so far + 1: the depth-first counter */
  let k = 1;
  return {
    name: 'fish',
    seed: () => ({ priority: RELEVANT_BAND, life: cfg.max_life }),
    onPageFetched(page: PageInfo, links: LinkInfo[]): (LinkDecision | null)[] {
      const life = childLife(page.life, page.relevant, cfg.max_life);
      const priority = (page.relevant ? RELEVANT_BAND : 0) + k++;
      return links.map((l) => fishDecision(l, priority, life));
    },
    resume(state) {
      // the counter must pass every offset used so far: one per fetched page at most
      let pages = 0;
      for (const _ of state.history()) pages++;
      k = Math.max(k, pages + 1);
    },
  };
}

/**
 * The decision for one link given the priority and life its parent hands down: a new link with no
 * life is pruned; a known one takes the larger life and priority, or is left alone if neither grows.
 * Shared with shark, which differs only in the priority.
 */
export function fishDecision(l: LinkInfo, priority: number, life: number): LinkDecision | null {
  const k = l.known;
  if (!k) return life <= 0 ? { prune: true, priority, life: 0 } : { priority, life };
  const best = Math.max(life, k.life);
  if (best <= 0) return null;
  if (best === k.life && priority <= k.priority) return null;
  return { priority: Math.max(priority, k.priority), life: best };
}
