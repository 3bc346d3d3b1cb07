import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Crawler } from '../../src/crawl/crawler.js';
import { isRefusedAddress } from '../../src/fetch/address-policy.js';
import { createCachingLookup } from '../../src/fetch/dns-cache.js';
import { UndiciFetcher } from '../../src/fetch/undici-fetcher.js';
import { buildConfig } from '../../src/topic/config.js';
import { readRows } from '../helpers/crawl-corpus.js';
import { tmpDir } from '../helpers/tmp.js';

describe('address policy', () => {
  it('refuses private, loopback, link-local, unique-local and reserved ranges, allows public unicast', () => {
    for (const a of ['127.0.0.1', '10.0.0.8', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:10.0.0.1', '224.0.0.1', 'nonsense', undefined]) {
      expect(isRefusedAddress(a), String(a)).toBe(true);
    }
    for (const a of ['8.8.8.8', '93.184.216.34', '2001:4860:4860::8888', '::ffff:8.8.8.8']) expect(isRefusedAddress(a), a).toBe(false);
  });

  it('the crawl refuses a page whose host connects to a loopback address unless the topic allows it', async () => {
    const server = createServer((_q, r) => r.writeHead(200, { 'content-type': 'text/html' }).end('<title>x</title>'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const run = async (allow: boolean) => {
        const db = join(tmpDir(), `a${allow}.db`);
        // "localhost" resolves to loopback through the resolver; an IP literal connects directly
        const config = buildConfig({
          name: 'addr', seeds: [`http://127.0.0.1:${port}/`, `http://localhost:${port}/x`],
          politeness: { delay_ms: 0, robots: false }, fetch: { allow_private: allow, max_retries: 0 },
        });
        const c = new Crawler({ config, dbPath: db });
        await c.run();
        await c.close();
        return readRows(db).map((r) => [r.status, r.error]);
      };
      expect(await run(false)).toEqual([[0, 'E_ADDRESS_REFUSED'], [0, 'E_ADDRESS_REFUSED']]);
      expect(await run(true)).toEqual([[200, null], [200, null]]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('DNS cache', () => {
  it('asks the resolver once per host within the TTL, shares concurrent lookups, and expires', async () => {
    let t = 0;
    let calls = 0;
    const lookup = createCachingLookup({
      ttlMs: 1000, now: () => t,
      resolve: (_h, cb) => {
        calls++;
        setTimeout(() => cb(null, [{ address: '93.184.216.34', family: 4 }, { address: '2606:2800::1', family: 6 }]), 5);
      },
    });
    const ask = (opts: object) => new Promise<unknown[]>((res) => lookup('Example.COM', opts, (err, a, f) => res([err, a, f])));
    const [a, b, c] = await Promise.all([ask({}), ask({ family: 6 }), ask({ all: true })]);
    expect(calls).toBe(1);
    expect(a).toEqual([null, '93.184.216.34', 4]);
    expect(b).toEqual([null, '2606:2800::1', 6]);
    expect((c[1] as unknown[]).length).toBe(2);
    await ask({});
    expect(calls).toBe(1);
    t = 1001;
    await ask({});
    expect(calls).toBe(2);
    expect(lookup.misses()).toBe(2);
  });

  it('is what the fetcher connects through', async () => {
    const server = createServer((_q, r) => r.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const f = new UndiciFetcher({ userAgent: 't', connectTimeoutMs: 2000, headersTimeoutMs: 2000, bodyTimeoutMs: 2000, maxPageBytes: 1e6, connectionsPerOrigin: 1 });
    try {
      const r1 = await f.fetch(`http://localhost:${port}/`);
      expect(r1.status).toBe(200);
      expect(f.lookup.misses()).toBe(1);
    } finally {
      await f.close();
      await new Promise((r) => server.close(r));
    }
  });
});
