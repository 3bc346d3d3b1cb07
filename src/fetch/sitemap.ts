import { toOutcome, type ErrorCode } from '../errors.js';
import { hostKey } from '../url/host.js';
import { tryNormalizeUrl } from '../url/normalize.js';
import type { Fetcher } from './fetcher.js';
import { parseSitemap, SITEMAP_MAX_BYTES, SITEMAP_MAX_URLS } from './sitemap-parse.js';

export { parseLastmod, parseSitemap, SITEMAP_MAX_BYTES, SITEMAP_MAX_URLS } from './sitemap-parse.js';
export type { ParseSitemapOptions, SitemapEntry, SitemapKind, SitemapParse } from './sitemap-parse.js';

export interface SitemapReaderOptions {
  /** Index levels followed below the sitemaps given (0: indexes are read but not followed). Default 3. */
  maxDepth?: number;
  /** URLs kept in all; reading stops when reached. Default 50,000. */
  maxUrls?: number;
  /** Body cap per sitemap, on the wire and after decompression. Default 50 MiB. */
  maxBytes?: number;
  /** Redirect hops followed per sitemap. Default 5. */
  maxRedirects?: number;
  /** Sitemap files fetched in all (an index may list 50,000). Default 1,000. */
  maxSitemaps?: number;
}

export interface SitemapUrl {
  loc: string;
  lastmod: string | null;
  /** The sitemap that listed it, as it was requested (normalised, before redirects). */
  sitemap: string;
}

export interface SitemapReadError {
  /** The sitemap concerned, as given or listed (normalised when it could be). */
  sitemap: string;
  message: string;
  /** E_HTTP, E_REDIRECT_LIMIT, E_REDIRECT_LOOP, E_INVALID_URL, E_PARSE (content problems), a fetch error code. */
  code: ErrorCode;
}

export interface SitemapReadResult {
  /** Page URLs, deduplicated, breadth-first over sitemaps, document order within one. */
  urls: SitemapUrl[];
  /** Sitemaps fetched and parsed (2xx), as requested, in reading order. */
  sitemapsRead: string[];
  errors: SitemapReadError[];
  /** True when `maxUrls`, `maxSitemaps` or `maxDepth` left something unread. */
  truncated: boolean;
}

type Fetched = { body: Buffer; finalUrl: string; warning: string | null } | { duplicate: string } | { error: { code: ErrorCode; message: string } };

/**
 * Reads sitemaps (e.g. robots.txt `Sitemap:` lines) and, recursively, the sitemaps their indexes
 * list, through a {@link Fetcher}: breadth-first, each sitemap at most once (by normalised URL,
 * redirect targets included, so index loops end), up to `maxDepth` index levels, `maxUrls` URLs and
 * `maxSitemaps` files. It follows redirects itself (any host; at most `maxRedirects` hops; a hop
 * back into the chain is a loop). A page URL is kept when it is on the host of the sitemap as
 * requested or of the final URL after redirects. Fetches run one at a time. `read` never throws:
 * a sitemap that fails is an entry in `errors`, and the others are still read.
 */
export class SitemapReader {
  private readonly maxDepth: number;
  private readonly maxUrls: number;
  private readonly maxBytes: number;
  private readonly maxRedirects: number;
  private readonly maxSitemaps: number;

  constructor(
    private readonly fetcher: Fetcher,
    opts: SitemapReaderOptions = {},
  ) {
    this.maxDepth = Math.max(0, opts.maxDepth ?? 3);
    this.maxUrls = Math.max(0, opts.maxUrls ?? SITEMAP_MAX_URLS);
    this.maxBytes = Math.max(1, opts.maxBytes ?? SITEMAP_MAX_BYTES);
    this.maxRedirects = Math.max(0, opts.maxRedirects ?? 5);
    this.maxSitemaps = Math.max(0, opts.maxSitemaps ?? 1000);
  }

  async read(sitemapUrls: string[]): Promise<SitemapReadResult> {
    const result: SitemapReadResult = { urls: [], sitemapsRead: [], errors: [], truncated: false };
    const seenSitemaps = new Set<string>();
    const seenUrls = new Set<string>();
    const queue: { url: string; depth: number }[] = [];
    for (const raw of sitemapUrls) {
      const url = tryNormalizeUrl(raw);
      if (!url) result.errors.push({ sitemap: raw, message: 'invalid sitemap URL', code: 'E_INVALID_URL' });
      else if (!seenSitemaps.has(url)) {
        seenSitemaps.add(url);
        queue.push({ url, depth: 0 });
      }
    }

    let fetched = 0;
    for (let i = 0; i < queue.length; i++) {
      const { url, depth } = queue[i];
      if (result.urls.length >= this.maxUrls) {
        result.truncated = true;
        break;
      }
      if (fetched >= this.maxSitemaps) {
        result.truncated = true;
        const left = queue.length - i;
        result.errors.push({ sitemap: url, message: `sitemap cap (${this.maxSitemaps}) reached: ${left} sitemaps not read`, code: 'E_PARSE' });
        break;
      }
      fetched++;
      const got = await this.fetchFollowing(url, seenSitemaps);
      if ('error' in got) {
        result.errors.push({ sitemap: url, ...got.error });
        continue;
      }
      if ('duplicate' in got) continue; // redirects to a sitemap read (or queued) under another URL
      if (got.warning) result.errors.push({ sitemap: url, message: got.warning, code: 'E_TOO_LARGE' });

      const parsed = parseSitemap(got.body, got.finalUrl, { maxBytes: this.maxBytes, allowHosts: [hostKey(url)] });
      result.sitemapsRead.push(url);
      for (const message of parsed.errors) result.errors.push({ sitemap: url, message, code: 'E_PARSE' });
      if (parsed.kind === 'unknown' && parsed.errors.length === 0) {
        result.errors.push({ sitemap: url, message: 'not a sitemap', code: 'E_PARSE' });
      }

      for (const u of parsed.urls) {
        if (seenUrls.has(u.loc)) continue;
        if (result.urls.length >= this.maxUrls) {
          result.truncated = true;
          break;
        }
        seenUrls.add(u.loc);
        result.urls.push({ loc: u.loc, lastmod: u.lastmod, sitemap: url });
      }

      if (parsed.sitemaps.length > 0 && depth >= this.maxDepth) {
        result.truncated = true;
        result.errors.push({
          sitemap: url,
          message: `index depth cap (${this.maxDepth}) reached: ${parsed.sitemaps.length} listed sitemaps not read`,
          code: 'E_PARSE',
        });
        continue;
      }
      for (const s of parsed.sitemaps) {
        if (seenSitemaps.has(s.loc)) continue;
        seenSitemaps.add(s.loc);
        queue.push({ url: s.loc, depth: depth + 1 });
      }
    }
    return result;
  }

  /** One sitemap through its redirects. Adds each hop's target to `seen`. */
  private async fetchFollowing(url: string, seen: Set<string>): Promise<Fetched> {
    const chain = [url];
    let current = url;
    for (let hop = 0; ; hop++) {
      let r;
      try {
        r = await this.fetcher.fetch(current, { maxBytes: this.maxBytes });
      } catch (err) {
        return { error: toOutcome(err) };
      }
      const cut = r.error?.code === 'E_TOO_LARGE' && r.body.length > 0;
      if (r.error && !cut) return { error: r.error };
      if (r.status >= 300 && r.status < 400) {
        if (!r.location) return { error: { code: 'E_HTTP', message: `HTTP ${r.status} without Location` } };
        const next = tryNormalizeUrl(r.location);
        if (!next) return { error: { code: 'E_INVALID_URL', message: `redirect to an invalid URL: ${r.location.slice(0, 200)}` } };
        if (chain.includes(next)) return { error: { code: 'E_REDIRECT_LOOP', message: `redirect loop: ${[...chain, next].join(' -> ')}` } };
        if (hop >= this.maxRedirects) {
          return { error: { code: 'E_REDIRECT_LIMIT', message: `more than ${this.maxRedirects} redirects (last to ${next})` } };
        }
        if (seen.has(next)) return { duplicate: next };
        seen.add(next);
        chain.push(next);
        current = next;
        continue;
      }
      if (r.status < 200 || r.status >= 300) return { error: { code: 'E_HTTP', message: `HTTP ${r.status}` } };
      return { body: r.body, finalUrl: current, warning: cut ? (r.error?.message ?? 'body cut at the size cap') : null };
    }
  }
}
