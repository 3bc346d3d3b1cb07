import { describe, expect, it } from 'vitest';
import { Parse5Parser } from '../../src/parse/html-parser.js';

/** A realistic ~10 KB page: head with meta, a nav of links, paragraphs in English and Chinese, a table. */
export function samplePage(bytes = 10_000): string {
  const head = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tobacco control news</title>
<meta name="robots" content="index,follow"><link rel="canonical" href="/news/1"><style>body{font:14px sans-serif}</style>
<script>window.dataLayer=[];function gtag(){dataLayer.push(arguments)}</script></head><body><header><nav><ul>`;
  const parts: string[] = [head];
  for (let i = 0; i < 20; i++) parts.push(`<li><a href="/section/${i}" class="nav">Section ${i}</a></li>`);
  parts.push('</ul></nav></header><main><h1>Tobacco <em>control</em> news</h1>');
  let i = 0;
  while (parts.join('').length < bytes - 200) {
    parts.push(`<h2>Part ${i}</h2><p>The tobacco industry and <a href="/story/${i}?ref=body">nicotine products</a> were discussed.
中国烟草总公司负责卷烟的生产与销售，吸烟有害健康。 <b>Smoking</b> rates fell in ${2000 + i}.</p>
<table><tr><td>${i}</td><td>cell <i>text</i></td></tr></table><img src="/i/${i}.png" alt="figure ${i}">`);
    i++;
  }
  parts.push('</main><footer><p>&copy; Example</p></footer></body></html>');
  return parts.join('');
}

// its throughput (pages/s, against parse5's bare parse()) is measured by scripts/bench-throughput.ts
describe('Parse5Parser on a realistic 10 KB page', () => {
  it('finds the links and the text, and gives the same result every time (no state kept between pages)', () => {
    const parser = new Parse5Parser();
    const html = samplePage();
    const first = parser.parse(html, 'http://example.com/news/1');
    expect(first.links.length).toBeGreaterThan(20);
    expect(first.links.map((l) => l.url)).toContain('http://example.com/section/0');
    expect(first.text).toContain('中国烟草总公司');
    expect(first.text).not.toContain('dataLayer'); // scripts are not text
    for (let k = 0; k < 20; k++) parser.parse(samplePage(2_000 + k * 100), 'http://example.com/other');
    expect(parser.parse(html, 'http://example.com/news/1')).toEqual(first);
  });
});
