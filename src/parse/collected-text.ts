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
 * every other run becomes " " (newlines in the source are just whitespace, as in a browser).
 * Two native regex passes (several times faster than a per-char loop on real pages).
 */
export function collapseWhitespace(s: string, keepBreaks = true): string {
  // \s covers the Unicode spaces (NBSP, ideographic space, BOM, …); U+0000 is not in it
  const spaced = s.replace(WHITESPACE_RUN, ' ');
  return (spaced.includes(BREAK) ? spaced.replace(BREAK_RUN, keepBreaks ? '\n' : ' ') : spaced).trim();
}

const WHITESPACE_RUN = /\s+/g;
/** a run of block markers and the single spaces around them (after WHITESPACE_RUN) */
const BREAK_RUN = / ?\u0000[\u0000 ]*/g;

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
