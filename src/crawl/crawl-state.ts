import { TopicrawlError } from '../errors.js';
import { SqliteFrontier } from '../frontier/sqlite-frontier.js';
import { fetchHistory, queuedUrls, seedUrls } from '../store/crawl-history.js';
import { SqliteStore, storeError } from '../store/sqlite-store.js';
import { hostFetchedCounts, maxPriority } from '../store/url-report.js';
import { createStrategy } from '../strategy/registry.js';
import type { Strategy } from '../strategy/strategy.js';
import type { Config } from '../topic/config.js';

/** What a crawl file holds when a crawl starts: fresh, or resumed where it stopped. */
export interface CrawlState {
  store: SqliteStore;
  frontier: SqliteFrontier;
  strategy: Strategy;
  resumed: boolean;
  /** pages per host so far (the per-host budget); hosts over budget are closed in the frontier */
  hostFetched: Map<number, number>;
}

/**
 * Opens (or creates) the crawl file for a configuration. A file of another topic is refused;
 * the configuration in force is recorded; the frontier reloads its queues (URLs in flight at a
 * crash go back to the queue); the strategy's counters continue; hosts over their page budget stay
 * closed. `strategy`, when given, is used instead of the registry's strategy named by the config.
 * The store holds the file's lock (E_IN_USE if another crawl or recrawl has it); `fresh` deletes
 * the file first (see SqliteStore).
 */
export function openCrawlState(cfg: Config, dbPath: string, strategy?: Strategy, opts: { fresh?: boolean } = {}): CrawlState {
  const store = new SqliteStore(dbPath, { backgroundCheckpoint: true, fresh: opts.fresh });
  let frontier: SqliteFrontier | undefined;
  try {
    const prevTopic = store.getMeta('topic');
    if (prevTopic !== undefined && prevTopic !== cfg.name) {
      throw new TopicrawlError('E_CONFIG', `${dbPath} holds a crawl of topic "${prevTopic}", not "${cfg.name}"; use another --db`, { db: dbPath });
    }
    const resumed = prevTopic !== undefined;
    store.setMeta('topic', cfg.name);
    store.setMeta('strategy', strategy?.name ?? cfg.strategy.name);
    store.setMeta('config', JSON.stringify(cfg));
    if (!resumed) store.setMeta('created_at', new Date().toISOString());
    store.setMeta('suspended_hosts', '[]'); // suspensions last one run
    strategy ??= createStrategy(cfg.strategy.name, { ...cfg.strategy, location: cfg.location });
    frontier = new SqliteFrontier(store.db, {
      delayMs: cfg.politeness.delay_ms, perHostConcurrency: cfg.politeness.per_host_concurrency, concurrency: cfg.politeness.concurrency,
    });
    const highest = maxPriority(store.db);
    if (highest !== null) strategy.resume?.({ maxPriority: highest, seeds: () => seedUrls(store.db), history: () => fetchHistory(store.db), queued: () => queuedUrls(store.db) });
    const hostFetched = new Map<number, number>();
    for (const r of hostFetchedCounts(store.db)) {
      hostFetched.set(r.id, r.fetched);
      if (r.fetched >= cfg.limits.max_pages_per_host) frontier.closeHost(r.id);
    }
    return { store, frontier, strategy, resumed, hostFetched };
  } catch (err) {
    closeCrawlState({ store, frontier }, err);
    throw err;
  }
}

/**
 * Closes a crawl's frontier (saving its queues) and store (releasing the file and its lock), both
 * even if one fails. Throws the first failure as E_STORE, unless `pending` (an error already on its
 * way to the caller) is given: then the failures are dropped, as that error is the one to report.
 */
export function closeCrawlState(s: { store: SqliteStore; frontier?: SqliteFrontier }, pending?: unknown): void {
  let failure: unknown = null;
  try {
    s.frontier?.close();
  } catch (err) {
    failure = storeError(s.store.path, err, 'saving the queues: ');
  }
  try {
    s.store.close();
  } catch (err) {
    failure ??= err;
  }
  if (failure && pending === undefined) throw failure;
}
