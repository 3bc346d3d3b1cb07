/**
 * The HTML parser of the crawl: parse5 builds the tree (it recovers from any malformed input the way
 * browsers do), then ONE iterative walk (no recursion, so no stack overflow on deeply nested pages)
 * collects title, headings, visible body text, links, canonical, base, meta robots and lang.
 *
 * Text rules:
 * - script, style, noscript, template, svg (and any <title>) never contribute body text; the first
 *   HTML <title> anywhere is the title (document.title semantics).
 * - Block elements (p, div, li, td, br, …) start and end with a line break, so "<p>a</p><p>b</p>"
 *   gives "a\nb". Whitespace runs collapse to one character: "\n" if the run held a block boundary,
 *   else " " (source newlines are plain whitespace). Line breaks are kept on purpose: they are
 *   sentence boundaries for relevance phrase matching. Inline elements (a, span, b) add nothing, as
 *   in a browser, so "中国<a>烟草</a>公司" stays one run of text.
 * - Links: `<a href>` / `<area href>` in document order; empty and fragment-only ("#…") hrefs are
 *   skipped; hrefs resolve against the first valid http(s) `<base href>` (wherever it is, as the
 *   HTML spec says), else the page URL; anything not http(s) after resolution is dropped. Anchor
 *   text includes img alt text; `<area>` uses its alt. With `maxLinks`, link elements past the first
 *   `maxLinks` are only counted (`linksFound`): past the cap a link costs its share of the walk, no
 *   more (no anchor text, context or URL resolution).
 * - Link context: the text of the link's nearest block-level ancestor (as collected above) without
 *   the anchor's own text, cut to the CONTEXT_SIDE characters nearest the anchor on each side (whole
 *   words when the cut falls in spaced text); the two sides are joined by a line break so that no
 *   phrase spans the gap. Cut from the page's collected text by offsets, so the cost per link is
 *   bounded by the window, not by the size of the block.
 * - One pass over the characters: parse5's tokenizer reads text by runs, a paragraph's words and
 *   spaces as one token (text-tokenizer.ts); the tree adapter inserts whitespace tokens as one space
 *   (text-adapter.ts); the walk collapses each text node once and collects the page's text
 *   (collected-text.ts's CollectedText); nothing collapses the whole text afterwards.
 */
import type { DefaultTreeAdapterTypes } from 'parse5';
import type { ParseOptions, ParsedLink, ParsedPage, Parser } from './parser.js';
import { CollectedText, collapseWhitespace, linkContext, type BlockSpan, type PendingLink } from './collected-text.js';
import { collapseNode, collapsingTreeAdapter, forgetLastNode } from './text-adapter.js';
import { textParser } from './text-tokenizer.js';

export { CONTEXT_SIDE, collapseWhitespace } from './collected-text.js';

type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;
type TextNode = DefaultTreeAdapterTypes.TextNode;
type Document = DefaultTreeAdapterTypes.Document;

const HTML_NS = 'http://www.w3.org/1999/xhtml';

/** Elements whose subtree is never walked (no text, no links). <title> is read on its own. */
const SKIP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'title']);

/** Elements that end with a line break so their text does not glue to the next block. */
const BLOCK = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'br', 'caption', 'center', 'dd', 'details', 'dialog', 'dir',
  'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'header', 'hgroup', 'hr', 'li', 'legend', 'main', 'menu', 'nav', 'ol', 'optgroup', 'option', 'p', 'pre',
  'section', 'select', 'summary', 'table', 'tbody', 'td', 'textarea', 'tfoot', 'th', 'thead', 'tr', 'ul',
]);

const HEADING = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

function attr(el: Element, name: string): string | null {
  const attrs = el.attrs;
  for (let i = 0; i < attrs.length; i++) if (attrs[i].name === name) return attrs[i].value;
  return null;
}

function tryUrl(href: string, base: URL | null): URL | null {
  try {
    return base ? new URL(href, base) : new URL(href);
  } catch {
    return null;
  }
}

function isHttp(u: URL): boolean {
  return u.protocol === 'http:' || u.protocol === 'https:';
}

/** True if the trimmed href is empty or only a fragment ("#", "#top"). Char checks, no regex. */
function isEmptyOrFragment(href: string): boolean {
  let i = 0;
  const n = href.length;
  while (i < n && href.charCodeAt(i) <= 32) i++;
  return i === n || href.charCodeAt(i) === 35; // '#'
}

/** Splits a whitespace-separated token list (rel, meta content with commas) into lower-cased tokens. */
function tokens(value: string): string[] {
  const out: string[] = [];
  for (const t of value.toLowerCase().split(/[\s,]+/)) if (t) out.push(t);
  return out;
}

/**
 * How much parsed input parse5 keeps before dropping it, when fed in pieces: with pieces of
 * DECODE_CHUNK_BYTES (charset.ts), its buffer then stays under V8's large-object size (see there).
 */
const PIECE_WATERLINE = 16384;

/**
 * Unread input parse5 may hold before the rest of the pieces go in at once. parse5 drops what it
 * has read only between tokens, so inside one long token (a 2 MB attribute value on a hostile page)
 * its buffer grows with every piece, and each piece appended would copy the whole buffer again.
 */
const PIECE_BUFFER_MAX = 4 * PIECE_WATERLINE;

/** parse5's tree of a document given whole or in pieces (parse5 reads pieces as a stream does). */
function parseDocument(html: string | readonly string[]): Document {
  const parser = textParser(collapsingTreeAdapter);
  if (typeof html === 'string') {
    parser.tokenizer.write(html, true);
    return parser.document;
  }
  const input = parser.tokenizer.preprocessor;
  input.bufferWaterline = PIECE_WATERLINE;
  for (let i = 0; i < html.length; i++) {
    if (i < html.length - 1 && input.html.length - input.pos > PIECE_BUFFER_MAX) {
      // a long token: the rest in one piece, as a whole page would go (one copy, not one per piece)
      parser.tokenizer.write(html.slice(i).join(''), true);
      return parser.document;
    }
    parser.tokenizer.write(html[i], i === html.length - 1);
  }
  if (html.length === 0) parser.tokenizer.write('', true);
  return parser.document;
}

/** parse5-based {@link Parser}. Stateless: one instance can parse any number of pages. */
export class Parse5Parser implements Parser {
  parse(html: string | readonly string[], pageUrl: string, options: ParseOptions = {}): ParsedPage {
    const maxLinks = options.maxLinks ?? Infinity;
    const doc = parseDocument(html);
    forgetLastNode();
    let linksFound = 0;
    const text = new CollectedText();
    const headings = new CollectedText();
    const anchorParts: string[] = [];
    const pending: PendingLink[] = [];
    let title: string | null = null;
    let baseRaw: string | null = null;
    let canonicalRaw: string | null = null;
    let lang: string | null = null;
    let noindex = false;
    let nofollow = false;
    let headingDepth = 0;
    let currentLink: PendingLink | null = null;
    let currentLinkEl: Element | null = null;
    const rootSpan: BlockSpan = { start: 0, end: -1 };
    const blocks: BlockSpan[] = [rootSpan];

    const stack: ParentNode[] = [doc];
    const index: number[] = [0];
    let sp = 1;

    while (sp > 0) {
      const node = stack[sp - 1];
      const i = index[sp - 1];
      const children = node.childNodes;
      if (i < children.length) {
        index[sp - 1] = i + 1;
        const child = children[i];
        const name = child.nodeName;
        if (name === '#text') {
          // HTML's whitespace was collapsed as it was inserted; the rest once here, for every reader below
          const v = collapseNode((child as TextNode).value);
          text.add(v);
          if (headingDepth > 0) headings.add(v);
          if (currentLink) anchorParts.push(v);
          continue;
        }
        if (name.charCodeAt(0) === 35) continue; // '#comment', '#documentType'
        const el = child as Element;
        if (el.namespaceURI !== HTML_NS) {
          continue; // svg / math roots are skipped with their subtree
        }
        const tag = el.tagName;
        if (SKIP.has(tag)) {
          if (tag === 'title' && title === null) {
            const parts: string[] = [];
            for (const c of el.childNodes) if (c.nodeName === '#text') parts.push((c as TextNode).value);
            title = collapseWhitespace(parts.join(''), false);
          }
          continue;
        }
        switch (tag) {
          case 'a':
          case 'area': {
            const href = attr(el, 'href');
            if (href !== null && !isEmptyOrFragment(href) && linksFound++ < maxLinks) {
              const rel = attr(el, 'rel');
              const at = text.length;
              const link: PendingLink = { href, text: '', rel: rel ? tokens(rel) : [], start: at, end: at, block: blocks[blocks.length - 1] };
              pending.push(link);
              if (tag === 'area') {
                link.text = collapseWhitespace(attr(el, 'alt') ?? '', false);
              } else {
                if (currentLink) this.finishLink(currentLink, anchorParts, text.length);
                currentLink = link;
                currentLinkEl = el;
                anchorParts.length = 0;
              }
            }
            break;
          }
          case 'img':
            if (currentLink) {
              const alt = attr(el, 'alt');
              if (alt) anchorParts.push(' ', alt, ' ');
            }
            break;
          case 'base':
            if (baseRaw === null) {
              const href = attr(el, 'href');
              if (href !== null) baseRaw = href;
            }
            break;
          case 'link':
            if (canonicalRaw === null) {
              const rel = attr(el, 'rel');
              if (rel && tokens(rel).includes('canonical')) canonicalRaw = attr(el, 'href');
            }
            break;
          case 'meta': {
            const mname = attr(el, 'name');
            if (mname && mname.trim().toLowerCase() === 'robots') {
              for (const t of tokens(attr(el, 'content') ?? '')) {
                if (t === 'noindex' || t === 'none') noindex = true;
                if (t === 'nofollow' || t === 'none') nofollow = true;
              }
            }
            break;
          }
          case 'html':
            if (lang === null) {
              const l = attr(el, 'lang');
              if (l && l.trim()) lang = l.trim();
            }
            break;
        }
        const block = BLOCK.has(tag);
        if (block) {
          text.brk();
          if (currentLink) anchorParts.push(' ');
        }
        if (el.childNodes.length > 0) {
          if (block) {
            if (HEADING.has(tag)) headingDepth++;
            blocks.push({ start: text.length, end: -1 });
          }
          stack[sp] = el;
          index[sp] = 0;
          sp++;
        } else if (el === currentLinkEl) {
          // an empty anchor ends here: the text after it is not its text
          this.finishLink(currentLink!, anchorParts, text.length);
          currentLink = null;
          currentLinkEl = null;
        }
      } else {
        // leaving `node` (never the document: it is at the bottom of the stack)
        sp--;
        if (sp === 0) break;
        const el = node as Element;
        const tag = el.tagName;
        if (BLOCK.has(tag)) {
          blocks.pop()!.end = text.length;
          text.brk();
          if (currentLink) anchorParts.push(' ');
          if (HEADING.has(tag)) {
            headingDepth--;
            if (headingDepth === 0) headings.brk();
          }
        }
        if (el === currentLinkEl && currentLink) {
          this.finishLink(currentLink, anchorParts, text.length);
          currentLink = null;
          currentLinkEl = null;
        }
      }
    }
    if (currentLink) this.finishLink(currentLink, anchorParts, text.length);
    rootSpan.end = text.length;
    const pageText = text.text();

    const pageBase = tryUrl(pageUrl, null);
    let base: URL | null = null;
    if (baseRaw !== null) {
      const b = tryUrl(baseRaw, pageBase);
      if (b && isHttp(b)) base = b;
    }
    const resolveBase = base ?? pageBase;
    const links: ParsedLink[] = [];
    for (const p of pending) {
      const u = tryUrl(p.href, resolveBase);
      if (u && isHttp(u)) links.push({ url: u.href, text: p.text, rel: p.rel, context: linkContext(pageText, p) });
    }
    let canonical: string | null = null;
    if (canonicalRaw !== null && !isEmptyOrFragment(canonicalRaw)) {
      const u = tryUrl(canonicalRaw, resolveBase);
      if (u && isHttp(u)) canonical = u.href;
    }

    return {
      title: title ?? '',
      headings: headings.text(),
      text: pageText,
      links,
      linksFound,
      canonical,
      baseHref: base ? base.href : null,
      robots: { noindex, nofollow },
      lang,
    };
  }

  private finishLink(link: PendingLink, parts: string[], end: number): void {
    link.text = collapseWhitespace(parts.join(''), false);
    link.end = end;
    parts.length = 0;
  }
}

