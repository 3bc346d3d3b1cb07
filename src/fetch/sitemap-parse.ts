import { hostKey } from '../url/host.js';
import { tryNormalizeUrl } from '../url/normalize.js';
import { decodeSitemapBytes, gunzipCapped, isGzip } from './sitemap-decode.js';
import { parseXmlEntries, type EntrySink, type XmlSitemapKind } from './sitemap-xml.js';

export { parseLastmod } from './sitemap-lastmod.js';

/**
 * Parses one sitemap file (sitemaps.org protocol 0.9), from its bytes. Rules:
 * - gzip is recognised by its magic bytes (1f 8b), never by name or content type, and inflated to
 *   at most `maxBytes`; a longer body (or a gzip bomb) is cut at the cap (`truncated`, an error).
 * - A body whose first non-blank character is `<` is XML (`urlset`, `index`, or an RSS / Atom
 *   feed, whose items count as URLs); anything else is a plain-text sitemap, one URL a line.
 * - Locations are normalised with `tryNormalizeUrl`; only absolute http(s) URLs count (feeds may
 *   use URLs relative to the feed). Invalid ones are counted in one error message.
 * - Host rule (our choice, as crawler-commons' default, non-strict mode and Google do): a URL is kept
 *   only when its host (`hostKey`: host and non-default port; the scheme may differ) is the
 *   sitemap's host or one of `allowHosts`; the protocol's stricter path rule (URLs under the
 *   sitemap's folder) is not applied. Sitemaps listed by an index may be on any host (the
 *   crawler-commons index fixture lists https://example.com/… from http://www.example.com/); the URLs
 *   those sitemaps list must then be on their own host.
 * - URLs are returned in document order, not deduplicated; `lastmod` is the string given, trimmed.
 * - At most `maxUrls` URLs (and at most `maxUrls` sitemaps); more sets `truncated`.
 * It never throws: every problem is a message in `errors`, and what was parsed before it is kept.
 */

export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;
export const SITEMAP_MAX_URLS = 50_000;

/** `rss` and `atom` are feeds (their items' links are URLs); `unknown` is anything else (e.g. HTML). */
export type SitemapKind = 'urlset' | 'index' | 'text' | 'rss' | 'atom' | 'unknown';

export interface SitemapEntry {
  /** Normalised absolute http(s) URL. */
  loc: string;
  /** `<lastmod>` (or a feed item's date) as written, trimmed; null when absent. See `parseLastmod`. */
  lastmod: string | null;
}

export interface SitemapParse {
  kind: SitemapKind;
  /** Page URLs (urlset, text, feeds), in document order. */
  urls: SitemapEntry[];
  /** Child sitemaps (index), in document order. */
  sitemaps: SitemapEntry[];
  errors: string[];
  /** True when a cap (`maxBytes`, `maxUrls`) cut the file. */
  truncated: boolean;
}

export interface ParseSitemapOptions {
  /** Cap on the (decompressed) body; default 50 MiB, the protocol's limit. */
  maxBytes?: number;
  /** Cap on URLs (and on sitemaps of an index) per file; default 50,000, the protocol's limit. */
  maxUrls?: number;
  /** More hosts (`hostKey` form, or URLs) whose URLs are accepted, e.g. the URL first requested before a redirect. */
  allowHosts?: string[];
}

function safeHostKey(url: string): string | null {
  try {
    return hostKey(url);
  } catch {
    return null;
  }
}

/** Collects accepted entries and counts the rejected ones. */
class Collector implements EntrySink {
  readonly urls: SitemapEntry[] = [];
  readonly sitemaps: SitemapEntry[] = [];
  truncated = false;
  invalid = 0;
  offHost = 0;

  constructor(
    private readonly base: string,
    private readonly hosts: Set<string>,
    private readonly maxUrls: number,
  ) {}

  add(kind: XmlSitemapKind | 'text', candidates: string[], lastmod: string | null): boolean {
    const list = kind === 'index' ? this.sitemaps : this.urls;
    if (list.length >= this.maxUrls) {
      this.truncated = true;
      return false;
    }
    const relative = kind === 'rss' || kind === 'atom' ? this.base : undefined;
    let loc: string | null = null;
    for (const c of candidates) {
      loc = tryNormalizeUrl(c.trim(), undefined, relative);
      if (loc) break;
    }
    if (!loc) {
      if (kind !== 'text') this.invalid++;
      return true;
    }
    if (kind !== 'index') {
      const host = safeHostKey(loc);
      if (host === null || !this.hosts.has(host)) {
        this.offHost++;
        return true;
      }
    }
    const lm = lastmod?.trim();
    list.push({ loc, lastmod: lm ? lm : null });
    return true;
  }
}

const URL_LINE = /^https?:\/\//i;

function parseText(text: string, sink: Collector): void {
  for (const raw of text.split(/\r\n|\n|\r/)) {
    const line = raw.replace(/^\uFEFF/, '').trim();
    if (!URL_LINE.test(line)) continue; // blank lines, comments and other non-URLs are ignored
    if (!sink.add('text', [line], null)) return;
  }
}

/** An HTML page (a soft 404, a login page): `<!doctype html` or `<html`, after comments. */
const HTML_START = /^[\s\uFEFF]*(?:<!--[\s\S]*?-->[\s]*)*<(?:!doctype\s+html|html[\s>])/i;

function firstNonBlank(text: string): string {
  const m = /[^\s\uFEFF]/.exec(text.slice(0, 4096));
  return m ? m[0] : '';
}

/** Parses a sitemap body fetched from `sitemapUrl` (see the rules above). Never throws. */
export function parseSitemap(body: Buffer, sitemapUrl: string, opts: ParseSitemapOptions = {}): SitemapParse {
  const maxBytes = Math.max(1, opts.maxBytes ?? SITEMAP_MAX_BYTES);
  const maxUrls = Math.max(0, opts.maxUrls ?? SITEMAP_MAX_URLS);
  const errors: string[] = [];
  let truncated = false;

  let bytes = body;
  for (let round = 0; round < 2 && isGzip(bytes); round++) {
    const inflated = gunzipCapped(bytes, maxBytes);
    if (inflated.error) errors.push(inflated.error);
    if (inflated.capped) {
      truncated = true;
      errors.push(`decompressed sitemap exceeds ${maxBytes} bytes; parsed the first ${inflated.data.length}`);
    }
    bytes = inflated.data;
  }
  if (bytes.length > maxBytes) {
    truncated = true;
    errors.push(`sitemap exceeds ${maxBytes} bytes; parsed the first ${maxBytes}`);
    bytes = bytes.subarray(0, maxBytes);
  }

  const hosts = new Set<string>();
  const own = safeHostKey(sitemapUrl);
  if (own) hosts.add(own);
  else errors.push(`invalid sitemap URL "${sitemapUrl.slice(0, 200)}": no URL can be accepted`);
  for (const h of opts.allowHosts ?? []) hosts.add(safeHostKey(h) ?? h.toLowerCase());

  const sink = new Collector(own ? sitemapUrl : 'http://invalid.invalid/', hosts, maxUrls);
  const text = decodeSitemapBytes(bytes);
  let kind: SitemapKind;
  if (HTML_START.test(text.slice(0, 4096))) {
    kind = 'unknown';
    errors.push('not a sitemap: an HTML document');
  } else if (firstNonBlank(text) === '<') {
    const r = parseXmlEntries(text, sink);
    kind = r.kind;
    errors.push(...r.errors);
  } else {
    kind = 'text';
    parseText(text, sink);
  }
  if (sink.truncated) {
    truncated = true;
    errors.push(`more than ${maxUrls} entries; the rest were ignored`);
  }
  if (sink.invalid > 0) errors.push(`${sink.invalid} entries without a valid http(s) URL ignored`);
  if (sink.offHost > 0) errors.push(`${sink.offHost} URLs not on the sitemap's host dropped`);
  return { kind, urls: sink.urls, sitemaps: sink.sitemaps, errors, truncated };
}
