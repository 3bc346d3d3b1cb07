/**
 * The text the HTML walk collects (html-parser.ts), and what is cut from it: the page's text,
 * collapsed as it is collected, each link's context cut from it by offsets (see html-parser.ts's
 * header for the rules), and the whitespace collapse of the smaller texts (title, anchors).
 */

/**
 * Collapses whitespace runs and trims. U+0000 marks a block boundary (parse5 never leaves NUL in
 * text nodes) and counts as whitespace: a run containing one becomes "\n" when `keepBreaks`,
 * every other run becomes " " (newlines in the source are just whitespace, as in a browser). The
 * whitespace is JavaScript's `\s` (NBSP, ideographic space, BOM, …), the same as `trim()`'s.
 *
 * One pass over the characters: the text between runs is copied as slices, and a run that is a
 * single space is no run at all, so prose is copied in a few large slices. (It was two regular
 * expression replaces and a trim: about 3× the time on the crawl's pages, `scripts/bench-analysis.ts`.)
 */
export function collapseWhitespace(s: string, keepBreaks = true): string {
  let end = s.length;
  while (end > 0 && spaceOrBreak(s.charCodeAt(end - 1))) end--;
  let i = 0;
  while (i < end && spaceOrBreak(s.charCodeAt(i))) i++;
  let out = '';
  let from = i;
  while (i < end) {
    const c = s.charCodeAt(i);
    // printable ASCII first: most characters of most pages
    if ((c > 32 && c < 127) || !spaceOrBreak(c)) {
      i++;
      continue;
    }
    // a single space between two other characters stays as it is (end is never a space)
    if (c === 32 && !spaceOrBreak(s.charCodeAt(i + 1))) {
      i += 2;
      continue;
    }
    let j = i;
    let brk = false;
    for (; j < end; j++) {
      const d = s.charCodeAt(j);
      if (d === 0) brk = true;
      else if (!whitespace(d)) break;
    }
    out += s.slice(from, i) + (brk && keepBreaks ? '\n' : ' ');
    from = i = j;
  }
  return from === 0 && end === s.length ? s : out + s.slice(from, end);
}

/** JavaScript's `\s`: WhiteSpace and LineTerminator. */
function whitespace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || (c >= 0x80 && (c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff));
}

function spaceOrBreak(c: number): boolean {
  return c === 0 || whitespace(c);
}

/** Characters of link context kept on each side of the anchor. */
export const CONTEXT_SIDE = 150;

/** A block element's text as a range [start, end) of the collected text (end −1 while open). */
export interface BlockSpan {
  start: number;
  end: number;
}

export interface PendingLink {
  href: string;
  text: string;
  rel: string[];
  /** the anchor's text [start, end) in the collected text, and the nearest block around it */
  start: number;
  end: number;
  block: BlockSpan;
}

/** A cut at most this far from a space moves to the space, so no word is cut in two. */
const WORD_SLACK = 24;

/**
 * The page's text as the walk collects it, collapsed as it comes (no pass over the whole text
 * afterwards): text nodes arrive with their whitespace already one space per run (text-adapter.ts),
 * block boundaries as {@link brk}. A run of whitespace and boundaries becomes one character, "\n"
 * if it held a boundary, else " ", written only when text follows it, so the text never starts or
 * ends with whitespace: the same text as {@link collapseWhitespace} over the raw parts with U+0000
 * at the boundaries. {@link length} is the text's length so far: the offsets of blocks and anchors.
 */
export class CollectedText {
  private readonly parts: string[] = [];
  length = 0;
  /** The whitespace owed before the next text: 0 none, 1 a space, 2 a line break. */
  private owed = 0;

  /** Adds a text node's value, every whitespace run already one space (text-adapter.ts's collapseNode). */
  add(v: string): void {
    let s = 0;
    let e = v.length;
    if (e > 0 && v.charCodeAt(0) === 32) {
      s = 1;
      if (this.owed === 0) this.owed = 1;
    }
    if (s >= e) return;
    const trailing = v.charCodeAt(e - 1) === 32;
    if (trailing) e--;
    if (this.owed !== 0 && this.length > 0) {
      this.parts.push(this.owed === 2 ? '\n' : ' ');
      this.length++;
    }
    this.owed = trailing ? 1 : 0;
    this.parts.push(s === 0 && e === v.length ? v : v.slice(s, e));
    this.length += e - s;
  }

  /** A block boundary. */
  brk(): void {
    this.owed = 2;
  }

  text(): string {
    return this.parts.join('');
  }
}

function isSep(c: number): boolean {
  return c === 32 || c === 10;
}

/** The link's context (see html-parser.ts's header) from the page's collected text. */
export function linkContext(text: string, link: PendingLink): string {
  // a range of the text may start with the separator written before its first text, never end with one
  let lo = link.block.start;
  let hi = link.start;
  if (lo < hi && isSep(text.charCodeAt(lo))) lo++;
  let before: string;
  if (hi - lo > CONTEXT_SIDE) {
    before = text.slice(hi - CONTEXT_SIDE, hi);
    const sp = before.search(/\s/);
    if (sp >= 0 && sp < WORD_SLACK) before = before.slice(sp + 1);
  } else before = lo < hi ? text.slice(lo, hi) : '';
  lo = link.end;
  hi = link.block.end < 0 ? text.length : link.block.end;
  if (lo < hi && isSep(text.charCodeAt(lo))) lo++;
  let after: string;
  if (hi - lo > CONTEXT_SIDE) {
    after = text.slice(lo, lo + CONTEXT_SIDE);
    const sp = Math.max(after.lastIndexOf(' '), after.lastIndexOf('\n'));
    if (sp > CONTEXT_SIDE - WORD_SLACK) after = after.slice(0, sp);
  } else after = lo < hi ? text.slice(lo, hi) : '';
  return before && after ? `${before}\n${after}` : before || after;
}
