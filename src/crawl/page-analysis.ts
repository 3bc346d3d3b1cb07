import { createHash } from 'node:crypto';
import { DEFAULT_SHINGLES, MIN_SHINGLES, textSimHash, type ShingleOptions } from '../dedup/shingles.js';
import { fingerprintBytes } from '../dedup/simhash.js';
import { decodeHtmlChunks } from '../fetch/charset.js';
import { CldDetector } from '../lang/cld-detector.js';
import { memoPrepare, type PrepareFn } from '../relevance/keyword-matcher.js';
import { Parse5Parser } from '../parse/html-parser.js';
import type { KeywordModel } from '../relevance/keyword-scorer.js';
import { createPageScorer, memoScoreText, type TextScorer } from './page-scorer.js';
import { LinkMemo, MAX_ENTRIES } from './link-memo.js';
import type { LogisticModelData } from '../relevance/logistic-model.js';
import type { ParsedPage } from '../parse/parser.js';
import { compressBody } from '../store/body-codec.js';
import { locationScorer, type LocationWeights } from '../strategy/location-metric.js';
import { hostKey } from '../url/host.js';
import { tryNormalizeUrl, type NormalizeOptions } from '../url/normalize.js';
import { createScope, type ScopeOptions } from '../url/scope.js';

/** The slice of the configuration page analysis needs (plain data: it crosses to worker threads). */
export interface AnalysisConfig {
  keywords: Record<string, number>;
  fields: { title: number; headings: number; anchor: number; body: number };
  /** Keyword scoring model (`relevance.model`); default `keywords`. */
  model?: KeywordModel;
  /** A trained classifier, already loaded and checked (the model file is read once, on the main thread). */
  classifier?: { model: LogisticModelData; weight: number } | null;
  scope: { hosts: string[]; include: string[]; exclude: string[] };
  scopeOptions: ScopeOptions;
  normalize: NormalizeOptions;
  followCanonical: boolean;
  /** `limits.max_links_per_page`: the most links read from a page, the first in document order (default: all). */
  maxLinksPerPage?: number;
  /** Compute each page's SimHash with these shingle sizes (`dedup.enabled`); null or absent: no SimHash. */
  simhash?: ShingleOptions | null;
  /** Detect each page's language (default true). */
  language?: boolean;
  /** The topic's Location Metric weights: each link then carries its IL (AnalyzedLink.location). */
  location?: LocationWeights | null;
}

export interface AnalysisInput {
  url: string;
  host: string;
  /** The decompressed response body. */
  body: Uint8Array;
  /** Raw Content-Type header, for the charset. */
  contentType: string | null;
  /** Parse, score and extract links (HTML 2xx); otherwise only compress the body. */
  html: boolean;
  /** Anchor texts of links known to point here. */
  anchors: string[];
  /**
   * The body already decoded and parsed, when the caller has done that itself (the recrawler,
   * which parses a page to fingerprint it): decoding and parsing are then skipped.
   */
  parsed?: { page: ParsedPage; charset: string | null };
}

/** A link ready for the frontier: normalised, in scope, deduplicated within the page. */
export interface AnalyzedLink {
  url: string;
  hash: Uint8Array;
  host: string;
  anchor: string;
  /** Relevance in [0,1] of the anchor text alone (all anchors of the URL on the page, joined). */
  anchorScore: number;
  /** Relevance in [0,1] of the link's context (parser's `context`); the best over repeats on the page. */
  contextScore: number;
  /** The URL's Location Metric IL (config `location`), computed once per URL in the link memo; NaN without `location`. */
  location: number;
}

export interface PageAnalysis {
  charset: string | null;
  title: string | null;
  relevance: number | null;
  /** 16 bytes of SHA-256 over title and visible text: exact duplicate content. */
  contentHash: Uint8Array | null;
  /**
   * The 64-bit SimHash of the visible text's shingles (8 bytes, simhash.ts), for near-duplicates;
   * null when not asked for, or when the text has fewer than MIN_SHINGLES shingles (too little to tell).
   */
  simhash: Uint8Array | null;
  /** The language of the visible text (ISO 639-1, language-detector.ts); null when it cannot be told. */
  lang: string | null;
  links: AnalyzedLink[];
  /** Links left out before the frontier, by reason (invalid, self, host, include, exclude, media, …). */
  dropped: Record<string, number>;
  /** rel=canonical when it names another URL of the same host (normalised). */
  canonical: string | null;
  /** Set when the page had more links than `maxLinksPerPage`: the first `kept` of `found` were read. */
  linksCut: LinksCut | null;
  noindex: boolean;
  nofollow: boolean;
  /** The body compressed for the store. */
  stored: { data: Uint8Array; codec: 'br' | 'identity' };
}

/** How many of a page's links were read (the first ones in document order) of how many it had. */
export interface LinksCut {
  kept: number;
  found: number;
}

/** Anchor texts of one URL repeated on a page are joined up to this length (a page may repeat a URL 100,000 times). */
export const MAX_ANCHOR_CHARS = 1000;

/**
 * The CPU-heavy, side-effect-free part of handling a page: charset decoding, parsing, relevance,
 * content hash, link normalisation, scoping and hashing, the relevance of each link's anchor text and
 * context (the page's scorer, `scoreText`), and body compression. It needs no store,
 * so it runs in worker threads (analyzer-pool.ts) while the main thread fetches and records.
 */
export function createAnalyzer(cfg: AnalysisConfig): (input: AnalysisInput) => PageAnalysis {
  const parser = new Parse5Parser();
  const scorer = createPageScorer(cfg);
  const scoreText = memoScoreText(scorer);
  const norm = cfg.normalize;
  const linkMemo = new LinkMemo(norm, createScope(cfg.scope, cfg.scopeOptions), MAX_ENTRIES, cfg.location ? locationScorer(cfg.location) : null);
  const maxLinks = cfg.maxLinksPerPage ?? Infinity;
  const shingles = cfg.simhash ?? null;
  const language = cfg.language === false ? null : new CldDetector();
  return (input) => {
    const body = Buffer.from(input.body.buffer, input.body.byteOffset, input.body.byteLength);
    const stored = compressBody(body);
    const out: PageAnalysis = {
      charset: null, title: null, relevance: null, contentHash: null, simhash: null, lang: null, links: [], dropped: {}, canonical: null,
      linksCut: null, noindex: false, nofollow: false, stored,
    };
    if (!input.html) return out;
    let page: ParsedPage;
    if (input.parsed) {
      page = input.parsed.page;
      out.charset = input.parsed.charset;
    } else {
      // in pieces: a large page decoded whole would be one costly large-object string (charset.ts)
      const decoded = decodeHtmlChunks(body, input.contentType);
      page = parser.parse(decoded.chunks, input.url, { maxLinks });
      out.charset = decoded.charset;
    }
    out.title = page.title;
    // the page's texts are prepared (lower-cased, folded, scanned) once, for the score and the SimHash
    const prepare = memoPrepare();
    out.relevance = scorer.score({ url: input.url, title: page.title, headings: page.headings, anchors: input.anchors, body: page.text }, prepare);
    if (shingles) {
      const sh = textSimHash(prepare(page.text), shingles);
      if (sh.shingles >= MIN_SHINGLES) out.simhash = fingerprintBytes(sh.fingerprint);
    }
    if (language) out.lang = language.detect(page.text);
    out.contentHash = new Uint8Array(createHash('sha256').update(page.title).update('\n').update(page.text).digest().subarray(0, 16));
    out.noindex = page.robots.noindex;
    out.nofollow = page.robots.nofollow;
    // a page parsed by the caller (input.parsed) was not cut: cut it here the same way
    const found = Math.max(page.linksFound, page.links.length);
    if (found > maxLinks) out.linksCut = { kept: maxLinks, found };
    if (out.nofollow) return out;
    const drop = (why: string) => (out.dropped[why] = (out.dropped[why] ?? 0) + 1);
    const byUrl = new Map<string, AnalyzedLink>();
    const add = (raw: string, text: string, context: string) => {
      const f = linkMemo.facts(raw);
      const url = f.url;
      if (url === null) return drop('invalid');
      const seen = byUrl.get(url);
      if (seen) {
        if (text && seen.anchor.length < MAX_ANCHOR_CHARS && !seen.anchor.includes(text)) {
          seen.anchor = (seen.anchor ? `${seen.anchor} | ${text}` : text).slice(0, MAX_ANCHOR_CHARS);
        }
        seen.contextScore = Math.max(seen.contextScore, scoreText(context));
        return;
      }
      if (url === input.url) return drop('self');
      const d = linkMemo.scoped(f).scope!;
      if (!d.ok) return drop(d.reason);
      byUrl.set(url, { url, hash: linkMemo.hash(f), host: f.host, anchor: text, anchorScore: 0, contextScore: scoreText(context), location: f.location });
    };
    if (page.canonical && cfg.followCanonical) {
      const canon = tryNormalizeUrl(page.canonical, norm);
      if (canon && canon !== input.url && hostKey(canon) === input.host) {
        out.canonical = canon;
        add(canon, '', '');
      }
    }
    for (const l of page.links.length > maxLinks ? page.links.slice(0, maxLinks) : page.links) {
      if (l.rel.includes('nofollow')) drop('nofollow');
      else add(l.url, l.text, l.context);
    }
    out.links = [...byUrl.values()];
    for (const l of out.links) l.anchorScore = scoreText(l.anchor);
    return out;
  };
}

export { createPageScorer, memoScoreText, type TextScorer };
