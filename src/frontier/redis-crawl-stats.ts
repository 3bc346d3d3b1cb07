import type { RedisConnection } from './redis-connection.js';
import { crawlConfig } from './redis-crawl-config.js';
import { crawlPrefix } from './redis-frontier.js';

/** One worker of a crawl on a shared frontier. */
export interface RedisWorkerStats {
  name: string;
  /** Leases it holds now. */
  leased: number;
  /** When it last asked for URLs (server ms), null if never. */
  lastClaimAt: number | null;
  /** When it left the crawl (closed its frontier: ended, stopped or failed; its clock, ms), null while it is in it (or was killed). */
  leftAt: number | null;
  /** Host, pid and start time it registered with. */
  info: { host?: string; pid?: number; startedAt?: number } | null;
}

/** The state of a crawl on a shared frontier, for `topicrawl stats --frontier redis://… --crawl-id NAME`. */
export interface RedisCrawlStats {
  crawlId: string;
  /** The topic the crawl was registered with (null: none registered). */
  topic: string | null;
  hosts: number;
  /** URLs queued (not leased). */
  queued: number;
  /** URLs leased in all. */
  leased: number;
  /** Hosts with queued URLs that may be contacted now / that wait for their politeness delay or a back-off. */
  readyHosts: number;
  sleepingHosts: number;
  /** URLs known (any state). */
  known: number;
  /** Pages counted against the budget (leases included). */
  budgetUsed: number;
  workers: RedisWorkerStats[];
}

/** Reads a crawl's figures from its keys (a few commands; the leases are read in one go to count them per worker). */
export async function redisCrawlStats(conn: RedisConnection, crawlId: string): Promise<RedisCrawlStats> {
  const P = crawlPrefix(crawlId);
  const cfg = await crawlConfig(conn, crawlId);
  const res = await conn.run('reading the crawl figures', (c) =>
    c.multi().hlen(`${P}hosts`).get(`${P}queued`).zcard(`${P}ready`).zcard(`${P}sleep`).get(`${P}urls`).get(`${P}pages`)
      .hgetall(`${P}wnames`).hgetall(`${P}workers`).hgetall(`${P}winfo`).hgetall(`${P}wleft`).exec());
  const v = (res ?? []).map(([err, x]) => {
    if (err) throw err;
    return x;
  });
  const [hosts, queued, ready, sleeping, urls, pages, wnames, lastClaims, winfo, left] = v as [number, string | null, number, number, string | null, string | null, Record<string, string>, Record<string, string>, Record<string, string>, Record<string, string>];
  // leases out, and those released whose record is not yet confirmed durable (redis/common.lua: held)
  const members = [
    ...(await conn.run('reading the leases', (c) => c.zrangeBuffer(`${P}leases`, '0', '-1'))),
    ...(await conn.run('reading the leases', (c) => c.zrangeBuffer(`${P}held`, '0', '-1'))),
  ];
  const perWorker = new Map<number, number>();
  for (const m of members) {
    const wno = m.readUInt16BE(10);
    perWorker.set(wno, (perWorker.get(wno) ?? 0) + 1);
  }
  const workers: RedisWorkerStats[] = Object.entries(wnames).map(([no, name]) => ({
    name,
    leased: perWorker.get(Number(no)) ?? 0,
    lastClaimAt: lastClaims[no] !== undefined ? Number(lastClaims[no]) : null,
    leftAt: left[no] !== undefined ? Number(left[no]) : null,
    info: winfo[name] ? JSON.parse(winfo[name]) : null,
  }));
  return {
    crawlId, topic: cfg?.topic ?? null, hosts, queued: Number(queued ?? 0), leased: members.length, readyHosts: ready,
    sleepingHosts: sleeping, known: Number(urls ?? 0), budgetUsed: Number(pages ?? 0), workers,
  };
}
