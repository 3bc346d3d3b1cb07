import { HeadersMultiMap, StatusAndHeaders } from 'warcio';

/**
 * An HTTP header block that warcio serialises exactly as given: every field in its order, its name
 * in its case, repeated fields where they were (warcio's own HeadersMultiMap groups repeats of a
 * name at its first place). Lookups (`get`, used by warcio's indexer for the content type) see the
 * first value of each name.
 */
export class ExactHeaders extends HeadersMultiMap {
  private readonly fields: [string, string][];

  constructor(fields: [string, string][]) {
    super();
    this.fields = fields;
    for (const [n, v] of fields) if (!Map.prototype.has.call(this, n)) Map.prototype.set.call(this, n, v);
  }

  override *[Symbol.iterator](): IterableIterator<[string, string]> {
    yield* this.fields;
  }
}

/**
 * Fields whose meaning no longer holds for the bytes a record stores, renamed the way StormCrawler
 * does (X-Crawler-…): Transfer-Encoding always (undici undoes the chunking; the record holds the
 * body without it), and when the body is stored decoded, Content-Encoding and Content-Length too.
 */
export function renameFields(fields: [string, string][], decodedBody: boolean): [string, string][] {
  return fields.map(([n, v]) => {
    const l = n.toLowerCase();
    // (in the prefix's case the name has: lower-cased names, as a crawl file keeps them, stay lower case)
    if (l === 'transfer-encoding' || (decodedBody && (l === 'content-encoding' || l === 'content-length'))) return [`${n[0] === n[0].toLowerCase() ? 'x-crawler-' : 'X-Crawler-'}${n}`, v];
    return [n, v];
  });
}

/** A status line and an exact header block. */
export function httpBlock(statusline: string, fields: [string, string][]): StatusAndHeaders {
  return new StatusAndHeaders({ statusline, headers: new ExactHeaders(fields) });
}

/** The request head undici wrote ("GET /p HTTP/1.1\r\nhost: h\r\n…") as a status line and fields. */
export function parseRequestHead(head: string): { statusline: string; fields: [string, string][] } {
  const lines = head.split('\r\n').filter((l) => l !== '');
  const fields: [string, string][] = [];
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    // undici writes `${name}: ${value}`: keep the value as written after that one space
    fields.push([line.slice(0, i), line.slice(i + 1).replace(/^ /, '')]);
  }
  return { statusline: lines[0] ?? 'GET / HTTP/1.1', fields };
}
