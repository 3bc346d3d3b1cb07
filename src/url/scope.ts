import { domainToASCII } from 'node:url';
import { TopicrawlError } from '../errors.js';
import { looksLikeTrap, repeatedSegments } from './traps.js';

/**
 * Scope: which URLs a crawl may enqueue. Decisions are pure functions of the URL string, applied
 * to normalised URLs when a link is added (never at fetch time).
 */

/** Why a URL is out of scope; `ok: true` when it is in scope. */
export type ScopeDecision =
  | { ok: true }
  | { ok: false; reason: 'host' | 'include' | 'exclude' | 'media' | 'scheme' | 'length' | 'trap' | 'repeat' };

/** The scope section of a topic (read-only view of `Config['scope']`). */
export interface ScopeSpec {
  /**
   * Host globs, matched against the host name (no port, case-insensitive, IDN as punycode):
   * `example.com` exactly, `*.example.com` any subdomain (not the bare domain), `*` any. Empty: any host.
   */
  readonly hosts: readonly string[];
  /** Regular expressions (JavaScript syntax, no flags) tested on the whole URL; when non-empty one must match. */
  readonly include: readonly string[];
  /** Regular expressions; a URL matching any of them is out of scope. */
  readonly exclude: readonly string[];
}

/** Options of {@link createScope}. */
export interface ScopeOptions {
  /** Longest URL (in UTF-16 code units of the normalised string) in scope; default 2048. */
  maxUrlLength?: number;
  /** File extensions (lower-case, no dot) filtered before fetching; default {@link MEDIA_EXTENSIONS}. */
  mediaExtensions?: readonly string[];
  /** Refuse URLs matching the built-in trap patterns (traps.ts); default false. */
  excludeTraps?: boolean;
  /** Refuse paths repeating one segment more often than this; default: no limit. */
  maxRepeatedSegments?: number;
}

export const DEFAULT_MAX_URL_LENGTH = 2048;

/**
 * Path extensions of media and other non-HTML resources, filtered before fetching. Not listed on
 * purpose: html-like pages (php, asp, jsp, …), xml/json/txt (feeds and sitemaps are read elsewhere).
 */
export const MEDIA_EXTENSIONS: readonly string[] = Object.freeze([
  // images
  'jpg', 'jpeg', 'jpe', 'png', 'gif', 'bmp', 'webp', 'svg', 'svgz', 'ico', 'tif', 'tiff', 'avif', 'heic', 'heif', 'psd', 'raw', 'cr2', 'nef',
  // audio
  'mp3', 'wav', 'ogg', 'oga', 'opus', 'flac', 'aac', 'm4a', 'wma', 'mid', 'midi', 'aiff', 'ape', 'ra',
  // video
  'mp4', 'm4v', 'avi', 'mov', 'wmv', 'flv', 'f4v', 'mkv', 'webm', 'mpg', 'mpeg', '3gp', 'ogv', 'rm', 'rmvb', 'ts', 'm3u8', 'vob',
  // archives and disk images
  'zip', 'rar', '7z', 'tar', 'gz', 'tgz', 'bz2', 'tbz', 'xz', 'txz', 'z', 'lz', 'lzma', 'zst', 'iso', 'dmg', 'img', 'cab',
  // documents
  'pdf', 'ps', 'eps', 'doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx', 'odt', 'ods', 'odp', 'rtf', 'epub', 'mobi', 'chm',
  // fonts
  'woff', 'woff2', 'ttf', 'otf', 'eot',
  // executables and packages
  'exe', 'msi', 'bin', 'dll', 'so', 'deb', 'rpm', 'apk', 'ipa', 'jar', 'class', 'swf', 'wasm', 'torrent',
  // web assets
  'css', 'js', 'mjs', 'map',
]);

/** Compiles one scope pattern the way {@link createScope} does (plain `new RegExp(source)`). */
export function compileScopePattern(source: string): RegExp {
  return new RegExp(source);
}

function hostMatcher(patterns: readonly string[]): ((host: string) => boolean) | null {
  if (patterns.length === 0) return null;
  const exact = new Set<string>();
  const globs: RegExp[] = [];
  for (const raw of patterns) {
    const trimmed = raw.trim().toLowerCase();
    const p = domainToASCII(trimmed) || trimmed; // IDN patterns match the punycode host
    if (p === '*') return null;
    if (!p.includes('*')) exact.add(p);
    else globs.push(new RegExp('^' + p.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$'));
  }
  return (host) => exact.has(host) || globs.some((g) => g.test(host));
}

function compileAll(sources: readonly string[], field: string): RegExp[] {
  return sources.map((s, i) => {
    try {
      return compileScopePattern(s);
    } catch (err) {
      throw new TopicrawlError('E_CONFIG', `scope.${field}[${i}]: invalid regular expression "${s}": ${(err as Error).message}`, { key: `scope.${field}[${i}]`, expected: 'a JavaScript regular expression' }, { cause: err });
    }
  });
}

/** The lower-case extension of the last path segment, or '' when it has none. */
function pathExtension(pathname: string): string {
  const slash = pathname.lastIndexOf('/');
  const dot = pathname.lastIndexOf('.');
  return dot > slash ? pathname.slice(dot + 1).toLowerCase() : '';
}

/**
 * Builds the scope test of a topic. The returned function checks, in this order: scheme (http/https
 * only; unparsable URLs count as 'scheme'), length, host, media extension, exclude, include.
 * Throws `TopicrawlError` `E_CONFIG` when a pattern does not compile.
 */
export function createScope(scope: ScopeSpec, opts: ScopeOptions = {}): (url: string) => ScopeDecision {
  const maxLength = opts.maxUrlLength ?? DEFAULT_MAX_URL_LENGTH;
  const media = new Set(opts.mediaExtensions ?? MEDIA_EXTENSIONS);
  const hostOk = hostMatcher(scope.hosts);
  const include = compileAll(scope.include, 'include');
  const exclude = compileAll(scope.exclude, 'exclude');
  const OK: ScopeDecision = Object.freeze({ ok: true });
  const no = (reason: Exclude<ScopeDecision, { ok: true }>['reason']): ScopeDecision => ({ ok: false, reason });

  return (url: string): ScopeDecision => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return no('scheme');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return no('scheme');
    if (url.length > maxLength) return no('length');
    if (hostOk && !hostOk(parsed.hostname)) return no('host');
    const ext = pathExtension(parsed.pathname);
    if (ext !== '' && media.has(ext)) return no('media');
    for (const re of exclude) if (re.test(url)) return no('exclude');
    if (include.length > 0 && !include.some((re) => re.test(url))) return no('include');
    if (opts.excludeTraps && looksLikeTrap(url)) return no('trap');
    if (opts.maxRepeatedSegments !== undefined && repeatedSegments(parsed.pathname) > opts.maxRepeatedSegments) return no('repeat');
    return OK;
  };
}
