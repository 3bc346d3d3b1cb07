/**
 * A string equal to `s` that shares no storage with a larger string. V8 makes `s.slice(…)` of a
 * long string a view on it (a "sliced string", from 13 characters on), which keeps the whole
 * string alive as long as the view lives. The crawl's thread gets each page's link URLs, hosts and
 * anchors as slices of one string per page (crawl/analysis-wire.ts), so a long-lived map keyed by
 * one of them (a host's name, a URL's directory, a memoised text) would keep every such page's
 * string: a heap snapshot of a 20,000-page crawl found about 15 MB of them. Use this for keys and
 * values kept beyond the page. (Concatenation then a slice: V8 flattens the concatenation into a
 * new string of `s.length + 1` characters and the slice views that one.)
 */
export function detached(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}
