import type { Fetcher } from '../fetch/fetcher.js';
import type { RobotsCache } from '../fetch/robots.js';
import type { Frontier } from '../frontier/frontier.js';
import type { Strategy } from '../strategy/strategy.js';
import { hostKey } from '../url/host.js';
import { tryNormalizeUrl, type NormalizeOptions } from '../url/normalize.js';
import type { ScopeDecision } from '../url/scope.js';
import type { Store } from '../store/store.js';
import { queueAsSeeds } from './seeds.js';

export interface SitemapSeedDeps {
  fetcher: Fetcher;
  robots: RobotsCache | null;
  frontier: Frontier;
  strategy: Strategy;
  scope: (url: string) => ScopeDecision;
  normalize: NormalizeOptions;
  seeds: readonly string[];
  /** The topic's `sitemaps:` list. */
  sitemaps: readonly string[];
  maxUrls: number;
  maxDepth: number;
}

export interface SitemapSeedResult {
  sitemapsRead: number;
  found: number;
  added: number;
  errors: { sitemap: string; message: string }[];
  /** Hosts contacted (robots.txt, sitemaps) and when, so politeness can count those requests. */
  contacted: Map<string, number>;
  /** Every in-scope URL the sitemaps listed (normalised, known or new), with its `<lastmod>` as written. */
  entries: { url: string; lastmod: string | null }[];
}

/**
 * Seeds from sitemaps (seed 002): the topic's `sitemaps:` and the `Sitemap:` lines of the seed
 * hosts' robots.txt are read (indexes followed to a depth cap, URLs capped), and every in-scope URL
 * not yet known is queued at depth 1 with the strategy's seed priority, its sitemap and lastmod
 * noted. robots.txt is checked for each URL when it is fetched. The crawl calls it once, at the
 * start of a fresh crawl; the recrawler every revisit.sitemap_interval_ms, with the hosts it
 * revisits as seeds, for the lastmods (`entries`).
 */
export async function seedFromSitemaps(d: SitemapSeedDeps): Promise<SitemapSeedResult> {
  const list = [...d.sitemaps];
  const contacted = new Map<string, number>();
  const touch = (url: string) => {
    try {
      contacted.set(hostKey(url), Date.now());
    } catch {
      /* not a URL */
    }
  };
  const fetcher: Fetcher = {
    fetch: async (url, o) => {
      const r = await d.fetcher.fetch(url, o);
      touch(url);
      return r;
    },
    close: () => d.fetcher.close(),
  };
  if (d.robots) {
    const origins = new Set<string>();
    for (const s of d.seeds) {
      try {
        origins.add(new URL(s).origin);
      } catch {
        /* invalid seeds were reported by the schema */
      }
    }
    for (const o of origins) {
      const fresh = !d.robots.cached(`${o}/`);
      list.push(...(await d.robots.get(`${o}/`)).sitemaps);
      if (fresh) touch(`${o}/`);
    }
  }
  const unique = [...new Set(list.map((u) => tryNormalizeUrl(u, d.normalize) ?? u))];
  if (unique.length === 0) return { sitemapsRead: 0, found: 0, added: 0, errors: [], contacted, entries: [] };
  // (loaded only now: the sitemap decoders bring iconv-lite's tables, which most crawls' start need not compile)
  const { SitemapReader } = await import('../fetch/sitemap.js');
  const read = await new SitemapReader(fetcher, { maxUrls: d.maxUrls, maxDepth: d.maxDepth }).read(unique);
  const entries: SitemapSeedResult['entries'] = [];
  const seeds: { url: string; depth: number; note: string }[] = [];
  for (const e of read.urls) {
    const url = tryNormalizeUrl(e.loc, d.normalize);
    if (!url || !d.scope(url).ok) continue;
    entries.push({ url, lastmod: e.lastmod });
    seeds.push({ url, depth: 1, note: `sitemap ${e.sitemap}${e.lastmod ? ` lastmod ${e.lastmod}` : ''}` });
  }
  const added = await queueAsSeeds(d.frontier, d.strategy, seeds);
  return { sitemapsRead: read.sitemapsRead.length, found: read.urls.length, added, errors: read.errors, contacted, entries };
}

/**
 * Reads the sitemaps (seedFromSitemaps) once for a crawl file: their errors become warnings, the
 * hosts contacted wait their politeness delay (`delayMs`) before their first page, and the file
 * records that they were read (meta `sitemaps_read`, so a resume does not read them again).
 */
export async function readSitemapsOnce(
  deps: SitemapSeedDeps, store: Pick<Store, 'setMeta'>, delayMs: number, warn: (w: { code: string; message: string }) => void,
): Promise<void> {
  const r = await seedFromSitemaps(deps);
  for (const e of r.errors) warn({ code: 'W_SITEMAP', message: `sitemap ${e.sitemap}: ${e.message}` });
  // those requests count for politeness: each host waits its delay before its first page
  for (const [host, at] of r.contacted) await deps.frontier.deferHost(await deps.frontier.hostId(host), at + delayMs);
  await store.setMeta({ sitemaps_read: JSON.stringify({ read: r.sitemapsRead, found: r.found, added: r.added, errors: r.errors.length, at: new Date().toISOString() }) });
}
