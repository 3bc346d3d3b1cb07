/** Media types the crawl parses as HTML (a response's content type without parameters, lower-cased). */
export const HTML_TYPES: ReadonlySet<string> = new Set(['text/html', 'application/xhtml+xml']);
