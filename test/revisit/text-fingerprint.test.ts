import { describe, expect, it } from 'vitest';
import iconv from 'iconv-lite';
import { createAnalyzer } from '../../src/crawl/page-analysis.js';
import { countWords, fingerprintHtml, fingerprintPage, normalizeForFingerprint, parseHtmlBody, textFingerprint } from '../../src/revisit/text-fingerprint.js';

const page = (body: string, title = 'News') => Buffer.from(`<html><head><title>${title}</title></head><body>${body}</body></html>`);
const fp = (body: string, title?: string) => fingerprintHtml(page(body, title), 'text/html; charset=utf-8', 'http://a.test/x').hash;

describe('text fingerprint: boilerplate is not a change', () => {
  it('ignores dates, times, counters and "N minutes ago"', () => {
    const a = fp('<p>Tobacco prices rose.</p><footer>Updated Monday, May 5, 2025 10:32:11 am · 12,345 visitors · 3 minutes ago</footer>');
    const b = fp('<p>Tobacco prices rose.</p><footer>Updated Tuesday, June 17, 2026 9:01:02 pm · 12,352 visitors · 1 hour ago</footer>');
    const c = fp('<p>Tobacco prices rose.</p><footer>Updated 2026-06-17T09:01:02 · 7 visitors · an hour ago</footer>');
    const d = fp('<p>Tobacco prices rose.</p><footer>Updated 2025-05-05T10:32:11 · 99 visitors · 3 minutes ago</footer>');
    expect(a).toBe(b);
    expect(c).toBe(d);
  });

  it('ignores Chinese dates and full-width digits, whitespace and case', () => {
    expect(fp('<p>烟草新闻</p><p>更新于2025年5月5日 10:32，阅读 123 次，3分钟前</p>')).toBe(fp('<p>烟草新闻</p><p>更新于２０２６年１２月１日 ９:０１，阅读 4567 次，15分钟前</p>'));
    expect(fp('<p>Tobacco   Prices</p>')).toBe(fp('<p>tobacco prices</p>'));
  });

  it('folds a month name only next to a number', () => {
    expect(normalizeForFingerprint('Report of 5 May 2025')).toBe('report of #');
    expect(normalizeForFingerprint('You may go')).toBe('you may go');
    expect(normalizeForFingerprint('May 5, 2025 and may be')).toBe('# and may be');
  });

  it('is idempotent', () => {
    const s = 'Updated Monday, May 5, 2025 10:32:11 am, 12,345 views';
    expect(normalizeForFingerprint(normalizeForFingerprint(s))).toBe(normalizeForFingerprint(s));
  });
});

describe('text fingerprint: real changes are changes', () => {
  it('sees changed words, a changed title and added text', () => {
    const base = fp('<p>Tobacco prices rose in May 2025.</p>');
    expect(fp('<p>Tobacco prices fell in May 2025.</p>')).not.toBe(base);
    expect(fp('<p>Tobacco prices rose in May 2025.</p>', 'Other title')).not.toBe(base);
    expect(fp('<p>Tobacco prices rose in May 2025.</p><p>A new paragraph.</p>')).not.toBe(base);
    expect(textFingerprint('t', 'a b')).not.toBe(textFingerprint('t a', 'b'));
  });

  it('ignores markup and script but not visible text; decodes GBK as the crawl does', () => {
    expect(fp('<p>same <b>text</b></p><script>var t = "x";</script>')).toBe(fp('<div>same text</div><script>var t = "y";</script>'));
    const gbk = iconv.encode('<html><head><meta charset="gbk"><title>烟草</title></head><body><p>烟叶收购</p></body></html>', 'gbk');
    const utf8 = Buffer.from('<html><head><title>烟草</title></head><body><p>烟叶收购</p></body></html>');
    expect(fingerprintHtml(gbk, 'text/html', 'http://a.test/').hash).toBe(fingerprintHtml(utf8, 'text/html; charset=utf-8', 'http://a.test/').hash);
  });

  it('reports the page shape (links, words) for its URL class', () => {
    const f = fingerprintHtml(page('<p>one two three</p><a href="/a">four</a> <a href="/b">five</a>'), 'text/html', 'http://a.test/');
    expect(f.links).toBe(2);
    expect(f.textWords).toBe(5);
    expect(countWords('烟草新闻 and more')).toBe(4);
  });
});

describe('one parse for the fingerprint and the analysis', () => {
  it('the analysis of an already parsed page equals the analysis from its bytes', () => {
    // windows-1252 bytes declared in a <meta>: decoding matters, and the charset must come through
    const html = '<html><head><meta charset="windows-1252"><title>Caf\u00e9 tobacco</title></head><body><h1>Leaf</h1>'
      + '<p>Tobacco \u2014 prices</p><a href="/a">tobacco news</a> <a href="http://b.test/">elsewhere</a></body></html>';
    const body = iconv.encode(html, 'windows-1252');
    const analyze = createAnalyzer({
      keywords: { tobacco: 1, leaf: 0.5 }, fields: { title: 3, headings: 2, anchor: 2, body: 1 },
      scope: { hosts: [], include: [], exclude: [] }, scopeOptions: {}, normalize: {}, followCanonical: false,
    });
    const input = { url: 'http://a.test/x', host: 'a.test', body, contentType: 'text/html', html: true, anchors: ['tobacco'] };
    const parsed = parseHtmlBody(body, 'text/html', input.url);
    expect(parsed.charset).toBe('windows-1252');
    expect(parsed.page.title).toBe('Caf\u00e9 tobacco');
    const fromBytes = analyze(input);
    const fromParsed = analyze({ ...input, parsed });
    expect(fromParsed).toEqual(fromBytes);
    expect(fromParsed.relevance).toBeGreaterThan(0);
    expect(fromParsed.links.length).toBe(2);
    expect(fingerprintPage(parsed.page)).toEqual(fingerprintHtml(body, 'text/html', input.url));
  });
});
