import fc from 'fast-check';
import { Parser, Tokenizer, defaultTreeAdapter, parse, serialize } from 'parse5';
import type { DefaultTreeAdapterMap, DefaultTreeAdapterTypes, TreeAdapter } from 'parse5';
import { describe, expect, it } from 'vitest';
import { collapseNode, collapsingTreeAdapter, forgetLastNode } from '../../src/parse/text-adapter.js';
import { TextTokenizer, textParser } from '../../src/parse/text-tokenizer.js';

type ParentNode = DefaultTreeAdapterTypes.ParentNode;

/** Markup that takes every path the tokenizer's fast paths have to get right, and the ones they leave alone. */
const pieces = [
  'word', 'Zeta', 'x', '中文', 'é', '😀', '\ufdd0', '\u0085', '\u0000', '\u00a0', '\u3000',
  ' ', '  ', '\n', '\r', '\r\n', '\n\r', '\t', '\f', ' \n  ',
  '&amp;', '&nbsp;', '&#13;', '&#x0;', '&notit;', '&', '&lt', '"', "'", '<', '>', '=', '-->', ']]>',
  '<p>', '</p>', '<div>', '</div>', '<b>', '</b>', '<i>', '<pre>', '<pre>\n', '</pre>', '<listing>\r\n', '<br>',
  '<textarea>', '</textarea>', '<title>', '</title>', '<xmp>', '</xmp>', '<plaintext>',
  '<table>', '<caption>', '<tr>', '<td>', '</td>', '</tr>', '</table>', '<colgroup>',
  '<select>', '<option>', '</select>', '<template>', '</template>', '<frameset>',
  '<svg>', '<foreignObject>', '</svg>', '<math>', '<mi>', '</math>', '<![CDATA[',
  '<a href="/x y">', "<a href='/z\n'>", '<a href=/u>', '</a>', '<img alt="a  b">', '<input value="v\r\nw">',
  '<script>', '</script>', '<style>', '</style>', '<noscript>', '<iframe>', '<!-- c -->', '<!doctype html>',
  '<html>', '<head>', '</head>', '<body>', '</body>', '</html>',
];
const html = fc.array(fc.constantFrom(...pieces), { maxLength: 60 }).map((a) => a.join(''));

/** The document parsed by a parser whose tokenizer gets `html` in the pieces cut at `cuts`. */
function parseIn(parser: Parser<DefaultTreeAdapterMap>, html: string, cuts: number[] = []): DefaultTreeAdapterTypes.Document {
  const at = [...new Set(cuts.map((c) => c % (html.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const c of at) {
    parser.tokenizer.write(html.slice(from, c), false);
    from = c;
  }
  parser.tokenizer.write(html.slice(from), true);
  return parser.document;
}

/** parse5's own parser (its own tokenizer) with `adapter`. */
function parse5Parser(adapter: TreeAdapter<DefaultTreeAdapterMap>): Parser<DefaultTreeAdapterMap> {
  return new Parser<DefaultTreeAdapterMap>({ treeAdapter: adapter });
}

/** The tree as text, each text node collapsed as the walk reads it (collapseNode). */
function collapsedTree(node: ParentNode, out: string[] = []): string[] {
  for (const c of node.childNodes) {
    if (c.nodeName === '#text') out.push(`"${collapseNode((c as DefaultTreeAdapterTypes.TextNode).value)}"`);
    else if (c.nodeName === '#comment' || c.nodeName === '#documentType') out.push(c.nodeName);
    else {
      const el = c as DefaultTreeAdapterTypes.Element;
      out.push(`<${el.namespaceURI === 'http://www.w3.org/1999/xhtml' ? '' : 'ns:'}${el.tagName} ${JSON.stringify(el.attrs)}>`);
      collapsedTree(el, out);
      if ('content' in el) collapsedTree((el as DefaultTreeAdapterTypes.Template).content, out);
      out.push('</>');
    }
  }
  return out;
}

/** Counts the character tokens a tokenizer hands to its parser. */
function countTokens(tokenizer: Tokenizer): { chars: number; spaces: number } {
  const n = { chars: 0, spaces: 0 };
  const handler = (tokenizer as unknown as { handler: { onCharacter(t: unknown): void; onWhitespaceCharacter(t: unknown): void } }).handler;
  const onCharacter = handler.onCharacter.bind(handler);
  const onWhitespace = handler.onWhitespaceCharacter.bind(handler);
  handler.onCharacter = (t) => (n.chars++, onCharacter(t));
  handler.onWhitespaceCharacter = (t) => (n.spaces++, onWhitespace(t));
  return n;
}

describe('TextTokenizer (text read by runs)', () => {
  it("builds parse5's own tree, whole and in pieces cut anywhere, and counts the same lines", () => {
    fc.assert(
      fc.property(html, fc.array(fc.nat(), { maxLength: 6 }), (doc, cuts) => {
        const want = parse5Parser(defaultTreeAdapter);
        const wantDoc = parseIn(want, doc);
        const got = textParser(defaultTreeAdapter);
        const gotDoc = parseIn(got, doc);
        expect(serialize(gotDoc)).toBe(serialize(wantDoc));
        expect(got.tokenizer.preprocessor.line).toBe(want.tokenizer.preprocessor.line);
        expect(serialize(parseIn(textParser(defaultTreeAdapter), doc, cuts))).toBe(serialize(wantDoc));
      }),
      { numRuns: 4000 },
    );
  });

  it('gives the crawl adapter the text the walk reads from parse5 with its own tokenizer', () => {
    fc.assert(
      fc.property(html, fc.array(fc.nat(), { maxLength: 4 }), (doc, cuts) => {
        forgetLastNode();
        const want = collapsedTree(parseIn(parse5Parser(collapsingTreeAdapter), doc));
        forgetLastNode();
        expect(collapsedTree(parseIn(textParser(collapsingTreeAdapter), doc, cuts))).toEqual(want);
      }),
      { numRuns: 3000 },
    );
  });

  it('hands a paragraph of words to the tree as one token in body, and word by word in a table', () => {
    const body = textParser(defaultTreeAdapter);
    const inBody = countTokens(body.tokenizer);
    parseIn(body, '<body><p>one two\nthree\r\n four five</p>');
    expect(inBody).toEqual({ chars: 1, spaces: 0 });

    const own = parse5Parser(defaultTreeAdapter);
    const byWord = countTokens(own.tokenizer);
    parseIn(own, '<body><p>one two\nthree\r\n four five</p>');
    expect(byWord).toEqual({ chars: 5, spaces: 4 });

    // script text (the tree builder's text mode) too, quotes and all
    const script = textParser(defaultTreeAdapter);
    const inScript = countTokens(script.tokenizer);
    parseIn(script, '<head><script>var a = "x y";\n  f(a)</script>');
    expect(inScript).toEqual({ chars: 1, spaces: 0 });

    // in a table, text and whitespace go different ways (foster parenting): token by token, as parse5 does
    const table = textParser(defaultTreeAdapter);
    const inTable = countTokens(table.tokenizer);
    parseIn(table, '<table>a b</table>');
    expect(inTable).toEqual({ chars: 2, spaces: 1 });
  });

  it('stops a token at markup, references and the end of the input read so far, and reads CR LF as parse5 does', () => {
    const doc = parseIn(textParser(defaultTreeAdapter), '<p>a b &amp; c\r\nd\re <i>f</i> g  ', [12]);
    expect(serialize(doc)).toBe(serialize(parse('<p>a b &amp; c\r\nd\re <i>f</i> g  ')));
    expect(serialize(doc)).toContain('<p>a b &amp; c\nd\ne <i>f</i> g  </p>');
  });

  it('is a subclass: parse5 itself still reads text code point by code point', () => {
    const own = parse5Parser(defaultTreeAdapter);
    expect(own.tokenizer).not.toBeInstanceOf(TextTokenizer);
    expect(textParser(defaultTreeAdapter).tokenizer).toBeInstanceOf(TextTokenizer);
  });
});
