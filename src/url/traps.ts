/**
 * Crawler traps (seed 002): URL spaces that never end. Two checks, applied with the scope when a
 * link is added:
 *
 * - {@link TRAP_PATTERNS}: calendars (year/month paths and date parameters), sorting and ordering
 *   parameters, faceted filters, session ids in the URL, print/share variants. Turned off with
 *   `scope.exclude_traps: false`; extend with `scope.exclude`.
 * - {@link repeatedSegments}: a path that repeats one segment (/a/b/a/b/a/b/…) is the classic
 *   relative-link loop; more than `limits.max_repeated_segments` repeats is refused.
 */
export const TRAP_PATTERNS: readonly RegExp[] = Object.freeze([
  // calendars: /calendar/, /events/2026/11/, ?date=2026-11-29, ?month=11&year=2026
  /\/(calendar|calendars|agenda)(\/|\.|\?|$)/i,
  /\/(19|20)\d\d\/(0?[1-9]|1[0-2])\/(0?[1-9]|[12]\d|3[01])?\/?(\?|$)/,
  /[?&](date|day|month|year|week|cal(endar)?_?(date|month|year)?)=\d/i,
  // sorting and ordering
  /[?&](sort|sortby|sort_by|order|orderby|order_by|dir|direction)=/i,
  // faceted filters
  /[?&](filter|filters|facet|facets|f\[|refine|price_(min|max)|min_price|max_price)[^=&]*=/i,
  // session ids
  /[?&;](sid|sessionid|session_id|phpsessid|jsessionid|aspsessionid)=/i,
  // print / share / reply variants
  /[?&](print|replytocom|share)=/i,
]);

/** True when some trap pattern matches the URL. */
export function looksLikeTrap(url: string): boolean {
  for (const re of TRAP_PATTERNS) if (re.test(url)) return true;
  return false;
}

/** The largest number of times one path segment occurs in the URL's path. */
export function repeatedSegments(pathname: string): number {
  const counts = new Map<string, number>();
  let most = 0;
  for (const seg of pathname.split('/')) {
    if (seg === '') continue;
    const n = (counts.get(seg) ?? 0) + 1;
    counts.set(seg, n);
    if (n > most) most = n;
  }
  return most;
}
