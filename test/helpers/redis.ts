import { randomBytes } from 'node:crypto';
import { onTestFinished } from 'vitest';
import { RedisConnection } from '../../src/frontier/redis-connection.js';
import { deleteCrawl } from '../../src/frontier/redis-crawl-keys.js';
import { crawlPrefix, RedisFrontier, type RedisFrontierOptions } from '../../src/frontier/redis-frontier.js';

/** The Redis server of the tests: a real one on loopback (.ci/run starts one when none answers on 6379). */
export const REDIS_URL = process.env.TOPICRAWL_REDIS_URL ?? 'redis://127.0.0.1:6379/0';

/**
 * A fresh crawl id on the test server for the current test: `connect()` gives connections (closed
 * when the test finishes) and `open()` frontiers on it; the crawl's keys are deleted when the test
 * finishes, also when the test used only the id.
 */
export function testCrawl(name = 'test') {
  const crawlId = `${name}-${process.pid}-${randomBytes(4).toString('hex')}`;
  const conns: RedisConnection[] = [];
  const frontiers: RedisFrontier[] = [];
  onTestFinished(async () => {
    for (const f of frontiers) await f.close().catch(() => {});
    // a test that only took the id (its crawl ran in a Crawler or a worker process) gets a connection to delete it
    const own = conns[0] ? null : new RedisConnection(REDIS_URL);
    const conn = conns[0] ?? (await own!.connect());
    await deleteCrawl(conn, crawlId);
    for (const c of own ? [own] : conns) await c.close();
  });
  const connect = async () => {
    const c = new RedisConnection(REDIS_URL);
    conns.push(c);
    return c.connect();
  };
  const open = async (opts: Partial<RedisFrontierOptions> = {}, conn?: RedisConnection) => {
    const f = await RedisFrontier.open(conn ?? (await connect()), { crawlId, delayMs: 0, perHostConcurrency: 1, ...opts });
    frontiers.push(f);
    return f;
  };
  return { crawlId, connect, open };
}

/**
 * Makes every lease of a crawl expire now (its expiry set in the past on the server), as if the
 * workers holding them had died: the next claim puts their URLs back in the queue.
 */
export async function expireLeases(conn: RedisConnection, crawlId: string): Promise<number> {
  const key = `${crawlPrefix(crawlId)}leases`;
  const members = await conn.client.zrangeBuffer(key, '0', '-1');
  if (members.length === 0) return 0;
  await conn.client.call('ZADD', key, ...members.flatMap((m) => ['0', m]));
  return members.length;
}
