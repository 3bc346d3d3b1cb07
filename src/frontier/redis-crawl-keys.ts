import type { RedisConnection } from './redis-connection.js';
import { crawlPrefix } from './redis-frontier.js';

/**
 * Deletes every key of a crawl on the shared frontier (its queues, seen-set, leases, configuration
 * and worker registry), SCAN by SCAN so the server is never blocked long. Returns how many keys went.
 * Only for a crawl no worker runs any more: a worker still running would find its crawl gone.
 */
export async function deleteCrawl(conn: RedisConnection, crawlId: string): Promise<number> {
  const match = `${crawlPrefix(crawlId)}*`;
  let cursor = '0';
  let n = 0;
  do {
    // (as Buffers: a host's keys are named by its id in binary, see redis/common.lua)
    const [next, keys] = await conn.run('scanning the crawl keys', (c) => c.scanBuffer(cursor, 'MATCH', match, 'COUNT', 10000));
    cursor = next.toString();
    if (keys.length > 0) n += await conn.run('deleting the crawl keys', (c) => c.unlink(...keys));
  } while (cursor !== '0');
  return n;
}
