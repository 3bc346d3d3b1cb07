import { describe, expect, it } from 'vitest';
import { createScope } from '../../src/url/scope.js';
import { looksLikeTrap, repeatedSegments } from '../../src/url/traps.js';

describe('traps', () => {
  it('recognises calendars, sorting, facets and session ids', () => {
    for (const u of [
      'http://a.test/calendar/2026/11/', 'http://a.test/events/2026/11/29/', 'http://a.test/list?date=2026-11-29', 'http://a.test/p?month=11&year=2026',
      'http://a.test/shop?sort=price', 'http://a.test/shop?a=1&order_by=name', 'http://a.test/shop?filter_color=red', 'http://a.test/s?facet=brand',
      'http://a.test/x;jsessionid=1?sid=abc', 'http://a.test/p?PHPSESSID=1',
    ]) expect(looksLikeTrap(u), u).toBe(true);
    for (const u of ['http://a.test/', 'http://a.test/news/2026/11/29/tobacco-tax.html', 'http://a.test/article?id=5', 'http://a.test/sorting-hat.html']) {
      expect(looksLikeTrap(u), u).toBe(false);
    }
  });

  it('counts repeated path segments', () => {
    expect(repeatedSegments('/a/b/a/b/a/b/a/')).toBe(4);
    expect(repeatedSegments('/')).toBe(0);
    expect(repeatedSegments('/x/y/z')).toBe(1);
  });

  it('the scope applies them when asked', () => {
    const scope = createScope({ hosts: [], include: [], exclude: [] }, { excludeTraps: true, maxRepeatedSegments: 3, maxUrlLength: 60 });
    expect(scope('http://a.test/shop?sort=price')).toEqual({ ok: false, reason: 'trap' });
    expect(scope('http://a.test/a/b/a/b/a/b/a/b')).toEqual({ ok: false, reason: 'repeat' });
    expect(scope('http://a.test/a/b/a/b/a/b')).toEqual({ ok: true });
    expect(scope(`http://a.test/${'x'.repeat(60)}`)).toEqual({ ok: false, reason: 'length' });
    const lax = createScope({ hosts: [], include: [], exclude: [] });
    expect(lax('http://a.test/shop?sort=price')).toEqual({ ok: true });
  });
});
