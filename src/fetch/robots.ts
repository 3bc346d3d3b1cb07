import mod from 'robots-parser';
import type { Fetcher } from './fetcher.js';

// robots-parser is CommonJS (module.exports = function); under NodeNext its typed default is one level down.
const robotsParser = mod as unknown as typeof mod.default;

/**
 * The robots.txt rules of one origin for our user agent (RFC 9309). `isAllowed` takes a URL (or a
 * path) and judges its path and query against the rules; "/robots.txt" is always allowed.
 */
export interface RobotsRules {
  isAllowed(url: string): boolean;
  /** Crawl-delay of the matching group, in ms; null if none. */
  crawlDelayMs: number | null;
  /** Absolute `Sitemap:` URLs, in file order, without duplicates. */
  sitemaps: string[];
  /** 'ok': parsed from a 2xx file; 'allow-all': 4xx or unavailable; 'disallow-all': 5xx / unreachable. */
  status: 'ok' | 'allow-all' | 'disallow-all';
}

/** The product token used for group matching: the user agent up to the first "/" (or space), lower-cased. */
export function productToken(userAgent: string): string {
  return userAgent.trim().split(/[/\s]/, 1)[0].toLowerCase() || '*';
}

function pathOf(url: string): string | null {
  try {
    // URLs are matched as given, percent-encoded (RFC 9309 §2.2.2; Google's matcher too): a raw
    // non-ASCII character is not silently encoded into a match. It becomes %00, which no rule
    // but a wildcard matches. The crawler only ever passes normalised, encoded URLs.
    const u = new URL(url.replace(/[^\x00-\x7f]/gu, '%00'), 'http://robots.invalid/');
    return u.pathname + u.search;
  } catch {
    return null;
  }
}

const DIRECTIVE = /^([ \t]*)(user-agent|allow|disallow|sitemap|crawl-delay)(?:[ \t]*:[ \t]*|[ \t]+)(.*)$/i;

/**
 * Smooths over what robots-parser reads more strictly than RFC 9309 / Google's parser: a directive
 * whose colon is missing ("disallow /x"), and a user-agent value with more than its product token
 * ("User-agent: FooBot Bar/1.0" names the group "foobot").
 */
function normaliseRobotsText(text: string): string {
  return text
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\r|\n/)
    .map((line) => {
      const m = DIRECTIVE.exec(line);
      if (!m) return line;
      const value = m[2].toLowerCase() === 'user-agent' ? (m[3].trim().split(/[\s#]/, 1)[0] ?? '') : m[3];
      return `${m[1]}${m[2]}: ${value}`;
    })
    .join('\n');
}

/** Parses a robots.txt body. `robotsUrl` is where it was found (for relative sitemaps). */
export function parseRobots(text: string, robotsUrl: string, userAgent: string): RobotsRules {
  return parseRobotsExplained(text, robotsUrl, userAgent);
}

/**
 * Which rule decided a URL: `line` is the 1-based line, in the text given to
 * {@link parseRobotsExplained}, of the Allow or Disallow rule that decided it; null when no rule
 * matched (allowed), for "/robots.txt" itself (always allowed) and for an unparsable URL (disallowed).
 */
export interface RobotsDecision {
  allowed: boolean;
  line: number | null;
}

/** {@link RobotsRules} that can also say which rule decided a URL (for explaining, e.g. `topicrawl robots`). */
export interface ExplainedRobotsRules extends RobotsRules {
  decide(url: string): RobotsDecision;
}

/** Like {@link parseRobots}, plus `decide(url)`: the verdict of `isAllowed` and the line of the rule behind it. */
export function parseRobotsExplained(text: string, robotsUrl: string, userAgent: string): ExplainedRobotsRules {
  const base = new URL('/robots.txt', robotsUrl);
  // normaliseRobotsText keeps lines one for one, so the parser's line numbers are those of `text`.
  const robots = robotsParser(base.href, normaliseRobotsText(text));
  const token = productToken(userAgent);
  const delay = robots.getCrawlDelay(token);
  const sitemaps: string[] = [];
  for (const s of robots.getSitemaps()) {
    try {
      const abs = new URL(s.trim(), robotsUrl).href;
      if (!sitemaps.includes(abs)) sitemaps.push(abs);
    } catch {
      // not a URL: skip
    }
  }
  const decide = (url: string): RobotsDecision => {
    const path = pathOf(url);
    if (path === null) return { allowed: false, line: null };
    if (path === '/robots.txt') return { allowed: true, line: null };
    // Judge the path on the robots.txt origin: the parser ignores URLs of other origins.
    const target = base.origin + path;
    const allowed = robots.isAllowed(target, token) !== false;
    const line = robots.getMatchingLineNumber(target, token);
    return { allowed, line: typeof line === 'number' && line > 0 ? line : null };
  };
  return {
    status: 'ok',
    crawlDelayMs: typeof delay === 'number' && Number.isFinite(delay) && delay >= 0 ? Math.round(delay * 1000) : null,
    sitemaps,
    isAllowed(url: string): boolean {
      const path = pathOf(url);
      if (path === null) return false;
      if (path === '/robots.txt') return true;
      // Judge the path on the robots.txt origin: the parser ignores URLs of other origins.
      return robots.isAllowed(base.origin + path, token) !== false;
    },
    decide,
  };
}

const ALLOW_ALL: RobotsRules = Object.freeze({ status: 'allow-all', crawlDelayMs: null, sitemaps: [], isAllowed: () => true });
const DISALLOW_ALL: RobotsRules = Object.freeze({
  status: 'disallow-all',
  crawlDelayMs: null,
  sitemaps: [],
  isAllowed: (url: string) => pathOf(url) === '/robots.txt',
});

export interface RobotsCacheOptions {
  userAgent: string;
  /** How long fetched rules (2xx and 4xx) are kept. Default 24 h. */
  ttlMs?: number;
  /** How long a 5xx / network-error "disallow all" is kept. Default 10 min. */
  errorTtlMs?: number;
  /** robots.txt bytes parsed at most (RFC 9309: at least 500 KiB). Default 500 KiB. */
  maxBytes?: number;
  /** Redirect hops followed. Default 5. */
  maxRedirects?: number;
  /** Origins kept at most; the oldest entry goes first. Default 100 000. */
  maxEntries?: number;
  now?: () => number;
}

interface Entry {
  rules: RobotsRules;
  expires: number;
}

/**
 * robots.txt rules per origin, fetched through a {@link Fetcher} and cached. 2xx → parsed (a file
 * over maxBytes is parsed up to its last whole line within maxBytes; one too large to read at all,
 * over 4 × maxBytes by Content-Length, counts as unreachable); 3xx → followed up to maxRedirects hops, then
 * allow all; 4xx → allow all; 429, 5xx or a network error → disallow all, cached for errorTtlMs
 * only. Concurrent get() calls for one origin share one fetch. get() never rejects.
 */
export class RobotsCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<RobotsRules>>();
  private readonly ttlMs: number;
  private readonly errorTtlMs: number;
  private readonly maxBytes: number;
  private readonly maxRedirects: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(
    private readonly fetcher: Fetcher,
    private readonly opts: RobotsCacheOptions,
  ) {
    this.ttlMs = opts.ttlMs ?? 24 * 3600_000;
    this.errorTtlMs = opts.errorTtlMs ?? 10 * 60_000;
    this.maxBytes = opts.maxBytes ?? 500 * 1024;
    this.maxRedirects = opts.maxRedirects ?? 5;
    this.maxEntries = opts.maxEntries ?? 100_000;
    this.now = opts.now ?? Date.now;
  }

  /** The cached rules for the origin of `url` if they are still fresh, else null (no fetch). */
  cached(url: string): RobotsRules | null {
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      return null;
    }
    const entry = this.entries.get(origin);
    return entry && entry.expires > this.now() ? entry.rules : null;
  }

  /** The rules for the origin of `url` (an invalid or non-HTTP URL gets "disallow all", uncached). */
  get(url: string): Promise<RobotsRules> {
    let origin: string;
    try {
      const u = new URL(url);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') return Promise.resolve(DISALLOW_ALL);
      origin = u.origin;
    } catch {
      return Promise.resolve(DISALLOW_ALL);
    }
    const entry = this.entries.get(origin);
    if (entry && entry.expires > this.now()) return Promise.resolve(entry.rules);
    const pending = this.inflight.get(origin);
    if (pending) return pending;
    const p = this.load(origin).finally(() => this.inflight.delete(origin));
    this.inflight.set(origin, p);
    return p;
  }

  private async load(origin: string): Promise<RobotsRules> {
    let rules: RobotsRules;
    try {
      rules = await this.fetchRules(origin);
    } catch {
      rules = DISALLOW_ALL;
    }
    this.entries.delete(origin);
    this.entries.set(origin, { rules, expires: this.now() + (rules.status === 'disallow-all' ? this.errorTtlMs : this.ttlMs) });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    return rules;
  }

  private async fetchRules(origin: string): Promise<RobotsRules> {
    const f = await fetchRobotsTxt(this.fetcher, `${origin}/robots.txt`, { maxBytes: this.maxBytes, maxRedirects: this.maxRedirects });
    if (f.status === 'ok') return parseRobots(f.text, f.url, this.opts.userAgent);
    return f.status === 'allow-all' ? ALLOW_ALL : DISALLOW_ALL;
  }
}

/**
 * What fetching one robots.txt came to: its text (`url` is where it was finally found, after
 * redirects), or the "allow all" / "disallow all" that RFC 9309 prescribes, with a short reason
 * ("HTTP 404", "unreachable (connection refused)", …). `httpStatus` is the last status seen (0: none).
 */
export type RobotsFetchOutcome =
  | { status: 'ok'; url: string; httpStatus: number; text: string }
  | { status: 'allow-all' | 'disallow-all'; url: string; httpStatus: number; reason: string };

/**
 * Fetches the robots.txt at `url` with {@link RobotsCache}'s rules: 2xx → its text (over maxBytes:
 * cut at the last whole line within maxBytes; over 4 × maxBytes by Content-Length: unreachable);
 * 3xx → followed up to maxRedirects hops, then allow all; 4xx → allow all; 429, 5xx or a network
 * error → disallow all. Never rejects.
 */
export async function fetchRobotsTxt(
  fetcher: Fetcher,
  url: string,
  opts: { maxBytes?: number; maxRedirects?: number } = {},
): Promise<RobotsFetchOutcome> {
  const maxBytes = opts.maxBytes ?? 500 * 1024;
  const maxRedirects = opts.maxRedirects ?? 5;
  let target = url;
  let s = 0;
  const give = (status: 'allow-all' | 'disallow-all', reason: string): RobotsFetchOutcome => ({ status, url: target, httpStatus: s, reason });
  try {
    for (let hop = 0; ; hop++) {
      // Ask for more than we parse: a fetcher drops a body whose Content-Length is over its cap.
      const r = await fetcher.fetch(target, { maxBytes: maxBytes * 4 });
      s = r.status;
      if (s >= 200 && s < 300) {
        if (r.error && (r.error.code !== 'E_TOO_LARGE' || r.body.length === 0)) return give('disallow-all', `unreachable (${r.error.message})`);
        const text = r.body.length > maxBytes || r.error ? cutAtLastLine(r.body.subarray(0, maxBytes)) : r.body.toString('utf8');
        return { status: 'ok', url: target, httpStatus: s, text };
      }
      if (s >= 300 && s < 400) {
        // unavailable (RFC 9309 §2.3.1.2)
        if (!r.location) return give('allow-all', `HTTP ${s} without a Location`);
        if (hop >= maxRedirects) return give('allow-all', `redirected more than ${maxRedirects} times`);
        target = r.location;
        continue;
      }
      if (s === 0) return give('disallow-all', `unreachable (${r.error?.message ?? 'no response'})`);
      if (s === 429 || s >= 500) return give('disallow-all', `HTTP ${s}`);
      if (s >= 400) return give('allow-all', `HTTP ${s}`);
      return give('disallow-all', `HTTP ${s}`); // 1xx or nonsense
    }
  } catch (err) {
    return give('disallow-all', `unreachable (${err instanceof Error ? err.message : String(err)})`);
  }
}

function cutAtLastLine(body: Buffer): string {
  const nl = body.lastIndexOf(0x0a);
  return (nl >= 0 ? body.subarray(0, nl + 1) : body).toString('utf8');
}
