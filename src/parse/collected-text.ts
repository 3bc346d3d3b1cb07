/**
 * The text the HTML walk collects (html-parser.ts), and what is cut from it: text parts in document
 * order with U+0000 marking block boundaries, collapsed into the page's text and anchor texts, and
 * each link's context taken from the parts around its anchor (see html-parser.ts's header for the
 * rules).
 */

/** Block-boundary marker in collected text; collapseWhitespace turns runs containing it into "\n". */
export const BREAK = '\u0000';

/**
 * Collapses whitespace runs and trims. U+0000 is the walk's block-boundary marker (parse5 never leaves
 * NUL in text nodes) and counts as whitespace: a run containing one becomes "\n" when `keepBreaks`,
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

/** A block element's text as a range [start, end) of the collected text parts (end −1 while open). */
export interface BlockSpan {
  start: number;
  end: number;
}

export interface PendingLink {
  href: string;
  text: string;
  rel: string[];
  /** the anchor's text parts [start, end) and the nearest block around it */
  start: number;
  end: number;
  block: BlockSpan;
}

/** How far a side's raw text is gathered before collapsing (whitespace runs shrink). */
const RAW_SIDE = CONTEXT_SIDE * 3;
/** A cut at most this far from a space moves to the space, so no word is cut in two. */
const WORD_SLACK = 24;

/** The link's context (see the file header) from the collected text parts. */
export function linkContext(parts: string[], link: PendingLink): string {
  const lo = link.block.start;
  const hi = link.block.end < 0 ? parts.length : link.block.end;
  let before = '';
  for (let i = link.start - 1; i >= lo && before.length < RAW_SIDE; i--) before = parts[i] + before;
  let after = '';
  for (let i = link.end; i < hi && after.length < RAW_SIDE; i++) after += parts[i];
  before = collapseWhitespace(before.length > RAW_SIDE ? before.slice(-RAW_SIDE) : before, true);
  after = collapseWhitespace(after.length > RAW_SIDE ? after.slice(0, RAW_SIDE) : after, true);
  if (before.length > CONTEXT_SIDE) {
    before = before.slice(-CONTEXT_SIDE);
    const sp = before.search(/\s/);
    if (sp >= 0 && sp < WORD_SLACK) before = before.slice(sp + 1);
  }
  if (after.length > CONTEXT_SIDE) {
    after = after.slice(0, CONTEXT_SIDE);
    const sp = Math.max(after.lastIndexOf(' '), after.lastIndexOf('\n'));
    if (sp > CONTEXT_SIDE - WORD_SLACK) after = after.slice(0, sp);
  }
  return before && after ? `${before}\n${after}` : before || after;
}
