import { hostname } from 'node:os';
import { TopicrawlError } from '../errors.js';
import { RedisConnection } from '../frontier/redis-connection.js';
import { registerCrawl } from '../frontier/redis-crawl-config.js';
import { crawlPrefix, RedisFrontier } from '../frontier/redis-frontier.js';
import { DEFAULT_LEASE_MS } from '../frontier/redis-frontier-options.js';
import { CrawlFileStore } from '../store/crawl-file-store.js';
import { SEGMENT_OF_KEY, WORKER_KEY } from '../store/segments.js';
import { COMMIT_EVERY_MS, SqliteStore } from '../store/sqlite-store.js';
import { createStrategy } from '../strategy/registry.js';
import type { Strategy } from '../strategy/strategy.js';
import type { Config } from '../topic/config.js';
import type { CrawlBackend } from './crawl-types.js';

/** Where a worker of a shared crawl finds the crawl: the Redis server, the crawl's name, its leases. */
export interface SharedCrawlOptions {
  /** `redis://host:port/db` */
  frontier: string;
  crawlId: string;
  /** How long a lease holds (ms; default 60,000): a worker that dies loses its URLs after this. */
  leaseMs?: number;
  /** This worker's name (default host:pid). */
  worker?: string;
  /** Start this worker's segment file over. */
  fresh?: boolean;
  /** How long a joining worker waits for the crawl's creator to queue the seeds (ms, default 60,000). */
  startWaitMs?: number;
}

/**
 * Strategies whose priorities need state of the whole crawl that is not in the shared frontier
 * (OPIC's cash and history, PageRank's graph, site sizes): refused in a shared crawl, with the
 * reason. The others compute a link's priority from its page and the link alone, so every worker
 * gives a URL the priority one process would.
 */
export const NOT_SHARED: Readonly<Record<string, string>> = {
  opic: 'its cash and history are per process',
  'nutch-opic': 'its cash and history are per process',
  'partial-pagerank': 'its link graph and PageRank are per process',
  'larger-sites-first': "its per-site counts are per process",
  learning: 'its link model learns from the pages of one process',
};

/**
 * Settings a worker may have of its own (not compared when it joins the crawl): its byte budget and
 * its requests in flight (the hosts' politeness is the crawl's).
 */
const PER_WORKER = ['limits.max_bytes', 'politeness.concurrency'];

/**
 * How often a worker commits its segment: as one process does ({@link COMMIT_EVERY_MS}), but at most
 * a quarter of the lease, since a page's lease is confirmed done only once its group is committed
 * (held until then): a group longer than the lease would let held leases expire, and their pages
 * be fetched again by the others.
 */
export function segmentCommitMs(leaseMs = DEFAULT_LEASE_MS): number {
  return Math.max(1, Math.min(COMMIT_EVERY_MS, Math.floor(leaseMs / 4)));
}

/**
 * The doors of one worker of a shared crawl: the crawl's frontier in Redis (joined, or created with
 * this worker's configuration; a different topic or configuration is refused) and this worker's own
 * crawl file, a segment holding the pages it fetched (stats, export, explain and eval read a crawl's
 * segments together).
 */
export async function openSharedBackend(cfg: Config, dbPath: string, o: SharedCrawlOptions, strategy?: Strategy): Promise<CrawlBackend> {
  const name = strategy?.name ?? cfg.strategy.name;
  if (NOT_SHARED[name]) {
    throw new TopicrawlError('E_CONFIG', `strategy '${name}' cannot run on a shared frontier: ${NOT_SHARED[name]}; use it without --frontier, or choose another strategy`, { key: 'strategy.name' });
  }
  const conn = new RedisConnection(o.frontier);
  let store: SqliteStore | null = null;
  let frontier: RedisFrontier | null = null;
  try {
    await conn.connect();
    const registered = await registerCrawl(conn, o.crawlId, cfg, cfg.name, PER_WORKER);
    const worker = o.worker ?? `${hostname()}:${process.pid}`;
    // pages committed in groups, as in one process; a lease is settled once its page is committed
    // (beforeSettle below): a worker killed after a settle has lost nothing
    store = new SqliteStore(dbPath, { backgroundCheckpoint: true, fresh: o.fresh, commitEveryMs: segmentCommitMs(o.leaseMs) });
    const of = store.getMeta(SEGMENT_OF_KEY);
    if ((of !== undefined && of !== o.crawlId) || (of === undefined && store.getMeta('topic') !== undefined)) {
      throw new TopicrawlError('E_CONFIG', `${dbPath} holds ${of ? `a segment of crawl '${of}'` : 'a crawl of its own'}, not of crawl '${o.crawlId}'; use another --db`, { db: dbPath });
    }
    const s = store;
    s.transaction(() => {
      const meta = { topic: cfg.name, strategy: name, config: JSON.stringify(cfg), [SEGMENT_OF_KEY]: o.crawlId, [WORKER_KEY]: worker, frontier: conn.where };
      for (const [k, v] of Object.entries(meta)) s.setMeta(k, v);
      if (of === undefined) s.setMeta('created_at', new Date().toISOString());
      s.setMeta('suspended_hosts', '[]');
    });
    frontier = await RedisFrontier.open(conn, {
      crawlId: o.crawlId, delayMs: cfg.politeness.delay_ms, perHostConcurrency: cfg.politeness.per_host_concurrency,
      maxPages: cfg.limits.max_pages, maxPagesPerHost: cfg.limits.max_pages_per_host, leaseMs: o.leaseMs, workerId: worker,
      beforeSettle: (lease) => fileStore.durable(lease.id),
    });
    const f = frontier;
    const fileStore = new CrawlFileStore(s, { segment: true, hostId: (name) => f.hostId(name) });
    const startedKey = `${crawlPrefix(o.crawlId)}started`;
    return {
      start: {
        role: registered === 'created' ? 'create' : 'join',
        done: async () => void (await conn.run('marking the crawl started', (c) => c.set(startedKey, String(Date.now())))),
        wait: async () => {
          // the creator queues the seeds and reads the sitemaps in seconds; one that died before saying so is not waited for long
          for (const until = Date.now() + (o.startWaitMs ?? 60_000); Date.now() < until; ) {
            if ((await conn.run('waiting for the crawl to start', (c) => c.get(startedKey))) !== null) return;
            await new Promise((r) => setTimeout(r, 100));
          }
        },
      },
      store: fileStore, frontier: f,
      strategy: strategy ?? createStrategy(cfg.strategy.name, { ...cfg.strategy, location: cfg.location }),
      resumed: registered === 'joined' || of !== undefined,
      close: async (pending) => {
        let failure: unknown = null;
        try {
          await f.close(); // unsettled leases go back to the queue
        } catch (err) {
          failure = err;
        }
        try {
          s.close();
        } catch (err) {
          failure ??= err;
        }
        await conn.close().catch(() => undefined);
        if (failure && pending === undefined) throw failure;
      },
    };
  } catch (err) {
    await frontier?.close().catch(() => undefined);
    try {
      store?.close();
    } catch {
      /* the first error is the one to report */
    }
    await conn.close().catch(() => undefined);
    throw err;
  }
}
