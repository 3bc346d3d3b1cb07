import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hostKey } from '../../src/url/host.js';
import { URL_HASH_BYTES, urlHash } from '../../src/url/url-hash.js';
import { normalizeUrl } from '../../src/url/normalize.js';
import { TopicrawlError } from '../../src/errors.js';

describe('hostKey', () => {
  it.each([
    ['http://example.com/a', 'example.com'],
    ['https://Example.COM:443/a', 'example.com'],
    ['http://example.com:80', 'example.com'],
    ['http://example.com:8080/x?y', 'example.com:8080'],
    ['https://example.com:80/', 'example.com:80'],
    ['http://example.com:443/', 'example.com:443'],
    ['http://user:pw@Example.com:81/', 'example.com:81'],
    ['http://bücher.de/', 'xn--bcher-kva.de'],
    ['http://[2001:DB8::1]:8080/', '[2001:db8::1]:8080'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://example.com:080/', 'example.com'],
    ['http://example.com?q=1', 'example.com'],
  ])('%s → %s', (url, key) => {
    expect(hostKey(url)).toBe(key);
  });

  it('throws E_INVALID_URL for non-http(s) or unparsable URLs', () => {
    for (const bad of ['ftp://example.com/', 'nonsense', 'http://example.com:99999/']) {
      expect(() => hostKey(bad)).toThrow(TopicrawlError);
      try {
        hostKey(bad);
      } catch (err) {
        expect((err as TopicrawlError).code).toBe('E_INVALID_URL');
      }
    }
  });
});

describe('urlHash', () => {
  it('is the first 16 bytes of SHA-256 of the string', () => {
    const url = 'http://example.com/a?b=1';
    const h = urlHash(url);
    expect(h.length).toBe(URL_HASH_BYTES);
    expect(h.equals(createHash('sha256').update(url).digest().subarray(0, 16))).toBe(true);
  });

  it('is equal for spellings that normalise alike, different otherwise', () => {
    const a = urlHash(normalizeUrl('HTTP://Example.com:80/%7Ea/?utm_source=x#f'));
    const b = urlHash(normalizeUrl('http://example.com/~a/'));
    const c = urlHash(normalizeUrl('http://example.com/~b/'));
    expect(a.equals(b)).toBe(true);
    expect(a.equals(c)).toBe(false);
    expect(urlHash('http://例子.测试/').length).toBe(16);
  });
});
