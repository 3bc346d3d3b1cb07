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
  /** Called on resume with what the store knows, so counters continue. */
  resume?(state: { maxPriority: number }): void;
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
  /** Sum of those pages' contributions (see `inlinkContribution`). */
  inlinkScore: number;
}

/** Everything a strategy may be configured with: the topic's `strategy` and `location` slices. */
export interface StrategyConfig {
  x: number;
  y: number;
  z: number;
  max_life: number;
  location: { tokens: Readonly<Record<string, number>>; tld: Readonly<Record<string, number>>; segment_penalty: number };
}

/** How much a fetched page adds to the backlink score of each page it links to: 0.5 + 0.5·relevance. */
export function inlinkContribution(relevance: number | null): number {
  return 0.5 + 0.5 * (relevance ?? 0);
}
