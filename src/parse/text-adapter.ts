/**
 * parse5's default tree adapter with two changes. First, a whitespace token goes into its text node
 * as one space as the parser inserts it, and the walk to the page's text (html-parser.ts) collapses
 * what is left in a text node once (`collapseNode`, a regular expression), so no loop of ours runs
 * over every character to collapse it (issue 16: "workers do each byte once").
 *
 * parse5's tokenizer groups characters into tokens: whitespace tokens hold only HTML's whitespace
 * (space, tab, line feed, form feed; a carriage return is read as a line feed), and a token whose
 * first character is not whitespace holds none of it, or, from the crawl's tokenizer
 * (text-tokenizer.ts), words with the whitespace between them. So a token whose first character is
 * HTML whitespace is whitespace through and through: it goes into its text node as one space, none
 * when the node already ends with one. Other tokens go in as they are; the whitespace between their
 * words, and the rarer whitespace HTML does not know (JavaScript's `\s` beyond it: NBSP,
 * ideographic space, vertical tab, …), is left for the walk, which collapses a text node once
 * (`collapseNode`: one regular-expression test, and a replacement when it finds any).
 *
 * Second change: text inside <script>, <style>, <noscript> and <iframe> is not kept (the walk skips
 * those elements); the tokenizer still reads it, but no text node is built of it.
 *
 * The tree is only walked for text and links, never serialised, so a text node holding its text
 * collapsed, and script elements holding none, lose nothing the crawl reads.
 */
import { defaultTreeAdapter } from 'parse5';
import type { DefaultTreeAdapterMap, TreeAdapter } from 'parse5';

type TextNode = DefaultTreeAdapterMap['textNode'];
type Node = DefaultTreeAdapterMap['node'];
type ParentNode = DefaultTreeAdapterMap['parentNode'];

/** True for a token of HTML whitespace (see the header: tokens are all whitespace or none). */
function whitespaceToken(text: string): boolean {
  const c = text.charCodeAt(0);
  return c === 32 || c === 10 || c === 9 || c === 12 || c === 13;
}

function isText(node: Node | undefined): node is TextNode {
  return node !== undefined && node.nodeName === '#text';
}

/**
 * The text node whose value was last given a space (its value ends with one). A node's value is a
 * rope of its tokens, and reading its last character would flatten it on every token; nodes are
 * filled one at a time, so remembering the last one is enough (a node filled again after another
 * may get a second space, which {@link collapseNode} removes).
 */
let spaced: TextNode | null = null;

/** Lets go of the last text node and parent (and so of their tree): call after a parse. */
export function forgetLastNode(): void {
  spaced = null;
  lastParent = null;
}

/** Appends a token to a text node: a whitespace token as one space, unless the node ends with one. */
function append(node: TextNode, text: string): void {
  if (!whitespaceToken(text)) {
    node.value += text;
    if (spaced === node) spaced = null;
  } else if (spaced !== node) {
    node.value += ' ';
    spaced = node;
  }
}

/** A new text node holding a token (a whitespace token as one space). */
function textNode(text: string): TextNode {
  if (!whitespaceToken(text)) return defaultTreeAdapter.createTextNode(text);
  const node = defaultTreeAdapter.createTextNode(' ');
  spaced = node;
  return node;
}

/**
 * Elements whose text the walk never reads (html-parser.ts's SKIP, but <title>, which it reads,
 * and <template>, <svg> and <math>, whose text is in other nodes): their text is not kept at all.
 * Inline scripts and style sheets are much of a page's bytes on today's web.
 */
const UNREAD = new Set(['script', 'style', 'noscript', 'iframe']);
/** The parent of the last text inserted, and whether its text is dropped (a parent gets its tokens in a row). */
let lastParent: ParentNode | null = null;
let dropText = false;

function unread(parent: ParentNode): boolean {
  if (parent !== lastParent) {
    lastParent = parent;
    dropText = UNREAD.has(parent.nodeName);
  }
  return dropText;
}

export const collapsingTreeAdapter: TreeAdapter<DefaultTreeAdapterMap> = {
  ...defaultTreeAdapter,
  insertText(parent, text) {
    if (unread(parent)) return;
    const last = parent.childNodes[parent.childNodes.length - 1];
    if (isText(last)) append(last, text);
    else defaultTreeAdapter.appendChild(parent, textNode(text));
  },
  insertTextBefore(parent, text, reference) {
    const { childNodes } = parent;
    const at = childNodes[childNodes.length - 1] === reference ? childNodes.length - 1 : childNodes.indexOf(reference);
    const prev = childNodes[at - 1];
    if (isText(prev)) append(prev, text);
    else defaultTreeAdapter.insertBefore(parent, textNode(text), reference);
  },
};

/** Whitespace left in a text node by the adapter: any of JavaScript's `\s` but a lone space, or U+0000. */
const LEFT = /[\0\t-\r\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]|  /;
const RUNS = /[\s\0]+/g;

/**
 * A text node's value with every whitespace run (JavaScript's `\s`, and U+0000) as one space: the
 * value itself unless it holds whitespace the adapter left (one regular-expression test).
 */
export function collapseNode(value: string): string {
  return LEFT.test(value) ? value.replace(RUNS, ' ') : value;
}
