import { channel } from 'node:diagnostics_channel';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UndiciFetcher } from '../../src/fetch/undici-fetcher.js';
import { chunked, head, startRawServer, type RawServer } from '../warc/raw-http-server.js';

const opts = { userAgent: 'wire-test', connectTimeoutMs: 3000, headersTimeoutMs: 3000, bodyTimeoutMs: 3000, maxPageBytes: 1 << 20 };
const sendHeaders = channel('undici:client:sendHeaders');

/** The fetcher keeps the exchange as on the wire only when asked (keepWire), and then exactly. */
describe('wire capture (FetcherOptions.keepWire)', () => {
  let server: RawServer;
  beforeAll(async () => {
    server = await startRawServer((path) => {
      const body = gzipSync(Buffer.from(`<p>page ${path}</p>`.repeat(50)));
      if (path.startsWith('/chunked')) return { head: head('200 OK', [['Content-Encoding', 'gzip'], ['Transfer-Encoding', 'chunked']]), parts: chunked(body, 100) };
      return { head: head(`200 Ok ${path}`, [['X-Path', path], ['content-encoding', 'gzip'], ['X-Path', 'again'], ['Content-Length', String(body.length)]]), parts: [body] };
    });
  });
  afterAll(async () => server?.close());

  it('matches each request head to its request over shared keep-alive connections (40 in flight on 2 connections)', async () => {
    const f = new UndiciFetcher({ ...opts, keepWire: true, connectionsPerOrigin: 2 });
    try {
      const paths = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? `/chunked/${i}` : `/p/${i}`));
      const results = await Promise.all(paths.map((p) => f.fetch(`http://127.0.0.1:${server.port}${p}`, { headers: { 'x-n': p } })));
      for (const [i, res] of results.entries()) {
        const p = paths[i];
        const w = res.wire!;
        expect(res.status).toBe(200);
        expect(w.requestHead).toBe(server.requests.get(p)![0]);
        expect(w.requestHead).toContain(`x-n: ${p}\r\n`);
        expect(w.complete).toBe(true);
        // the body as received (gzip), the decoded one in res.body
        expect(Buffer.concat(w.body).equals(gzipSync(Buffer.from(`<p>page ${p}</p>`.repeat(50))))).toBe(true);
        expect(res.body.toString()).toBe(`<p>page ${p}</p>`.repeat(50));
        if (!p.startsWith('/chunked')) {
          expect(w.statusText).toBe(`Ok ${p}`);
          expect(w.headers.map(([n]) => n)).toEqual(['X-Path', 'content-encoding', 'X-Path', 'Content-Length']);
          expect(w.headers[0][1]).toBe(p);
        } else expect(w.headers).toEqual([['Content-Encoding', 'gzip'], ['Transfer-Encoding', 'chunked']]);
      }
    } finally {
      await f.close();
    }
    expect(sendHeaders.hasSubscribers).toBe(false); // closed: nothing left listening
  });

  it('installs nothing without keepWire: no wire in the result, no channel subscriber', async () => {
    const f = new UndiciFetcher(opts);
    try {
      expect(sendHeaders.hasSubscribers).toBe(false);
      const res = await f.fetch(`http://127.0.0.1:${server.port}/plain`);
      expect(res.status).toBe(200);
      expect(res.wire).toBeUndefined();
    } finally {
      await f.close();
    }
  });
});
