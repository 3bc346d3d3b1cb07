import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Crawler } from '../../src/crawl/crawler.js';
import { openDatabase } from '../../src/store/sqlite-store.js';
import { buildConfig } from '../../src/topic/config.js';
import { readRows } from '../helpers/crawl-corpus.js';
import { tmpDir } from '../helpers/tmp.js';

/** Seeds from sitemaps: robots.txt Sitemap: lines and the topic's list, read once per crawl file. */
describe('sitemap seeds', () => {
  it('queues the in-scope URLs of the sitemaps that robots.txt and the topic name', async () => {
    const hits: string[] = [];
    const xml = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <url><loc>http://site.test/orphan1</loc><lastmod>2026-11-01</lastmod></url>
      <url><loc>http://site.test/orphan2</loc></url><url><loc>http://other.test/x</loc></url></urlset>`;
    const server = createServer((req, res) => {
      const key = `${(req.headers.host ?? '').split(':')[0]}${req.url}`;
      hits.push(key);
      if (key === 'site.test/robots.txt') return void res.end('User-agent: *\nDisallow: /private\nSitemap: http://site.test/sm\n');
      // gzip, found by its magic bytes: no .gz name, no gzip content type
      if (key === 'site.test/sm') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(gzipSync(xml));
      if (key === 'site.test/extra.txt') return void res.end('http://site.test/orphan3\nhttp://site.test/private/no\n');
      if (key.startsWith('site.test/')) return void res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${key}</title>`);
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const addr = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const db = join(tmpDir(), 's.db');
      const config = buildConfig({
        name: 'sm', seeds: ['http://site.test/'], sitemaps: ['http://site.test/extra.txt'],
        politeness: { delay_ms: 0, robots: true }, scope: { hosts: ['site.test', 'other.test'] },
      });
      const run = async () => {
        const c = new Crawler({ config, dbPath: db, resolve: { 'site.test': addr, 'other.test': addr } });
        await c.run();
        await c.close();
      };
      await run();
      const urls = readRows(db).map((r) => r.url).sort();
      expect(urls).toEqual(['http://site.test/', 'http://site.test/orphan1', 'http://site.test/orphan2', 'http://site.test/orphan3']);
      // cross-host sitemap entries are dropped; robots.txt still rules what is fetched
      expect(hits).not.toContain('other.test/x');
      expect(hits).not.toContain('site.test/private/no');
      const conn = openDatabase(db, { readonly: true });
      expect(conn.prepare("SELECT note FROM urls WHERE url = 'http://site.test/orphan1'").get()).toEqual({ note: 'sitemap http://site.test/sm lastmod 2026-11-01' });
      conn.close();
      // a resumed crawl does not read the sitemaps again
      const before = hits.filter((h) => h === 'site.test/sm').length;
      await run();
      expect(hits.filter((h) => h === 'site.test/sm').length).toBe(before);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
