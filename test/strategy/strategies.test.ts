import { UrlState } from '../../src/frontier/url-state.js';
import { describe, expect, it } from 'vitest';
import { createLocationMetric } from '../../src/strategy/location-metric.js';
import { childLife } from '../../src/strategy/fish-life.js';
import { createStrategy, STRATEGIES } from '../../src/strategy/registry.js';
import type { LinkInfo, PageInfo, StrategyConfig } from '../../src/strategy/strategy.js';
import { strategyConfig } from '../helpers/strategy-config.js';

const cfg: StrategyConfig = strategyConfig({
  x: 0.3, y: 0.4, z: 0.3, max_life: 3,
  location: { tokens: { tobacco: 1, yancao: 1, index: 0.5, travel: -1, life: -1 }, tld: { com: 0.2, net: 0.1 }, segment_penalty: 0.1 },
});

const page = (over: Partial<PageInfo> = {}): PageInfo => ({ id: 1, url: 'http://a.test/', depth: 0, life: 3, priority: 0, relevance: 0.8, relevant: true, ...over });
const link = (url: string, over: Partial<LinkInfo> = {}): LinkInfo => ({ url, host: new URL(url).host, depth: 1, anchor: '', known: null, inlinks: 1, inlinkScore: 0.9, ...over });

describe('Location Metric IL', () => {
  const il = createLocationMetric(cfg.location);
  it('rates topic tokens in host or path up and negative tokens down', () => {
    expect(il('http://www.tobacco-info.example/')).toBeGreaterThan(il('http://www.news.example/'));
    expect(il('http://zgyancao.example/')).toBeGreaterThan(il('http://zg.example/'));
    expect(il('http://www.travel.example/')).toBeLessThan(il('http://www.news.example/'));
    expect(il('http://a.example/lifestyle/x.html')).toBeLessThan(il('http://a.example/news/x.html'));
    expect(il('http://a.example/index.html')).toBeGreaterThan(il('http://a.example/page.html'));
  });
  it('prefers .com over .net and fewer path segments', () => {
    expect(il('http://a.com/')).toBeGreaterThan(il('http://a.net/'));
    expect(il('http://a.org/x')).toBeGreaterThan(il('http://a.org/x/y/z'));
  });
  it('stays in (0,1)', () => {
    for (const u of ['http://tobacco.yancao.index.com/', 'http://travel.life.example/a/b/c/d/e/f/g/h', 'not a url']) {
      const v = il(u);
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(1);
    }
  });
});

describe('Fish life', () => {
  it('adds one for relevant parents up to the cap, takes one otherwise', () => {
    expect(childLife(2, true, 3)).toBe(3);
    expect(childLife(3, true, 3)).toBe(3);
    expect(childLife(2, false, 3)).toBe(1);
    expect(childLife(0, false, 3)).toBe(0);
  });
});

describe('strategies', () => {
  it('registry creates every strategy by name and rejects unknown names', () => {
    for (const name of Object.keys(STRATEGIES)) expect(createStrategy(name, cfg).name).toBe(name);
    expect(() => createStrategy('nope', cfg)).toThrow(/unknown strategy "nope"/);
  });

  it('best-first ranks shallower, better-linked, better-located URLs higher', () => {
    const s = createStrategy('best-first', cfg);
    const [deep, shallow] = s.onPageFetched(page(), [link('http://a.test/x', { depth: 3 }), link('http://a.test/x', { depth: 1 })]);
    expect(shallow!.priority).toBeGreaterThan(deep!.priority);
    const [weak, strong] = s.onPageFetched(page(), [link('http://a.test/x', { inlinkScore: 0.2 }), link('http://a.test/x', { inlinkScore: 0.9 })]);
    expect(strong!.priority).toBeGreaterThan(weak!.priority);
    const [off, on] = s.onPageFetched(page(), [link('http://travel.test/x'), link('http://tobacco.test/x')]);
    expect(on!.priority).toBeGreaterThan(off!.priority);
  });

  it('best-first priority is exactly x·IB + y·IL + z·ID', () => {
    const only = (x: number, y: number, z: number) => createStrategy('best-first', { ...cfg, x, y, z });
    const l = link('http://tobacco.test/a/b', { depth: 2, inlinkScore: 0.6 });
    const ib = only(1, 0, 0).onPageFetched(page(), [l])[0]!.priority;
    const il = only(0, 1, 0).onPageFetched(page(), [l])[0]!.priority;
    const id = only(0, 0, 1).onPageFetched(page(), [l])[0]!.priority;
    expect(ib).toBeCloseTo(0.6); // IB is the best backlink evidence itself
    expect(id).toBeCloseTo(1 / 3);
    expect(il).toBeCloseTo(createLocationMetric(cfg.location)('http://tobacco.test/a/b'));
    expect(createStrategy('best-first', cfg).onPageFetched(page(), [l])[0]!.priority).toBeCloseTo(0.3 * ib + 0.4 * il + 0.3 * id);
  });

  it("best-first takes a link's IL from page analysis when given (LinkInfo.location), the same as its own", () => {
    const urls = ['http://tobacco.test/a/b', 'http://travel.test/', 'http://a.com/index.html', 'http://yancao.net/x/y/z'];
    const il = createLocationMetric(cfg.location);
    for (const name of ['best-first', 'best-first-fish']) {
      const own = createStrategy(name, cfg).onPageFetched(page(), urls.map((u) => link(u)));
      const given = createStrategy(name, cfg).onPageFetched(page(), urls.map((u) => link(u, { location: il(u) })));
      expect(given).toEqual(own);
      // and it is that value that counts: y·ΔIL
      const [a, b] = createStrategy(name, { ...cfg, feedback: 0 }).onPageFetched(page(), [link(urls[0], { location: 0.2 }), link(urls[0], { location: 0.7 })]);
      expect(b!.priority - a!.priority).toBeCloseTo(0.4 * 0.5);
    }
  });

  it('best-first-fish prunes links whose life reaches 0 and keeps the larger life of known URLs', () => {
    const s = createStrategy('best-first-fish', cfg);
    const [d] = s.onPageFetched(page({ life: 1, relevant: false }), [link('http://a.test/x')]);
    expect(d!.prune).toBe(true);
    const known = { id: 5, hostId: 1, state: UrlState.QUEUED, depth: 1, priority: 0.2, life: 2, inlinks: 1, inlinkScore: 0.5 };
    const [k] = s.onPageFetched(page({ life: 1, relevant: false }), [link('http://a.test/x', { known })]);
    expect(k).toMatchObject({ life: 2 });
    expect(k!.prune).toBeFalsy();
    const [r] = s.onPageFetched(page({ life: 2, relevant: true }), [link('http://a.test/y')]);
    expect(r).toMatchObject({ life: 3 });
  });

  it('depth-first puts the first link of the newest page on top', () => {
    const s = createStrategy('depth-first', cfg);
    const seed = s.seed('http://a.test/');
    const first = s.onPageFetched(page(), [link('http://a.test/1'), link('http://a.test/2')]).map((d) => d!.priority);
    expect(first[0]).toBeGreaterThan(first[1]);
    expect(first[1]).toBeGreaterThan(seed.priority);
    const second = s.onPageFetched(page(), [link('http://a.test/3')]).map((d) => d!.priority);
    expect(second[0]).toBeGreaterThan(first[0]);
  });

  it('breadth-first gives every new URL the same priority and leaves known ones alone', () => {
    const s = createStrategy('breadth-first', cfg);
    const known = { id: 5, hostId: 1, state: UrlState.QUEUED, depth: 1, priority: 0, life: 3, inlinks: 1, inlinkScore: 0.5 };
    const d = s.onPageFetched(page(), [link('http://a.test/1'), link('http://a.test/2', { known })]);
    expect(d[0]!.priority).toBe(s.seed('http://x.test/').priority);
    expect(d[1]).toBeNull();
  });
});
