import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Parse5Parser, collapseWhitespace } from '../../src/parse/html-parser.js';

const parser = new Parse5Parser();
const PAGE = 'http://example.com/dir/page.html';
const parse = (html: string, url = PAGE) => parser.parse(html, url);

describe('Parse5Parser: text', () => {
  it('takes the first title, whitespace collapsed, and keeps it out of the body text', () => {
    const p = parse('<html><head><title>  Hello \n\t World </title><title>Second</title></head><body>Body</body></html>');
    expect(p.title).toBe('Hello World');
    expect(p.text).toBe('Body');
  });

  it('separates blocks so words do not glue, and keeps inline runs together', () => {
    expect(parse('<p>a</p><p>b</p>').text.replace(/\s/g, ' ')).toBe('a b');
    expect(parse('<span>x</span><div>y</div>').text).toBe('x\ny');
    expect(parse('<td>c1</td><td>c2</td>').text).toBe('c1c2'); // outside a table: not cells
    expect(parse('<table><tr><td>c1</td><td>c2</td></tr></table>').text).toBe('c1\nc2');
    expect(parse('line<br>next').text).toBe('line\nnext');
    expect(parse('in<b>line</b> <i>words</i>').text).toBe('inline words');
    expect(parse('<p>source\n  wrapped\nline</p>').text).toBe('source wrapped line');
    expect(parse('<p>中国<a href="/y">烟草</a>总公司</p>').text).toBe('中国烟草总公司');
  });

  it('skips script, style, noscript, template and svg', () => {
    const p = parse(`<body>visible<script>var hidden1</script><style>.hidden2{}</style><noscript>hidden3</noscript>
      <template><p>hidden4</p></template><svg><text>hidden5</text><title>hidden6</title></svg>end</body>`);
    expect(p.text).toBe('visible end');
    expect(p.title).toBe('');
  });

  it('collects headings h1–h6 one per line, also in the body text', () => {
    const p = parse('<h1>Big <b>Head</b></h1><p>para</p><h3>Small</h3><h6></h6>');
    expect(p.headings).toBe('Big Head\nSmall');
    expect(p.text).toBe('Big Head\npara\nSmall');
  });

  it('reads lang and meta robots (case-insensitive, none = both)', () => {
    expect(parse('<html lang=" zh-TW "><body>x').lang).toBe('zh-TW');
    expect(parse('<body>x').lang).toBeNull();
    expect(parse('<meta name="ROBOTS" content="NoIndex, follow">').robots).toEqual({ noindex: true, nofollow: false });
    expect(parse('<meta name="robots" content="nofollow">').robots).toEqual({ noindex: false, nofollow: true });
    expect(parse('<meta name="robots" content="NONE">').robots).toEqual({ noindex: true, nofollow: true });
    expect(parse('<meta name="googlebot" content="noindex,nofollow">').robots).toEqual({ noindex: false, nofollow: false });
  });
});

describe('Parse5Parser: links', () => {
  it('resolves against the page URL, in document order, with anchor text, img alt and rel', () => {
    const p = parse(`<a href="rel.html">Rel <img alt="pic"> link</a> <a href="/abs?q=1" rel="NoFollow  UGC">two</a>
      <a href=" https://other.example/x#frag ">three</a>`);
    expect(p.links).toEqual([
      // context: the text of the block around the link, before and after it joined by a line break
      { url: 'http://example.com/dir/rel.html', text: 'Rel pic link', rel: [], context: 'two three' },
      { url: 'http://example.com/abs?q=1', text: 'two', rel: ['nofollow', 'ugc'], context: 'Rel link\nthree' },
      { url: 'https://other.example/x#frag', text: 'three', rel: [], context: 'Rel link two' },
    ]);
  });

  it('drops empty, fragment-only and non-http hrefs', () => {
    const p = parse(`<a href="">e</a><a href="#">h</a><a href="#top">t</a><a>no href</a><a href="javascript:void(0)">j</a>
      <a href="mailto:a@b.c">m</a><a href="data:text/html,x">d</a><a href="tel:123">t</a><a href="file:///etc/passwd">f</a>
      <a href="ftp://x/">ftp</a><a href="http://[::1">bad</a><a href="ok">ok</a>`);
    expect(p.links.map((l) => l.url)).toEqual(['http://example.com/dir/ok']);
  });

  it('includes <area href> with its alt text', () => {
    const p = parse('<map name="m"><area href="/area" alt="Area one"><area alt="none"></map>');
    expect(p.links).toEqual([{ url: 'http://example.com/area', text: 'Area one', rel: [], context: '' }]);
  });

  it('uses the first valid http(s) <base href>, even for links before it', () => {
    const p = parse('<body><a href="x">x</a><base href="/sub/"><base href="/other/"><a href="y">y</a>');
    expect(p.baseHref).toBe('http://example.com/sub/');
    expect(p.links.map((l) => l.url)).toEqual(['http://example.com/sub/x', 'http://example.com/sub/y']);
    const bad = parse('<base href="javascript:alert(1)"><a href="x">x</a>');
    expect(bad.baseHref).toBeNull();
    expect(bad.links[0].url).toBe('http://example.com/dir/x');
    expect(parse('<a href="x">x</a>').baseHref).toBeNull();
  });

  it('resolves rel=canonical (any case), first one wins', () => {
    const p = parse('<base href="https://cdn.example.org/a/"><link rel="alternate" href="/alt"><link rel="Canonical" href="c.html"><link rel="canonical" href="/second">');
    expect(p.canonical).toBe('https://cdn.example.org/a/c.html');
    expect(parse('<link rel="canonical" href="javascript:x">').canonical).toBeNull();
    expect(parse('<p>none</p>').canonical).toBeNull();
  });

  it('separates block children in anchor text and does not leak text between links', () => {
    const p = parse('<a href="/a"><div>One</div><div>Two</div></a>between<a href="/b">B</a>');
    expect(p.links.map((l) => l.text)).toEqual(['One Two', 'B']);
  });

  it('gives an empty anchor no text of what follows it', () => {
    const p = parse('<p><a href="/e"></a>after <a href="/f">f</a></p>');
    expect(p.links.map((l) => [l.text, l.context])).toEqual([['', 'after f'], ['f', 'after']]);
  });

  it('keeps only absolute links when the page URL itself is invalid', () => {
    const p = parse('<a href="rel">r</a><a href="https://ok.example/">a</a>', 'not a url');
    expect(p.links.map((l) => l.url)).toEqual(['https://ok.example/']);
  });
});

describe('Parse5Parser: malformed input never throws', () => {
  const nasty: [string, string][] = [
    ['empty', ''],
    ['unclosed tags', '<html><body><div><p>one<p>two<b><i>three</b></i><a href="/x">link<a href="/y">next'],
    ['broken attributes', '<a href="/a" title="unterminated>text</a><a href=/b class=>b</a><img src=">'],
    ['huge attribute', `<a href="/h" data-x="${'x'.repeat(2_000_000)}">huge</a>`],
    ['nested tables', '<table><tr><td><table><tr><td><table><td>deep</td></table></td></tr></table></td></tr>'.repeat(50)],
    ['NUL bytes', 'a\u0000b<p\u0000>c</p\u0000><a href="/n\u0000ul">n\u0000</a>'],
    ['deep nesting', '<div>'.repeat(100_000) + 'bottom' + '</div>'.repeat(10)],
    ['stray end tags', '</p></div></html></body>text</a></table>'],
    ['binary garbage', Array.from({ length: 5000 }, (_, i) => String.fromCharCode((i * 7919) % 65536)).join('')],
    ['comments and CDATA', '<!-- <a href="/c">c</a> --><![CDATA[x]]><!doctype><a href="/real">r</a><!--unterminated'],
  ];
  for (const [name, html] of nasty) {
    it(name, () => {
      const p = parse(html);
      expect(typeof p.title).toBe('string');
      expect(typeof p.text).toBe('string');
      for (const l of p.links) expect(l.url).toMatch(/^https?:\/\//);
    });
  }

  it('still extracts what it can from broken markup', () => {
    expect(parse(nasty[1][1]).links.map((l) => l.url)).toEqual(['http://example.com/x', 'http://example.com/y']);
    expect(parse(nasty[6][1]).text).toBe('bottom');
    expect(parse(nasty[9][1]).links.map((l) => l.url)).toEqual(['http://example.com/real']);
    expect(parse(nasty[5][1]).text).not.toContain('\u0000');
  });
});

describe('Parse5Parser: maxLinks', () => {
  // links glued with no whitespace between them, as on the hostile page of issue 12
  const page = (n: number) => Array.from({ length: n }, (_, i) => `<a href="/p${i}">p${i}</a>`).join('');

  it('reads the first maxLinks links in document order and counts the rest', () => {
    const p = parser.parse(`<body>${page(30)}<a href="#top">frag</a><a href="">empty</a></body>`, PAGE, { maxLinks: 12 });
    expect(p.links.map((l) => l.url)).toEqual(Array.from({ length: 12 }, (_, i) => `http://example.com/p${i}`));
    expect(p.links.map((l) => l.text)).toEqual(Array.from({ length: 12 }, (_, i) => `p${i}`));
    expect(p.linksFound).toBe(30); // fragment-only and empty hrefs are not links
    // the text of the links past the cap is still the page's text
    expect(p.text).toContain('p29');
  });

  it('counts link elements whatever their scheme, and reads all of them without a cap', () => {
    const html = `<a href="mailto:x@y.z">m</a><area href="/map" alt="map">${page(5)}`;
    const all = parse(html);
    expect(all.linksFound).toBe(7);
    expect(all.links).toHaveLength(6); // mailto: is no http(s) link
    const cut = parser.parse(html, PAGE, { maxLinks: 3 });
    expect(cut.linksFound).toBe(7);
    expect(cut.links.map((l) => l.url)).toEqual(['http://example.com/map', 'http://example.com/p0']);
  });
});

describe('collapseWhitespace', () => {
  it('collapses runs to one space, or a newline where a block marker (U+0000) was, and trims', () => {
    expect(collapseWhitespace('  a \t b \n\n c  ')).toBe('a b c');
    expect(collapseWhitespace('\u0000 a \u0000\n b\u0000')).toBe('a\nb');
    expect(collapseWhitespace('a \u0000 b', false)).toBe('a b');
    expect(collapseWhitespace('a\u00a0\u3000b')).toBe('a b');
    expect(collapseWhitespace('')).toBe('');
    expect(collapseWhitespace('plain')).toBe('plain');
  });

  it('gives what two regular-expression passes and a trim give, on any mix of text, whitespace and markers', () => {
    // the definition the one-pass loop replaced: every \s run to one space, then a run holding a
    // marker (with the spaces around it) to "\n" or " ", then trim
    const reference = (s: string, keepBreaks: boolean) => {
      const spaced = s.replace(/\s+/g, ' ');
      return (spaced.includes('\u0000') ? spaced.replace(/ ?\u0000[\u0000 ]*/g, keepBreaks ? '\n' : ' ') : spaced).trim();
    };
    const chars = ['a', 'Z', '中', ' ', ' ', '\n', '\r', '\t', '\v', '\f', '\u0000', '\u00a0', '\u1680', '\u2000', '\u200a', '\u200b', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff', '\u180e', '\u0085', '~', '\u007f'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...chars), { maxLength: 24 }).map((a) => a.join('')), fc.boolean(), (s, keep) => {
        expect(collapseWhitespace(s, keep)).toBe(reference(s, keep));
      }),
      { numRuns: 5000 },
    );
  });
});
