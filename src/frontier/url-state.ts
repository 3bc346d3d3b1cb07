/**
 * The state of a URL the crawl knows. Stored as these numbers in the crawl file's `urls.state`;
 * everywhere else, use the names.
 */
export const UrlState = {
  /** waiting in the frontier */
  QUEUED: 0,
  /** handed out by the frontier, not yet recorded (reset to QUEUED on resume) */
  IN_FLIGHT: 1,
  /** fetched and recorded (any HTTP status) */
  FETCHED: 2,
  /** attempt recorded as failed (network error, timeout, too large, …) */
  FAILED: 3,
  /** known but not enqueued: Fish life reached 0 (may be revived by a better parent) */
  PRUNED: 4,
  /** known but never to be fetched: robots.txt, scope after redirect, budget */
  SKIPPED: 5,
} as const;

export type UrlState = (typeof UrlState)[keyof typeof UrlState];

/** The name of a state (for reports). */
export function urlStateName(s: UrlState): keyof typeof UrlState {
  return (Object.keys(UrlState) as (keyof typeof UrlState)[]).find((k) => UrlState[k] === s)!;
}

/**
 * A URL's state as a lookup reports it: its row's, but IN_FLIGHT for a queued URL the frontier has
 * handed out (its row still says QUEUED until the outcome is written).
 */
export function lookupState(rowState: number, id: number, inFlight: Set<number>): UrlState {
  return (rowState === UrlState.QUEUED && inFlight.has(id) ? UrlState.IN_FLIGHT : rowState) as UrlState;
}
