import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Crawler } from '../../src/crawl/crawler.js';
import { openDatabase } from '../../src/store/sqlite-store.js';
import { crawlTotals } from '../../src/store/crawl-report.js';
import { buildConfig } from '../../src/topic/config.js';
import { readRows } from '../helpers/crawl-corpus.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * What the crawl loop does with each kind of answer: redirects followed by the crawl (chains, loops,
 * the hop cap, other hosts), errors recorded without stopping, only HTML parsed, meta robots,
 * rel=canonical and <base href>. A real server on 127.0.0.1 answers two host names.
 */
type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const html = (body: string) => `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`;

const routes: Record<string, Handler> = {
  'a.test/': (_q, r) => r.end(html(`烟草 <a href="/r1">chain</a> <a href="/loop1">loop</a> <a href="/far1">far</a> <a href="/gone">gone</a>
      <a href="/data">bin</a> <a href="/pic.jpg">media</a> <a href="/nofollow.html">nf</a> <a href="/based/page.html">based</a> <a href="http://b.test/">b</a>
      <a href="http://dead.test/">dead</a> <a href="/canon-dup.html">canon</a> <a href="/x" rel="nofollow">relnf</a>
      <a href="/copy1">copy</a> <a href="/copy2?session=2">copy</a>`)),
  'a.test/copy1': (_q, r) => r.end(html('<p>the same text on two URLs</p><a href="/from-copy">next</a>')),
  'a.test/copy2?session=2': (_q, r) => r.end(html('<p>the same text on two URLs</p><a href="/from-copy">next</a>')),
  'a.test/from-copy': (_q, r) => r.end(html('reached once')),
  'a.test/r1': (_q, r) => r.writeHead(301, { location: '/r2' }).end(),
  'a.test/r2': (_q, r) => r.writeHead(302, { location: 'http://b.test/landing' }).end(),
  'b.test/landing': (_q, r) => r.end(html('landed')),
  'a.test/loop1': (_q, r) => r.writeHead(307, { location: '/loop2' }).end(),
  'a.test/loop2': (_q, r) => r.writeHead(308, { location: '/loop1' }).end(),
  ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`a.test/far${i + 1}`, ((_q, r) => r.writeHead(302, { location: `/far${i + 2}` }).end()) as Handler])),
  'a.test/gone': (_q, r) => r.writeHead(404, { 'content-type': 'text/html' }).end(html('<a href="/never">never</a>')),
  'a.test/data': (_q, r) => r.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.from('<a href="/never2">x</a>')),
  'a.test/nofollow.html': (_q, r) => r.end(`<html><head><meta name="robots" content="noindex, nofollow"></head><body><a href="/never3">x</a></body></html>`),
  'a.test/based/page.html': (_q, r) => r.end(`<html><head><base href="http://b.test/sub/"></head><body><a href="rel.html">rel</a></body></html>`),
  'b.test/sub/rel.html': (_q, r) => r.end(html('relative to base')),
  'b.test/': (_q, r) => r.end(html('b home')),
  'a.test/canon-dup.html': (_q, r) => r.end(`<html><head><link rel="canonical" href="/canonical.html"></head><body>dup</body></html>`),
  'a.test/canonical.html': (_q, r) => r.end(html('the canonical one')),
};

async function serve(): Promise<{ port: number; hits: string[]; close: () => Promise<void> }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    const key = `${(req.headers.host ?? '').split(':')[0]}${req.url}`;
    hits.push(key);
    const h = routes[key];
    if (!h) return void res.writeHead(404).end();
    if (!res.hasHeader('content-type')) res.setHeader('content-type', 'text/html; charset=utf-8');
    h(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, hits, close: () => new Promise((r) => server.close(() => r())) };
}

describe('HTTP outcomes in the crawl loop', () => {
  it('follows redirects itself, records every outcome and keeps going', async () => {
    const srv = await serve();
    const db = join(tmpDir(), 'h.db');
    try {
      const config = buildConfig({
        name: 'http', seeds: ['http://a.test/'], keywords: { 烟草: 1 },
        strategy: { name: 'breadth-first' }, politeness: { delay_ms: 0, concurrency: 4, robots: true }, fetch: { max_redirects: 5, retry_base_ms: 5 },
      });
      const crawler = new Crawler({
        config, dbPath: db,
        // dead.test maps to a port nobody listens on
        resolve: { 'a.test': `127.0.0.1:${srv.port}`, 'b.test': `127.0.0.1:${srv.port}`, 'dead.test': '127.0.0.1:1' },
      });
      const summary = await crawler.run();
      await crawler.close();
      expect(summary.reason).toBe('done');
      const rows = new Map(readRows(db).map((r) => [r.url, r]));
      const conn = openDatabase(db, { readonly: true });
      const note = (u: string) => (conn.prepare('SELECT note FROM urls WHERE url = ?').get(u) as { note: string | null } | undefined)?.note ?? null;
      try {
        // a chain across hosts ends at its target, each hop recorded
        expect(rows.get('http://a.test/r1')?.status).toBe(301);
        expect(rows.get('http://a.test/r2')?.status).toBe(302);
        expect(rows.get('http://b.test/landing')?.status).toBe(200);
        // a loop stops when it comes back to a known URL
        expect(rows.get('http://a.test/loop2')?.status).toBe(308);
        expect(note('http://a.test/loop2')).toMatch(/known URL/);
        // the hop cap: far1 → … → far6 is 5 hops; the 6th is refused
        expect(rows.get('http://a.test/far6')?.error).toBe('E_REDIRECT_LIMIT');
        expect(rows.has('http://a.test/far7')).toBe(false);
        // errors are outcomes
        expect(rows.get('http://a.test/gone')).toMatchObject({ status: 404, error: 'E_HTTP' });
        // an unreachable host's robots.txt (RFC 9309 §2.3.1.4): none of its pages is fetched, the failure
        // is retried, then the host is suspended and counted as an error; its URL stays queued (state 0)
        expect(rows.has('http://dead.test/')).toBe(false);
        expect(conn.prepare("SELECT state, error FROM urls WHERE url = 'http://dead.test/'").get()).toEqual({ state: 0, error: null });
        expect(summary.suspendedHosts).toEqual(['dead.test']);
        expect(summary.unreachable).toBe(false);
        // only HTML is parsed: the links inside a 404 page, a binary body and a nofollow page are not followed
        expect(rows.get('http://a.test/data')).toMatchObject({ status: 200, relevance: null });
        // media URLs are filtered by extension before fetching
        expect(srv.hits).not.toContain('a.test/pic.jpg');
        for (const never of ['/never', '/never2', '/never3', '/x']) expect(srv.hits).not.toContain(`a.test${never}`);
        expect(note('http://a.test/nofollow.html')).toMatch(/nofollow/);
        expect(note('http://a.test/nofollow.html')).toMatch(/noindex/);
        // <base href> resolves relative links; rel=canonical is followed
        expect(rows.get('http://b.test/sub/rel.html')?.status).toBe(200);
        expect(rows.get('http://a.test/canonical.html')?.status).toBe(200);
        expect(note('http://a.test/canon-dup.html')).toMatch(/canonical http:\/\/a\.test\/canonical\.html/);
        // exact duplicate content is recorded as such; its links are not followed again
        const dupNotes = [note('http://a.test/copy1'), note('http://a.test/copy2?session=2')];
        expect(dupNotes.filter((n) => n?.startsWith('duplicate content of url #'))).toHaveLength(1);
        expect(srv.hits.filter((h) => h === 'a.test/from-copy')).toHaveLength(1);
        // nothing fetched twice on the wire (robots.txt once per host)
        const pages = srv.hits.filter((h) => !h.endsWith('/robots.txt'));
        expect(new Set(pages).size).toBe(pages.length);
      } finally {
        conn.close();
      }
    } finally {
      await srv.close();
    }
  });

  it('records a connection failure as the page outcome', async () => {
    const db = join(tmpDir(), 'dead.db');
    const config = buildConfig({
      name: 'dead', seeds: ['http://dead.test/', 'http://dead.test/2', 'http://unmapped.test/'],
      politeness: { delay_ms: 0, concurrency: 1, robots: false, host_failure_limit: 10 }, fetch: { max_retries: 2, retry_base_ms: 5 },
    });
    // mappedOnly: a host missing from the map is never looked up in DNS
    const crawler = new Crawler({ config, dbPath: db, resolve: { 'dead.test': '127.0.0.1:1' }, mappedOnly: true });
    const summary = await crawler.run();
    await crawler.close();
    expect(summary).toMatchObject({ reason: 'done', fetched: 3, errors: 3 });
    expect(readRows(db).map((r) => [r.url, r.status, r.error]).sort()).toEqual([
      ['http://dead.test/', 0, 'E_CONNECT'],
      ['http://dead.test/2', 0, 'E_CONNECT'],
      ['http://unmapped.test/', 0, 'E_DNS'],
    ]);
    // each was tried three times (two retries) before its failure was recorded
    const conn = openDatabase(db, { readonly: true });
    const notes = (conn.prepare('SELECT note FROM urls').all() as { note: string }[]).map((r) => r.note);
    expect(notes).toHaveLength(3);
    for (const n of notes) expect(n).toContain('after 3 attempts');
    conn.close();
  });

  it('suspends a host that keeps failing; its URLs stay queued', async () => {
    const db = join(tmpDir(), 'susp.db');
    const seeds = Array.from({ length: 5 }, (_, i) => `http://dead.test/${i}`);
    const config = buildConfig({
      name: 'susp', seeds, politeness: { delay_ms: 0, concurrency: 1, robots: false, host_failure_limit: 3 }, fetch: { max_retries: 1, retry_base_ms: 5 },
    });
    const crawler = new Crawler({ config, dbPath: db, resolve: { 'dead.test': '127.0.0.1:1' } });
    const warnings: string[] = [];
    crawler.on('warn', (w) => warnings.push(w.code));
    const summary = await crawler.run();
    await crawler.close();
    expect(summary.suspendedHosts).toEqual(['dead.test']);
    const conn = openDatabase(db, { readonly: true });
    expect(crawlTotals(conn).suspendedHosts).toEqual(['dead.test']);
    conn.close();
    expect(warnings).toContain('E_HOST_SUSPENDED');
    // attempts: A, A (retry), B → the third failure in a row suspends; B is recorded, the rest wait
    expect(summary.fetched).toBe(2);
    expect(summary.frontier).toBe(3);
  });

  it('a URL skipped by robots.txt does not use up its host\'s page budget', async () => {
    const server = createServer((req, res) => {
      if (req.url === '/robots.txt') return void res.end('User-agent: *\nDisallow: /private/\n');
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${req.url}</title>`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const db = join(tmpDir(), 'budget.db');
      const config = buildConfig({
        name: 'budget', seeds: ['http://a.test/1', 'http://a.test/private/1', 'http://a.test/2', 'http://a.test/3'],
        strategy: { name: 'breadth-first' }, politeness: { delay_ms: 0, concurrency: 1, robots: true }, limits: { max_pages_per_host: 2 },
      });
      const crawler = new Crawler({ config, dbPath: db, resolve: { 'a.test': `127.0.0.1:${(server.address() as AddressInfo).port}` } });
      await crawler.run();
      await crawler.close();
      expect(readRows(db).map((r) => r.url)).toEqual(['http://a.test/1', 'http://a.test/2']);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
