import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KnownUrl } from '../../src/frontier/frontier.js';
import { UrlState } from '../../src/frontier/url-state.js';
import { createLargerSitesFirst, RATIO, siteLevel, siteOfHost, SMALL } from '../../src/strategy/larger-sites-first.js';
import type { LinkInfo, PageInfo, Strategy } from '../../src/strategy/strategy.js';
import { hostKey } from '../../src/url/host.js';
import { strategyConfig } from '../helpers/strategy-config.js';

const page = (id: number, url = 'http://a.test/'): PageInfo => ({ id, url, depth: 0, life: 3, priority: 0, relevance: 0.5, relevant: true });
const link = (url: string, known: KnownUrl | null = null): LinkInfo => ({ url, host: hostKey(url), depth: 1, anchor: '', known, inlinks: 1, inlinkScore: 0.5 });

/** Feeds one page's new links through the hooks as the crawl does; returns the new links' priorities. */
function fetchPage(s: Strategy, p: PageInfo, urls: string[], nextId: { v: number }): number[] {
  const links = urls.map((u) => link(u));
  const d = s.onPageFetched(p, links);
  s.onLinksStored!(p, links, links.map(() => nextId.v++));
  return d.map((x) => x!.priority);
}

describe('larger-sites-first: sites and levels', () => {
  it('a site is the registrable domain (private suffixes too), else the host', () => {
    expect(siteOfHost('www.tobacco.example.com', 'domain')).toBe('example.com');
    expect(siteOfHost('news.bbc.co.uk', 'domain')).toBe('bbc.co.uk');
    expect(siteOfHost('a.b.github.io', 'domain')).toBe('b.github.io');
    expect(siteOfHost('shop.a.test:8080', 'domain')).toBe('a.test');
    expect(siteOfHost('127.0.0.1:8080', 'domain')).toBe('127.0.0.1:8080');
    expect(siteOfHost('localhost', 'domain')).toBe('localhost');
    expect(siteOfHost('[::1]:81', 'domain')).toBe('[::1]:81');
    expect(siteOfHost('www.example.com', 'host')).toBe('www.example.com');
  });

  it('levels are exact below SMALL, never decrease with the count, and step by RATIO above', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e7 }), fc.integer({ min: 0, max: 1e7 }), (a, b) => {
        if (a <= b) expect(siteLevel(a)).toBeLessThanOrEqual(siteLevel(b));
      }),
    );
    for (let n = 0; n < SMALL; n++) expect(siteLevel(n)).toBe(n);
    expect(siteLevel(SMALL)).toBe(SMALL);
    expect(siteLevel(Math.ceil(SMALL * RATIO))).toBe(SMALL + 1);
    expect(siteLevel(Math.ceil(SMALL * RATIO ** 10))).toBe(SMALL + 10);
  });
});

describe('larger-sites-first: ordering', () => {
  it('ranks the links of the site with more URLs waiting higher; one site shares one priority', () => {
    const s = createLargerSitesFirst(strategyConfig());
    const id = { v: 1 };
    s.onSeeded!(id.v++, 'http://a.test/');
    const p = fetchPage(s, page(1), ['http://big.test/1', 'http://www.big.test/2', 'http://big.test/3', 'http://small.test/1'], id);
    expect(p[0]).toBe(p[1]);
    expect(p[1]).toBe(p[2]);
    expect(p[0]).toBeGreaterThan(p[3]);
    // by host, www.big.test is its own, smaller site
    const h = createLargerSitesFirst(strategyConfig({ site: 'host' }));
    const q = fetchPage(h, page(1), ['http://big.test/1', 'http://www.big.test/2', 'http://big.test/3'], { v: 2 });
    expect(q[0]).toBeGreaterThan(q[1]);
  });

  it('re-ranks the waiting URLs of a site whose level moved, and drops fetched ones from its list', () => {
    const s = createLargerSitesFirst(strategyConfig());
    const id = { v: 1 };
    fetchPage(s, page(100), ['http://a.test/1', 'http://a.test/2'], id); // ids 1, 2
    s.takeUpdates!();
    fetchPage(s, page(101), ['http://a.test/3'], id); // id 3: a.test now has 3 waiting
    const ups = s.takeUpdates!();
    expect(ups.map((u) => u.id).sort()).toEqual([1, 2, 3]);
    expect(new Set(ups.map((u) => u.priority))).toEqual(new Set([3]));
    expect(s.takeUpdates!()).toEqual([]);
    // fetching id 1 (a page of a.test) takes it out: 2 waiting
    fetchPage(s, page(1, 'http://a.test/1'), [], id);
    const down = s.takeUpdates!();
    expect(down.map((u) => u.id).sort()).toEqual([2, 3]);
    expect(s.explain!(2)).toEqual({ site: 'a.test', waiting: 2, level: 2 });
    expect(s.explain!(1)).toBeNull();
  });

  it('counts a URL queued before a resume when a page links to it again, and ignores fetched ones', () => {
    const s = createLargerSitesFirst(strategyConfig());
    const k = (id: number, state: number): KnownUrl => ({ id, hostId: 1, state: state as UrlState, depth: 1, priority: 0, life: 3, inlinks: 1, inlinkScore: 0 });
    const links = [link('http://a.test/old', k(7, UrlState.QUEUED)), link('http://a.test/done', k(8, UrlState.FETCHED))];
    const d = s.onPageFetched(page(1), links);
    s.onLinksStored!(page(1), links, [7, 8]);
    expect(d[0]).toMatchObject({ priority: 1, life: 3 });
    expect(d[1]).toBeNull();
    expect(s.explain!(7)).toMatchObject({ waiting: 1 });
    // found again: counted once
    s.onPageFetched(page(2), [link('http://a.test/old', k(7, UrlState.QUEUED))]);
    expect(s.explain!(7)).toMatchObject({ waiting: 1 });
  });

  it('keeps re-ranking work amortised: updates stay within a small multiple of the URLs queued and fetched', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 40 }), fc.boolean()), { minLength: 1, maxLength: 300 }), (steps) => {
        const s = createLargerSitesFirst(strategyConfig({ site: 'host' }));
        const id = { v: 1 };
        const waiting: number[][] = [[], [], [], []];
        let events = 0;
        let updates = 0;
        let pageId = 1_000_000;
        for (const [site, n, fetchOne] of steps) {
          // fetch a waiting URL of the site (or a page of no counted URL), then queue n links of it
          const fetched = fetchOne ? waiting[site].shift() : undefined;
          if (fetched !== undefined) events++;
          const first = id.v;
          fetchPage(s, page(fetched ?? pageId++, `http://s${site}.test/`), Array.from({ length: n }, (_, i) => `http://s${site}.test/${first + i}`), id);
          for (let i = 0; i < n; i++) waiting[site].push(first + i);
          events += n;
          for (const u of s.takeUpdates!()) {
            updates++;
            // only waiting URLs are re-ranked, each to its site's level
            expect(waiting[site]).toContain(u.id);
          }
        }
        expect(updates).toBeLessThanOrEqual(6 * events + 4 * SMALL);
      }),
    );
  });
});

describe('larger-sites-first: every recorded page counts, and resume rebuilds the counts', () => {
  it('a page recorded without links (an error, a dead end) still leaves its site', () => {
    const s = createLargerSitesFirst(strategyConfig());
    const ids = { v: 3 };
    s.onSeeded!(1, 'http://a.test/');
    s.onSeeded!(2, 'http://a.test/x');
    expect(s.explain!(2)).toMatchObject({ waiting: 2 });
    s.onLinksStored!(page(1), [], []); // recorded with no links taken
    expect(s.explain!(2)).toMatchObject({ waiting: 1 });
    fetchPage(s, page(2, 'http://a.test/x'), ['http://b.test/1'], ids);
    expect(s.explain!(3)).toMatchObject({ site: 'b.test', waiting: 1 });
  });

  it('a resumed strategy has the same waiting counts as the live one', () => {
    const live = createLargerSitesFirst(strategyConfig());
    const ids = { v: 2 };
    live.onSeeded!(1, 'http://a.test/');
    const urls = new Map<number, string>([[1, 'http://a.test/']]);
    const more = ['http://a.test/1', 'http://a.test/2', 'http://b.test/1', 'http://c.test/1', 'http://c.test/2', 'http://c.test/3'];
    more.forEach((u, i) => urls.set(ids.v + i, u));
    fetchPage(live, page(1), more, ids);
    fetchPage(live, page(5, 'http://c.test/1'), [], ids);
    urls.delete(1);
    urls.delete(5);
    const resumed = createLargerSitesFirst(strategyConfig());
    resumed.resume!({ maxPriority: 3, seeds: () => [], history: () => [], queued: () => [...urls].map(([id, url]) => ({ id, url, priority: 0 })) });
    for (const id of urls.keys()) expect(resumed.explain!(id)).toMatchObject({ waiting: (live.explain!(id) as { waiting: number }).waiting });
    expect((resumed.explain!(6) as { waiting: number }).waiting).toBe(2); // c.test: 3 queued, 1 fetched
  });
});
