import { describe, expect, it } from 'vitest';
import { Parse5Parser } from '../../src/parse/html-parser.js';
import { samplePage } from '../helpers/sample-pages.js';


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
