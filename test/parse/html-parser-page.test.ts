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

describe('Parse5Parser throughput (logged, not asserted)', () => {
  it('parses a 10 KB page repeatedly', () => {
    const parser = new Parse5Parser();
    const html = samplePage();
    const first = parser.parse(html, 'http://example.com/news/1');
    expect(first.links.length).toBeGreaterThan(20);
    expect(first.text).toContain('中国烟草总公司');
    for (let k = 0; k < 50; k++) parser.parse(html, 'http://example.com/news/1'); // warm up
    const n = 500;
    const t0 = performance.now();
    for (let k = 0; k < n; k++) parser.parse(html, 'http://example.com/news/1');
    const secs = (performance.now() - t0) / 1000;
    console.log(`Parse5Parser: ${(n / secs).toFixed(0)} pages/s, ${((n * html.length) / secs / 1e6).toFixed(1)} M chars/s (page ${html.length} chars)`);
  });
});
