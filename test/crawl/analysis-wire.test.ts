import { describe, expect, it } from 'vitest';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { packAnalysis, unpackAnalysis, type WireAnalysis } from '../../src/crawl/analysis-wire.js';
import type { PageAnalysis } from '../../src/crawl/page-analysis.js';
import { urlHash } from '../../src/url/url-hash.js';
import { linkHash } from '../../src/crawl/link-intake.js';

function analysis(links: { url: string; host: string; anchor: string }[]): PageAnalysis {
  return {
    charset: 'utf-8', title: 'T', relevance: 0.5, contentHash: new Uint8Array(16).fill(7), simhash: null, lang: 'en',
    links: links.map((l, i) => ({ ...l, hash: urlHash(l.url), anchorScore: i / 10, contextScore: 1 - i / 10, location: i % 2 ? Number.NaN : 0.25 + i / 10 })),
    dropped: { media: 2 }, canonical: null, linksCut: { kept: 3, found: 9 }, noindex: false, nofollow: true,
    stored: { data: new Uint8Array([1, 2, 3]), codec: 'identity' },
  };
}

/** The analysis through a real message port, its buffer transferred, as the analysis thread posts it. */
function throughPort(a: PageAnalysis): { back: PageAnalysis; sent: ArrayBuffer } {
  const { port1, port2 } = new MessageChannel();
  const { wire, transfer } = packAnalysis(a);
  port1.postMessage(wire, transfer);
  const got = receiveMessageOnPort(port2)!.message as WireAnalysis;
  port1.close();
  return { back: unpackAnalysis(got), sent: wire.bytes };
}

describe('analysis wire', () => {
  it('gives back every link and field after a structured clone, whatever the strings hold', () => {
    const a = analysis([
      { url: 'http://a.test/x?q=1', host: 'a.test', anchor: 'plain' },
      { url: 'http://b.test/%E7%83%9F', host: 'b.test', anchor: '' },
      { url: 'http://xn--fsq.test/', host: 'xn--fsq.test', anchor: '烟草 😀 tobacco\nline\u0000nul' },
      { url: 'http://a.test/', host: 'a.test', anchor: 'a\u0301 combining' },
    ]);
    const { back } = throughPort(a);
    expect(back.links.map((l) => ({ ...l, hash: Buffer.from(l.hash).toString('hex') }))).toEqual(
      a.links.map((l) => ({ ...l, hash: Buffer.from(l.hash).toString('hex') })),
    );
    const { links: _a, stored: sa, ...restA } = a;
    const { links: _b, stored: sb, ...restB } = back;
    expect(restB).toEqual(restA);
    expect({ codec: sb.codec, data: [...sb.data] }).toEqual({ codec: sa.codec, data: [...sa.data] });
    // each hash is its own 16 bytes, as a Buffer (what link intake reads)
    expect(back.links.every((l) => Buffer.isBuffer(l.hash) && l.hash.length === 16)).toBe(true);
  });

  it('handles a page without links, and refuses a hash of another size', () => {
    expect(throughPort(analysis([])).back.links).toEqual([]);
    const bad = analysis([{ url: 'http://a.test/', host: 'a.test', anchor: '' }]);
    bad.links[0].hash = new Uint8Array(8);
    expect(() => packAnalysis(bad)).toThrow(/8 bytes/);
  });

  it('carries the content hash, the SimHash and a body that is a view on a larger buffer, in one transferred buffer', () => {
    const big = new ArrayBuffer(16384);
    const body = new Uint8Array(big, 100, 3000).map((_, i) => (i * 7) & 255); // (as zlib returns: a view on its 16 KB chunk)
    const a = analysis([{ url: 'http://a.test/x', host: 'a.test', anchor: 'x' }, { url: 'http://b.test/', host: 'b.test', anchor: '' }]);
    a.contentHash = new Uint8Array(16).map((_, i) => i + 1);
    a.simhash = new Uint8Array(8).map((_, i) => 200 + i);
    a.stored = { data: body, codec: 'br' };
    const { back, sent } = throughPort(a);
    expect(sent.byteLength).toBe(0); // transferred, not copied: the sender's buffer is detached
    expect([...back.contentHash!]).toEqual([...a.contentHash]);
    expect([...back.simhash!]).toEqual([...a.simhash]);
    expect(back.stored.codec).toBe('br');
    expect(Buffer.from(back.stored.data).equals(Buffer.from(body))).toBe(true);
    // the body buffer holds the page's bytes, not zlib's whole chunk
    expect(back.stored.data.buffer.byteLength).toBeLessThan(3000 + 2 * (24 + 12 + 16) + 16 + 8 + 1);
    // what a link keeps (its hash) and the hashes do not hold the body's buffer
    expect(back.links[0].hash.buffer).not.toBe(back.stored.data.buffer);
    expect(back.contentHash!.buffer).not.toBe(back.stored.data.buffer);
    expect(Buffer.from(back.links[1].hash).equals(urlHash('http://b.test/'))).toBe(true);
    // without them, both are null again
    const plain = throughPort(analysis([])).back;
    expect(plain.simhash).toBeNull();
    expect([...plain.stored.data]).toEqual([1, 2, 3]);
  });

  it('refuses a content hash or SimHash of another size', () => {
    const a = analysis([]);
    a.simhash = new Uint8Array(4);
    expect(() => packAnalysis(a)).toThrow(/SimHash has 4 bytes/);
    a.simhash = null;
    a.contentHash = new Uint8Array(32);
    expect(() => packAnalysis(a)).toThrow(/content hash has 32 bytes/);
  });
});

describe('linkHash', () => {
  it('gives an unpacked link\'s hash as it is (a Buffer), and a Buffer view on the bytes of any other Uint8Array', () => {
    const a = analysis([{ url: 'https://a.example/x', host: 'a.example', anchor: 'x' }, { url: 'https://a.example/y', host: 'a.example', anchor: '' }]);
    const { wire } = packAnalysis(a);
    const back = unpackAnalysis(structuredClone(wire, { transfer: [wire.bytes] }));
    for (const [i, l] of back.links.entries()) {
      expect(Buffer.isBuffer(l.hash)).toBe(true);
      expect(linkHash(l)).toBe(l.hash);
      expect(Buffer.from(linkHash(l)).equals(Buffer.from(a.links[i].hash))).toBe(true);
    }
    // a plain Uint8Array at an offset in a larger buffer: a view, not a copy
    const big = new Uint8Array(64).map((_, i) => i);
    const view = new Uint8Array(big.buffer, 8, 16);
    const h = linkHash({ ...a.links[0], hash: view });
    expect(Buffer.isBuffer(h)).toBe(true);
    expect([...h]).toEqual([...view]);
    big[8] = 200;
    expect(h[0]).toBe(200);
  });
});

