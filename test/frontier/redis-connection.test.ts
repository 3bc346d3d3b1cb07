import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { TopicrawlError } from '../../src/errors.js';
import type { NewUrl } from '../../src/frontier/frontier.js';
import { parseRedisUrl, RedisConnection } from '../../src/frontier/redis-connection.js';
import { configDifference, FRONTIER_LAYOUT, registerCrawl } from '../../src/frontier/redis-crawl-config.js';
import { crawlPrefix, RedisFrontier } from '../../src/frontier/redis-frontier.js';
import { urlHash } from '../../src/url/url-hash.js';
import { testCrawl } from '../helpers/redis.js';

function entry(url: string): NewUrl {
  return { hash: urlHash(url), url, host: new URL(url).host, depth: 0, priority: 0, life: 3, parentId: null, anchor: null };
}

/** The TopicrawlError a promise rejects with (anything else fails the test). */
async function errorOf(fn: () => Promise<unknown>): Promise<TopicrawlError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof TopicrawlError) return err;
    throw err;
  }
  throw new Error('expected a TopicrawlError, nothing was thrown');
}

describe('RedisConnection and the crawl registration', () => {
  it('parses redis:// URLs and refuses others with E_CONFIG', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6380/2')).toMatchObject({ host: '127.0.0.1', port: 6380, db: 2, tls: false });
    expect(parseRedisUrl('redis://:secret@[::1]/')).toMatchObject({ host: '::1', port: 6379, db: 0, password: 'secret' });
    for (const bad of ['http://x', 'redis://h:1/x', 'nonsense']) {
      expect(() => new RedisConnection(bad)).toThrow(TopicrawlError);
    }
  });

  it('refuses a worker that joins with another topic or configuration, naming the key', async () => {
    const t = testCrawl();
    const conn = await t.connect();
    const cfg = { strategy: { name: 'best-first', max_life: 3 }, budget: { pages: 100 }, db: 'w1.db' };
    expect(await registerCrawl(conn, t.crawlId, cfg, 'rust')).toBe('created');
    expect(await registerCrawl(conn, t.crawlId, { ...cfg, db: 'w2.db' }, 'rust', ['db'])).toBe('joined');
    const other = await errorOf(() => registerCrawl(conn, t.crawlId, cfg, 'go'));
    expect(other).toBeInstanceOf(TopicrawlError);
    expect(other.code).toBe('E_CONFIG');
    expect(other.message).toMatch(/topic 'rust', not 'go'/);
    const strat = await errorOf(() => registerCrawl(conn, t.crawlId, { ...cfg, strategy: { name: 'fish', max_life: 3 } }, 'rust', ['db']));
    expect(strat.code).toBe('E_CONFIG');
    expect(strat.details.key).toBe('strategy.name');
    expect(strat.message).toContain("'strategy.name' differs");
    // a crawl another version started, its keys laid out otherwise (no layout: the first one)
    const older = testCrawl();
    await conn.client.set(`${crawlPrefix(older.crawlId)}config`, JSON.stringify({ topic: 'rust', config: cfg, createdAt: 1 }));
    const layout = await errorOf(() => registerCrawl(conn, older.crawlId, cfg, 'rust'));
    expect(layout.code).toBe('E_CONFIG');
    expect(layout.details.key).toBe('layout');
    expect(layout.message).toContain(`another layout (1, this one: ${FRONTIER_LAYOUT})`);
    expect(configDifference({ a: [1, 2], b: 1 }, { b: 1, a: [1, 3] })).toBe('a[1]');
    expect(configDifference({ a: 1 }, { a: 1, b: undefined })).toBeNull();
  });

  it('says E_REDIS quickly, without a stack trace in its message, when nothing listens', async () => {
    const port = await freePort();
    const conn = new RedisConnection(`redis://127.0.0.1:${port}/0`);
    const t0 = Date.now();
    const err = await errorOf(() => conn.connect());
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(err).toBeInstanceOf(TopicrawlError);
    expect(err.code).toBe('E_REDIS');
    expect(err.message).toContain(`redis://127.0.0.1:${port}/0`);
    expect(err.message).toMatch(/ECONNREFUSED/);
    expect(err.message).not.toMatch(/\n\s+at /);
    await conn.close();
  });
});

describe('RedisConnection when the server goes away', () => {
  const hasServer = spawnSync('redis-server', ['--version']).status === 0;
  it.skipIf(!hasServer)('waits through a short outage, and fails with E_REDIS after its bounded retries in a long one', async () => {
    const port = await freePort();
    const start = () => spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    let server = start();
    try {
      const conn = new RedisConnection(`redis://127.0.0.1:${port}/0`, { connectAttempts: 20, reconnectAttempts: 3 });
      onTestFinished(() => conn.close());
      await conn.connect();
      const f = await RedisFrontier.open(conn, { crawlId: 'gone', delayMs: 0, perHostConcurrency: 1 });
      await f.intake({ adds: [entry('http://a.test/1')] });
      // a restart within the retries: the call waits for the server (a new one, empty: no persistence)
      server.kill('SIGKILL');
      await new Promise((r) => server.once('exit', r));
      setTimeout(() => (server = start()), 150);
      expect(await f.size()).toBe(0);
      await f.intake({ adds: [entry('http://a.test/1')] });
      expect(await f.size()).toBe(1);
      server.kill('SIGKILL');
      await new Promise((r) => server.once('exit', r));
      const t0 = Date.now();
      const err = await errorOf(() => f.size());
      expect(err.code).toBe('E_REDIS');
      expect(err.message).toContain(`redis://127.0.0.1:${port}/0`);
      expect(Date.now() - t0).toBeLessThan(5000);
    } finally {
      server.kill('SIGKILL');
    }
  });
});

async function freePort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}
