import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Crawler } from '../../src/crawl/crawler.js';
import { openDatabase } from '../../src/store/sqlite-store.js';
import { buildConfig } from '../../src/topic/config.js';
import { tmpDir } from '../helpers/tmp.js';
import { serve as serveBare } from '../fetch/serve.js';

/**
 * robots.txt in the crawl loop (RFC 9309), server-side: a real loopback server answers many host
 * names and records every request; a disallowed URL must never be requested.
 */
type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function serve(robots: Record<string, Handler | string>) {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    const host = (req.headers.host ?? '').split(':')[0];
    hits.push(`${host} ${req.url}`);
    if (req.url === '/robots.txt') {
      const r = robots[host];
      if (typeof r === 'function') return r(req, res);
      if (r === undefined) return void res.writeHead(404).end();
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end(r);
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>a page</body></html>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port, hits,
    /** Page requests (robots.txt aside), as "host decoded-path". */
    pages: () => hits.filter((h) => !h.endsWith(' /robots.txt')).map((h) => decodeURIComponent(h)),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const IDN = 'www.xn--mnich-kva.com'; // www.münich.com

/** A robots.txt of 3 MB (Content-Length) whose first line disallows /early. */
const bigRobots: Handler = (_req, res) => {
  const line = `# ${'x'.repeat(1021)}\n`;
  const body = `User-agent: *\nDisallow: /early\n${line.repeat(3 * 1024)}Disallow: /late\n`;
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(Buffer.byteLength(body)) }).end(body);
};

describe('robots.txt decisions in the crawl (server-side)', () => {
  it('never requests what RFC 9309 disallows, and fetches what it allows', async () => {
    const srv = await serve({
      'enc.test': 'User-agent: *\nDisallow: /%7ejoe/\nDisallow: /bücher/\nDisallow: /path/foo-%24\nDisallow: /π\n',
      'mak.test': 'User-agent: *\nDisallow: /\nAllow: /~mak\n',
      'grp.test': 'User-agent: mybot\nCrawl-delay: 10\nUser-agent: yourbot\nDisallow: /private/\n\nUser-agent: *\nDisallow: /\n\nUser-agent: MYBOT\nDisallow: /merged/\n',
      'empty.test': 'User-agent: *\nDisallow: /\n\nUser-agent: mybot\n',
      'list.test': 'User-agent: MyBot, OtherBot\nDisallow: /listed/\n\nUser-agent: *\nDisallow: /\n',
      [IDN]: 'User-agent: *\nDisallow: /private/\n',
      'big.test': bigRobots,
    });
    const allowed = [
      'http://enc.test/path/foo-x', 'http://enc.test/ok.html', 'http://enc.test/buecher/',
      'http://mak.test/%7Emak/mak.html',
      'http://grp.test/public',
      'http://empty.test/example/page.html',
      'http://list.test/free',
      'http://www.münich.com/index.html',
      'http://big.test/fine', 'http://big.test/late',
    ];
    const disallowed = [
      'http://enc.test/~joe/i.html', 'http://enc.test/%7Ejoe/j.html', 'http://enc.test/bücher/a', 'http://enc.test/b%C3%BCcher/b',
      'http://enc.test/path/foo-$', 'http://enc.test/π/x',
      'http://mak.test/other',
      'http://grp.test/private/x', 'http://grp.test/merged/y',
      'http://list.test/listed/x',
      'http://www.münich.com/private/p',
      'http://big.test/early',
    ];
    const addr = `127.0.0.1:${srv.port}`;
    const hosts = ['enc.test', 'mak.test', 'grp.test', 'empty.test', 'list.test', IDN, 'big.test'];
    const db = join(tmpDir(), 'r.db');
    try {
      const config = buildConfig({
        name: 'robots', seeds: [...allowed, ...disallowed], keywords: { page: 1 }, strategy: { name: 'breadth-first' },
        politeness: { delay_ms: 0, concurrency: 4, robots: true, user_agent: 'MyBot/1.0 (+http://bot.example/)' },
        limits: { max_pages_per_host: 100 },
      });
      const crawler = new Crawler({ config, dbPath: db, resolve: Object.fromEntries(hosts.map((h) => [h, addr])), mappedOnly: true, maxCrawlDelayMs: 0 });
      const summary = await crawler.run();
      await crawler.close();
      expect(summary.reason).toBe('done');
      expect(summary.unreachable).toBe(false);
      const host = (u: string) => new URL(u).hostname;
      const path = (u: string) => decodeURIComponent(new URL(u).pathname);
      expect(srv.pages().sort()).toEqual(allowed.map((u) => `${host(u)} ${path(u)}`).sort());
      // each disallowed URL is recorded as skipped by robots.txt
      const conn = openDatabase(db, { readonly: true });
      const skipped = conn.prepare("SELECT COUNT(*) AS n FROM urls WHERE error = 'E_ROBOTS'").get() as { n: number };
      conn.close();
      expect(skipped.n).toBe(disallowed.length);
      // robots.txt once per host; the 3 MB one read only in part, not taken for "unreachable"
      expect(srv.hits.filter((h) => h.endsWith(' /robots.txt')).sort()).toEqual(hosts.map((h) => `${h} /robots.txt`).sort());
    } finally {
      await srv.close();
    }
  });
});

describe('a robots.txt that cannot be fetched (RFC 9309 §2.3.1.4)', () => {
  const settings = {
    keywords: { page: 1 }, strategy: { name: 'breadth-first' },
    politeness: { delay_ms: 0, concurrency: 2, robots: true, host_failure_limit: 10 }, fetch: { max_retries: 2, retry_base_ms: 5 },
  };

  it('an unreachable seed host is retried, suspended, counted, and its URLs stay queued', async () => {
    const gone = await serveBare((_q, r) => r.end());
    const port = gone.port;
    await gone.close(); // nothing listens there now: connection refused
    const db = join(tmpDir(), 'down.db');
    const config = buildConfig({ name: 'down', seeds: ['http://down.test/a', 'http://down.test/b'], ...settings });
    const crawler = new Crawler({ config, dbPath: db, resolve: { 'down.test': `127.0.0.1:${port}` }, mappedOnly: true });
    const warnings: string[] = [];
    crawler.on('warn', (w) => warnings.push(w.code));
    const summary = await crawler.run();
    await crawler.close();
    expect(summary).toMatchObject({ reason: 'done', fetched: 0, errors: 1, frontier: 2, suspendedHosts: ['down.test'], unreachable: true });
    expect(warnings.filter((c) => c === 'E_CONNECT')).toHaveLength(2); // two retries
    expect(warnings).toContain('E_HOST_SUSPENDED');
    expect(warnings.at(-1)).toBe('W_UNREACHABLE');
    const conn = openDatabase(db, { readonly: true });
    expect(conn.prepare('SELECT url, state, error FROM urls ORDER BY url').all()).toEqual([
      { url: 'http://down.test/a', state: 0, error: null },
      { url: 'http://down.test/b', state: 0, error: null },
    ]);
    conn.close();
  });

  it('a 500 robots.txt: no page requested, retried, then the host suspended; a later run fetches the URLs', async () => {
    let status = 500;
    const srv = await serve({ 'five.test': (_q, r) => void r.writeHead(status).end(status === 200 ? 'User-agent: *\nDisallow: /b\n' : 'oops') });
    const db = join(tmpDir(), 'five.db');
    const config = buildConfig({ name: 'five', seeds: ['http://five.test/a', 'http://five.test/b'], ...settings });
    const resolve = { 'five.test': `127.0.0.1:${srv.port}` };
    try {
      const first = new Crawler({ config, dbPath: db, resolve, mappedOnly: true });
      const s1 = await first.run();
      await first.close();
      expect(s1).toMatchObject({ fetched: 0, errors: 1, frontier: 2, suspendedHosts: ['five.test'], unreachable: true });
      expect(srv.hits).toEqual(['five.test /robots.txt', 'five.test /robots.txt', 'five.test /robots.txt']);
      status = 200;
      const second = new Crawler({ config, dbPath: db, resolve, mappedOnly: true });
      const s2 = await second.run();
      await second.close();
      expect(s2).toMatchObject({ resumed: true, unreachable: false, suspendedHosts: [], frontier: 0 });
      expect(srv.pages()).toEqual(['five.test /a']);
    } finally {
      await srv.close();
    }
  });

  it("one origin's robots.txt unreachable while the host's other origin answers: only that origin is given up", async () => {
    const gone = await serveBare((_q, r) => r.end());
    const closed = gone.port;
    await gone.close(); // https://two.test: nothing listens (connection refused)
    const pages: string[] = [];
    const srv = await serveBare((q, r) => {
      if (q.url === '/robots.txt') return void r.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
      pages.push(q.url!);
      r.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>page <a href="https://two.test/d">d</a></body></html>');
    });
    const db = join(tmpDir(), 'two.db');
    const config = buildConfig({ name: 'two', seeds: ['https://two.test/a', 'http://two.test/b', 'https://two.test/c'], ...settings });
    const crawler = new Crawler({ config, dbPath: db, resolve: { 'two.test:80': `127.0.0.1:${srv.port}`, 'two.test:443': `127.0.0.1:${closed}` }, mappedOnly: true });
    const warnings: string[] = [];
    crawler.on('warn', (w) => warnings.push(w.code));
    try {
      const summary = await crawler.run();
      await crawler.close();
      // the host was not suspended: its http URL was fetched
      expect(summary).toMatchObject({ suspendedHosts: [], unreachable: false, frontier: 0 });
      expect(pages).toEqual(['/b']);
      expect(warnings).toContain('E_ROBOTS_UNREACHABLE');
      expect(warnings).not.toContain('E_HOST_SUSPENDED');
      const conn = openDatabase(db, { readonly: true });
      const rows = conn.prepare('SELECT url, state, error FROM urls ORDER BY url').all() as { url: string; state: number; error: string | null }[];
      conn.close();
      // every https URL, the seeds and the one found on the http page, recorded as given up; none fetched
      expect(rows.filter((u) => u.url.startsWith('https:')).map((u) => [u.url, u.error])).toEqual([
        ['https://two.test/a', 'E_ROBOTS_UNREACHABLE'], ['https://two.test/c', 'E_ROBOTS_UNREACHABLE'], ['https://two.test/d', 'E_ROBOTS_UNREACHABLE'],
      ]);
      expect(rows.find((u) => u.url === 'http://two.test/b')).toMatchObject({ error: null });
      // the https robots.txt was tried (with its retries) once for the origin, not once per URL
      expect(warnings.filter((c) => c === 'E_CONNECT')).toHaveLength(2);
    } finally {
      await srv.close();
    }
  });
});
