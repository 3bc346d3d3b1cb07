import { childLife } from './fish-life.js';
import { fishDecision } from './fish.js';
import { Float64ById } from './id-arrays.js';
import type { HistoryPage, LinkDecision, LinkInfo, PageInfo, Strategy, StrategyConfig } from './strategy.js';

/**
 * shark (Shark-Search, Hersovici et al. 1998): Fish-Search with fuzzy relevance. Parameters (topic
 * `strategy:`): delta δ, beta β, gamma γ, max_life.
 *
 * For a link from a fetched page p with relevance sim(p) in [0,1]:
 * - inherited(child) = δ·sim(p) if sim(p) > 0 (the paper's test: any relevance at all, not the
 *   topic's threshold), else δ·inherited(p): an irrelevant page passes on a decayed share of what it
 *   inherited. Seeds inherit 1. A URL linked from several pages keeps the largest inherited score.
 * - anchor = relevance of the anchor text; anchor_context = 1 if anchor > 0, else the relevance of
 *   the text around the link (LinkInfo.anchorScore / contextScore, from page analysis; 0 if absent).
 * - neighbourhood = β·anchor + (1−β)·anchor_context.
 * - priority (potential score) = γ·inherited(child) + (1−γ)·neighbourhood, in [0,1]; seeds get 1.
 * Ties are first-in first-out (the frontier's). Life and pruning are fish's (relevant = the topic's
 * threshold): a new link with life 0 is pruned; a URL found again keeps the larger life and the
 * larger potential score.
 *
 * State: inherited scores in a Float64Array indexed by URL id (id-arrays.ts), set from onLinksStored / onSeeded and
 * rebuilt on resume by replaying seeds and history in fetch order (the same max-updates, in the same
 * order as they happened). A redirect target is queued by the crawl without the strategy and
 * inherits 0 (the redirect's stored link is skipped on replay, as it was live).
 */
export const SEED_INHERITED = 1;

export function createShark(cfg: StrategyConfig): Strategy {
  const { delta, beta, gamma } = cfg;
  const inherited = new Float64ById();
  const inheritedAt = (id: number) => inherited.get(id);
  /** what the children of `page` inherit */
  const handDown = (page: PageInfo) => {
    const sim = page.relevance ?? 0;
    return sim > 0 ? delta * sim : delta * inheritedAt(page.id);
  };
  const raise = (id: number, value: number) => {
    if (value > inherited.get(id)) inherited.set(id, value);
  };
  const replay = (h: HistoryPage) => {
    // a page without relevance (a redirect, non-HTML) never reached onPageFetched: its stored link
    // is the crawl's redirect record
    if (h.page.relevance === null) return;
    const v = handDown(h.page);
    for (const id of h.outlinks) raise(id, v);
  };

  return {
    name: 'shark',
    seed: () => ({ priority: 1, life: cfg.max_life }),
    onSeeded: (id) => raise(id, SEED_INHERITED),
    onPageFetched(page: PageInfo, links: LinkInfo[]): (LinkDecision | null)[] {
      const life = childLife(page.life, page.relevant, cfg.max_life);
      const inh = handDown(page);
      return links.map((l) => {
        const anchor = l.anchorScore ?? 0;
        const context = anchor > 0 ? 1 : (l.contextScore ?? 0);
        const neighbourhood = beta * anchor + (1 - beta) * context;
        return fishDecision(l, gamma * inh + (1 - gamma) * neighbourhood, life);
      });
    },
    onLinksStored(page, _links, ids) {
      const v = handDown(page);
      for (const id of ids) raise(id, v);
    },
    explain: (id) => ({ inherited: inheritedAt(id) }),
    resume(state) {
      for (const s of state.seeds()) raise(s.id, SEED_INHERITED);
      for (const h of state.history()) replay(h);
    },
  };
}
