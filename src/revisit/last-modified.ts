import type { PageAges } from './revisit-policy.js';

/**
 * What a page's Last-Modified header adds to its change history, and when to stop believing it.
 *
 * A server that keeps Last-Modified at the time of the page's latest real change tells, at every
 * check that finds a change, how long ago the latest change happened: far more than "changed or
 * not" (change-rate.ts estimateRateFromAges). Many servers do not: dynamic pages send the time of
 * the request, others move it when only boilerplate changed, others send none. So a page's
 * Last-Modified is believed until it contradicts what the checks saw, and then never again:
 * - a check found the text changed, but Last-Modified is missing, unreadable, later than the check
 *   (beyond {@link CLOCK_SKEW_MS}) or no later than the previous check (the change is not in it);
 * - a check found the text unchanged (a 200 with the same fingerprint), but Last-Modified moved.
 * A 304 (or an unchanged 200 with the same Last-Modified) adds its interval to the time watched
 * without a change.
 */

/** How far a server's clock may run ahead of ours before its Last-Modified is not believed (ms). */
export const CLOCK_SKEW_MS = 60_000;

/** HTTP dates have whole seconds: a change within the same second as the previous check still counts. */
export const HTTP_DATE_GRAIN_MS = 1000;

function parseHttpDate(value: string | null | undefined): number | null {
  if (!value) return null;
  const t = Date.parse(value);
  return Number.isFinite(t) ? t : null;
}

/** One check, as the Last-Modified evidence needs it. */
export interface AgeCheck {
  outcome: 'changed' | 'unchanged' | 'not_modified';
  /** When the check was made (ms). */
  at: number;
  /** The previous check (or the fetch of the first copy) (ms). */
  previousAt: number;
  /** Last-Modified of the stored copy before this check, and of this response. */
  previousLastModified: string | null;
  lastModified: string | null;
}

/**
 * The page's evidence after a check: `prev` with the check added, or null once Last-Modified has
 * contradicted a check (and for ever after: pass null, get null).
 */
export function nextAges(prev: PageAges | null, c: AgeCheck): PageAges | null {
  if (prev === null) return null;
  const interval = Math.max(0, c.at - c.previousAt);
  if (c.outcome === 'not_modified') return { ...prev, unchangedMs: prev.unchangedMs + interval };
  const lm = parseHttpDate(c.lastModified);
  if (c.outcome === 'unchanged') {
    const before = parseHttpDate(c.previousLastModified);
    if (lm !== null && before !== null && lm > before) return null; // it moved, the text did not
    return { ...prev, unchangedMs: prev.unchangedMs + interval };
  }
  if (lm === null || lm > c.at + CLOCK_SKEW_MS || lm <= c.previousAt - HTTP_DATE_GRAIN_MS) return null;
  return { changes: prev.changes + 1, ageMs: prev.ageMs + Math.max(0, c.at - lm), unchangedMs: prev.unchangedMs };
}

/** The evidence of a page that has had no check yet. */
export function emptyAges(): PageAges {
  return { changes: 0, ageMs: 0, unchangedMs: 0 };
}
