import type { ErrorCode } from '../errors.js';
import type { Fetcher } from './fetcher.js';
import { fetchRobotsTxt, ROBOTS_MAX_BYTES } from './robots-fetch.js';
import { RobotsMatcher } from './robots-matcher.js';
import { canonicalPath, pathParamsQuery } from './robots-pattern.js';
import { agentToken, parseRobotsTxt } from './robots-txt-parse.js';

export { fetchRobotsTxt, ROBOTS_MAX_BYTES, type RobotsFetchOutcome } from './robots-fetch.js';

/**
 * Why a robots.txt gave "disallow all" for now (RFC 9309 §2.3.1.3–§2.3.1.4): it could not be fetched
 * (a network error: `code` names it) or the server answered 429 or 5xx (`code` E_HTTP, `httpStatus`).
 * A temporary condition: the crawler must not fetch the host's pages, and retries it later.
 */
export interface RobotsFailure {
  code: ErrorCode;
  httpStatus: number;
  /** "unreachable (connect ECONNREFUSED 127.0.0.1:9)", "HTTP 503". */
  reason: string;
  /** The server's Retry-After header, if it sent one. */
  retryAfter?: string;
}

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
  /** Set when the "disallow all" is a temporary failure to fetch the file (to retry, not a verdict). */
  failure?: RobotsFailure;
}

/** The product token used for group matching: the user agent's leading `[A-Za-z_-]+`, lower-cased ("*" if none). */
export function productToken(userAgent: string): string {
  return agentToken(userAgent.trim()) || '*';
}

/** Parses a robots.txt body. `robotsUrl` is where it was found (for relative sitemaps). */
export function parseRobots(text: string, robotsUrl: string, userAgent: string): RobotsRules {
  return parseRobotsExplained(text, robotsUrl, userAgent);
}

/**
 * Which rule decided a URL: `line` is the 1-based line, in the text given to
 * {@link parseRobotsExplained}, of the Allow or Disallow rule that decided it; null when no rule
 * matched (allowed) and for "/robots.txt" itself (always allowed).
 */
export interface RobotsDecision {
  allowed: boolean;
  line: number | null;
}

/** {@link RobotsRules} that can also say which rule decided a URL (for explaining, e.g. `topicrawl robots`). */
export interface ExplainedRobotsRules extends RobotsRules {
  decide(url: string): RobotsDecision;
}

const isRobotsTxt = (path: string) => canonicalPath(path) === '/robots.txt';

/**
 * Like {@link parseRobots}, plus `decide(url)`: the verdict of `isAllowed` and the line of the rule
 * behind it. Our own RFC 9309 matcher (robots-txt-parse.ts, robots-matcher.ts, robots-pattern.ts):
 * the crawler, the recrawler and `topicrawl robots` all decide through it.
 */
export function parseRobotsExplained(text: string, robotsUrl: string, userAgent: string): ExplainedRobotsRules {
  const parsed = parseRobotsTxt(text);
  const matcher = new RobotsMatcher(parsed, userAgent);
  const sitemaps: string[] = [];
  for (const s of parsed.sitemaps) {
    try {
      const abs = new URL(s, robotsUrl).href;
      if (!sitemaps.includes(abs)) sitemaps.push(abs);
    } catch {
      // not a URL: skip
    }
  }
  const decide = (url: string): RobotsDecision => {
    const path = pathParamsQuery(url);
    if (isRobotsTxt(path)) return { allowed: true, line: null };
    const rule = matcher.decide(path);
    return rule ? { allowed: rule.allow, line: rule.line } : { allowed: true, line: null };
  };
  const delay = matcher.crawlDelay;
  return {
    status: 'ok',
    crawlDelayMs: delay === null ? null : Math.round(delay * 1000),
    sitemaps,
    isAllowed: (url: string) => decide(url).allowed,
    decide,
  };
}

const ALLOW_ALL: RobotsRules = Object.freeze({ status: 'allow-all', crawlDelayMs: null, sitemaps: [], isAllowed: () => true });
const DISALLOW_ALL: RobotsRules = Object.freeze({
  status: 'disallow-all',
  crawlDelayMs: null,
  sitemaps: [],
  isAllowed: (url: string) => isRobotsTxt(pathParamsQuery(url)),
});

/** "Disallow all" because the file could not be fetched now (RFC 9309 §2.3.1.4). */
function unavailable(failure: RobotsFailure): RobotsRules {
  return Object.freeze({ ...DISALLOW_ALL, failure: Object.freeze(failure) });
}

export interface RobotsCacheOptions {
  userAgent: string;
  /** How long fetched rules (2xx and 4xx) are kept. Default 24 h. */
  ttlMs?: number;
  /** How long a 5xx / network-error "disallow all" is kept. Default 10 min. */
  errorTtlMs?: number;
  /** robots.txt bytes read and parsed at most (RFC 9309: at least 500 KiB). Default 500 KiB. */
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
 * over maxBytes is read up to maxBytes only and parsed up to its last whole line within them);
 * 3xx → followed up to maxRedirects hops, then allow all; 4xx → allow all; 429, 5xx or a network
 * error → disallow all with `failure` set, cached for errorTtlMs only (or until forget()).
 * Concurrent get() calls for one origin share one fetch. get() never rejects.
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
    this.maxBytes = opts.maxBytes ?? ROBOTS_MAX_BYTES;
    this.maxRedirects = opts.maxRedirects ?? 5;
    this.maxEntries = opts.maxEntries ?? 100_000;
    this.now = opts.now ?? Date.now;
  }

  private static originOf(url: string): string | null {
    try {
      const u = new URL(url);
      return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
    } catch {
      return null;
    }
  }

  /** The cached rules for the origin of `url` if they are still fresh, else null (no fetch). */
  cached(url: string): RobotsRules | null {
    const origin = RobotsCache.originOf(url);
    const entry = origin === null ? undefined : this.entries.get(origin);
    return entry && entry.expires > this.now() ? entry.rules : null;
  }

  /** Drops the cached rules of the origin of `url` (the next get() fetches again: a retry). */
  forget(url: string): void {
    const origin = RobotsCache.originOf(url);
    if (origin !== null) this.entries.delete(origin);
  }

  /** The rules for the origin of `url` (an invalid or non-HTTP URL gets "disallow all", uncached). */
  get(url: string): Promise<RobotsRules> {
    const origin = RobotsCache.originOf(url);
    if (origin === null) return Promise.resolve(DISALLOW_ALL);
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
    } catch (err) {
      rules = unavailable({ code: 'E_INTERNAL', httpStatus: 0, reason: `unreachable (${err instanceof Error ? err.message : String(err)})` });
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
    if (f.status === 'allow-all') return ALLOW_ALL;
    return unavailable({ code: f.code, httpStatus: f.httpStatus, reason: f.reason, ...(f.retryAfter ? { retryAfter: f.retryAfter } : {}) });
  }
}
