import { TopicrawlError } from '../errors.js';
import type { RedisConnection } from './redis-connection.js';
import { crawlPrefix } from './redis-frontier.js';

/** JSON with object keys sorted at every level: two equal configurations give one string. */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(sortKeys(v));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = sortKeys(x);
    }
    return out;
  }
  return v;
}

/**
 * The first key (dotted path, e.g. `strategy.name` or `seeds[2]`) where two configurations differ,
 * or null when they are the same. `ignore`: dotted paths left out of the comparison (per-worker
 * fields such as the crawl file or the worker's concurrency).
 */
export function configDifference(a: unknown, b: unknown, ignore: readonly string[] = []): string | null {
  return diff(sortKeys(a), sortKeys(b), '', new Set(ignore));
}

function diff(a: unknown, b: unknown, path: string, ignore: Set<string>): string | null {
  if (ignore.has(path)) return null;
  const at = (k: string) => (path === '' ? k : `${path}.${k}`);
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const d = diff(a[i], b[i], `${path}[${i}]`, ignore);
      if (d !== null) return d;
    }
    return null;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) {
      const d = diff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], at(k), ignore);
      if (d !== null) return d;
    }
    return null;
  }
  return JSON.stringify(a) === JSON.stringify(b) ? null : path || '(whole configuration)';
}

/**
 * The layout of a crawl's keys on the server (redis/common.lua). Raised whenever the scripts read
 * or write the keys differently: a crawl is joined only by a topicrawl of the same layout.
 * 9: queue members end with the URL hash (a claim reads no ix entry), a host's state keeps its
 * queue's first member, the URLs leased are the set `lid` (ix entries name no lease), expired leases
 * are kept in `expired`, a lease names its host by the id in its member; 8: queue members carry the
 * whole key (8 bytes), `ready` is ordered by its members alone (score 0);
 * 7: `wlast` keeps a claim's call number and its reply in two fields; 6: 32 ids per ix bucket (was 128);
 * 5: suspended hosts also kept in the set `suspended` (monitoring); 4: a URL's ix entry names its lease from the claim on (done: the lease gone); 3: host keys and
 * id buckets named in binary (names() in common.lua); 2: queue places from the
 * priority's bits (integer scores, qkey); 1 (unnamed): scores -priority.
 */
export const FRONTIER_LAYOUT = 9;

/** What {@link registerCrawl} found: this process started the crawl, or joined one with the same configuration. */
export type CrawlRegistration = 'created' | 'joined';

/**
 * Registers a crawl's configuration (the merged topic) under its key prefix: the first process
 * stores it (atomically: SET NX); a later one is accepted only with the same topic name and the same
 * configuration, else E_CONFIG names the key that differs; and only by a topicrawl whose shared
 * frontier lays out the keys the same way ({@link FRONTIER_LAYOUT}). `ignore`: dotted paths not compared.
 */
export async function registerCrawl(
  conn: RedisConnection, crawlId: string, config: object, topicName: string, ignore: readonly string[] = [],
): Promise<CrawlRegistration> {
  const key = `${crawlPrefix(crawlId)}config`;
  const mine = JSON.stringify({ topic: topicName, config: sortKeys(config), layout: FRONTIER_LAYOUT, createdAt: Date.now() });
  const set = await conn.run('registering the crawl', (c) => c.set(key, mine, 'NX'));
  if (set === 'OK') return 'created';
  const raw = await conn.run('reading the crawl configuration', (c) => c.get(key));
  if (raw === null) return registerCrawl(conn, crawlId, config, topicName, ignore); // deleted in between
  const stored = JSON.parse(raw) as { topic: string; config: unknown; layout?: number };
  const where = `crawl '${crawlId}' on ${conn.where}`;
  if (stored.layout !== FRONTIER_LAYOUT) {
    throw new TopicrawlError('E_CONFIG', `${where} was started by a version of topicrawl that keeps the shared frontier in another layout (${stored.layout ?? 1}, this one: ${FRONTIER_LAYOUT}); finish it with that version, or start a new crawl with another --crawl-id`,
      { key: 'layout', crawlId, stored: stored.layout ?? 1, mine: FRONTIER_LAYOUT });
  }
  if (stored.topic !== topicName) {
    throw new TopicrawlError('E_CONFIG', `${where} was started with topic '${stored.topic}', not '${topicName}'; use another --crawl-id for another topic`,
      { key: 'topic', crawlId, stored: stored.topic, mine: topicName });
  }
  const d = configDifference(stored.config, config, ignore);
  if (d !== null) {
    throw new TopicrawlError('E_CONFIG', `${where} runs with a different configuration: '${d}' differs from this worker's; every worker of a crawl must use the same topic and settings`,
      { key: d, crawlId });
  }
  return 'joined';
}

/** The configuration a crawl was registered with, or null (no such crawl). */
export async function crawlConfig(conn: RedisConnection, crawlId: string): Promise<{ topic: string; config: unknown; createdAt: number } | null> {
  const raw = await conn.run('reading the crawl configuration', (c) => c.get(`${crawlPrefix(crawlId)}config`));
  return raw === null ? null : JSON.parse(raw);
}
