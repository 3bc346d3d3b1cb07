import fc from 'fast-check';
import { parse } from 'parse5';
import type { DefaultTreeAdapterTypes } from 'parse5';
import { describe, expect, it } from 'vitest';
import { CONTEXT_SIDE, Parse5Parser, collapseWhitespace } from '../../src/parse/html-parser.js';
import { collapsingTreeAdapter, collapseNode } from '../../src/parse/text-adapter.js';

type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

const parser = new Parse5Parser();
const PAGE = 'http://example.com/';

/**
 * The rules of html-parser.ts's header applied the long way, to the tree of parse5's default
 * adapter: raw text nodes with U+0000 at block boundaries, collapsed at the end; each link's
 * context collapsed from the raw text of its block on each side, then cut. Only the tags the
 * generator below writes (plus those parse5 adds) are known here.
 */
const BLOCKS = new Set(['body', 'p', 'div', 'h2', 'table', 'tbody', 'tr', 'td', 'pre', 'br', 'li', 'ul']);
function reference(html: string): { text: string; headings: string; contexts: string[] } {
  const raw: string[] = [];
  const heads: string[] = [];
  const links: { start: number; end: number; block: { start: number; end: number } }[] = [];
  const blocks: { start: number; end: number }[] = [{ start: 0, end: -1 }];
  let inHeading = 0;
  let open: (typeof links)[number] | null = null;
  const walk = (node: ParentNode) => {
    for (const child of node.childNodes) {
      if (child.nodeName === '#text') {
        raw.push((child as DefaultTreeAdapterTypes.TextNode).value);
        if (inHeading) heads.push((child as DefaultTreeAdapterTypes.TextNode).value);
        continue;
      }
      if (child.nodeName.startsWith('#')) continue;
      const el = child as Element;
      if (el.tagName === 'script' || el.tagName === 'title') continue;
      const block = BLOCKS.has(el.tagName);
      const link = el.tagName === 'a' && el.attrs.some((a) => a.name === 'href') ? { start: raw.length, end: -1, block: blocks[blocks.length - 1] } : null;
      if (link) {
        // a link inside a link (parse5 builds them from misnested markup) ends the outer one
        if (open) open.end = raw.length;
        links.push((open = link));
      }
      if (block) {
        raw.push('\u0000');
        blocks.push({ start: raw.length, end: -1 });
      }
      if (el.tagName === 'h2') inHeading++;
      walk(el);
      if (el.tagName === 'h2' && --inHeading === 0) heads.push('\u0000');
      if (block) {
        blocks.pop()!.end = raw.length;
        raw.push('\u0000');
      }
      if (link && link === open) {
        link.end = raw.length;
        open = null;
      }
    }
  };
  walk(parse(html));
  blocks[0].end = raw.length;
  const contexts = links.map((l) => {
    let before = collapseWhitespace(raw.slice(l.block.start, l.start).join(''));
    let after = collapseWhitespace(raw.slice(l.end, Math.max(l.end, l.block.end)).join(''));
    if (before.length > CONTEXT_SIDE) {
      before = before.slice(-CONTEXT_SIDE);
      const sp = before.search(/\s/);
      if (sp >= 0 && sp < 24) before = before.slice(sp + 1);
    }
    if (after.length > CONTEXT_SIDE) {
      after = after.slice(0, CONTEXT_SIDE);
      const sp = Math.max(after.lastIndexOf(' '), after.lastIndexOf('\n'));
      if (sp > CONTEXT_SIDE - 24) after = after.slice(0, sp);
    }
    return before && after ? `${before}\n${after}` : before || after;
  });
  return { text: collapseWhitespace(raw.join('')), headings: collapseWhitespace(heads.join('')), contexts };
}

const pieces = [
  'word', 'Zeta', '中文', ' ', '  ', '\n', '\r\n', '\t', '\f', '\u00a0', '&nbsp;', '&#32;', '&#10;', '\u3000', '\v', '\u2028',
  '<p>', '</p>', '<div>', '</div>', '<span>', '</span>', '<b>', '</b>', '<a href="/x">', '</a>', '<br>', '<h2>', '</h2>',
  '<table>', '<tr>', '<td>', '</td>', '</table>', '<pre>', '</pre>', '<ul><li>', '</li></ul>', '<!-- c -->', '<script> s  c </script>',
  `${'long '.repeat(40)}`, `${' '.repeat(300)}`,
];

describe('text collapsed as it is collected (text-adapter.ts, CollectedText)', () => {
  it('gives the text, headings and link contexts that collapsing the raw text afterwards gives', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((a) => a.join('')), (html) => {
        const want = reference(html);
        const got = parser.parse(html, PAGE);
        expect(got.text).toBe(want.text);
        expect(got.headings).toBe(want.headings);
        // (links of the generator all resolve, so they are the reference's links in order)
        expect(got.links.map((l) => l.context)).toEqual(want.contexts);
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps a text node to one space per run of HTML whitespace as parse5 inserts it, foster-parented text too', () => {
    const doc = parse('<body><p>a \n\t b</p><table> x  <tr><td>c</td></tr>  y </table></body>', { treeAdapter: collapsingTreeAdapter });
    const texts: string[] = [];
    const walk = (n: ParentNode) => {
      for (const c of n.childNodes) {
        if (c.nodeName === '#text') texts.push((c as DefaultTreeAdapterTypes.TextNode).value);
        else if ('childNodes' in c) walk(c as ParentNode);
      }
    };
    walk(doc);
    expect(texts).toEqual(['a b', ' x y ', 'c']);
  });

  it('keeps no text under script, style, noscript and iframe, which the walk never reads', () => {
    const html = '<head><title> T </title><style>.a { b: c }</style><script>var x = 1;</script></head>' +
      '<body><noscript>n</noscript><iframe>i</iframe><textarea> ta </textarea><p>body</p><script>if (a < b) {}</script></body>';
    const doc = parse(html, { treeAdapter: collapsingTreeAdapter });
    const texts: string[] = [];
    const walk = (n: ParentNode) => {
      for (const c of n.childNodes) {
        if (c.nodeName === '#text') texts.push(`${n.nodeName}:${(c as DefaultTreeAdapterTypes.TextNode).value}`);
        else if ('childNodes' in c) walk(c as ParentNode);
      }
    };
    walk(doc);
    expect(texts).toEqual(['title: T ', 'textarea: ta ', 'p:body']);
    const page = parser.parse(html, PAGE);
    expect(page.title).toBe('T');
    expect(page.text).toBe('ta\nbody');
  });

  it('collapses the whitespace HTML does not know (NBSP, ideographic space, vertical tab) once per node', () => {
    expect(collapseNode('a\u00a0\u00a0b\u3000c\vd')).toBe('a b c d');
    expect(collapseNode('plain text')).toBe('plain text');
    expect(parser.parse('<p>x &nbsp; y\u3000\u3000z</p>', PAGE).text).toBe('x y z');
  });

  it('takes a context of CONTEXT_SIDE characters however much whitespace the source has around the anchor', () => {
    const words = Array.from({ length: 60 }, (_, i) => `w${i}`);
    const html = `<p>${words.join(' '.repeat(40))}<a href="/x">anchor</a>${words.join('\n'.repeat(30))}</p>`;
    const [link] = parser.parse(html, PAGE).links;
    const [before, after] = link.context.split('\n');
    expect(before.length).toBeGreaterThan(CONTEXT_SIDE - 24);
    expect(before.endsWith('w59')).toBe(true);
    expect(after.length).toBeGreaterThan(CONTEXT_SIDE - 24);
    expect(after.startsWith('w0 w1 w2')).toBe(true);
  });
});
