import { Float64ById, Uint8ById } from './id-arrays.js';
import type { HistoryPage, LinkDecision, LinkInfo, PageInfo, ResumeState, Strategy, StrategyConfig } from './strategy.js';

/** Score injected into every seed (Nutch 0.9's `db.score.injected`). */
export const NUTCH_INJECTED_SCORE = 1.0;

/**
 * nutch-opic: Nutch 0.9's variant of OPIC (seed 004; golden table in
 * `shared/fixtures/opic-nutch-table.json`).
 *
 * One accumulated score per page. A seed gets the injected score 1.0. When a page is fetched, its
 * whole current score is shared equally among its stored outlinks and added to each child's score,
 * whatever the child's state (queued, fetched, new); the page keeps its own score (never reset).
 * There is no virtual root: a page without outlinks simply keeps its score. Priority = score; ties
 * keep discovery order (the frontier's FIFO). No pruning: life is carried (new URLs get max_life).
 *
 * Parameters: none beyond max_life (carried, unused); the injected score is {@link NUTCH_INJECTED_SCORE}.
 * Cost: O(outlinks) per page, 9 bytes per known URL.
 */
export interface NutchOpicStrategy extends Strategy {
  explain(id: number): Record<string, number | string> | null;
  /** The page's current score, or null if the strategy never heard of this id. */
  score(id: number): number | null;
}

export function createNutchOpic(cfg: StrategyConfig): NutchOpicStrategy {
  const score = new Float64ById();
  const known = new Uint8ById();

  const learn = (id: number) => known.set(id, 1);
  const scoreOf = (id: number) => (known.get(id) ? score.get(id) : 0);

  /** The fetched page `pageId` shares its whole score among `outlinks` and keeps it. */
  function distribute(pageId: number, outlinks: readonly number[]): void {
    learn(pageId);
    if (outlinks.length === 0) return;
    const share = score.get(pageId) / outlinks.length;
    for (const id of outlinks) {
      learn(id);
      score.add(id, share);
    }
  }

  function seeded(id: number): void {
    learn(id);
    score.set(id, NUTCH_INJECTED_SCORE);
  }

  return {
    name: 'nutch-opic',
    seed: () => ({ priority: NUTCH_INJECTED_SCORE, life: cfg.max_life }),
    onSeeded: (id) => seeded(id),
    onPageFetched(page: PageInfo, links: LinkInfo[]): (LinkDecision | null)[] {
      const share = links.length ? scoreOf(page.id) / links.length : 0;
      // the score each child will have once onLinksStored has added the share
      return links.map((l) => ({ priority: (l.known ? scoreOf(l.known.id) : 0) + share, life: l.known?.life ?? cfg.max_life }));
    },
    onLinksStored: (page, _links, ids) => distribute(page.id, ids),
    score: (id) => (known.get(id) ? score.get(id) : null),
    explain: (id) => (known.get(id) ? { score: score.get(id) } : null),
    resume(state: ResumeState): void {
      for (const s of state.seeds()) if (!known.get(s.id)) seeded(s.id);
      for (const h of state.history() as Iterable<HistoryPage>) distribute(h.page.id, h.outlinks);
    },
  };
}
