import { TopicrawlError } from '../errors.js';

/**
 * URL normalisation (RFC 3986 §6 plus crawler rules). Every URL the crawler stores, dedups or
 * fetches goes through {@link normalizeUrl} once, when it is added.
 *
 * WHATWG `URL` (Node's, backed by ada) does the parsing, base resolution, scheme/host lower-casing,
 * IDN → punycode (UTS #46 non-transitional, so `straße.de` → `xn--strae-oqa.de`), IPv4/IPv6
 * canonical forms, default-port removal, dot-segment removal, empty path → `/`, and encodes
 * spaces, non-ASCII and some unsafe characters. What it does NOT do, and this module adds:
 * - decoding percent-escaped unreserved characters (`%7E` → `~`, `%41` → `A`);
 * - upper-casing the hex of the other escapes (`%c3%a4` → `%C3%A4`);
 * - escaping a `%` not followed by two hex digits (`%zz` → `%25zz`);
 * - escaping characters RFC 3986 does not allow in path/query that WHATWG leaves alone
 *   (`| ^ [ ] \` and, in the query, `` ` { } ``);
 * - dropping userinfo (`user:pass@`), the fragment, tracking parameters, and an empty `?`;
 * - sorting query parameters by name (stable: repeated names keep their order).
 * Not done on purpose: collapsing `//` in paths (meaningful on some servers), removing a trailing
 * dot from the host, case-folding the path, `index.html` removal.
 */

/**
 * Default tracking parameters removed from queries. A trailing `*` makes a prefix (`utm_*`).
 * Names are compared case-insensitively.
 */
export const DEFAULT_STRIP_PARAMS: readonly string[] = Object.freeze([
  'utm_*', // Google Analytics campaign tags (utm_source, utm_medium, utm_campaign, …)
  'fbclid', // Facebook
  'gclid', 'dclid', 'gbraid', 'wbraid', 'gclsrc', '_ga', '_gl', // Google Ads / Analytics
  'msclkid', // Microsoft Ads
  'mc_cid', 'mc_eid', // Mailchimp
  'yclid', // Yandex
  'igshid', // Instagram
  'twclid', 'ttclid', 'li_fat_id', 'epik', // Twitter, TikTok, LinkedIn, Pinterest
  '_hsenc', '_hsmi', '__hstc', '__hssc', '__hsfp', 'hsctatracking', // HubSpot
  'mkt_tok', // Marketo
  'oly_anon_id', 'oly_enc_id', 'vero_id', 'vero_conv', 'wickedid', 'rb_clickid', 's_kwcid',
]);

/** Options of {@link normalizeUrl}. All optional; the defaults are the crawler's rules. */
export interface NormalizeOptions {
  /** Extra parameter names to strip from the query (a trailing `*` makes a prefix). */
  stripParams?: readonly string[];
  /** Also strip {@link DEFAULT_STRIP_PARAMS} (default true). */
  keepDefaultStripList?: boolean;
  /** Sort query parameters by name, stably (default true). */
  sortQuery?: boolean;
}

/** A compiled set of parameter names: exact names and prefixes, lower-case. */
interface StripMatcher {
  exact: Set<string>;
  prefixes: string[];
}

/** Options turned into what the hot path needs; cached per options object. */
interface Compiled {
  strip: StripMatcher;
  sortQuery: boolean;
}

function compileStrip(names: readonly string[]): StripMatcher {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const raw of names) {
    const n = raw.toLowerCase();
    if (n.endsWith('*')) prefixes.push(n.slice(0, -1));
    else exact.add(n);
  }
  return { exact, prefixes };
}

const DEFAULT_COMPILED: Compiled = { strip: compileStrip(DEFAULT_STRIP_PARAMS), sortQuery: true };
const compiledCache = new WeakMap<NormalizeOptions, Compiled>();

function compile(options: NormalizeOptions | undefined): Compiled {
  if (!options) return DEFAULT_COMPILED;
  let c = compiledCache.get(options);
  if (!c) {
    const names = [...(options.keepDefaultStripList === false ? [] : DEFAULT_STRIP_PARAMS), ...(options.stripParams ?? [])];
    c = { strip: compileStrip(names), sortQuery: options.sortQuery !== false };
    compiledCache.set(options, c);
  }
  return c;
}

function isStripped(name: string, m: StripMatcher): boolean {
  if (name.length === 0) return false;
  const n = name.toLowerCase();
  if (m.exact.has(n)) return true;
  for (const p of m.prefixes) if (n.startsWith(p)) return true;
  return false;
}

const HEX = '0123456789ABCDEF';
/** Characters RFC 3986 does not allow raw (that WHATWG may leave), plus any `%`. */
const NEEDS_FIX = /[%|^[\]\\`{}"<> ]/;
const FIX_ALL = /%([0-9A-Fa-f]{2})?|[|^[\]\\`{}"<> ]/g;

function isUnreserved(code: number): boolean {
  return (
    (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) ||
    code === 0x2d || code === 0x2e || code === 0x5f || code === 0x7e
  );
}

function fixOne(match: string, hex: string | undefined): string {
  if (match.charCodeAt(0) !== 0x25 /* % */) {
    const c = match.charCodeAt(0);
    return '%' + HEX[c >> 4] + HEX[c & 15];
  }
  if (hex === undefined) return '%25';
  const code = parseInt(hex, 16);
  return isUnreserved(code) ? String.fromCharCode(code) : '%' + hex.toUpperCase();
}

/** Normalises percent-encoding in a path or query string (see the module comment). */
export function normalizePercentEncoding(s: string): string {
  return NEEDS_FIX.test(s) ? s.replace(FIX_ALL, fixOne) : s;
}

function paramName(pair: string): string {
  const eq = pair.indexOf('=');
  return eq < 0 ? pair : pair.slice(0, eq);
}

function byName(a: string, b: string): number {
  const na = paramName(a);
  const nb = paramName(b);
  return na < nb ? -1 : na > nb ? 1 : 0;
}

function normalizeQuery(search: string, c: Compiled): string {
  // search starts with '?'; WHATWG gives '' for an empty query.
  const parts = normalizePercentEncoding(search.slice(1)).split('&');
  const kept: string[] = [];
  for (const p of parts) if (p.length > 0 && !isStripped(paramName(p), c.strip)) kept.push(p);
  if (kept.length === 0) return '';
  if (c.sortQuery && kept.length > 1) kept.sort(byName); // Array#sort is stable
  return '?' + kept.join('&');
}

function fail(input: string, base: string | undefined, reason: string, cause?: unknown): never {
  const shown = input.length > 200 ? input.slice(0, 200) + '…' : input;
  throw new TopicrawlError('E_INVALID_URL', `${reason}: "${shown}"`, { url: input, base, reason }, { cause });
}

/**
 * Normalises `input` (resolved against `base` when given). Returns an absolute http(s) URL
 * string; throws `TopicrawlError` `E_INVALID_URL` for anything unparsable or not http(s).
 * Idempotent: normalising the result again returns it unchanged.
 */
export function normalizeUrl(input: string, options?: NormalizeOptions, base?: string): string {
  let url: URL;
  try {
    url = base === undefined ? new URL(input) : new URL(input, base);
  } catch (err) {
    fail(input, base, 'invalid URL', err);
  }
  const protocol = url.protocol;
  if (protocol !== 'http:' && protocol !== 'https:') fail(input, base, `unsupported scheme "${protocol}"`);
  const host = url.host;
  if (host.length === 0) fail(input, base, 'URL has no host');
  const path = normalizePercentEncoding(url.pathname);
  const search = url.search;
  const query = search.length > 1 ? normalizeQuery(search, compile(options)) : '';
  return protocol + '//' + host + path + query;
}

/** Like {@link normalizeUrl} but returns null instead of throwing. */
export function tryNormalizeUrl(input: string, options?: NormalizeOptions, base?: string): string | null {
  try {
    return normalizeUrl(input, options, base);
  } catch {
    return null;
  }
}
