import type { KnownUrl } from '../frontier/frontier.js';

/**
 * An ordering strategy: it gives every URL entering the frontier a priority (higher is fetched
 * first; ties are first-in first-out) and a Fish-Search life, and may re-prioritise URLs that are
 * already queued when they are found again. Strategies are pure functions of what they are told
 * plus their own counters, so the same crawl gives the same order. Chosen by name from the
 * registry (`src/strategy/registry.ts`).
 */
export interface Strategy {
  readonly name: string;
  /** Priority and life of a seed URL. */
  seed(url: string): LinkDecision;
  /**
   * Called once per fetched page with its outlinks (normalised, in scope, deduplicated within the
   * page, depth already page depth + 1). Returns one decision per link, in the same order. For a
   * link whose URL is already known, the decision updates it if it is still queued or pruned
   * (return `null` to leave it unchanged).
   */
  onPageFetched(page: PageInfo, links: LinkInfo[]): (LinkDecision | null)[];
  /**
   * Optional. Called once for every page whose outcome is recorded, in its transaction: after a
   * page's links went through {@link Strategy.onPageFetched}, `ids[i]` is the URL id of `links[i]`
   * (new or known, whatever its state); for a page whose links were not taken (an error, not HTML,
   * no links, nofollow, duplicate content) `links` and `ids` are empty; for a redirect `links` is
   * empty and `ids` holds the target's id. This is exactly what the resume replay feeds, so graph
   * strategies (OPIC, PageRank) keep their own sparse graph and per-URL figures from this.
   */
  onLinksStored?(page: PageInfo, links: LinkInfo[], ids: number[]): void;
  /** Optional. A seed (or sitemap URL) was queued with id `id` and the priority from {@link Strategy.seed}. */
  onSeeded?(id: number, url: string): void;
  /**
   * Optional. Priority changes of known URLs that the strategy decided on its own (OPIC's root
   * distributing its cash, a PageRank recompute). The crawl calls it after every page, in the page's
   * transaction, and applies the changes to URLs still queued; others are ignored.
   */
  takeUpdates?(): PriorityUpdate[];
  /** Optional. Named figures behind a URL's priority (cash, history, pagerank, …), for `topicrawl explain`. */
  explain?(id: number): Record<string, number | string> | null;
  /**
   * Called on resume, before the first fetch, with what the store knows: the largest stored priority
   * (so counters continue) and the crawl's history in fetch order (so graph strategies can rebuild
   * their state by replaying it; reading it is lazy and costs one pass over the links table).
   */
  resume?(state: ResumeState): void;
}

/** A priority change decided outside {@link Strategy.onPageFetched}. */
export interface PriorityUpdate {
  id: number;
  priority: number;
}

export interface ResumeState {
  maxPriority: number;
  /** URLs queued without a parent (seeds, sitemap URLs), in id order, whatever their state now. */
  seeds(): Iterable<{ id: number; url: string }>;
  /** Fetched pages in fetch order with their stored outlinks. */
  history(): Iterable<HistoryPage>;
  /** URLs still queued, in id order, with their stored priority. */
  queued(): Iterable<{ id: number; url: string; priority: number }>;
  /**
   * Optional (the crawl file has it; a shared frontier's segments do not): {@link ResumeState.history}
   * with each outlink's URL and anchor text, for strategies that learn from links (learning).
   */
  linkedHistory?(): Iterable<LinkedHistoryPage>;
  /**
   * Optional: the page scorer's relevance of a short text, exactly as page analysis computed a link's
   * `anchorScore` live (so a strategy can rebuild it from a stored anchor).
   */
  scoreText?(text: string): number;
}

/** A {@link HistoryPage} whose outlinks come with their URL and anchor (same order as `outlinks`). */
export interface LinkedHistoryPage extends HistoryPage {
  urls: string[];
  anchors: string[];
}

/** One fetched page as the store remembers it, with the ids of the URLs it linked to. */
export interface HistoryPage {
  page: PageInfo;
  /** ids of the stored outlinks (in-scope links that were kept), in no particular order */
  outlinks: number[];
}

export type LinkDecision = { priority: number; life: number; prune?: false } | { prune: true; priority: number; life: 0 };

export interface PageInfo {
  id: number;
  url: string;
  depth: number;
  life: number;
  priority: number;
  /** Relevance in [0,1]; null when the page was not HTML or not scored. */
  relevance: number | null;
  relevant: boolean;
}

export interface LinkInfo {
  url: string;
  host: string;
  /** Depth the link would have (parent depth + 1), or the known URL's depth if smaller. */
  depth: number;
  anchor: string;
  /** The stored URL when already known, with counters before this page's link was counted. */
  known: KnownUrl | null;
  /** Fetched pages linking here, this page included. */
  inlinks: number;
  /** The best of those pages' contributions, this link's included (see `inlinkContribution`). */
  inlinkScore: number;
  /** Relevance in [0,1] of the anchor text alone (computed with the page's scorer), if computed. */
  anchorScore?: number;
  /** Relevance in [0,1] of the text around the link (its block, anchor excluded), if computed. */
  contextScore?: number;
  /**
   * The URL's Location Metric IL as page analysis computed it with the topic's `location` weights
   * (the same as `createLocationMetric(cfg.location)(url)`), if it did: a strategy then need not.
   */
  location?: number;
}

/** Everything a strategy may be configured with: the topic's `strategy` and `location` slices. */
export interface StrategyConfig {
  x: number;
  y: number;
  z: number;
  max_life: number;
  /** shark: decay of the inherited score */
  delta: number;
  /** shark: anchor text weight against its context */
  beta: number;
  /** shark: inherited score weight against the anchor neighbourhood */
  gamma: number;
  /** partial-pagerank: recompute every K fetched pages */
  pagerank_every: number;
  /** partial-pagerank: damping factor */
  damping: number;
  /** larger-sites-first: what a site is */
  site: 'domain' | 'host';
  /** best-first family: pseudo-counts of the directory yield factor (0: off) */
  feedback: number;
  /** learning: re-rank queued URLs every K recorded pages */
  learn_every: number;
  /** learning: most queued URLs re-scored per round */
  rescore_budget: number;
  /** learning: share of the recorded pages that earns a fetch of a link the model is unsure about */
  explore: number;
  location: { tokens: Readonly<Record<string, number>>; tld: Readonly<Record<string, number>>; segment_penalty: number };
}

/**
 * The evidence one backlink gives that its target is on-topic, in [0,1]: the best of the linking
 * page's relevance, its anchor text's relevance and half its context's (the text around the link).
 * A URL's `inlink_score` is the best evidence over the fetched pages linking to it (a maximum, not a
 * sum: a URL linked from many off-topic pages, such as a site's navigation, gains nothing from their
 * number). Link-level scores come from page analysis (`LinkInfo.anchorScore` / `contextScore`).
 */
export function inlinkContribution(relevance: number | null, link?: { anchorScore?: number; contextScore?: number }): number {
  return Math.max(relevance ?? 0, link?.anchorScore ?? 0, (link?.contextScore ?? 0) / 2);
}
