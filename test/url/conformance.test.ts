import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { normalizeUrl, tryNormalizeUrl } from '../../src/url/normalize.js';
import { fixturePath } from '../helpers/fixtures.js';

/**
 * test/fixtures/url-normalization.json (copied from ../shared/conformance), compared where our rules agree with the suite's
 * assumptions. Where they differ on purpose, each case is checked against OUR rule instead, and the
 * rule is named. Query sorting is off (`sortQuery: false`) because no suite sorts.
 */
interface Suite<C> { assumptions?: string[]; cases: C[] }
interface NutchCase { test: string; input: string; config: Record<string, unknown>; expected?: string; throws?: string }
interface RfcCase { input: string; expected: string; group: string }
interface CcCase { input: string; base: string; expected: string }

const data = JSON.parse(readFileSync(fixturePath('url-normalization.json'), 'utf8')) as {
  suites: { 'nutch.BasicURLNormalizer': Suite<NutchCase>; 'rfc3986.reference-resolution': Suite<RfcCase>; 'crawler-commons.url-resolve': Suite<CcCase> };
};
const NO_SORT = { sortQuery: false };
const isHttp = (u: string) => /^https?:/i.test(u.trim());
const hasHost = (u: string) => /^\s*https?:\/\/[^/?#]/i.test(u);
const hostOf = (u: string) => /^[a-z]+:\/\/([^/?#]*)/i.exec(u)?.[1] ?? '';
const stripFragment = (u: string) => u.replace(/#.*$/, '');

describe('nutch.BasicURLNormalizer', () => {
  const cases = data.suites['nutch.BasicURLNormalizer'].cases;
  it('has the cases this test expects', () => expect(cases.length).toBeGreaterThan(100));

  for (const c of cases) {
    const title = `${c.test}: ${JSON.stringify(c.input)} ${JSON.stringify(c.config)}`;
    if (c.throws) {
      it(`${title} → throws`, () => expect(tryNormalizeUrl(c.input)).toBeNull());
    } else if (!isHttp(c.input) || !hasHost(c.input)) {
      // Our rule: only http(s) URLs with a host (file:, ftp:, "http:" → E_INVALID_URL).
      it(`${title} → E_INVALID_URL (only http(s) with a host)`, () => expect(tryNormalizeUrl(c.input)).toBeNull());
    } else if (c.config.NORM_HOST_TRIM_TRAILING_DOT) {
      // Our rule: a trailing dot in the host is kept (it is a different Host header).
      it(`${title} → trailing dot kept`, () => expect(normalizeUrl(c.input)).toBe(c.input));
    } else if (c.config.NORM_HOST_IDN === 'toUnicode' || /[^\x00-\x7f]/.test(hostOf(c.expected!))) {
      // Our rule: IDN hosts are written in punycode (nutch's default leaves them Unicode). Same URL otherwise.
      it(`${title} → punycode host, equivalent to the expected`, () => {
        const ours = normalizeUrl(c.input, NO_SORT);
        expect(hostOf(ours)).toMatch(/^[\x00-\x7f]+$/);
        expect(ours).toBe(normalizeUrl(c.expected!, NO_SORT));
      });
    } else if (c.config.NORM_HOST_IDN === 'toAscii' && c.config.NORM_HOST_IDNA_2008 !== true && c.input.includes('ß')) {
      // Our rule: UTS #46 non-transitional (IDNA2008, as browsers): ß is kept, not mapped to "ss".
      it(`${title} → IDNA2008 punycode`, () => expect(normalizeUrl(c.input)).toBe('https://xn--strae-oqa.de/'));
    } else if (/^https?:\/\/[^/]+\/[^?#]*\/\//.test(c.input) || /^https?:\/\/[^/]+\/\//.test(c.input)) {
      // Our rule: "//" in a path is kept (meaningful on some servers); everything else as nutch.
      it(`${title} → duplicate slashes kept`, () => {
        const ours = normalizeUrl(c.input, NO_SORT);
        expect(ours).toMatch(/^https?:\/\/[^/]+[^?]*\/\//);
        expect(ours.replace(/([^:])\/{2,}/g, '$1/')).toBe(c.expected);
      });
    } else {
      it(`${title} → ${c.expected}`, () => expect(normalizeUrl(c.input, NO_SORT)).toBe(c.expected));
    }
  }
});

describe('rfc3986.reference-resolution (base http://a/b/c/d;p?q)', () => {
  const base = 'http://a/b/c/d;p?q';
  for (const c of data.suites['rfc3986.reference-resolution'].cases) {
    if (!isHttp(c.expected)) {
      it(`${c.input} → E_INVALID_URL (not http)`, () => expect(tryNormalizeUrl(c.input, NO_SORT, base)).toBeNull());
    } else if (c.input === 'http:g') {
      // RFC 3986 §5.4.2 allows the non-strict reading, which WHATWG (and so we) use.
      it(`${c.input} → non-strict http://a/b/c/g`, () => expect(normalizeUrl(c.input, NO_SORT, base)).toBe('http://a/b/c/g'));
    } else {
      // Our rules: fragment removed; empty path → "/" (so "//g" → "http://g/").
      const expected = stripFragment(c.expected).replace(/^(https?:\/\/[^/?#]+)$/, '$1/');
      it(`${c.input} → ${expected}`, () => expect(normalizeUrl(c.input, NO_SORT, base)).toBe(expected));
    }
  }
});

describe('crawler-commons.url-resolve', () => {
  for (const c of data.suites['crawler-commons.url-resolve'].cases) {
    const base = c.base === '' ? undefined : c.base;
    if (!isHttp(c.expected)) {
      it(`${c.input} → E_INVALID_URL (not http)`, () => expect(tryNormalizeUrl(c.input, NO_SORT, base)).toBeNull());
      continue;
    }
    // Our rules on top of plain resolution: fragment and userinfo removed, escape hex upper-cased.
    const expected = stripFragment(c.expected)
      .replace(/^(https?:\/\/)[^@/]*@/, '$1')
      .replace(/%[0-9a-f]{2}/gi, (m) => m.toUpperCase());
    it(`${c.input} (base ${c.base || 'none'}) → ${expected}`, () => expect(normalizeUrl(c.input, NO_SORT, base)).toBe(expected));
  }
});
