/**
 * Turns an HTML document (already decoded to a string, or to pieces of one in order: the same page
 * as their concatenation) into what the crawl needs. Never throws on malformed HTML: parse5
 * recovers the way browsers do. Link URLs are resolved against `<base href>` (if valid) or the page
 * URL, but not normalised (the url stage does that).
 */
export interface Parser {
  parse(html: string | readonly string[], pageUrl: string, options?: ParseOptions): ParsedPage;
}

export interface ParseOptions {
  /**
   * The most links read from the page, the first ones in document order (default: all). Link elements
   * past it are only counted ({@link ParsedPage.linksFound}): no anchor text, no context, no URL.
   */
  maxLinks?: number;
}

export interface ParsedLink {
  /** Absolute URL (resolved, not normalised). Links that cannot be resolved are dropped. */
  url: string;
  /** Visible anchor text, whitespace collapsed (img alt text included). */
  text: string;
  /** rel tokens, lower-cased. */
  rel: string[];
  /**
   * Text around the link: its nearest block-level ancestor's text with the anchor left out, at most
   * ~150 characters on each side of the anchor (the two sides joined by a line break).
   */
  context: string;
}

export interface ParsedPage {
  title: string;
  /** Text of h1–h6, whitespace collapsed, joined with newlines. */
  headings: string;
  /** Visible text of the body (no script/style/noscript/template), whitespace collapsed. */
  text: string;
  /** `<a href>` and `<area href>` links in document order (the first `maxLinks` of them). */
  links: ParsedLink[];
  /**
   * Link elements found with a usable href (not empty, not only a fragment), those past `maxLinks`
   * included; `links` holds the ones among the first `maxLinks` that resolve to http(s) URLs.
   */
  linksFound: number;
  /** rel=canonical href, resolved; null if none. */
  canonical: string | null;
  /** `<base href>` resolved; null if none or invalid. */
  baseHref: string | null;
  /** From `<meta name="robots">` (and `<meta name="topicrawl">` is not special). */
  robots: { noindex: boolean; nofollow: boolean };
  /** `<html lang>` if present. */
  lang: string | null;
}
