import { describe, expect, it } from 'vitest';
import { packAnalysis, unpackAnalysis } from '../../src/crawl/analysis-wire.js';
import type { PageAnalysis } from '../../src/crawl/page-analysis.js';
import { urlHash } from '../../src/url/url-hash.js';

function analysis(links: { url: string; host: string; anchor: string }[]): PageAnalysis {
  return {
    charset: 'utf-8', title: 'T', relevance: 0.5, contentHash: new Uint8Array(16).fill(7), simhash: null, lang: 'en',
    links: links.map((l, i) => ({ ...l, hash: urlHash(l.url), anchorScore: i / 10, contextScore: 1 - i / 10, location: i % 2 ? Number.NaN : 0.25 + i / 10 })),
    dropped: { media: 2 }, canonical: null, linksCut: { kept: 3, found: 9 }, noindex: false, nofollow: true,
    stored: { data: new Uint8Array([1, 2, 3]), codec: 'identity' },
  };
}

describe('analysis wire', () => {
  it('gives back every link and field after a structured clone, whatever the strings hold', () => {
    const a = analysis([
      { url: 'http://a.test/x?q=1', host: 'a.test', anchor: 'plain' },
      { url: 'http://b.test/%E7%83%9F', host: 'b.test', anchor: '' },
      { url: 'http://xn--fsq.test/', host: 'xn--fsq.test', anchor: '烟草 😀 tobacco\nline\u0000nul' },
      { url: 'http://a.test/', host: 'a.test', anchor: 'a\u0301 combining' },
    ]);
    const back = unpackAnalysis(structuredClone(packAnalysis(a)));
    expect(back.links.map((l) => ({ ...l, hash: Buffer.from(l.hash).toString('hex') }))).toEqual(
      a.links.map((l) => ({ ...l, hash: Buffer.from(l.hash).toString('hex') })),
    );
    const { links: _a, ...restA } = a;
    const { links: _b, ...restB } = back;
    expect(restB).toEqual(restA);
    // each hash is its own 16 bytes, as a Buffer (what link intake reads)
    expect(back.links.every((l) => Buffer.isBuffer(l.hash) && l.hash.length === 16)).toBe(true);
  });

  it('handles a page without links, and refuses a hash of another size', () => {
    expect(unpackAnalysis(structuredClone(packAnalysis(analysis([])))).links).toEqual([]);
    const bad = analysis([{ url: 'http://a.test/', host: 'a.test', anchor: '' }]);
    bad.links[0].hash = new Uint8Array(8);
    expect(() => packAnalysis(bad)).toThrow(/8 bytes/);
  });
});
