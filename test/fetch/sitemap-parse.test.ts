import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import iconv from 'iconv-lite';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLastmod, parseSitemap, SITEMAP_MAX_BYTES, SITEMAP_MAX_URLS } from '../../src/fetch/sitemap-parse.js';
import { tryNormalizeUrl } from '../../src/url/normalize.js';
import { fixturePath } from '../helpers/fixtures.js';

const SM = 'http://www.example.com/sitemap.xml';
const urlset = (inner: string): string => `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${inner}</urlset>`;
const url = (loc: string, lastmod?: string): string => `<url><loc>${loc}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ''}</url>`;
const locs = (r: { urls: { loc: string }[] }): string[] => r.urls.map((u) => u.loc);

describe('parseSitemap: formats', () => {
  it('detects gzip by magic bytes, whatever the name says', () => {
    const xml = urlset(url('http://www.example.com/a', ' 2024-01-02 ') + url('http://www.example.com/b'));
    const r = parseSitemap(gzipSync(xml), 'http://www.example.com/sitemap.txt'); // misleading name
    expect(r).toEqual({
      kind: 'urlset',
      urls: [
        { loc: 'http://www.example.com/a', lastmod: '2024-01-02' },
        { loc: 'http://www.example.com/b', lastmod: null },
      ],
      sitemaps: [],
      errors: [],
      truncated: false,
    });
    // and a .gz name on a body that is not gzip is read as what it is
    expect(locs(parseSitemap(Buffer.from('http://www.example.com/x\n'), 'http://www.example.com/sitemap.xml.gz'))).toEqual(['http://www.example.com/x']);
  });

  it('reads a sitemap index, with lastmod, and accepts sitemaps on other hosts', () => {
    const xml = `<sitemapindex><sitemap><loc>http://www.example.com/s1.xml</loc><lastmod>2016-05-13</lastmod></sitemap>
      <sitemap><loc>https://cdn.example.net/s2.xml.gz</loc></sitemap><sitemap><lastmod>2020-01-01</lastmod></sitemap></sitemapindex>`;
    const r = parseSitemap(Buffer.from(xml), SM);
    expect(r.kind).toBe('index');
    expect(r.urls).toEqual([]);
    expect(r.sitemaps).toEqual([
      { loc: 'http://www.example.com/s1.xml', lastmod: '2016-05-13' },
      { loc: 'https://cdn.example.net/s2.xml.gz', lastmod: null },
    ]);
  });

  it('tolerates a BOM, any namespace prefix, whitespace in <loc>, CDATA and predefined entities', () => {
    const xml = `\uFEFF<?xml version="1.0"?><x:urlset xmlns:x="urn:whatever"><x:url><x:loc>
        http://www.example.com/p?a=1&amp;b=&#50;
      </x:loc></x:url><x:url><x:loc><![CDATA[http://www.example.com/q?c=3&d=4]]></x:loc></x:url></x:urlset>`;
    const r = parseSitemap(Buffer.from(xml), SM);
    expect(r.errors).toEqual([]);
    expect(locs(r)).toEqual(['http://www.example.com/p?a=1&b=2', 'http://www.example.com/q?c=3&d=4']);
  });

  it('reads bare & (invalid XML, common in the wild) literally, without losing what follows', () => {
    const xml = urlset(url('http://www.example.com/p?a=1&b=2') + url('http://www.example.com/q?c=3&amp;d=4') + url('http://www.example.com/r?<![CDATA[e=5&amp;f]]>'));
    const r = parseSitemap(Buffer.from(xml), SM);
    expect(locs(r)).toEqual(['http://www.example.com/p?a=1&b=2', 'http://www.example.com/q?c=3&d=4', tryNormalizeUrl('http://www.example.com/r?e=5&amp;f')]); // CDATA stays literal
  });

  it('ignores <loc> of extensions (image:loc) and takes <loc> wherever it sits in <url>', () => {
    const xml = urlset(`<url><image:image xmlns:image="i"><image:loc>http://www.example.com/i.jpg</image:loc></image:image><loc>http://www.example.com/page</loc></url>`);
    expect(locs(parseSitemap(Buffer.from(xml), SM))).toEqual(['http://www.example.com/page']);
  });

  it('plain text: one URL a line; blank lines, comments, relative and non-http lines ignored', () => {
    const txt = '\uFEFFhttp://www.example.com/1\r\n\r\n# comment\n/relative\nftp://www.example.com/f\n  https://www.example.com/2  \nnot a url\n';
    const r = parseSitemap(Buffer.from(txt), 'http://www.example.com/sitemap.txt');
    expect(r.kind).toBe('text');
    expect(locs(r)).toEqual(['http://www.example.com/1', 'https://www.example.com/2']);
    expect(r.errors).toEqual([]);
  });

  it('an HTML page (or any other XML) is kind unknown with no URLs', () => {
    const r = parseSitemap(Buffer.from('<!doctype html><html><body><a href="http://www.example.com/x">x</a></body></html>'), SM);
    expect(r.kind).toBe('unknown');
    expect(r.urls).toEqual([]);
    expect(r.errors).toEqual(['not a sitemap: an HTML document']);
    const other = parseSitemap(Buffer.from('<?xml version="1.0"?><config><url><loc>http://www.example.com/x</loc></url></config>'), SM);
    expect(other.kind).toBe('unknown');
    expect(other.urls).toEqual([]);
    expect(other.errors).toEqual(['not a sitemap or feed: root element <config>']);
    // names that are also Object.prototype keys are not special
    expect(parseSitemap(Buffer.from('<constructor><url><loc>http://www.example.com/x</loc></url></constructor>'), SM).kind).toBe('unknown');
    const proto = urlset('<url><constructor>x</constructor><__proto__>y</__proto__><loc>http://www.example.com/x</loc></url>');
    expect(locs(parseSitemap(Buffer.from(proto), SM))).toEqual(['http://www.example.com/x']);
  });

  it('decodes a declared non-UTF-8 encoding', () => {
    const xml = urlset(url('http://www.example.com/caf\u00e9')).replace('UTF-8', 'ISO-8859-1');
    const r = parseSitemap(iconv.encode(xml, 'latin1'), SM);
    expect(locs(r)).toEqual(['http://www.example.com/caf%C3%A9']);
  });

  it('feeds: RSS items use <link>, else <guid>; Atom entries use the alternate <link href>, relative to the feed', () => {
    const rss = `<rss><channel><link>http://www.example.com/</link><item><guid>http://www.example.com/g</guid></item>
      <item><link>http://www.example.com/l</link><guid>urn:x</guid><pubDate>Mon, 06 Sep 2010 00:01:00 GMT</pubDate></item></channel></rss>`;
    const r = parseSitemap(Buffer.from(rss), 'http://www.example.com/feed');
    expect(r.kind).toBe('rss');
    expect(r.urls).toEqual([
      { loc: 'http://www.example.com/g', lastmod: null },
      { loc: 'http://www.example.com/l', lastmod: 'Mon, 06 Sep 2010 00:01:00 GMT' },
    ]);
    const atom = `<feed xmlns="http://www.w3.org/2005/Atom"><link href="/"/><entry><link rel="edit" href="/e"/><link href="/posts/1"/><published>2020-01-01</published></entry></feed>`;
    const a = parseSitemap(Buffer.from(atom), 'http://www.example.com/atom.xml');
    expect(a.kind).toBe('atom');
    expect(a.urls).toEqual([{ loc: 'http://www.example.com/posts/1', lastmod: '2020-01-01' }]);
  });
});

describe('parseSitemap: rules and caps', () => {
  it('drops URLs on other hosts (other schemes of the same host are kept), and counts them', () => {
    const xml = urlset(
      url('http://www.example.com/ok') + url('https://www.example.com/tls') + url('http://evil.example.org/x') +
        url('http://example.com/apex') + url('http://www.example.com:8080/port') + url('/relative') + url('javascript:alert(1)'),
    );
    const r = parseSitemap(Buffer.from(xml), SM);
    expect(locs(r)).toEqual(['http://www.example.com/ok', 'https://www.example.com/tls']);
    expect(r.errors).toEqual(['2 entries without a valid http(s) URL ignored', "3 URLs not on the sitemap's host dropped"]);
    // allowHosts widens the rule (the reader passes the host requested before a redirect)
    const w = parseSitemap(Buffer.from(xml), SM, { allowHosts: ['example.com'] });
    expect(locs(w)).toContain('http://example.com/apex');
  });

  it('does not deduplicate and does not apply the protocol path rule', () => {
    const xml = urlset(url('http://www.example.com/a') + url('http://www.example.com/a') + url('http://www.example.com/elsewhere/b'));
    expect(locs(parseSitemap(Buffer.from(xml), 'http://www.example.com/catalog/sitemap.xml'))).toEqual([
      'http://www.example.com/a', 'http://www.example.com/a', 'http://www.example.com/elsewhere/b',
    ]);
  });

  it('caps URLs per file (default: the protocol limit)', () => {
    expect(SITEMAP_MAX_URLS).toBe(50_000);
    const xml = urlset(Array.from({ length: 10 }, (_, i) => url(`http://www.example.com/${i}`)).join(''));
    const r = parseSitemap(Buffer.from(xml), SM, { maxUrls: 3 });
    expect(locs(r)).toEqual(['http://www.example.com/0', 'http://www.example.com/1', 'http://www.example.com/2']);
    expect(r.truncated).toBe(true);
    const exact = parseSitemap(Buffer.from(xml), SM, { maxUrls: 10 });
    expect(exact.truncated).toBe(false);
    const big = Array.from({ length: SITEMAP_MAX_URLS + 5 }, (_, i) => `http://www.example.com/${i}`).join('\n');
    const d = parseSitemap(Buffer.from(big), 'http://www.example.com/s.txt');
    expect(d.urls).toHaveLength(SITEMAP_MAX_URLS);
    expect(d.truncated).toBe(true);
  });

  it('caps bytes of a plain body and keeps what comes before the cap', () => {
    const xml = urlset(Array.from({ length: 100 }, (_, i) => url(`http://www.example.com/${i}`)).join(''));
    const r = parseSitemap(Buffer.from(xml), SM, { maxBytes: 2000 });
    expect(r.truncated).toBe(true);
    expect(r.urls.length).toBeGreaterThan(5);
    expect(r.urls.length).toBeLessThan(100);
    expect(locs(r)).toEqual(Array.from({ length: r.urls.length }, (_, i) => `http://www.example.com/${i}`));
  });

  it('stops a gzip bomb at the cap and keeps the URLs before it', () => {
    const head = gzipSync(`<urlset>${url('http://www.example.com/1')}${url('http://www.example.com/2')}`);
    const pad = gzipSync(Buffer.alloc(8 << 20, ' ')); // ~8 KB that inflate to 8 MiB
    const bomb = Buffer.concat([head, ...Array<Buffer>(128).fill(pad)]); // ~1 MB → 1 GiB
    expect(bomb.length).toBeLessThan(2 << 20);
    const r = parseSitemap(bomb, SM, { maxBytes: 1 << 20 }); // how fast: scripts/bench-hostile-input.ts
    expect(r.truncated).toBe(true);
    expect(locs(r)).toEqual(['http://www.example.com/1', 'http://www.example.com/2']);
    expect(r.errors[0]).toMatch(/^decompressed sitemap exceeds 1048576 bytes; parsed the first \d+$/);
    const parsed = Number(/first (\d+)$/.exec(r.errors[0])![1]);
    expect(parsed).toBeLessThanOrEqual(1 << 20);
    expect(parsed).toBeGreaterThan(1 << 19);
  });

  it('the default cap is the protocol limit of 50 MiB, also for a gzip bomb', () => {
    expect(SITEMAP_MAX_BYTES).toBe(50 * 1024 * 1024);
    const pad = gzipSync(Buffer.alloc(8 << 20, ' '));
    const bomb = Buffer.concat([gzipSync(`<urlset>${url('http://www.example.com/1')}`), ...Array<Buffer>(16).fill(pad)]); // 128 MiB
    const r = parseSitemap(bomb, SM);
    expect(r.truncated).toBe(true);
    expect(locs(r)).toEqual(['http://www.example.com/1']);
    const parsed = Number(/first (\d+)$/.exec(r.errors[0])![1]);
    expect(parsed).toBeLessThanOrEqual(SITEMAP_MAX_BYTES);
    expect(parsed).toBeGreaterThan(SITEMAP_MAX_BYTES / 2);
  }, 30_000);

  it('a cut gzip stream keeps what was inflated and records the error', () => {
    const xml = urlset(Array.from({ length: 200 }, (_, i) => url(`http://www.example.com/${i}`)).join(''));
    const gz = gzipSync(xml);
    const r = parseSitemap(gz.subarray(0, Math.floor(gz.length * 0.6)), SM);
    expect(r.errors[0]).toMatch(/^gzip: /);
    expect(r.urls.length).toBeGreaterThan(10);
    expect(r.urls.length).toBeLessThan(200);
  });

  it('keeps entries before and after a well-formedness error, and records it', () => {
    const xml = urlset(url('http://www.example.com/1') + '<url><loc>http://www.example.com/bad</lox></url>' + url('http://www.example.com/2'));
    const r = parseSitemap(Buffer.from(xml), SM);
    expect(locs(r)[0]).toBe('http://www.example.com/1');
    expect(locs(r)).not.toContain('http://www.example.com/bad'); // the entry holding the fault is dropped
    expect(r.errors.length).toBeGreaterThan(0);
    // A document cut after a complete <loc> keeps that entry; one cut inside a <loc> does not.
    const whole = urlset(url('http://www.example.com/1') + url('http://www.example.com/2'));
    const cut = parseSitemap(Buffer.from(whole.slice(0, -'</url></urlset>'.length)), SM);
    expect(locs(cut)).toEqual(['http://www.example.com/1', 'http://www.example.com/2']);
    expect(cut.errors.join(' ')).toMatch(/unclosed tag/);
    const inLoc = parseSitemap(Buffer.from(whole.slice(0, -'2</loc></url></urlset>'.length)), SM);
    expect(locs(inLoc)).toEqual(['http://www.example.com/1']);
  });
});

describe('parseSitemap: properties', () => {
  const escapeXml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const segment = fc.string({ unit: fc.constantFrom(...'abcXYZ019-._~%&=?/ '.split('')), maxLength: 12 });

  it('a well-formed urlset gives back its URLs, normalised, in order (xml, gzip and text alike)', () => {
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 20 }), (paths) => {
        const raw = paths.map((p) => `http://www.example.com/${p}`);
        const expected = raw.map((u) => tryNormalizeUrl(u)).filter((u): u is string => u !== null);
        const xml = urlset(raw.map((u) => url(escapeXml(u))).join(''));
        expect(locs(parseSitemap(Buffer.from(xml), SM))).toEqual(expected);
        expect(locs(parseSitemap(gzipSync(xml), SM))).toEqual(expected);
        const text = raw.filter((u) => u.trim() === u).join('\n');
        expect(locs(parseSitemap(Buffer.from(text), SM))).toEqual(raw.filter((u) => u.trim() === u).map((u) => tryNormalizeUrl(u)));
      }),
    );
  });

  it('never throws on arbitrary bytes or text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)), fc.string().map((s) => Buffer.from(`<urlset>${s}`))), (b) => {
        const r = parseSitemap(b, SM, { maxBytes: 200 });
        expect(Array.isArray(r.urls) && Array.isArray(r.errors)).toBe(true);
      }),
    );
  });
});

describe('parseSitemap: entities (no DTD processing)', () => {
  it('billion laughs: declared entities are not expanded; memory and output stay small', () => {
    const decls = ['<!ENTITY lol0 "lol">'];
    for (let i = 1; i <= 9; i++) decls.push(`<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`);
    const xml = `<?xml version="1.0"?>\n<!DOCTYPE urlset [\n${decls.join('\n')}\n]>\n` +
      urlset(url('http://www.example.com/&lol9;') + url('http://www.example.com/ok')).replace(/^<\?xml[^>]*>\n/, '');
    const heap0 = process.memoryUsage().heapUsed;
    const r = parseSitemap(Buffer.from(xml), SM); // how fast: scripts/bench-hostile-input.ts
    expect(process.memoryUsage().heapUsed - heap0).toBeLessThan(64 << 20); // expansion would be ~3 GB
    expect(locs(r)).toEqual(['http://www.example.com/ok']); // the field holding the entity is dropped
    expect(r.errors.join(' ')).toMatch(/undefined entity/);
    expect(JSON.stringify(r).length).toBeLessThan(2000);
  });

  it('external entities are never read (XXE canary)', () => {
    const canary = fixturePath('sitemaps/crawler-commons/sitemaps/do-not-visit.txt');
    const xml = `<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY xxe SYSTEM "${pathToFileURL(canary).href}"><!ENTITY % p SYSTEM "${pathToFileURL(canary).href}"> %p;]>
      <urlset><url><loc>&xxe;</loc></url><url><loc>http://www.example.com/ok</loc></url></urlset>`;
    const r = parseSitemap(Buffer.from(xml), SM);
    expect(JSON.stringify(r)).not.toContain('do-not-visit-here');
    expect(locs(r)).toEqual(['http://www.example.com/ok']);
  });
});

describe('parseLastmod', () => {
  it.each([
    ['2004', Date.UTC(2004, 0, 1)],
    ['2004-12', Date.UTC(2004, 11, 1)],
    ['2004-12-23', Date.UTC(2004, 11, 23)],
    ['2004-12-23T18:00:15+00:00', Date.UTC(2004, 11, 23, 18, 0, 15)],
    ['2004-12-23T18:00+01:00', Date.UTC(2004, 11, 23, 17, 0)],
    ['2004-12-23T18:00:15.5Z', Date.UTC(2004, 11, 23, 18, 0, 15, 500)],
    ['2004-12-23T18:00:15-0530', Date.UTC(2004, 11, 23, 23, 30, 15)],
    ['2004-12-23 18:00:15', Date.UTC(2004, 11, 23, 18, 0, 15)], // tolerated: space, no zone (UTC)
    ['  2024-02-29  ', Date.UTC(2024, 1, 29)],
    ['Thu, 05 Jan 2017 12:34:50 GMT', Date.UTC(2017, 0, 5, 12, 34, 50)],
    ['05 Jan 17 13:34:54 +0100', Date.UTC(2017, 0, 5, 12, 34, 54)],
    ['Mon, 6 Sep 2010 00:01:00 EST', Date.UTC(2010, 8, 6, 5, 1, 0)],
  ])('%s', (s, ms) => expect(parseLastmod(s)).toBe(ms));

  it.each(['', 'yesterday', '2023-02-29', '2004-13-01', '2004-12-23T25:00Z', '2004-12-23T18:00+25:00', '32 Jan 2017 00:00 GMT', '12/23/2004'])(
    'rejects %j',
    (s) => expect(parseLastmod(s)).toBeNull(),
  );

  it('null and undefined are null', () => {
    expect(parseLastmod(null)).toBeNull();
    expect(parseLastmod(undefined)).toBeNull();
  });
});
