import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { FetchOptions, FetchResult, Fetcher } from '../../src/fetch/fetcher.js';
import { SitemapReader } from '../../src/fetch/sitemap.js';
import { UndiciFetcher } from '../../src/fetch/undici-fetcher.js';
import { serve, type TestServer } from './serve.js';

type Reply = { status?: number; body?: string | Buffer; location?: string; error?: FetchResult['error']; throws?: boolean };

/** A Fetcher over a table of replies (404 for anything else); it records every request. */
class TableFetcher implements Fetcher {
  readonly requested: string[] = [];
  readonly options: (FetchOptions | undefined)[] = [];
  constructor(private readonly table: Record<string, Reply>) {}
  async fetch(url: string, options?: FetchOptions): Promise<FetchResult> {
    this.requested.push(url);
    this.options.push(options);
    const r = this.table[url] ?? { status: 404, body: 'not found' };
    if (r.throws) throw new Error('boom');
    const body = r.body === undefined ? Buffer.alloc(0) : Buffer.from(r.body);
    return {
      url, status: r.status ?? 200, headers: {}, body, contentType: null, location: r.location ?? null,
      wireBytes: body.length, startedAt: Date.now(), elapsedMs: 1, ...(r.error ? { error: r.error } : {}),
    };
  }
  async close(): Promise<void> {}
}

const urlset = (...locs: string[]): string => `<urlset>${locs.map((l) => `<url><loc>${l}</loc></url>`).join('')}</urlset>`;
const index = (...locs: string[]): string => `<sitemapindex>${locs.map((l) => `<sitemap><loc>${l}</loc></sitemap>`).join('')}</sitemapindex>`;
const H = 'http://a.example';

describe('SitemapReader', () => {
  it('reads indexes breadth-first, URLs in document order, deduplicated, with their sitemap', async () => {
    const f = new TableFetcher({
      [`${H}/index.xml`]: { body: index(`${H}/s1.xml`, `${H}/sub-index.xml`, `${H}/s2.xml.gz`) },
      [`${H}/s1.xml`]: { body: urlset(`${H}/1`, `${H}/2`) },
      [`${H}/sub-index.xml`]: { body: index(`${H}/s3.txt`) },
      [`${H}/s2.xml.gz`]: { body: gzipSync(urlset(`${H}/2`, `${H}/3`)) },
      [`${H}/s3.txt`]: { body: `${H}/4\n${H}/1\n` },
      [`${H}/direct.xml`]: { body: urlset(`${H}/0`) },
    });
    const r = await new SitemapReader(f).read([`${H}/index.xml`, `${H}/direct.xml`]);
    expect(f.requested).toEqual([`${H}/index.xml`, `${H}/direct.xml`, `${H}/s1.xml`, `${H}/sub-index.xml`, `${H}/s2.xml.gz`, `${H}/s3.txt`]);
    expect(r.sitemapsRead).toEqual(f.requested);
    expect(r.urls).toEqual([
      { loc: `${H}/0`, lastmod: null, sitemap: `${H}/direct.xml` },
      { loc: `${H}/1`, lastmod: null, sitemap: `${H}/s1.xml` },
      { loc: `${H}/2`, lastmod: null, sitemap: `${H}/s1.xml` },
      { loc: `${H}/3`, lastmod: null, sitemap: `${H}/s2.xml.gz` },
      { loc: `${H}/4`, lastmod: null, sitemap: `${H}/s3.txt` },
    ]);
    expect(r.errors).toEqual([]);
    expect(r.truncated).toBe(false);
    expect(f.options[0]?.maxBytes).toBe(50 * 1024 * 1024);
  });

  it('caps index depth and reports it', async () => {
    const table: Record<string, Reply> = {};
    for (let i = 0; i < 6; i++) table[`${H}/i${i}.xml`] = { body: `<sitemapindex><sitemap><loc>${H}/i${i + 1}.xml</loc></sitemap></sitemapindex>` };
    const f = new TableFetcher(table);
    const r = await new SitemapReader(f, { maxDepth: 2 }).read([`${H}/i0.xml`]);
    expect(f.requested).toEqual([`${H}/i0.xml`, `${H}/i1.xml`, `${H}/i2.xml`]);
    expect(r.truncated).toBe(true);
    expect(r.errors).toEqual([{ sitemap: `${H}/i2.xml`, message: 'index depth cap (2) reached: 1 listed sitemaps not read', code: 'E_PARSE' }]);
    const d = new TableFetcher(table);
    await new SitemapReader(d).read([`${H}/i0.xml`]);
    expect(d.requested).toHaveLength(4); // default maxDepth 3
  });

  it('reads each sitemap once when indexes loop', async () => {
    const f = new TableFetcher({
      [`${H}/a.xml`]: { body: index(`${H}/b.xml`, `${H}/a.xml`) },
      [`${H}/b.xml`]: { body: index(`${H}/a.xml`, `${H}/c.xml`, `${H}/c.xml`) },
      [`${H}/c.xml`]: { body: urlset(`${H}/page`) },
    });
    const r = await new SitemapReader(f, { maxDepth: 10 }).read([`${H}/a.xml`, `${H}/a.xml`]);
    expect(f.requested).toEqual([`${H}/a.xml`, `${H}/b.xml`, `${H}/c.xml`]);
    expect(r.urls.map((u) => u.loc)).toEqual([`${H}/page`]);
    expect(r.errors).toEqual([]);
  });

  it('drops URLs on other hosts; sitemaps from an index may be on other hosts, with their own URLs', async () => {
    const f = new TableFetcher({
      [`${H}/index.xml`]: { body: index('http://b.example/s.xml') },
      'http://b.example/s.xml': { body: urlset('http://b.example/x', `${H}/stolen`) },
      [`${H}/s.xml`]: { body: urlset(`${H}/own`, 'http://evil.example/x') },
    });
    const r = await new SitemapReader(f).read([`${H}/index.xml`, `${H}/s.xml`]);
    expect(r.urls.map((u) => u.loc)).toEqual([`${H}/own`, 'http://b.example/x']);
    expect(r.errors.map((e) => [e.sitemap, e.message])).toEqual([
      [`${H}/s.xml`, "1 URLs not on the sitemap's host dropped"],
      ['http://b.example/s.xml', "1 URLs not on the sitemap's host dropped"],
    ]);
  });

  it('stops at maxUrls in all', async () => {
    const f = new TableFetcher({
      [`${H}/s1.xml`]: { body: urlset(`${H}/1`, `${H}/2`, `${H}/3`) },
      [`${H}/s2.xml`]: { body: urlset(`${H}/4`, `${H}/5`) },
      [`${H}/s3.xml`]: { body: urlset(`${H}/6`) },
    });
    const r = await new SitemapReader(f, { maxUrls: 4 }).read([`${H}/s1.xml`, `${H}/s2.xml`, `${H}/s3.xml`]);
    expect(r.urls.map((u) => u.loc)).toEqual([`${H}/1`, `${H}/2`, `${H}/3`, `${H}/4`]);
    expect(r.truncated).toBe(true);
    expect(f.requested).toEqual([`${H}/s1.xml`, `${H}/s2.xml`]);
  });

  it('follows redirects (keeping URLs of the requested and of the final host), with a hop cap and loop detection', async () => {
    const f = new TableFetcher({
      [`${H}/old.xml`]: { status: 301, location: 'https://www.a.example/new.xml' },
      'https://www.a.example/new.xml': { body: urlset(`${H}/p1`, 'https://www.a.example/p2', 'http://c.example/p3') },
      [`${H}/loop1.xml`]: { status: 302, location: `${H}/loop2.xml` },
      [`${H}/loop2.xml`]: { status: 302, location: `${H}/loop1.xml` },
      [`${H}/far0.xml`]: { status: 307, location: `${H}/far1.xml` },
      [`${H}/far1.xml`]: { status: 307, location: `${H}/far2.xml` },
      [`${H}/far2.xml`]: { status: 307, location: `${H}/far3.xml` },
      [`${H}/far3.xml`]: { body: urlset(`${H}/far`) },
      [`${H}/noloc.xml`]: { status: 302 },
      [`${H}/dup.xml`]: { status: 301, location: 'https://www.a.example/new.xml' },
    });
    const reader = new SitemapReader(f, { maxRedirects: 2 });
    const r = await reader.read([`${H}/old.xml`, `${H}/loop1.xml`, `${H}/far0.xml`, `${H}/noloc.xml`, `${H}/dup.xml`]);
    expect(r.urls.map((u) => [u.loc, u.sitemap])).toEqual([
      [`${H}/p1`, `${H}/old.xml`],
      ['https://www.a.example/p2', `${H}/old.xml`],
    ]);
    expect(r.sitemapsRead).toEqual([`${H}/old.xml`]);
    expect(r.errors.map((e) => [e.sitemap, e.code])).toEqual([
      [`${H}/old.xml`, 'E_PARSE'], // c.example dropped
      [`${H}/loop1.xml`, 'E_REDIRECT_LOOP'],
      [`${H}/far0.xml`, 'E_REDIRECT_LIMIT'],
      [`${H}/noloc.xml`, 'E_HTTP'],
    ]); // dup.xml redirects to a sitemap already read: skipped silently
    expect(f.requested.filter((u) => u === 'https://www.a.example/new.xml')).toHaveLength(1);
    const more = await new SitemapReader(f, { maxRedirects: 3 }).read([`${H}/far0.xml`]);
    expect(more.urls.map((u) => u.loc)).toEqual([`${H}/far`]);
  });

  it('never throws: 404, 5xx, fetch errors, a throwing fetcher and invalid URLs become errors; the rest is read', async () => {
    const f = new TableFetcher({
      [`${H}/500.xml`]: { status: 503, body: 'busy' },
      [`${H}/dns.xml`]: { status: 0, error: { code: 'E_DNS', message: 'no such host' } },
      [`${H}/throw.xml`]: { throws: true },
      [`${H}/html.xml`]: { body: '<!DOCTYPE html><html></html>' },
      [`${H}/ok.xml`]: { body: urlset(`${H}/ok`) },
    });
    const r = await new SitemapReader(f).read(['not a url', `${H}/404.xml`, `${H}/500.xml`, `${H}/dns.xml`, `${H}/throw.xml`, `${H}/html.xml`, `${H}/ok.xml`]);
    expect(r.urls.map((u) => u.loc)).toEqual([`${H}/ok`]);
    expect(r.errors).toEqual([
      { sitemap: 'not a url', message: 'invalid sitemap URL', code: 'E_INVALID_URL' },
      { sitemap: `${H}/404.xml`, message: 'HTTP 404', code: 'E_HTTP' },
      { sitemap: `${H}/500.xml`, message: 'HTTP 503', code: 'E_HTTP' },
      { sitemap: `${H}/dns.xml`, message: 'no such host', code: 'E_DNS' },
      { sitemap: `${H}/throw.xml`, message: 'boom', code: 'E_INTERNAL' },
      { sitemap: `${H}/html.xml`, message: 'not a sitemap: an HTML document', code: 'E_PARSE' },
    ]);
    expect(r.sitemapsRead).toEqual([`${H}/html.xml`, `${H}/ok.xml`]);
  });

  it('parses a body cut at the size cap and records the cut', async () => {
    const f = new TableFetcher({
      [`${H}/big.xml`]: { body: urlset(`${H}/1`, `${H}/2`).slice(0, -'</url></urlset>'.length), error: { code: 'E_TOO_LARGE', message: 'body exceeds 100 bytes' } },
    });
    const r = await new SitemapReader(f, { maxBytes: 100 }).read([`${H}/big.xml`]);
    expect(f.options[0]?.maxBytes).toBe(100);
    expect(r.urls.map((u) => u.loc)).toEqual([`${H}/1`, `${H}/2`]);
    expect(r.errors[0]).toEqual({ sitemap: `${H}/big.xml`, message: 'body exceeds 100 bytes', code: 'E_TOO_LARGE' });
  });

  it('caps the number of sitemap files fetched', async () => {
    const many = Array.from({ length: 5 }, (_, i) => `${H}/s${i}.xml`);
    const f = new TableFetcher({ [`${H}/index.xml`]: { body: index(...many) } });
    const r = await new SitemapReader(f, { maxSitemaps: 3 }).read([`${H}/index.xml`]);
    expect(f.requested).toHaveLength(3);
    expect(r.truncated).toBe(true);
    expect(r.errors.at(-1)).toEqual({ sitemap: `${H}/s2.xml`, message: 'sitemap cap (3) reached: 3 sitemaps not read', code: 'E_PARSE' });
  });
});

describe('SitemapReader over HTTP (UndiciFetcher, loopback)', () => {
  const servers: TestServer[] = [];
  const fetchers: UndiciFetcher[] = [];
  afterEach(async () => {
    await Promise.all(fetchers.splice(0).map((f) => f.close()));
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('reads robots-style sitemaps: gzip with a misleading name and type, an index, a redirect and a 404', async () => {
    const S = 'http://site.example';
    const srv = await serve((req, res) => {
      switch (req.url) {
        case '/sitemap_index.xml':
          res.setHeader('Content-Type', 'application/xml');
          res.end(index(`${S}/pages.txt`, `${S}/moved.xml`, `${S}/gone.xml`));
          break;
        case '/pages.txt': // gzip bytes, named .txt, served as text/plain without Content-Encoding
          res.setHeader('Content-Type', 'text/plain');
          res.end(gzipSync(urlset(`${S}/a`, `${S}/b?y=2&x=1#frag`, 'http://other.example/c')));
          break;
        case '/moved.xml':
          res.statusCode = 301;
          res.setHeader('Location', '/real.xml');
          res.end();
          break;
        case '/real.xml': // compressed on the wire (Content-Encoding), as a server would
          res.setHeader('Content-Type', 'text/xml');
          res.setHeader('Content-Encoding', 'gzip');
          res.end(gzipSync(`<?xml version="1.0"?>\n<urlset><url><loc>${S}/d</loc><lastmod>2024-05-01</lastmod></url></urlset>`));
          break;
        default:
          res.statusCode = 404;
          res.end('nope');
      }
    });
    servers.push(srv);
    const fetcher = new UndiciFetcher({
      userAgent: 'topicrawl/0.1 (+test)', connectTimeoutMs: 2000, headersTimeoutMs: 2000, bodyTimeoutMs: 2000,
      maxPageBytes: 1 << 20, resolve: { 'site.example': `127.0.0.1:${srv.port}` },
    });
    fetchers.push(fetcher);
    const r = await new SitemapReader(fetcher).read([`${S}/sitemap_index.xml`]);
    expect(r.urls).toEqual([
      { loc: `${S}/a`, lastmod: null, sitemap: `${S}/pages.txt` },
      { loc: `${S}/b?x=1&y=2`, lastmod: null, sitemap: `${S}/pages.txt` },
      { loc: `${S}/d`, lastmod: '2024-05-01', sitemap: `${S}/moved.xml` },
    ]);
    expect(r.sitemapsRead).toEqual([`${S}/sitemap_index.xml`, `${S}/pages.txt`, `${S}/moved.xml`]);
    expect(r.errors).toEqual([
      { sitemap: `${S}/pages.txt`, message: "1 URLs not on the sitemap's host dropped", code: 'E_PARSE' },
      { sitemap: `${S}/gone.xml`, message: 'HTTP 404', code: 'E_HTTP' },
    ]);
    expect(srv.requests.map((q) => q.url)).toEqual(['/sitemap_index.xml', '/pages.txt', '/moved.xml', '/real.xml', '/gone.xml']);
  });
});
