import { describe, expect, it } from 'vitest';
import { DEFAULT_STRIP_PARAMS, normalizeUrl, normalizePercentEncoding, tryNormalizeUrl } from '../../src/url/normalize.js';
import { TopicrawlError } from '../../src/errors.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof TopicrawlError ? err.code : 'not a TopicrawlError';
  }
  return undefined;
}

describe('normalizeUrl', () => {
  it.each([
    ['HTTP://Example.COM', 'http://example.com/'],
    ['http://example.com:80/a', 'http://example.com/a'],
    ['https://example.com:443/a', 'https://example.com/a'],
    ['http://example.com:8080/a', 'http://example.com:8080/a'],
    ['https://example.com:80/a', 'https://example.com:80/a'],
    ['http://example.com/a/./b/../c', 'http://example.com/a/c'],
    ['http://example.com/a#frag', 'http://example.com/a'],
    ['http://example.com/?', 'http://example.com/'],
    ['http://example.com/?#x', 'http://example.com/'],
    ['http://example.com/%7euser/%41%62', 'http://example.com/~user/Ab'],
    ['http://example.com/%7Euser', 'http://example.com/~user'],
    ['http://example.com/a%2fb%c3%a4', 'http://example.com/a%2Fb%C3%A4'],
    ['http://example.com/100%', 'http://example.com/100%25'],
    ['http://example.com/a|b^c[d]', 'http://example.com/a%7Cb%5Ec%5Bd%5D'],
    ['http://example.com/?q={x}`', 'http://example.com/?q=%7Bx%7D%60'],
    ['http://example.com/文档', 'http://example.com/%E6%96%87%E6%A1%A3'],
    ['http://例子.测试/', 'http://xn--fsqu00a.xn--0zwm56d/'],
    ['http://user:secret@example.com/', 'http://example.com/'],
    ['  http://example.com/a  ', 'http://example.com/a'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeUrl(input)).toBe(expected);
  });

  it('sorts query parameters by name, stably, keeping blank values as written', () => {
    expect(normalizeUrl('http://x.com/p?b=2&a=&c&a=1&b=1')).toBe('http://x.com/p?a=&a=1&b=2&b=1&c');
    expect(normalizeUrl('http://x.com/p?b=2&a=1', { sortQuery: false })).toBe('http://x.com/p?b=2&a=1');
  });

  it('drops empty query pieces but keeps encoded delimiters and +', () => {
    expect(normalizeUrl('http://x.com/s?q=a%26b&&m=c+d')).toBe('http://x.com/s?m=c+d&q=a%26b');
    expect(normalizeUrl('http://x.com/s?q=%7e%3d')).toBe('http://x.com/s?q=~%3D');
  });

  it('strips tracking parameters from the default list, utm_* by prefix, case-insensitively', () => {
    expect(normalizeUrl('http://x.com/a?utm_source=n&UTM_Medium=e&id=3&fbclid=z&gclid=1&_ga=2&msclkid=3&mc_cid=4&mc_eid=5&yclid=6&igshid=7&dclid=8'))
      .toBe('http://x.com/a?id=3');
    expect(normalizeUrl('http://x.com/a?utm_source=n')).toBe('http://x.com/a');
    expect(DEFAULT_STRIP_PARAMS).toContain('utm_*');
    expect(Object.isFrozen(DEFAULT_STRIP_PARAMS)).toBe(true);
  });

  it('takes extra strip parameters, and can drop the default list', () => {
    expect(normalizeUrl('http://x.com/a?sid=1&ref_x=2&ref=3&k=4', { stripParams: ['sid', 'ref_*'] })).toBe('http://x.com/a?k=4&ref=3');
    expect(normalizeUrl('http://x.com/a?utm_source=n&sid=1', { stripParams: ['sid'], keepDefaultStripList: false })).toBe('http://x.com/a?utm_source=n');
  });

  it('resolves against a base', () => {
    expect(normalizeUrl('../c/./d.html?b=1&a=2#top', undefined, 'http://Example.com/x/y/z.html')).toBe('http://example.com/x/c/d.html?a=2&b=1');
    expect(normalizeUrl('//other.org', undefined, 'https://example.com/')).toBe('https://other.org/');
  });

  it('throws E_INVALID_URL for other schemes, no host or garbage; tryNormalizeUrl returns null', () => {
    for (const bad of ['ftp://x.com/', 'mailto:a@b.c', 'javascript:void(0)', 'file:///etc/passwd', 'http://', 'not a url', 'https://exa mple.com/', 'http://x.com:99999/']) {
      expect(codeOf(() => normalizeUrl(bad)), bad).toBe('E_INVALID_URL');
      expect(tryNormalizeUrl(bad)).toBeNull();
    }
    expect(codeOf(() => normalizeUrl('a', undefined, 'not a base'))).toBe('E_INVALID_URL');
    expect(tryNormalizeUrl('http://x.com/a')).toBe('http://x.com/a');
  });

  it('is idempotent', () => {
    const inputs = ['http://x.com/a%2fb/%zz?b=%7e&a=[1]&utm_id=3#f', 'http://例子.测试/文档?z=1&y', 'HTTP://x.com:80/../a/./b/?%41=%41'];
    for (const input of inputs) {
      const once = normalizeUrl(input);
      expect(normalizeUrl(once)).toBe(once);
    }
  });
});

describe('normalizePercentEncoding', () => {
  it('decodes unreserved, upper-cases other hex, escapes stray %', () => {
    expect(normalizePercentEncoding('%41%2d%2E%5f%7e%2f%3a%zz%')).toBe('A-._~%2F%3A%25zz%25');
    expect(normalizePercentEncoding('plain')).toBe('plain');
  });
});

// its speed (URLs/s, against WHATWG new URL()) is measured by scripts/bench-throughput.ts
describe('many simple URLs', () => {
  it('leaves URLs that are already normal as they are, and lower-cases the host of those that are not', () => {
    const urls = Array.from({ length: 20_000 }, (_, i) => `http://www.site${i % 100}.com/dir/page${i}.html`);
    expect(urls.filter((u) => normalizeUrl(u) !== u)).toEqual([]);
    expect(urls.slice(0, 3).map((u) => normalizeUrl(u.replace('www.site', 'WWW.Site')))).toEqual(urls.slice(0, 3));
  });
});
