import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { brotliCompressSync, constants as zlibConstants, createGzip, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { UndiciFetcher } from '../../src/fetch/undici-fetcher.js';
import type { FetcherOptions } from '../../src/fetch/fetcher.js';
import { writeRepeated } from '../helpers/hostile-server.js';
import { serve, type TestServer } from './serve.js';

const servers: TestServer[] = [];
const fetchers: UndiciFetcher[] = [];
afterEach(async () => {
  await Promise.all(fetchers.splice(0).map((f) => f.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function setup(handler: Parameters<typeof serve>[0], opts: Partial<FetcherOptions> = {}) {
  const srv = await serve(handler);
  servers.push(srv);
  const fetcher = new UndiciFetcher({
    userAgent: 'topicrawl/0.1 (+test)',
    connectTimeoutMs: 2000,
    headersTimeoutMs: 2000,
    bodyTimeoutMs: 2000,
    maxPageBytes: 1 << 20,
    resolve: { 'some.example': `127.0.0.1:${srv.port}` },
    ...opts,
  });
  fetchers.push(fetcher);
  return { srv, fetcher };
}

describe('UndiciFetcher', () => {
  it('maps a host to the loopback server, keeping the Host header and the URL', async () => {
    const { srv, fetcher } = await setup((req, res) => {
      res.setHeader('Content-Type', 'text/html; charset=GBK');
      res.setHeader('X-Multi', ['a', 'b']);
      res.end(`<p>${req.url}</p>`);
    });
    const r = await fetcher.fetch('http://some.example/path/x?q=1#frag');
    expect(r.error).toBeUndefined();
    expect(r.status).toBe(200);
    expect(r.body.toString()).toBe('<p>/path/x?q=1</p>');
    expect(r.contentType).toBe('text/html');
    expect(r.headers['content-type']).toBe('text/html; charset=GBK');
    expect(r.headers['x-multi']).toBe('a, b');
    expect(r.remoteAddress).toBe('127.0.0.1');
    expect(r.wireBytes).toBe(r.body.length);
    expect(r.url).toBe('http://some.example/path/x?q=1#frag');
    const req = srv.requests[0];
    expect(req.headers.host).toBe('some.example');
    expect(req.headers['user-agent']).toBe('topicrawl/0.1 (+test)');
    expect(req.headers.accept).toBe('text/html,application/xhtml+xml;q=0.9,*/*;q=0.5');
    expect(req.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  it('reads the final answer after informational ones, and keeps odd header names as headers', async () => {
    const { fetcher } = await setup((_req, res) => {
      res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
      res.writeHead(200, [['Content-Type', 'text/html'], ['Constructor', 'c'], ['toString', 't'], ['X-Link', 'first'], ['X-Link', 'second']]);
      res.end('<p>after the hints</p>');
    });
    const r = await fetcher.fetch('http://some.example/hints');
    expect(r.error).toBeUndefined();
    expect(r.status).toBe(200);
    expect(r.body.toString()).toBe('<p>after the hints</p>');
    expect(r.headers.link).toBeUndefined(); // (a header of the 103 only)
    expect(r.headers['x-link']).toBe('first, second');
    expect(Object.hasOwn(r.headers, 'constructor') && r.headers.constructor).toBe('c');
    expect(r.headers.tostring).toBe('t');
  });

  it('honours "host:port" keys, address-only values and extra request headers', async () => {
    const srv = await serve((req, res) => res.end(`${req.headers.host} ${req.headers['if-none-match']}`));
    servers.push(srv);
    const fetcher = new UndiciFetcher({
      userAgent: 'ua', connectTimeoutMs: 1000, headersTimeoutMs: 1000, bodyTimeoutMs: 1000, maxPageBytes: 1000,
      resolve: { [`other.example:${srv.port}`]: '127.0.0.1', 'other.example': '127.0.0.1:1' },
    });
    fetchers.push(fetcher);
    const r = await fetcher.fetch(`http://OTHER.example:${srv.port}/`, { headers: { 'If-None-Match': '"abc"' } });
    expect(r.error).toBeUndefined();
    expect(r.body.toString()).toBe(`other.example:${srv.port} "abc"`);
  });

  it('returns 3xx with an absolute location and does not follow it', async () => {
    const { srv, fetcher } = await setup((req, res) => {
      if (req.url === '/a/old') res.writeHead(301, { Location: '../new?x=1' }).end('moved');
      else res.end('target');
    });
    const r = await fetcher.fetch('http://some.example/a/old');
    expect(r.status).toBe(301);
    expect(r.location).toBe('http://some.example/new?x=1');
    expect(srv.requests).toHaveLength(1);
    const ok = await fetcher.fetch('http://some.example/');
    expect(ok.location).toBeNull();
  });

  it.each([
    ['gzip', (b: Buffer) => gzipSync(b)],
    ['x-gzip', (b: Buffer) => gzipSync(b)],
    ['deflate', (b: Buffer) => deflateSync(b)],
    ['deflate', (b: Buffer) => deflateRawSync(b)],
    ['br', (b: Buffer) => brotliCompressSync(b)],
    ['identity', (b: Buffer) => b],
  ])('decodes Content-Encoding %s', async (encoding, compress) => {
    const plain = Buffer.from('<html>' + 'hello 烟草 '.repeat(5000) + '</html>');
    const wire = compress(plain);
    const { fetcher } = await setup((_req, res) => res.writeHead(200, { 'Content-Encoding': encoding }).end(wire));
    const r = await fetcher.fetch('http://some.example/');
    expect(r.error).toBeUndefined();
    expect(r.body.equals(plain)).toBe(true);
    expect(r.wireBytes).toBe(wire.length);
  });

  it('reports a corrupt gzip body as E_DECODE', async () => {
    const good = gzipSync(Buffer.from('x'.repeat(10000)));
    const bad = Buffer.concat([good.subarray(0, 12), Buffer.from('garbage garbage garbage'), good.subarray(12)]);
    const { fetcher } = await setup((_req, res) => res.writeHead(200, { 'Content-Encoding': 'gzip' }).end(bad));
    const r = await fetcher.fetch('http://some.example/');
    expect(r.status).toBe(200);
    expect(r.error?.code).toBe('E_DECODE');
    expect(r.body.length).toBe(0);
  });

  it('accepts an empty gzip-labelled body and rejects unknown encodings', async () => {
    const { fetcher } = await setup((req, res) => {
      if (req.url === '/empty') res.writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Length': '0' }).end();
      else res.writeHead(200, { 'Content-Encoding': 'zstd' }).end('whatever');
    });
    const empty = await fetcher.fetch('http://some.example/empty');
    expect(empty.error).toBeUndefined();
    expect(empty.body.length).toBe(0);
    const zstd = await fetcher.fetch('http://some.example/zstd');
    expect(zstd.error?.code).toBe('E_DECODE');
    expect(zstd.status).toBe(200);
  });

  it('decodes large gzip, deflate and brotli bodies sent in many pieces, byte for byte', async () => {
    // ~6 MB of text that compresses poorly enough that the decoder falls behind the socket (its
    // write() says so, the stream pauses, and resumes on its drain)
    let seed = 1;
    const words = Array.from({ length: 4000 }, (_, i) => `w${i.toString(36)}${'abcdefghij'.slice(0, i % 10)}`);
    const text = Buffer.from(Array.from({ length: 700_000 }, () => words[(seed = (Math.imul(seed, 48271) + 11) >>> 0) % 4000]).join(' '));
    const bodies: Record<string, Buffer> = { gzip: gzipSync(text), deflate: deflateSync(text), br: brotliCompressSync(text, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 } }) };
    const { fetcher } = await setup((req, res) => {
      const enc = req.url!.slice(1);
      const body = bodies[enc];
      res.writeHead(200, { 'Content-Encoding': enc });
      for (let at = 0; at < body.length; at += 7_000) res.write(body.subarray(at, at + 7_000));
      res.end();
    }, { maxPageBytes: 16 << 20 });
    for (const enc of Object.keys(bodies)) {
      const r = await fetcher.fetch(`http://some.example/${enc}`);
      expect(r.error, enc).toBeUndefined();
      expect(r.body.length, enc).toBe(text.length);
      expect(r.body.equals(text), enc).toBe(true);
      expect(r.wireBytes, enc).toBe(bodies[enc].length);
    }
  });

  it('stops a gzip bomb at the cap, early', async () => {
    const member = gzipSync(Buffer.alloc(16 << 20)); // 16 MiB of zeros, ~16 KB
    const members = 640; // 10 GiB decoded, ~10 MB on the wire
    let closedAt = -1;
    const { fetcher } = await setup((_req, res) => {
      res.writeHead(200, { 'Content-Encoding': 'gzip' });
      const sent = writeRepeated(res, member, members);
      res.on('close', () => (closedAt = sent()));
    }, { maxPageBytes: 100_000, bodyTimeoutMs: 20_000 });
    const r = await fetcher.fetch('http://some.example/bomb'); // how fast: scripts/bench-hostile-input.ts
    expect(r.error?.code).toBe('E_TOO_LARGE');
    expect(r.body.length).toBe(100_000);
    expect(r.body.every((b) => b === 0)).toBe(true);
    expect(r.wireBytes).toBeLessThan(members * member.length);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(closedAt).toBeGreaterThanOrEqual(0); // the server saw the connection go
    expect(closedAt).toBeLessThan(members);
  });

  it('cuts an oversize body at the cap and keeps its first bytes', async () => {
    const big = Buffer.alloc(300_000);
    for (let i = 0; i < big.length; i++) big[i] = i % 251;
    const { fetcher } = await setup((req, res) => {
      if (req.url === '/chunked') {
        res.write(big.subarray(0, 150_000));
        res.end(big.subarray(150_000));
      } else res.end(big); // with Content-Length
    }, { maxPageBytes: 100_000 });
    const chunked = await fetcher.fetch('http://some.example/chunked');
    expect(chunked.error?.code).toBe('E_TOO_LARGE');
    expect(chunked.body.equals(big.subarray(0, 100_000))).toBe(true);
    const declared = await fetcher.fetch('http://some.example/declared');
    expect(declared.error?.code).toBe('E_TOO_LARGE');
    expect(declared.body.length).toBe(0);
    expect(declared.wireBytes).toBe(0);
    const small = await fetcher.fetch('http://some.example/declared', { maxBytes: 300_000 });
    expect(small.error).toBeUndefined();
    expect(small.body.equals(big)).toBe(true);
  });

  it('times out slow headers', async () => {
    // the answer comes after 3 s: a headers timeout (and no status) shows the 200 ms deadline struck first
    const { fetcher } = await setup((_req, res) => void setTimeout(() => res.end('late'), 3000), { headersTimeoutMs: 200 });
    const t0 = Date.now();
    const r = await fetcher.fetch('http://some.example/');
    expect(r.error?.code).toBe('E_HEADERS_TIMEOUT');
    expect(r.status).toBe(0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190); // not before its deadline (a lower bound: load cannot break it)
  });

  it('enforces an overall body deadline against a slow drip', async () => {
    const { fetcher } = await setup((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      const t = setInterval(() => res.write('x'), 50);
      res.on('close', () => clearInterval(t));
    }, { bodyTimeoutMs: 400 });
    const t0 = Date.now();
    const r = await fetcher.fetch('http://some.example/');
    const took = Date.now() - t0;
    expect(r.status).toBe(200);
    expect(r.error?.code).toBe('E_BODY_TIMEOUT');
    expect(took).toBeGreaterThanOrEqual(350); // not before its deadline; the drip never ends, so the error shows the deadline struck
    expect(r.wireBytes).toBeGreaterThan(0);
  });

  it('reports a connection reset mid-response and before the response', async () => {
    const { fetcher } = await setup((req, res) => {
      if (req.url === '/mid') {
        res.writeHead(200, { 'Content-Length': '100000' });
        res.write('x'.repeat(1000), () => setTimeout(() => req.socket.destroy(), 20));
      } else req.socket.destroy();
    });
    const mid = await fetcher.fetch('http://some.example/mid');
    expect(mid.error?.code).toBe('E_RESET');
    expect(mid.body.length).toBe(0);
    const before = await fetcher.fetch('http://some.example/before');
    expect(before.error?.code).toBe('E_RESET');
    expect(before.status).toBe(0);
  });

  it('reports a refused connection, bad URLs and an aborted request', async () => {
    const { srv, fetcher } = await setup((_req, res) => void setTimeout(() => res.end('x'), 1000));
    const r1 = await fetcher.fetch('http://some.example/slow', { signal: AbortSignal.timeout(100) });
    expect(r1.error?.code).toBe('E_ABORTED');
    await srv.close();
    const refused = await fetcher.fetch('http://some.example/');
    expect(refused.error?.code).toBe('E_CONNECT');
    expect((await fetcher.fetch('ftp://some.example/')).error?.code).toBe('E_INVALID_URL');
    expect((await fetcher.fetch('not a url')).error?.code).toBe('E_INVALID_URL');
  });

  it('ends a body read when the caller aborts it midway, and closes its connection', async () => {
    let closed = false;
    const { fetcher } = await setup((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.write('<p>first part');
      res.on('close', () => (closed = true));
      // the rest never comes
    });
    const ac = new AbortController();
    const pending = fetcher.fetch('http://some.example/drip', { signal: ac.signal });
    await new Promise((resolve) => setTimeout(resolve, 150));
    ac.abort();
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.error?.code).toBe('E_ABORTED');
    expect(r.body.length).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(closed).toBe(true);
  });

  it('reuses connections and closes them on close()', async () => {
    const { srv, fetcher } = await setup((_req, res) => res.end('ok'), { connectionsPerOrigin: 2 });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => fetcher.fetch(`http://some.example/${i}`)));
    expect(results.every((r) => r.status === 200 && r.body.toString() === 'ok')).toBe(true);
    const sockets = new Set(srv.requests.map((r) => r.socket));
    expect(sockets.size).toBeLessThanOrEqual(2);
    await fetcher.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect([...sockets].every((s) => s.destroyed)).toBe(true);
    expect((await fetcher.fetch('http://some.example/')).error?.code).toBe('E_ABORTED');
  });
});

describe('UndiciFetcher: answers that are not HTTP, and TLS failures, have page-level codes (never E_INTERNAL)', () => {
  /** A raw TCP server on 127.0.0.1 that sends `answer` once the request arrives, then closes. */
  async function rawServer(answer: string): Promise<{ port: number; close: () => Promise<void> }> {
    const server = createNetServer((s) => {
      s.on('error', () => undefined);
      s.once('data', () => s.end(answer));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { port: (server.address() as AddressInfo).port, close: () => new Promise((r) => server.close(() => r())) };
  }
  const cases: [string, string, string, number][] = [
    ['a 60 KB response header', `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(60 * 1024)}\r\nContent-Length: 2\r\n\r\nok`, 'E_HTTP', 0],
    ['3,000 headers', `HTTP/1.1 200 OK\r\n${Array.from({ length: 3000 }, (_, i) => `X-H${i}: v`).join('\r\n')}\r\n\r\n`, 'E_HTTP', 0],
    ['an SSH banner', 'SSH-2.0-OpenSSH_9.2\r\n', 'E_HTTP', 0],
    ['a bad status line', 'HTTP/1.1 2000 OK\r\n\r\n', 'E_HTTP', 0],
    ['a NUL in a header value', 'HTTP/1.1 200 OK\r\nX-A: a\0b\r\nContent-Length: 2\r\n\r\nok', 'E_HTTP', 0],
    ['a broken chunk size', 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n', 'E_HTTP', 200],
  ];

  it.each(cases)('%s', async (_what, answer, code, status) => {
    const srv = await rawServer(answer);
    const fetcher = new UndiciFetcher({ userAgent: 't', connectTimeoutMs: 2000, headersTimeoutMs: 2000, bodyTimeoutMs: 2000, maxPageBytes: 1 << 20 });
    fetchers.push(fetcher);
    try {
      const r = await fetcher.fetch(`http://127.0.0.1:${srv.port}/`);
      expect(r.error?.code).toBe(code);
      expect(r.status).toBe(status);
    } finally {
      await srv.close();
    }
  });

  it('an https URL on a plain-HTTP port is E_TLS', async () => {
    const srv = await rawServer('HTTP/1.1 400 Bad Request\r\n\r\n');
    const fetcher = new UndiciFetcher({ userAgent: 't', connectTimeoutMs: 2000, headersTimeoutMs: 2000, bodyTimeoutMs: 2000, maxPageBytes: 1 << 20 });
    fetchers.push(fetcher);
    try {
      const r = await fetcher.fetch(`https://127.0.0.1:${srv.port}/`);
      expect(r).toMatchObject({ status: 0, error: { code: 'E_TLS' } });
    } finally {
      await srv.close();
    }
  });
});

describe('UndiciFetcher: a kept-alive connection the server has just closed', () => {
  /** A raw server that answers each connection's first request as if keeping it alive, then closes it; counts both. */
  async function closingServer(answer: boolean) {
    const seen = { connections: 0, requests: 0 };
    const server = createNetServer((s) => {
      seen.connections++;
      s.on('error', () => undefined);
      s.on('data', () => {
        seen.requests++;
        if (answer) s.end('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 4\r\n\r\n<p/>');
        else s.destroy();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { seen, port: (server.address() as AddressInfo).port, close: () => new Promise<void>((r) => server.close(() => r())) };
  }
  const fetcherFor = () => {
    // one connection per origin, as a crawl with per_host_concurrency 1 has: the next request goes on the same socket
    const f = new UndiciFetcher({ userAgent: 't', connectTimeoutMs: 2000, headersTimeoutMs: 2000, bodyTimeoutMs: 2000, maxPageBytes: 1 << 20, connectionsPerOrigin: 1, allowPrivate: true });
    fetchers.push(f);
    return f;
  };

  it('sends the request again once, on a new connection (RFC 9112 §9.3.1), so no page is lost to the race', async () => {
    const srv = await closingServer(true);
    const fetcher = fetcherFor();
    try {
      for (let i = 0; i < 5; i++) {
        const r = await fetcher.fetch(`http://127.0.0.1:${srv.port}/p${i}`);
        expect(r.error).toBeUndefined();
        expect(r.status).toBe(200);
      }
      // each page answered on a connection of its own; a request that went out on a closed one was
      // received there unanswered, and sent again: at most twice a page
      expect(srv.seen.connections).toBe(5);
      expect(srv.seen.requests).toBeGreaterThanOrEqual(5);
      expect(srv.seen.requests).toBeLessThanOrEqual(10);
    } finally {
      await srv.close();
    }
  });

  it('does not send again what failed on a new connection (nothing was answered on it)', async () => {
    const srv = await closingServer(false);
    const fetcher = fetcherFor();
    try {
      const r = await fetcher.fetch(`http://127.0.0.1:${srv.port}/`);
      expect(r.error?.code).toBe('E_RESET');
      expect(srv.seen.requests).toBe(1);
      expect(srv.seen.connections).toBe(1);
    } finally {
      await srv.close();
    }
  });
});
