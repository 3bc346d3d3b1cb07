import { describe, expect, it } from 'vitest';
import { LinkMemo } from '../../src/crawl/link-memo.js';
import { createAnalyzer, type AnalysisConfig, type AnalysisInput } from '../../src/crawl/page-analysis.js';
import { hostKey } from '../../src/url/host.js';
import { tryNormalizeUrl, type NormalizeOptions } from '../../src/url/normalize.js';
import { createScope } from '../../src/url/scope.js';
import { urlHash } from '../../src/url/url-hash.js';
import { createLocationMetric, type LocationWeights } from '../../src/strategy/location-metric.js';

const normalize: NormalizeOptions = { stripParams: ['utm_source'] };
const scope = createScope({ hosts: ['a.test', 'b.test'], include: [], exclude: ['/private/'] }, { excludeTraps: true });

const RAW = [
  'http://a.test/x?b=2&a=1&utm_source=feed',
  'HTTP://A.TEST:80/%7euser/',
  'http://a.test/photo.JPG',
  'http://c.test/elsewhere',
  'http://b.test/private/page',
  'http://b.test/calendar/2024/01/02/03/04/05/06/07/08/09/10',
  'http://[::1',
  'mailto:someone@a.test',
  'http://b.test/ok.html#frag',
];

/** What analysis worked out for a URL before the memo: each step afresh. */
function fresh(raw: string) {
  const url = tryNormalizeUrl(raw, normalize);
  if (url === null) return { url };
  const d = scope(url);
  return d.ok ? { url, scope: d, hash: Buffer.from(urlHash(url)).toString('hex'), host: hostKey(url) } : { url, scope: d };
}

function memoised(memo: LinkMemo, raw: string) {
  const f = memo.facts(raw);
  if (f.url === null) return { url: null };
  const g = memo.scoped(f);
  return g.scope!.ok ? { url: g.url, scope: g.scope, hash: Buffer.from(memo.hash(g)).toString('hex'), host: g.host } : { url: g.url, scope: g.scope };
}

describe('LinkMemo', () => {
  it('gives what normalising, scoping and hashing afresh give, on first sight and after', () => {
    const memo = new LinkMemo(normalize, scope);
    for (let round = 0; round < 3; round++) for (const raw of RAW) expect(memoised(memo, raw), raw).toEqual(fresh(raw));
    expect(memo.size).toBe(RAW.length);
    // the cases are not all alike: some invalid, some out of scope for different reasons, some in scope
    const kinds = new Set(RAW.map((r) => { const f = fresh(r); return f.url === null ? 'invalid' : f.scope.ok ? 'ok' : f.scope.reason; }));
    expect(kinds.size).toBeGreaterThanOrEqual(4);
  });

  it('is emptied when full, and still answers the same; a hash handed out is not rewritten after', () => {
    const memo = new LinkMemo(normalize, scope, 3);
    const given: [string, Uint8Array][] = [];
    for (let round = 0; round < 2; round++) {
      for (const raw of RAW) {
        expect(memoised(memo, raw)).toEqual(fresh(raw));
        expect(memo.size).toBeLessThanOrEqual(3);
        const f = memo.facts(raw);
        if (f.url !== null && memo.scoped(f).scope!.ok) given.push([f.url, memo.hash(f)]);
      }
    }
    expect(given.length).toBeGreaterThan(4);
    for (const [url, h] of given) expect(Buffer.from(h).toString('hex')).toBe(Buffer.from(urlHash(url)).toString('hex'));
  });

  it('answers as afresh through random use of a small memo: entries move between generations with their hashes', () => {
    let seed = 11;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const pool = [...RAW, ...Array.from({ length: 40 }, (_, i) => `http://${i % 3 ? 'a' : 'b'}.test/p${i}${i % 5 ? '.html' : '/'}`)];
    const memo = new LinkMemo(normalize, scope, 8);
    for (let i = 0; i < 4000; i++) {
      // a skewed choice: some URLs (a site's navigation) come back far more often than others
      const raw = pool[Math.floor(pool.length * rnd() ** 3)];
      expect(memoised(memo, raw), raw).toEqual(fresh(raw));
      expect(memo.size).toBeLessThanOrEqual(8);
    }
  });

  it("carries each in-scope URL's IL as the strategy's own location metric gives it, through random use; NaN without a metric", () => {
    const weights: LocationWeights = { tokens: { star: 1, p1: 0.5 }, tld: { test: 0.2 }, segment_penalty: 0.1 };
    const il = createLocationMetric(weights);
    let calls = 0;
    const memo = new LinkMemo(normalize, scope, 8, il); // (small: generations turn over all the time)
    const large = new LinkMemo(normalize, scope, 128, (u) => (calls++, il(u)));
    const bare = new LinkMemo(normalize, scope);
    let seed = 5;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const pool = [...RAW, ...Array.from({ length: 30 }, (_, i) => `http://a.test/star/p${i}/x.html`)];
    let inScope = 0;
    for (let i = 0; i < 2000; i++) {
      const raw = pool[Math.floor(pool.length * rnd() ** 2)];
      const f = memo.facts(raw);
      if (f.url === null || !memo.scoped(f).scope!.ok) continue;
      inScope++;
      expect(f.location, raw).toBe(il(f.url));
      expect(large.scoped(large.facts(raw)).location).toBe(f.location);
      expect(bare.scoped(bare.facts(raw)).location).toBeNaN();
    }
    expect(inScope).toBeGreaterThan(1000);
    // once per URL while it stays in the memo, not once per link
    expect(calls).toBeLessThanOrEqual(pool.length);
  });

  it('scopes a URL once however many pages link to it', () => {
    let calls = 0;
    const memo = new LinkMemo(normalize, (u) => (calls++, scope(u)));
    for (let i = 0; i < 5; i++) memo.scoped(memo.facts('http://a.test/page'));
    expect(calls).toBe(1);
  });
});

describe('page analysis with the link memo', () => {
  const cfg: AnalysisConfig = {
    keywords: { star: 1, planet: 1 }, fields: { title: 1, headings: 1, anchor: 1, body: 1 },
    scope: { hosts: ['a.test'], include: [], exclude: [] }, scopeOptions: {}, normalize: {}, followCanonical: true,
  };
  const page = (url: string, links: string[]): AnalysisInput => ({
    url, host: 'a.test', contentType: 'text/html', html: true, anchors: [],
    body: Buffer.from(`<html><body><p>star planet</p>${links.map((l, i) => `<a href="${l}">star ${i}</a>`).join(' ')}</body></html>`),
  });
  const a = page('http://a.test/a', ['/b', '/c?x=1', 'http://other.test/', '/a', '/b', 'pic.png']);
  const b = page('http://a.test/b', ['/a', '/c?x=1', '/b', 'http://a.test/d']);

  it('gives each page the links a fresh analyser gives it, whatever was analysed before', () => {
    const shared = createAnalyzer(cfg);
    for (const p of [a, b, a, b]) {
      const got = shared(p);
      const want = createAnalyzer(cfg)(p);
      const plain = (x: typeof got) => ({ ...x, stored: null, links: x.links.map((l) => ({ ...l, hash: Buffer.from(l.hash).toString('hex') })) });
      expect(plain(got)).toEqual(plain(want));
    }
    for (const l of shared(a).links) expect(l.location).toBeNaN(); // no location weights: the crawl's thread computes IL
    const weights: LocationWeights = { tokens: { c: 0.7 }, tld: { test: 0.1 }, segment_penalty: 0.3 };
    const il = createLocationMetric(weights);
    const withIl = createAnalyzer({ ...cfg, location: weights });
    for (const p of [a, b, a]) {
      const got = withIl(p).links;
      expect(got.length).toBeGreaterThan(0);
      for (const l of got) expect(l.location, l.url).toBe(il(l.url));
    }
    expect(new Set(withIl(a).links.map((l) => l.location)).size).toBeGreaterThan(1); // (the weights tell the URLs apart)
    const links = shared(a).links.map((l) => l.url);
    expect(links).toEqual(['http://a.test/b', 'http://a.test/c?x=1']); // self, other host and media dropped
    expect(shared(a).dropped).toEqual({ self: 1, host: 1, media: 1 });
  });
});
