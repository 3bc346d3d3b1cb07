/**
 * The words of a URL: lower-cased runs of letters and digits of its host and percent-decoded path
 * (and its query with `withQuery`), in order. The Location Metric matches topic tokens against them;
 * the classifier hashes them as URL features.
 */
export function urlWords(u: URL, withQuery = false): string[] {
  let path = u.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // keep it encoded
  }
  const text = withQuery ? `${u.hostname} ${path} ${u.search}` : `${u.hostname} ${path}`;
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((t) => t.length > 0);
}
