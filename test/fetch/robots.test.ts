import { afterEach, describe, expect, it } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RobotsCache, parseRobots, productToken } from '../../src/fetch/robots.js';
import { UndiciFetcher } from '../../src/fetch/undici-fetcher.js';
import { serve, type TestServer } from './serve.js';

const UA = 'topicrawl/0.1 (+https://example.invalid/bot)';
const servers: TestServer[] = [];
const fetchers: UndiciFetcher[] = [];
afterEach(async () => {
  await Promise.all(fetchers.splice(0).map((f) => f.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A server for hosts a.example, b.example, c.example; `routes` keyed by "host path". */
async function setup(routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void>) {
  const srv = await serve((req, res) => {
    const route = routes[`${req.headers.host} ${req.url}`];
    if (route) route(req, res);
    else res.writeHead(404).end('not found');
  });
  servers.push(srv);
  const addr = `127.0.0.1:${srv.port}`;
  const fetcher = new UndiciFetcher({
    userAgent: UA, connectTimeoutMs: 1000, headersTimeoutMs: 1000, bodyTimeoutMs: 1000, maxPageBytes: 1 << 20,
    resolve: { 'a.example': addr, 'b.example': addr, 'c.example': addr },
  });
  fetchers.push(fetcher);
  return { srv, fetcher };
}
const text = (body: string) => (_req: IncomingMessage, res: ServerResponse) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end(body);

const ROBOTS = `# comment
User-agent: otherbot
Disallow: /

User-agent: TopiCrawl
Disallow: /private/
Allow: /private/open$
Disallow: /*.pdf$
Crawl-delay: 2.5

User-agent: *
Disallow: /

Sitemap: /sitemap.xml
Sitemap: http://b.example/other-sitemap.xml
`;

describe('parseRobots', () => {
  it('matches our group by product token, with longest match, * and $', () => {
    const r = parseRobots(ROBOTS, 'http://a.example/robots.txt', UA);
    expect(r.status).toBe('ok');
    expect(r.isAllowed('http://a.example/')).toBe(true);
    expect(r.isAllowed('http://a.example/private/x')).toBe(false);
    expect(r.isAllowed('http://a.example/private/open')).toBe(true);
    expect(r.isAllowed('http://a.example/private/open/more')).toBe(false);
    expect(r.isAllowed('http://a.example/docs/a.pdf')).toBe(false);
    expect(r.isAllowed('http://a.example/docs/a.pdf?x=1')).toBe(true);
    expect(r.isAllowed('/private/y')).toBe(false);
    expect(r.crawlDelayMs).toBe(2500);
    expect(r.sitemaps).toEqual(['http://a.example/sitemap.xml', 'http://b.example/other-sitemap.xml']);
    const other = parseRobots(ROBOTS, 'http://a.example/robots.txt', 'somebot/1.0');
    expect(other.isAllowed('http://a.example/')).toBe(false);
    expect(other.isAllowed('http://a.example/robots.txt')).toBe(true);
    expect(other.crawlDelayMs).toBeNull();
  });

  it('takes the product token from the user agent', () => {
    expect(productToken('topicrawl/0.1 (+x)')).toBe('topicrawl');
    expect(productToken('TopiCrawl')).toBe('topicrawl');
  });
});

describe('RobotsCache', () => {
  it('fetches, parses and caches per origin', async () => {
    const { srv, fetcher } = await setup({ 'a.example /robots.txt': text(ROBOTS) });
    const cache = new RobotsCache(fetcher, { userAgent: UA });
    const r = await cache.get('http://a.example/some/page');
    expect(r.status).toBe('ok');
    expect(r.isAllowed('http://a.example/private/x')).toBe(false);
    expect(r.crawlDelayMs).toBe(2500);
    expect(await cache.get('http://a.example/other')).toBe(r);
    expect(srv.requests).toHaveLength(1);
    expect(srv.requests[0].headers['user-agent']).toBe(UA);
  });

  it('allows all on 404, disallows all on 500 and on a network error', async () => {
    const { fetcher } = await setup({
      'b.example /robots.txt': (_req, res) => res.writeHead(500).end('oops'),
      'c.example /robots.txt': (req) => req.socket.destroy(),
    });
    const cache = new RobotsCache(fetcher, { userAgent: UA });
    const missing = await cache.get('http://a.example/');
    expect(missing.status).toBe('allow-all');
    expect(missing.isAllowed('http://a.example/anything')).toBe(true);
    const broken = await cache.get('http://b.example/');
    expect(broken.status).toBe('disallow-all');
    expect(broken.isAllowed('http://b.example/anything')).toBe(false);
    const reset = await cache.get('http://c.example/');
    expect(reset.status).toBe('disallow-all');
  });

  it('follows redirects, up to 5 hops', async () => {
    const redirect = (to: string) => (_req: IncomingMessage, res: ServerResponse) => res.writeHead(301, { Location: to }).end();
    const { srv, fetcher } = await setup({
      'a.example /robots.txt': redirect('http://b.example/robots.txt'),
      'b.example /robots.txt': redirect('/real-robots.txt'),
      'b.example /real-robots.txt': text('User-agent: *\nDisallow: /secret\n'),
      'c.example /robots.txt': redirect('/r1'),
      ...Object.fromEntries([1, 2, 3, 4, 5, 6].map((i) => [`c.example /r${i}`, redirect(`/r${i + 1}`)])),
      'c.example /r7': text('User-agent: *\nDisallow: /\n'),
    });
    const cache = new RobotsCache(fetcher, { userAgent: UA });
    const r = await cache.get('http://a.example/x');
    expect(r.status).toBe('ok');
    expect(r.isAllowed('http://a.example/secret/1')).toBe(false);
    expect(r.isAllowed('http://a.example/open')).toBe(true);
    const before = srv.requests.length;
    const tooMany = await cache.get('http://c.example/');
    expect(tooMany.status).toBe('allow-all');
    expect(srv.requests.length - before).toBe(6); // the first fetch and 5 hops
  });

  it('shares one fetch between concurrent gets for an origin', async () => {
    const { srv, fetcher } = await setup({
      'a.example /robots.txt': (_req, res) => void setTimeout(() => res.end('User-agent: *\nDisallow: /x\n'), 100),
    });
    const cache = new RobotsCache(fetcher, { userAgent: UA });
    const all = await Promise.all(Array.from({ length: 20 }, (_, i) => cache.get(`http://a.example/p${i}`)));
    expect(new Set(all).size).toBe(1);
    expect(srv.requests).toHaveLength(1);
  });

  it('expires entries after ttlMs, and error entries after errorTtlMs', async () => {
    let status = 500;
    const { srv, fetcher } = await setup({
      'a.example /robots.txt': text('User-agent: *\nDisallow: /x\n'),
      'b.example /robots.txt': (_req, res) => res.writeHead(status).end(status === 200 ? 'User-agent: *\nAllow: /\n' : 'err'),
    });
    let now = 1_000_000;
    const cache = new RobotsCache(fetcher, { userAgent: UA, ttlMs: 60_000, errorTtlMs: 5_000, now: () => now });
    const count = (host: string) => srv.requests.filter((r) => r.headers.host === host).length;
    await cache.get('http://a.example/');
    expect((await cache.get('http://b.example/')).status).toBe('disallow-all');
    now += 4_000;
    await cache.get('http://a.example/');
    await cache.get('http://b.example/');
    expect([count('a.example'), count('b.example')]).toEqual([1, 1]);
    status = 200;
    now += 2_000; // 6 s: the error entry has expired, the good one has not
    expect((await cache.get('http://b.example/')).status).toBe('ok');
    await cache.get('http://a.example/');
    expect([count('a.example'), count('b.example')]).toEqual([1, 2]);
    now += 60_000;
    await cache.get('http://a.example/');
    expect(count('a.example')).toBe(2);
  });

  it('parses a file over the cap up to its last whole line', async () => {
    const filler = '# ' + 'x'.repeat(98) + '\n';
    const body = 'User-agent: *\nDisallow: /early\n' + filler.repeat(60) + 'Disallow: /late\n';
    const { fetcher } = await setup({ 'a.example /robots.txt': text(body) });
    const cache = new RobotsCache(fetcher, { userAgent: UA, maxBytes: 4000 });
    const r = await cache.get('http://a.example/');
    expect(r.status).toBe('ok');
    expect(r.isAllowed('http://a.example/early')).toBe(false);
    expect(r.isAllowed('http://a.example/late')).toBe(true);
  });
});
