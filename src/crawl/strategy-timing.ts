/** The ordering strategy's calls that the crawl times, one per page: see {@link StrategyTiming}. */
export type StrategyCall = 'onPageFetched' | 'onLinksStored' | 'takeUpdates';

/**
 * Hears how long each call of the ordering strategy took, where the crawl makes it (link intake:
 * `onPageFetched`; after a page's record: `onLinksStored`, `takeUpdates`). For monitoring
 * (`crawl --metrics-port`). Contract: `timed` is called synchronously right after the call returns
 * (not for a call that threw), with the strategy's name and the call's wall time in seconds; it must
 * be cheap and must not throw. A crawl given none does not read the clock for these calls at all.
 */
export interface StrategyTiming {
  timed(strategy: string, call: StrategyCall, seconds: number): void;
}
