import { Agent } from 'node:http';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCorpusServer, targetToRelativePath, type CorpusServer, type CorpusRequestRecord } from '../../src/eval/corpus-server.js';
import { TopicrawlError } from '../../src/errors.js';
import { makeTree, rawRequest } from './helpers.js';

let dir: string;
let outside: string;
let server: CorpusServer;
const seen: CorpusRequestRecord[] = [];
const BIG = 'é'.repeat(400 * 1024); // 800 KB: streamed, not read in one go

beforeAll(async () => {
  outside = makeTree({ 'secret.txt': 'TOP SECRET', 'sub/index.html': 'OUTSIDE INDEX' });
  dir = makeTree({
    'corpus.json': '{}',
    'secret.html': 'CORPUS ROOT FILE',
    'site/a.example/index.html': '<h1>A home</h1>',
    'site/a.example/robots.txt': 'User-agent: *\nDisallow: /private/\n',
    'site/a.example/docs/index.html': '<h1>A docs</h1>',
    'site/a.example/docs/page.html': '<p>page</p>',
    'site/a.example/新闻/烟叶.html': '<p>烟叶</p>',
    'site/a.example/a b.txt': 'space',
    'site/a.example/f.xml': '<x/>',
    'site/a.example/f.json': '{}',
    'site/a.example/f.css': 'a{}',
    'site/a.example/f.js': '1',
    'site/a.example/f.png': 'png',
    'site/a.example/f.jpg': 'jpg',
    'site/a.example/f.gif': 'gif',
    'site/a.example/f.pdf': 'pdf',
    'site/a.example/f.bin': 'bin',
    'site/a.example/noext-html': '<HTML><HEAD><TITLE>Home page</TITLE></HEAD><BODY>hi</BODY></HTML>',
    'site/a.example/noext-data': 'GIF89a binary-ish data',
    'site/b.example/index.html': '<h1>B home</h1>',
  });
  symlinkSync(join(outside, 'secret.txt'), join(dir, 'site/a.example/link.txt'));
  symlinkSync(join(outside, 'sub'), join(dir, 'site/a.example/linkdir'));
  symlinkSync(join(dir, 'site/a.example/docs/page.html'), join(dir, 'site/a.example/inside-link.html'));
  mkdirSync(join(dir, 'site/a.example/emptydir'));
  writeFileSync(join(dir, 'site/a.example/big.html'), BIG);
  writeFileSync(join(dir, 'site/a.example/empty.txt'), '');
  server = await startCorpusServer(dir, { onRequest: (r) => seen.push(r) });
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const get = (target: string, host: string | null = 'a.example', method = 'GET', extra: Record<string, string> = {}) =>
  rawRequest(server.port, target, host, method, undefined, extra);

describe('corpus server', () => {
  it('listens on loopback and maps every host', () => {
    expect(server.address).toBe('127.0.0.1');
    expect(server.port).toBeGreaterThan(0);
    expect(server.hosts).toEqual(['a.example', 'b.example']);
    expect(server.resolveMap()).toEqual({ 'a.example': `127.0.0.1:${server.port}`, 'b.example': `127.0.0.1:${server.port}` });
  });

  it('routes by Host header (port stripped, case-insensitive)', async () => {
    const a = await get('/', 'a.example');
    const b = await get('/', `B.Example:${server.port}`);
    expect(a.status).toBe(200);
    expect(a.body).toBe('<h1>A home</h1>');
    expect(a.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(b.body).toBe('<h1>B home</h1>');
  });

  it('serves index.html for a path ending in "/"; a directory without the slash redirects to it (404 without an index page)', async () => {
    expect((await get('/docs/')).body).toBe('<h1>A docs</h1>');
    expect((await get('/docs/?q=1')).body).toBe('<h1>A docs</h1>');
    const moved = await get('/docs?q=1');
    expect(moved.status).toBe(301);
    expect(moved.headers.location).toBe('/docs/?q=1');
    expect((await get('/docs')).headers.location).toBe('/docs/');
    expect((await get('/emptydir/')).status).toBe(404);
    expect((await get('/docs/page.html#frag')).body).toBe('<p>page</p>');
  });

  it('percent-decodes the path (UTF-8)', async () => {
    const r = await get('/' + encodeURIComponent('新闻') + '/' + encodeURIComponent('烟叶') + '.html');
    expect(r.status).toBe(200);
    expect(r.body).toBe('<p>烟叶</p>');
    expect((await get('/a%20b.txt')).body).toBe('space');
    expect((await get('/%E0%A4%A.html')).status).toBe(400);
  });

  it('404 for unknown paths and hosts, 400 for a bad or missing Host', async () => {
    expect((await get('/nope.html')).status).toBe(404);
    expect((await get('/', 'c.example')).status).toBe(404);
    expect((await get('/', null)).status).toBe(400);
    expect((await get('/', 'bad host')).status).toBe(400);
    expect((await get('/', 'a.example:port')).status).toBe(400);
    expect((await get('/', '..')).status).toBe(400);
  });

  it('serves robots.txt per host, 404 where absent', async () => {
    const r = await get('/robots.txt');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.body).toContain('Disallow: /private/');
    expect((await get('/robots.txt', 'b.example')).status).toBe(404);
  });

  it.each([
    ['/f.xml', 'application/xml'],
    ['/f.json', 'application/json'],
    ['/f.css', 'text/css; charset=utf-8'],
    ['/f.js', 'text/javascript; charset=utf-8'],
    ['/f.png', 'image/png'],
    ['/f.jpg', 'image/jpeg'],
    ['/f.gif', 'image/gif'],
    ['/f.pdf', 'application/pdf'],
    ['/f.bin', 'application/octet-stream'],
    ['/noext-html', 'text/html; charset=utf-8'],
    ['/noext-data', 'application/octet-stream'],
  ])('content type of %s is %s', async (path, type) => {
    const r = await get(path);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe(type);
  });

  it('HEAD sends headers without a body; other methods get 405', async () => {
    const h = await get('/docs/page.html', 'a.example', 'HEAD');
    expect(h.status).toBe(200);
    expect(h.headers['content-length']).toBe(String('<p>page</p>'.length));
    expect(h.body).toBe('');
    const p = await get('/', 'a.example', 'POST');
    expect(p.status).toBe(405);
    expect(p.headers.allow).toBe('GET, HEAD');
    expect((await get('/', 'a.example', 'DELETE')).status).toBe(405);
  });

  it.each([
    '/../secret.html',
    '/../../secret.html',
    '/docs/../../secret.html',
    '/%2e%2e/secret.html',
    '/%2E%2E/%2E%2E/secret.html',
    '/.%2e/secret.html',
    '/docs/%2e%2e/%2e%2e/secret.html',
    '/..%2fsecret.html',
    '/..%2Fsecret.html',
    '/docs%2fpage.html',
    '/..\\secret.html',
    '/..%5csecret.html',
    '/%00',
    '/index.html%00.txt',
    '//etc/passwd',
    '/%2fetc/passwd',
    'http://a.example/../secret.html',
    '*',
    '/link.txt',
    '/linkdir/',
    '/linkdir/index.html',
    '/./index.html',
  ])('refuses %s without reading outside', async (target) => {
    const r = await get(target);
    expect([400, 404]).toContain(r.status);
    expect(r.body).not.toContain('SECRET');
    expect(r.body).not.toContain('CORPUS ROOT');
    expect(r.body).not.toContain('OUTSIDE');
  });

  it('streams large files whole, and serves empty files', async () => {
    const r = await get('/big.html');
    expect(r.status).toBe(200);
    expect(r.headers['content-length']).toBe(String(Buffer.byteLength(BIG)));
    expect(r.body === BIG).toBe(true);
    const h = await get('/big.html', 'a.example', 'HEAD');
    expect(h.headers['content-length']).toBe(String(Buffer.byteLength(BIG)));
    expect(h.body).toBe('');
    const e = await get('/empty.txt');
    expect(e.status).toBe(200);
    expect(e.body).toBe('');
  });

  it('a symlink that stays inside the host folder is served', async () => {
    expect((await get('/inside-link.html')).body).toBe('<p>page</p>');
  });

  it('conditional requests get 304', async () => {
    const r = await get('/docs/page.html');
    const etag = r.headers.etag as string;
    expect(etag).toMatch(/^".+"$/);
    expect((await get('/docs/page.html', 'a.example', 'GET', { 'if-none-match': etag })).status).toBe(304);
    expect((await get('/docs/page.html', 'a.example', 'GET', { 'if-modified-since': r.headers['last-modified'] as string })).status).toBe(304);
    expect((await get('/docs/page.html', 'a.example', 'GET', { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('keeps connections alive and reports each request', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<unknown>();
    agent.on('free', (s) => sockets.add(s));
    for (let i = 0; i < 5; i++) {
      const r = await rawRequest(server.port, '/docs/page.html?alive', 'a.example', 'GET', agent);
      expect(r.status).toBe(200);
    }
    agent.destroy();
    expect(sockets.size).toBe(1);
    await new Promise((r) => setTimeout(r, 50)); // 'finish' may fire just after the client has the body
    const mine = seen.filter((r) => r.path === '/docs/page.html?alive');
    expect(mine).toHaveLength(5);
    expect(mine[0]).toMatchObject({ host: 'a.example', path: '/docs/page.html?alive', status: 200 });
    expect(typeof mine[0].at).toBe('number');
  });

  // its rate (requests/s, against a bare node:http server) is measured by scripts/bench-corpus-server.ts
  it('serves many requests in parallel over keep-alive connections, each answered right', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 32 });
    const n = 2000;
    const rs = await Promise.all(Array.from({ length: n }, (_, i) => rawRequest(server.port, `/docs/page.html?many=${i}`, 'a.example', 'GET', agent)));
    agent.destroy();
    expect(rs.every((r) => r.status === 200 && r.body === '<p>page</p>')).toBe(true);
    await new Promise((r) => setTimeout(r, 50)); // 'finish' may fire just after the client has the body
    const logged = new Set(seen.filter((r) => r.path.startsWith('/docs/page.html?many=')).map((r) => r.path));
    expect(logged.size).toBe(n);
  });

  it('throws E_CORPUS for a folder without site/', async () => {
    const empty = makeTree({ 'x.txt': '' });
    await expect(startCorpusServer(empty)).rejects.toBeInstanceOf(TopicrawlError);
    rmSync(empty, { recursive: true, force: true });
  });
});

describe('startCorpusServer: ports', () => {
  it('refuses a port that is no port number, and a port in use, naming it (E_USAGE)', async () => {
    const tree = makeTree({ 'corpus.json': '{}', 'site/a.example/index.html': 'a' });
    try {
      for (const port of [99999, -1, 1.5, Number.NaN]) {
        const err = await startCorpusServer(tree, { port }).catch((e: unknown) => e);
        expect(err, String(port)).toBeInstanceOf(TopicrawlError);
        expect((err as TopicrawlError).code).toBe('E_USAGE');
        expect((err as TopicrawlError).message).toBe(`--port ${port}: expected a port number from 0 to 65535 (0: any free port)`);
      }
      const first = await startCorpusServer(tree);
      try {
        const err = await startCorpusServer(tree, { port: first.port }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(TopicrawlError);
        expect((err as TopicrawlError).code).toBe('E_USAGE');
        expect((err as TopicrawlError).message).toBe(
          `cannot serve on 127.0.0.1 port ${first.port}: the port is in use by another program (EADDRINUSE); choose another --port, or 0 for any free port`,
        );
      } finally {
        await first.close();
      }
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });
});

describe('targetToRelativePath', () => {
  it('maps targets to relative file paths', () => {
    expect(targetToRelativePath('/')).toBe('index.html');
    expect(targetToRelativePath('/a/b/')).toBe('a/b/index.html');
    expect(targetToRelativePath('/a/b.html?x=1')).toBe('a/b.html');
    expect(targetToRelativePath('/%E7%83%9F.html')).toBe('烟.html');
    expect(targetToRelativePath('/a/../b')).toBeNull();
    expect(targetToRelativePath('a')).toBeNull();
  });
});
