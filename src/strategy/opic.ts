import { Float64ById, Uint8ById } from './id-arrays.js';
import type { HistoryPage, LinkDecision, LinkInfo, PageInfo, ResumeState, Strategy, StrategyConfig } from './strategy.js';

/** Cash given to every seed (and sitemap URL) when it is queued. */
export const OPIC_SEED_CASH = 1.0;

const UNKNOWN = 0;
const OPEN = 1; // known, not fetched yet: the root pays it
const DONE = 2; // fetched: still receives cash from links, no longer from the root

/**
 * opic: On-line Page Importance Computation (Abiteboul, Preda, Cobena 2003; seed 004).
 *
 * Every page i has cash C[i] and history H[i]; G is the total cash distributed so far. A seed
 * starts with {@link OPIC_SEED_CASH} (1.0 each, so total cash = number of seeds). When page i is
 * fetched: H[i] += C[i], G += C[i], C[i] is shared equally among all its stored outlinks (whatever
 * their state: fetched pages accumulate cash too), then C[i] = 0 (before the shares are added, so
 * a self-link keeps its share). A page without stored outlinks gives its cash to the virtual root.
 * Importance = (H[i] + C[i]) / (G + 1). Total cash, the root's included, is conserved.
 *
 * The virtual root links to every page. Here it pays out right after every page that gave it cash
 * (its history and G grow by the amount), equally to every open page: known and not fetched yet
 * (as far as the strategy was told). That is O(1): the root's payments are kept as one running
 * amount Ω per open page, and an open page's cash is C[i] + Ω − Ω₀[i], where Ω₀[i] is Ω when i
 * joined. If no page is open, the root keeps its cash until one is.
 *
 * Priority of a queued URL = its cash − Ω, which orders queued URLs exactly as their cash does (Ω
 * is the same for all of them at any moment) and never changes when the root pays, so no queued URL
 * has to be re-prioritised (takeUpdates is not needed). With no root payment yet, Ω = 0 and the
 * priority is the cash itself. `explain(id)` gives cash, history, importance, the priority, the
 * root's cash and history, G and Ω.
 *
 * Parameters: none beyond max_life (carried, unused: no pruning). Cost: O(outlinks) per page,
 * 25 bytes per known URL.
 *
 * Every recorded page is reported through onLinksStored (a dead end or a failure with no ids, a
 * redirect with its target), live and on resume alike, so a resumed crawl has the same figures.
 */
export interface OpicStrategy extends Strategy {
  explain(id: number): Record<string, number | string> | null;
  /** Current cash of a page, or null if the strategy never heard of this id. */
  cash(id: number): number | null;
  /** Total cash of all known pages plus the root's (O(known URLs): for tests and reports). */
  totalCash(): number;
  /** Cash the virtual root holds now, its history, G and Ω. */
  root(): { cash: number; history: number; g: number; omega: number };
}

export function createOpic(cfg: StrategyConfig): OpicStrategy {
  const C = new Float64ById();
  const H = new Float64ById();
  const joinedAt = new Float64ById(); // Ω₀[i]
  const state = new Uint8ById();
  let maxId = 0;
  let open = 0;
  let omega = 0; // Ω: root cash paid so far to each page open since the start
  let rootCash = 0;
  let rootHistory = 0;
  let g = 0;

  function learn(id: number): void {
    if (state.get(id) !== UNKNOWN) return;
    state.set(id, OPEN);
    joinedAt.set(id, omega);
    open++;
    if (id > maxId) maxId = id;
  }

  function cashOf(id: number): number {
    const s = state.get(id);
    if (s === UNKNOWN) return 0;
    return s === OPEN ? C.get(id) + (omega - joinedAt.get(id)) : C.get(id);
  }

  /** What the frontier stores for an open page: its cash − Ω. */
  const priorityOf = (id: number) => C.get(id) - joinedAt.get(id);

  function payRoot(): void {
    if (rootCash <= 0 || open === 0) return;
    rootHistory += rootCash;
    g += rootCash;
    omega += rootCash / open;
    rootCash = 0;
  }

  /** Page `pageId` was fetched with these stored outlinks. */
  function distribute(pageId: number, outlinks: readonly number[]): void {
    learn(pageId);
    const cash = cashOf(pageId);
    H.add(pageId, cash);
    g += cash;
    C.set(pageId, 0);
    if (state.get(pageId) === OPEN) {
      state.set(pageId, DONE);
      open--;
    }
    if (outlinks.length === 0) rootCash += cash;
    else {
      const share = cash / outlinks.length;
      for (const id of outlinks) {
        learn(id);
        C.add(id, share);
      }
    }
    payRoot();
  }

  function seeded(id: number): void {
    learn(id);
    C.add(id, OPIC_SEED_CASH);
    payRoot(); // cash the root kept while nothing was open
  }

  function totalCash(): number {
    let t = rootCash;
    for (let id = 1; id <= maxId; id++) t += cashOf(id);
    return t;
  }

  return {
    name: 'opic',
    seed: () => ({ priority: OPIC_SEED_CASH - omega, life: cfg.max_life }),
    onSeeded: (id) => seeded(id),
    onPageFetched(page: PageInfo, links: LinkInfo[]): (LinkDecision | null)[] {
      const share = links.length ? cashOf(page.id) / links.length : 0;
      return links.map((l) => {
        const id = l.known?.id;
        const s = id === undefined ? UNKNOWN : state.get(id);
        if (s === DONE) return null; // fetched: its cash grows, it is not queued
        // the priority the child will have once onLinksStored has added the share (joining now if new)
        return { priority: (s === OPEN ? priorityOf(id!) : -omega) + share, life: l.known?.life ?? cfg.max_life };
      });
    },
    onLinksStored: (page, _links, ids) => distribute(page.id, ids),
    cash: (id) => (state.get(id) === UNKNOWN ? null : cashOf(id)),
    totalCash,
    root: () => ({ cash: rootCash, history: rootHistory, g, omega }),
    explain(id: number) {
      const s = state.get(id);
      if (s === UNKNOWN) return null;
      const cash = cashOf(id);
      const history = H.get(id);
      const figures: Record<string, number | string> = {
        cash, history, importance: (history + cash) / (g + 1), state: s === OPEN ? 'open' : 'fetched',
        root_cash: rootCash, root_history: rootHistory, G: g, omega,
      };
      if (s === OPEN) figures.priority = priorityOf(id);
      return figures;
    },
    resume(rs: ResumeState): void {
      for (const s of rs.seeds()) if (state.get(s.id) === UNKNOWN) seeded(s.id);
      for (const h of rs.history() as Iterable<HistoryPage>) distribute(h.page.id, h.outlinks);
    },
  };
}
