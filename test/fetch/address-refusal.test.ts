import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Crawler } from '../../src/crawl/crawler.js';
import { UndiciFetcher } from '../../src/fetch/undici-fetcher.js';
import { openDatabase } from '../../src/store/sqlite-store.js';
import { buildConfig } from '../../src/topic/config.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * Issue 12 item 5: links on a crawled page to private addresses (`http://10.0.0.1:22/`,
 * `http://[::1]:6379/`, `http://127.0.0.1:5432/`) are refused with a recorded outcome and NO
 * connection, not even for robots.txt, unless the user mapped the host or set fetch.allow_private.
 * Real listening sockets on loopback count every connection they accept.
 */
interface Counter {
  port: number;
  accepted: () => number;
  close: () => Promise<void>;
}

async function countingServer(host: string, port = 0): Promise<Counter | null> {
  let n = 0;
  const open = new Set<Socket>();
  const server: Server = createNetServer((s) => {
    n++;
    open.add(s);
    s.on('close', () => open.delete(s));
    s.on('error', () => undefined);
    s.end('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 13\r\n\r\n<p>inside</p>');
  });
  const ok = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false)); // no IPv6 loopback on this machine
    server.listen(port, host, () => resolve(true));
  });
  if (!ok) return null;
  return { port: (server.address() as AddressInfo).port, accepted: () => n, close: () => new Promise((r) => {
    for (const s of open) s.destroy();
    server.close(() => r());
  }) };
}

describe('private addresses on a hostile page', () => {
  let v4: Counter;
  let v6: Counter | null;
  let hubPort = 0;
  const hub = createHttpServer((req, res) => {
    if (req.url === '/') {
      const links = [
        `http://127.0.0.1:${v4.port}/`,
        ...(v6 ? [`http://[::1]:${v6.port}/`] : []),
        'http://10.0.0.1:22/',
        'http://169.254.169.254/latest/meta-data/',
        `http://[::ffff:127.0.0.1]:${v4.port}/mapped`,
        `http://localhost:${v4.port}/by-name`,
        'http://hub.test/ok',
      ];
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>hub</title>${links.map((u) => `<a href="${u}">x</a>`).join(' ')}`);
    } else if (req.url === '/ok') res.writeHead(200, { 'content-type': 'text/html' }).end('<title>ok</title>');
    else res.writeHead(404).end();
  });

  beforeAll(async () => {
    v4 = (await countingServer('127.0.0.1'))!;
    v6 = await countingServer('::1');
    await new Promise<void>((r) => hub.listen(0, '127.0.0.1', r));
    hubPort = (hub.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await v4.close();
    await v6?.close();
    hub.closeAllConnections();
    await new Promise<void>((r) => hub.close(() => r()));
  });

  async function crawl(extra: { resolve?: Record<string, string>; allowPrivate?: boolean } = {}) {
    const db = join(tmpDir(), 'refuse.db');
    const config = buildConfig({
      name: 'refuse', seeds: ['http://hub.test/'], strategy: { name: 'breadth-first' },
      politeness: { delay_ms: 0, robots: true }, fetch: { max_retries: 0, connect_timeout_ms: 3000, allow_private: extra.allowPrivate ?? false },
    });
    const crawler = new Crawler({ config, dbPath: db, resolve: { 'hub.test': `127.0.0.1:${hubPort}`, ...extra.resolve }, workers: 0 });
    await crawler.run();
    await crawler.close();
    const conn = openDatabase(db, { readonly: true });
    try {
      const rows = conn.prepare('SELECT url, state, status, error, note FROM urls').all() as { url: string; state: number; status: number; error: string | null; note: string | null }[];
      return new Map(rows.map((r) => [r.url, r]));
    } finally {
      conn.close();
    }
  }

  it('refuses them with E_ADDRESS_REFUSED and opens no connection, robots.txt included', async () => {
    const before = { v4: v4.accepted(), v6: v6?.accepted() ?? 0 };
    const rows = await crawl();
    const refused = [
      `http://127.0.0.1:${v4.port}/`,
      ...(v6 ? [`http://[::1]:${v6.port}/`] : []),
      'http://10.0.0.1:22/',
      'http://169.254.169.254/latest/meta-data/',
      `http://[::ffff:7f00:1]:${v4.port}/mapped`,
    ];
    for (const url of refused) {
      expect(rows.get(url), url).toMatchObject({ state: 3, status: 0, error: 'E_ADDRESS_REFUSED', note: expect.stringMatching(/refused without connecting/) });
    }
    // a name is refused on what DNS answers, before connecting too: its robots.txt request is refused
    // first, then the page's own, which is its recorded outcome (not a robots.txt failure of the host)
    expect(rows.get(`http://localhost:${v4.port}/by-name`)).toMatchObject({ state: 3, status: 0, error: 'E_ADDRESS_REFUSED' });
    expect(rows.get('http://hub.test/ok')).toMatchObject({ status: 200, error: null }); // the crawl went on
    expect(v4.accepted() - before.v4).toBe(0);
    expect((v6?.accepted() ?? 0) - before.v6).toBe(0);
  });

  it('the fetcher itself (robots.txt, sitemaps, recrawl) refuses literals and names before connecting', async () => {
    const before = v4.accepted();
    const f = new UndiciFetcher({ userAgent: 't', connectTimeoutMs: 3000, headersTimeoutMs: 3000, bodyTimeoutMs: 3000, maxPageBytes: 1 << 20, allowPrivate: false });
    try {
      for (const url of [`http://127.0.0.1:${v4.port}/robots.txt`, `http://localhost:${v4.port}/`, 'http://10.1.2.3:6379/', `https://127.0.0.1:${v4.port}/`]) {
        const r = await f.fetch(url);
        expect(r, url).toMatchObject({ status: 0, error: { code: 'E_ADDRESS_REFUSED', message: expect.stringMatching(/refused without connecting/) } });
      }
    } finally {
      await f.close();
    }
    expect(v4.accepted()).toBe(before);
  });

  it('connects to a private address the user mapped, and to any with fetch.allow_private', async () => {
    const target = `http://127.0.0.1:${v4.port}/`;
    const before = v4.accepted();
    const mapped = await crawl({ resolve: { [`127.0.0.1:${v4.port}`]: `127.0.0.1:${v4.port}` } });
    expect(mapped.get(target)).toMatchObject({ status: 200, error: null });
    expect(mapped.get(`http://localhost:${v4.port}/by-name`)).toMatchObject({ status: 0 }); // not mapped: refused
    expect(v4.accepted()).toBeGreaterThan(before);

    const allowed = await crawl({ allowPrivate: true });
    expect(allowed.get(target)).toMatchObject({ status: 200, error: null });
    expect(allowed.get(`http://localhost:${v4.port}/by-name`)).toMatchObject({ status: 200, error: null });
  });
});
