import { TopicrawlError } from '../errors.js';
import { RedisConnection } from '../frontier/redis-connection.js';
import { redisCrawlStats } from '../frontier/redis-crawl-stats.js';

/**
 * `topicrawl stats --frontier redis://… --crawl-id NAME`: a shared crawl as its frontier sees it now:
 * hosts, queued, leased, sleeping, the budget used, and each worker's leases.
 */
export async function runFrontierStats(args: { frontier: string; crawlId?: string; json?: boolean; maxPages?: number }, out: { log: (s: string) => void }): Promise<void> {
  if (!args.crawlId) throw new TopicrawlError('E_USAGE', '--frontier needs --crawl-id NAME: the crawl to report');
  const conn = new RedisConnection(args.frontier);
  try {
    await conn.connect();
    const s = await redisCrawlStats(conn, args.crawlId);
    if (s.topic === null) throw new TopicrawlError('E_USAGE', `no crawl '${args.crawlId}' on ${conn.where}`);
    if (args.json) return void out.log(JSON.stringify(s, null, 2));
    const at = (ms: number | null) => (ms === null ? 'never' : `${Math.max(0, Math.round((Date.now() - ms) / 1000))} s ago`);
    out.log(
      [
        `shared crawl       ${s.crawlId} on ${conn.where} (topic ${s.topic})`,
        `  hosts            ${s.hosts} (${s.readyHosts} ready, ${s.sleepingHosts} sleeping)`,
        `  URLs             ${s.known} known, ${s.queued} queued, ${s.leased} leased`,
        `  budget used      ${s.budgetUsed} pages (leases included)`,
        `  workers          ${s.workers.length}`,
        ...s.workers.map((w) => `    ${w.name.padEnd(28)} ${String(w.leased).padStart(5)} leased, last claim ${at(w.lastClaimAt)}${w.leftAt === null ? '' : `, left ${at(w.leftAt)}`}`),
      ].join('\n'),
    );
  } finally {
    await conn.close().catch(() => undefined);
  }
}
