import { TopicrawlError } from '../errors.js';
import { EmbeddedFrontier } from '../frontier/embedded-frontier.js';
import { SqliteFrontier } from '../frontier/sqlite-frontier.js';
import { lazyScoreText } from './crawl-settings.js';
import { FEEDBACK_META_KEY, parseFeedback } from './relevance-feedback.js';
import { fetchHistory, fetchLinkedHistory, queuedUrls, seedUrls } from '../store/crawl-history.js';
import { CrawlFileStore } from '../store/crawl-file-store.js';
import { SqliteStore, storeError } from '../store/sqlite-store.js';
import { hostFetchedCounts, maxPriority } from '../store/url-report.js';
import { createStrategy } from '../strategy/registry.js';
import type { Strategy } from '../strategy/strategy.js';
import type { Config } from '../topic/config.js';

/** What a crawl file holds when a crawl starts: fresh, or resumed where it stopped. */
export interface CrawlState {
  /** The doors the crawl engine uses. */
  store: CrawlFileStore;
  frontier: EmbeddedFrontier;
  /** The same file and frontier, synchronous (the revisit code shares the connection). */
  file: SqliteStore;
  local: SqliteFrontier;
  strategy: Strategy;
  resumed: boolean;
}

/**
 * Opens (or creates) the crawl file for a configuration. A file of another topic is refused;
 * the configuration in force is recorded; the frontier reloads its queues (URLs in flight at a
 * crash go back to the queue); the strategy's counters continue; hosts over their page budget stay
 * closed. `strategy`, when given, is used instead of the registry's strategy named by the config.
 * The store holds the file's lock (E_IN_USE if another crawl or recrawl has it); `fresh` deletes
 * the file first (see SqliteStore); `batchPageRows`: the store writes the page records' responses and
 * links in multi-row statements (SqliteStore; for the crawl loop, whose readers of them flush first).
 */
export function openCrawlState(cfg: Config, dbPath: string, strategy?: Strategy, opts: { fresh?: boolean; batchPageRows?: boolean } = {}): CrawlState {
  const store = new SqliteStore(dbPath, { backgroundCheckpoint: true, fresh: opts.fresh, batchPageRows: opts.batchPageRows });
  let frontier: SqliteFrontier | undefined;
  const counts = store.counters();
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
    }, (id) => store.flushAnchorsTo(id)); // (a URL's anchors are read with its row: the ones still in the store's batch go out first)
    const max = maxPriority(store.db);
    if (max !== null) strategy.resume?.({ maxPriority: max, seeds: () => seedUrls(store.db), history: () => fetchHistory(store.db), linkedHistory: () => fetchLinkedHistory(store.db), queued: () => queuedUrls(store.db), scoreText: lazyScoreText(cfg, parseFeedback(store.getMeta(FEEDBACK_META_KEY))) });
    const door = new EmbeddedFrontier(frontier, {
      maxPages: cfg.limits.max_pages, maxPagesPerHost: cfg.limits.max_pages_per_host, counted: counts.fetched, hostCounted: new Map(hostFetchedCounts(store.db).map((r) => [r.id, r.fetched])),
    }, (fn) => store.joinGroup(fn));
    return { store: new CrawlFileStore(store), frontier: door, file: store, local: frontier, strategy, resumed };
  } catch (err) {
    closeCrawlState({ file: store, local: frontier }, err);
    throw err;
  }
}

/**
 * Closes a crawl's frontier (saving its queues) and store (releasing the file and its lock), both
 * even if one fails. Throws the first failure as E_STORE, unless `pending` (an error already on its
 * way to the caller) is given: then the failures are dropped, as that error is the one to report.
 */
export function closeCrawlState(s: { file: SqliteStore; local?: SqliteFrontier }, pending?: unknown): void {
  let failure: unknown = null;
  try {
    s.local?.close();
  } catch (err) {
    failure = storeError(s.file.path, err, 'saving the queues: ');
  }
  try {
    s.file.close();
  } catch (err) {
    failure ??= err;
  }
  if (failure && pending === undefined) throw failure;
}
