import { UrlState } from '../frontier/url-state.js';
import { PageRankGraph, type PageRankRun } from './pagerank-graph.js';
import type { HistoryPage, LinkDecision, LinkInfo, PageInfo, PriorityUpdate, ResumeState, Strategy, StrategyConfig } from './strategy.js';

/**
 * partial-pagerank (seeds 000, 001, 003): PageRank of the part of the web the crawl knows.
 *
 * Every K = `pagerank_every` pages (counted when the crawl takes the strategy's updates, i.e. one
 * per recorded outcome, failures included), PageRank runs over the known graph: fetched pages with
 * their stored out-links plus every URL they link to (the queued URLs), damping d = `damping`, in
 * the seed-003 form IR(p) = (1 − d) + d·Σ IR(a)/c(a), starting at 1 (see pagerank-graph.ts; queued
 * URLs are dangling nodes and pass nothing on). Then every URL not fetched yet gets its IR as
 * priority; those that moved by more than MIN_CHANGE and 1% (REL_CHANGE) are returned by takeUpdates() and the
 * frontier re-orders its queues.
 *
 * Between two runs, a URL discovered since the last run gets a temporary score (seed 000): the sum
 * of IR(q)/c(q) over the fetched pages q linking to it, c(q) = q's number of stored out-links. IR(q)
 * is q's score as this strategy has it: its PageRank from the last run, or, for a page discovered
 * after the last run and fetched before the next one, its own temporary score (a seed, before the
 * first run: 1). When such a URL is found again, its temporary score grows by the new parent's
 * share. A URL that has a PageRank keeps it until the next run, whoever links to it meanwhile.
 *
 * Seeds start at priority 1 (IR's initial value). No pruning: life is max_life, or carried.
 * `pagerank_every` is read at every page, so a caller may change it on the config object.
 * resume() rebuilds the state an uninterrupted crawl would have from the stored history (one pass,
 * at most K pages held): the pages up to the last multiple of K go into the graph and PageRank runs
 * once there, from scratch; the pages after it are replayed with temporary scores. Runs go on at
 * multiples of K. The run's priorities are sent with the first page after the resume.
 */

/** How a URL's current score was obtained. */
const enum Kind {
  UNKNOWN = 0,
  SEED = 1,
  TEMPORARY = 2,
  RANKED = 3,
}

/** A URL that may still be fetched: queued, or pruned (and revived by a link). */
const waiting = (state: number) => state === UrlState.QUEUED || state === UrlState.PRUNED;

/**
 * A run's change of a URL's score is sent to the frontier only if it exceeds both MIN_CHANGE and
 * REL_CHANGE of the new score (otherwise the score keeps its earlier value, so a queued URL's
 * priority is its PageRank within 1%). MIN_CHANGE is below the run's own accuracy (tolerance 1e-6
 * per node × d/(1 − d)). The relative bound matters for cost: every run nudges most queued URLs a
 * little, and re-ranking a queued URL costs the frontier ~12 µs (scripts/bench-reprioritize.ts), so
 * sending them all made the strategy cost ~30% of a page's CPU at 100,000 known URLs.
 */
export const MIN_CHANGE = 1e-5;
export const REL_CHANGE = 0.01;

/** The score a seed has before the first run: IR's initial value. */
export const SEED_SCORE = 1;

export interface PartialPageRank extends Strategy {
  /** Number of PageRank runs so far (resume included). */
  recomputes(): number;
  /** The last run's figures, with the page count it ran at and its time in ms; null before the first. */
  lastRun(): (PageRankRun & { atPage: number; ms: number }) | null;
  /** The strategy's current score of a URL (what its priority was set to; 0 if unknown). */
  score(id: number): number;
  /** The PageRank graph (read it, do not change it). */
  readonly graph: PageRankGraph;
}

export function createPartialPageRank(cfg: StrategyConfig): PartialPageRank {
  const graph = new PageRankGraph();
  let cap = 0;
  let score = new Float64Array(0);
  let kind = new Uint8Array(0);
  let done = new Uint8Array(0); // fetched (or otherwise out of the queue) as far as this strategy knows
  let pages = 0;
  let runAt = 0;
  let runs = 0;
  let last: (PageRankRun & { atPage: number; ms: number }) | null = null;
  let pending: PriorityUpdate[] = [];
  // the current page q's share IR(q)/c(q), set by onPageFetched, used by onLinksStored
  let pageShare = 0;

  const ensure = (id: number) => {
    if (id < cap) return;
    const n = Math.max(id + 1, cap * 2, 1024);
    const s = new Float64Array(n);
    s.set(score);
    score = s;
    const k = new Uint8Array(n);
    k.set(kind);
    kind = k;
    const f = new Uint8Array(n);
    f.set(done);
    done = f;
    cap = n;
  };

  /** q's IR as this strategy has it; the page's fetch priority if it never heard of q. */
  const irOf = (page: PageInfo) => (page.id < cap && kind[page.id] !== Kind.UNKNOWN ? score[page.id] : page.priority);

  /** True when a link's URL is known, still waiting, and has a temporary score (or none at all). */
  const isTemporary = (id: number) => id >= cap || kind[id] === Kind.UNKNOWN || kind[id] === Kind.TEMPORARY;

  const markFetched = (page: PageInfo) => {
    ensure(page.id);
    graph.addNode(page.id);
    if (kind[page.id] === Kind.UNKNOWN) (kind[page.id] = Kind.TEMPORARY), (score[page.id] = page.priority);
    done[page.id] = 1;
  };

  /**
   * The page's links go into the graph; waiting URLs among them get the page's share added to
   * their temporary score (a new URL starts with it); URLs with a PageRank keep it.
   */
  function storeLinks(page: PageInfo, ids: readonly number[], waitingAt: (i: number) => boolean): void {
    graph.addEdges(page.id, ids);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      ensure(id);
      if (done[id] || !waitingAt(i)) {
        done[id] = 1;
        if (kind[id] === Kind.UNKNOWN) kind[id] = Kind.TEMPORARY;
      } else if (kind[id] === Kind.UNKNOWN) (kind[id] = Kind.TEMPORARY), (score[id] = pageShare);
      else if (kind[id] === Kind.TEMPORARY) score[id] += pageShare;
    }
  }

  function seeded(id: number): void {
    ensure(id);
    graph.addNode(id);
    if (kind[id] === Kind.UNKNOWN) (kind[id] = Kind.SEED), (score[id] = SEED_SCORE);
  }

  function run(): void {
    const t0 = performance.now();
    const r = graph.compute({ damping: cfg.damping });
    const ir = graph.ranks();
    const n = graph.maxNodeId + 1;
    ensure(n - 1);
    const updates: PriorityUpdate[] = [];
    for (let id = 1; id < n; id++) {
      if (!graph.has(id)) continue;
      const v = ir[id];
      kind[id] = Kind.RANKED;
      if (Math.abs(score[id] - v) > Math.max(MIN_CHANGE, REL_CHANGE * Math.abs(v))) {
        score[id] = v;
        if (!done[id]) updates.push({ id, priority: v });
      }
    }
    // updates of an earlier run not taken yet are superseded: every changed URL is in this list
    pending = updates;
    runs++;
    runAt = pages;
    last = { ...r, atPage: pages, ms: performance.now() - t0 };
  }

  return {
    name: 'partial-pagerank',
    graph,
    recomputes: () => runs,
    lastRun: () => last,
    score: (id) => (id < cap ? score[id] : 0),

    seed: () => ({ priority: SEED_SCORE, life: cfg.max_life }),

    onSeeded: seeded,

    onPageFetched(page: PageInfo, links: LinkInfo[]): (LinkDecision | null)[] {
      markFetched(page);
      pageShare = links.length ? irOf(page) / links.length : 0;
      return links.map((l) => {
        const k = l.known;
        if (!k) return { priority: pageShare, life: cfg.max_life };
        if (!waiting(k.state) || (k.id < cap && done[k.id]) || !isTemporary(k.id)) return null;
        const prev = k.id < cap && kind[k.id] === Kind.TEMPORARY ? score[k.id] : 0;
        return { priority: prev + pageShare, life: k.life > 0 ? k.life : cfg.max_life };
      });
    },

    onLinksStored(page: PageInfo, links: LinkInfo[], ids: number[]) {
      markFetched(page);
      storeLinks(page, ids, (i) => links[i].known === null || waiting(links[i].known!.state));
    },

    takeUpdates(): PriorityUpdate[] {
      pages++;
      if (pages - runAt >= Math.max(1, cfg.pagerank_every)) run();
      const out = pending;
      pending = [];
      return out;
    },

    explain(id: number) {
      if (id <= 0 || id >= cap || kind[id] === Kind.UNKNOWN) return null;
      const k = kind[id];
      const out: Record<string, number | string> = {
        priority: score[id],
        pagerank: k === Kind.RANKED ? score[id] : 'none',
        temporary: k === Kind.TEMPORARY ? 'yes' : 'no',
        last_recompute_at_page: last ? last.atPage : 0,
      };
      if (k === Kind.TEMPORARY) out.temporary_score = score[id];
      if (k === Kind.SEED) out.seed_score = score[id];
      if (done[id]) out.fetched = 'yes';
      return out;
    },

    resume(state: ResumeState) {
      for (const s of state.seeds()) seeded(s.id);
      // pages up to the last multiple of K go into the graph for one run, as the crawl ran there;
      // the pages after it are replayed as they were: their links get temporary scores
      const K = Math.max(1, cfg.pagerank_every);
      let tail: HistoryPage[] = [];
      for (const h of state.history()) {
        tail.push(h);
        if (tail.length < K) continue;
        for (const t of tail) {
          ensure(t.page.id);
          graph.addNode(t.page.id);
          done[t.page.id] = 1;
          if (t.outlinks.length) graph.addEdges(t.page.id, t.outlinks);
        }
        pages += tail.length;
        tail = [];
      }
      if (pages > 0) run();
      for (const t of tail) {
        markFetched(t.page);
        pageShare = t.outlinks.length ? irOf(t.page) / t.outlinks.length : 0;
        storeLinks(t.page, t.outlinks, (i) => !done[t.outlinks[i]]);
        pages++;
      }
      pending = pending.filter((u) => !done[u.id]);
    },
  };
}
