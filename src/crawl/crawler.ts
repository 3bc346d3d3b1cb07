export type { CrawlerOptions, CrawlSummary } from './crawl-types.js';
import { TopicrawlError, toOutcome } from '../errors.js';
import { TypedEmitter, type CrawlEvents, type StopReason } from '../events.js';
import type { Fetcher } from '../fetch/fetcher.js';
import { RobotsCache } from '../fetch/robots.js';
import { UndiciFetcher } from '../fetch/undici-fetcher.js';
import type { FrontierItem } from '../frontier/frontier.js';
import type { SqliteFrontier } from '../frontier/sqlite-frontier.js';
import { crawlTotals } from '../store/crawl-report.js';
import { UrlState } from '../frontier/url-state.js';
import { storeError, type SqliteStore } from '../store/sqlite-store.js';
import type { Strategy } from '../strategy/strategy.js';
import { AnalyzerPool } from './analyzer-pool.js';
import { RetryPolicy } from './retry-policy.js';
import { RobotsGate } from './robots-gate.js';
import type { ScopeDecision } from '../url/scope.js';
import { analysisConfig, fetcherOptions, normalizeOptions, retrySettings, scopeOf } from './crawl-settings.js';
import { seedFromSitemaps } from './sitemap-seeds.js';
import { closeCrawlState, openCrawlState } from './crawl-state.js';
import type { CrawlerOptions, CrawlSummary } from './crawl-types.js';
import { CrawlStats } from './crawl-stats.js';
import { processFetch, type ProcessorDeps } from './page-processor.js';
import { seedFrontier } from './seeds.js';

/**
 * The crawl loop (DESIGN.md): the frontier hands out the best URL a polite schedule allows; the
 * fetcher gets it; the page is decoded, parsed, scored and its links go through the strategy back
 * into the frontier, all recorded in the SQLite file. Up to `politeness.concurrency` pages are in
 * flight. `stop()` ends it gracefully: nothing new starts, requests in flight finish and are
 * recorded. Page failures are recorded outcomes; only a broken store stops the crawl with an error.
 */
export class Crawler extends TypedEmitter<CrawlEvents> {
  private readonly store: SqliteStore;
  private readonly frontier: SqliteFrontier;
  private readonly strategy: Strategy;
  private readonly fetcher: Fetcher;
  private readonly ownsFetcher: boolean;
  private readonly robots: RobotsGate | null;
  private readonly robotsCache: RobotsCache | null;
  private readonly scope: (url: string) => ScopeDecision;
  private readonly retry: RetryPolicy;
  private readonly suspended = new Set<string>();
  private readonly deps: ProcessorDeps;
  private readonly analyzers: AnalyzerPool;
  private readonly stats: CrawlStats;
  private readonly resumed: boolean;
  private readonly hostFetched: Map<number, number>;
  private readonly inFlight = new Set<Promise<void>>();
  private stopping = false;
  /** This run handed out a URL / some host answered (a page, or its robots.txt). */
  private attempted = false;
  private reached = false;
  private fatal: unknown = null;
  /** What run() threw, if it did: close() then reports nothing of its own over it. */
  private runError: unknown = undefined;
  private wake: (() => void) | null = null;

  constructor(private readonly opts: CrawlerOptions) {
    super();
    const cfg = opts.config;
    const analysis = analysisConfig(cfg); // first: a bad classifier model file fails before the store is opened
    const state = openCrawlState(cfg, opts.dbPath, opts.strategy, { fresh: opts.fresh });
    ({ store: this.store, frontier: this.frontier, strategy: this.strategy, resumed: this.resumed, hostFetched: this.hostFetched } = state);
    this.ownsFetcher = !opts.fetcher;
    this.fetcher = opts.fetcher ?? new UndiciFetcher(fetcherOptions(cfg, opts));
    this.retry = new RetryPolicy(retrySettings(cfg));
    this.robotsCache = cfg.politeness.robots ? new RobotsCache(this.fetcher, { userAgent: cfg.politeness.user_agent }) : null;
    this.robots = this.robotsCache
      ? new RobotsGate(this.robotsCache, this.frontier, this.store, {
          delayMs: cfg.politeness.delay_ms,
          maxCrawlDelayMs: opts.maxCrawlDelayMs ?? cfg.politeness.max_crawl_delay_ms,
        }, this.retry)
      : null;
    const scope = scopeOf(cfg);
    this.scope = scope;
    this.analyzers = new AnalyzerPool(analysis, opts.workers);
    this.deps = {
      store: this.store, frontier: this.frontier, analyzers: this.analyzers, strategy: this.strategy, scope,
      threshold: cfg.relevance.threshold, maxDepth: cfg.limits.max_depth, maxRedirects: cfg.fetch.max_redirects,
      normalize: normalizeOptions(cfg),
    };
    seedFrontier(this.frontier, this.strategy, cfg.seeds, this.store, normalizeOptions(cfg));
    this.stats = new CrawlStats(this.store.counters(), Date.now); // after the seeds: they are known URLs
  }

  /** The ordering strategy in use (read-only: for tests and `explain`-style reports of its figures). */
  get strategyInstance(): Strategy {
    return this.strategy;
  }

  /** Asks the crawl to stop: nothing new starts; pages in flight finish and are recorded. */
  stop(): void {
    this.stopping = true;
    this.wake?.();
  }

  async run(): Promise<CrawlSummary> {
    const cfg = this.opts.config;
    if (this.store.getMeta('sitemaps_read') === undefined) await this.readSitemaps();
    this.emit('start', { resumed: this.resumed, queued: this.frontier.size(), fetched: this.stats.fetched });
    const tick = setInterval(() => this.tick(), this.opts.progressEveryMs ?? 1000);
    let reason: StopReason = 'done';
    try {
      for (;;) {
        if (this.fatal) throw this.fatal;
        if (this.stopping) {
          reason = 'signal';
          break;
        }
        if (this.stats.fetched + this.inFlight.size >= cfg.limits.max_pages) {
          // pages in flight may still turn out not to count (a retry, robots.txt): wait for them
          if (this.inFlight.size > 0) {
            await this.sleep(Infinity);
            continue;
          }
          reason = 'max-pages';
          break;
        }
        if (this.stats.bytes >= cfg.limits.max_bytes) {
          reason = 'max-bytes';
          break;
        }
        let waitUntil = Infinity;
        if (this.inFlight.size < cfg.politeness.concurrency) {
          const next = this.frontier.next(Date.now());
          if (next.kind === 'url') {
            this.dispatch(next.item);
            continue;
          }
          if (next.kind === 'empty' && this.inFlight.size === 0) break;
          if (next.kind === 'wait') waitUntil = next.until;
          if (next.kind === 'hold') waitUntil = next.until ?? Infinity; // a release wakes the loop
        }
        await this.sleep(waitUntil - Date.now());
      }
      await Promise.all([...this.inFlight]);
      if (this.fatal) throw this.fatal;
      if (this.attempted && !this.reached) {
        this.emit('warn', {
          code: 'W_UNREACHABLE',
          message: `no host could be reached in this run${this.suspended.size ? ` (suspended: ${[...this.suspended].join(', ')})` : ''}; the URLs stay queued for a later run`,
        });
      }
    } catch (err) {
      reason = 'error';
      this.runError = err;
      await Promise.allSettled([...this.inFlight]);
      throw err;
    } finally {
      clearInterval(tick);
      this.tick();
      this.emit('end', { reason });
      if (this.ownsFetcher) await this.fetcher.close();
      await this.analyzers.close();
      try {
        this.store.setMeta('last_stop', JSON.stringify({ reason, at: new Date().toISOString() }));
      } catch (err) {
        if (reason !== 'error') this.fatal ??= storeError(this.store.path, err); // else: the run's error is the one to report
      }
    }
    if (this.fatal) throw (this.runError = this.fatal);
    return this.summary(reason);
  }

  /**
   * Closes the frontier (saving its queues) and the store (checkpointing it, releasing the file and
   * its lock); both are released even if one fails. Call after run(); throws E_STORE if closing
   * failed, unless run() already threw (that error is the one to report).
   */
  close(): void {
    closeCrawlState({ store: this.store, frontier: this.frontier }, this.runError);
  }

  private summary(reason: StopReason): CrawlSummary {
    const s = this.stats.snapshot(this.frontier.size());
    // the crawl file's figures as `topicrawl stats` reads them (one query, one definition of each)
    const t = crawlTotals(this.store.db);
    return {
      reason, db: this.opts.dbPath, topic: this.opts.config.name, strategy: this.strategy.name, resumed: this.resumed,
      fetched: t.fetched, fetchedThisRun: this.stats.fetchedThisRun, relevant: t.relevant, harvest: t.harvest,
      errors: t.errors, bytes: t.bytes, frontier: t.queued, pruned: t.pruned, known: t.known,
      discoveryRate: s.discoveryRate, elapsedMs: s.elapsedMs, pagesPerSec: s.pagesPerSec, suspendedHosts: [...this.suspended],
      unreachable: this.attempted && !this.reached,
    };
  }

  private tick(): void {
    if (!this.store.db.open) return;
    const snap = this.stats.snapshot(this.frontier.size());
    this.emit('progress', snap);
    const flat = this.stats.flatDiscovery();
    if (flat !== null) {
      this.emit('warn', {
        code: 'W_DISCOVERY_FLAT',
        message: `the discovery rate has stayed at ${flat.toFixed(2)} new URLs per page for ${3 * CrawlStats.flatWindow} pages: a URL trap? (see topicrawl stats)`,
      });
    }
    try {
      this.store.recordMetrics({ at: Date.now(), queued: snap.frontier, known: this.stats.known, ...snap });
    } catch (err) {
      this.fatal ??= err;
      this.wake?.();
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = Number.isFinite(ms) ? setTimeout(done, Math.max(0, Math.min(ms, 60_000))) : null;
      function done() {
        if (timer) clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = null;
        done();
      };
    });
  }

  private dispatch(item: FrontierItem): void {
    const max = this.opts.config.limits.max_pages_per_host;
    const count = (this.hostFetched.get(item.hostId) ?? 0) + 1;
    this.hostFetched.set(item.hostId, count);
    if (count >= max) this.frontier.closeHost(item.hostId);
    const p = this.handle(item).finally(() => {
      this.inFlight.delete(p);
      this.frontier.release(item, Date.now());
      this.wake?.();
    });
    this.inFlight.add(p);
  }

  private async handle(item: FrontierItem): Promise<void> {
    this.attempted = true;
    try {
      if (this.robots) {
        // a robots.txt that cannot be fetched (RFC 9309 §2.3.1.4): the URL stays queued; the host is
        // retried with back-off, then suspended for the run and counted as an error
        const a = await this.robots.admit(item);
        if (a.kind === 'retry') this.emit('warn', { code: a.code, message: a.message, url: item.url });
        if (a.kind === 'suspend') {
          this.stats.hostError();
          this.store.recordRobotsUnreachable(item.hostId); // in the file too: `stats` counts it as the summary does
          this.suspendHost(item, a.why);
        }
        if (a.kind === 'retry' || a.kind === 'suspend') return this.uncount(item);
        this.reached = true; // its robots.txt answered
        if (a.kind === 'skipped') return this.uncount(item);
      }
      const res = await this.fetcher.fetch(item.url);
      if (res.status > 0) this.reached = true;
      const d = this.retry.decide(item.id, item.hostId, res, Date.now());
      if (d.kind === 'retry') {
        // not an outcome yet: the URL goes back to the head of its host's queue, the host backs off
        this.frontier.requeue(item);
        this.frontier.deferHost(item.hostId, d.deferUntil);
        this.uncount(item);
        this.emit('warn', { code: res.error?.code ?? 'E_HTTP', message: `retry ${d.attempt} after ${res.error?.message ?? `HTTP ${res.status}`}`, url: item.url });
        return;
      }
      if (d.kind === 'give-up') {
        this.frontier.deferHost(item.hostId, d.deferUntil);
        if (d.suspend) this.suspendHost(item);
      }
      const done = await processFetch(this.deps, item, res, d.attempts);
      this.stats.page({ relevant: done.relevant, error: done.error, bytes: done.event.bytes, newUrls: done.newUrls, pruned: done.pruned });
      this.emit('page', done.event);
    } catch (err) {
      if (err instanceof TopicrawlError && err.fatal) {
        this.fatal ??= err;
        this.stopping = true;
        return;
      }
      this.recordFailure(item, err);
    }
  }

  /** Sitemaps of the topic and of the seed hosts' robots.txt, read once per crawl file. */
  private async readSitemaps(): Promise<void> {
    const cfg = this.opts.config;
    const r = await seedFromSitemaps({
      fetcher: this.fetcher, robots: this.robotsCache, frontier: this.frontier, strategy: this.strategy, store: this.store,
      scope: this.scope, normalize: normalizeOptions(cfg), seeds: cfg.seeds, sitemaps: cfg.sitemaps,
      maxUrls: cfg.limits.max_sitemap_urls, maxDepth: cfg.limits.max_sitemap_depth,
    });
    for (const e of r.errors) this.emit('warn', { code: 'W_SITEMAP', message: `sitemap ${e.sitemap}: ${e.message}` });
    // those requests count for politeness: each host waits its delay before its first page
    for (const [host, at] of r.contacted) this.frontier.deferHost(this.frontier.hostId(host), at + cfg.politeness.delay_ms);
    this.stats.known += r.added;
    this.store.setMeta('sitemaps_read', JSON.stringify({ read: r.sitemapsRead, found: r.found, added: r.added, errors: r.errors.length, at: new Date().toISOString() }));
  }

  /** A page that turned out not to count for its host's budget (robots.txt, a retry). */
  private uncount(item: FrontierItem): void {
    const count = (this.hostFetched.get(item.hostId) ?? 1) - 1;
    this.hostFetched.set(item.hostId, count);
    if (count < this.opts.config.limits.max_pages_per_host && !this.suspended.has(item.host)) this.frontier.openHost(item.hostId);
  }

  /** A host that keeps failing is left alone for the rest of the run; its URLs stay queued. */
  private suspendHost(item: FrontierItem, why?: string): void {
    if (this.suspended.has(item.host)) return;
    this.suspended.add(item.host);
    this.frontier.closeHost(item.hostId);
    this.store.setMeta('suspended_hosts', JSON.stringify([...this.suspended]));
    this.emit('warn', {
      code: 'E_HOST_SUSPENDED',
      message: `host ${item.host} suspended ${why ? `because ${why}` : `after ${this.opts.config.politeness.host_failure_limit} failed attempts in a row`}; its URLs stay queued for a later run`,
      url: item.url,
    });
  }

  /** An unexpected error on one page becomes its recorded outcome; the crawl goes on. */
  private recordFailure(item: FrontierItem, err: unknown): void {
    const o = toOutcome(err);
    try {
      this.store.transaction(() => {
        this.store.recordOutcome({
          urlId: item.id, state: UrlState.FAILED, status: 0, error: o.code, relevance: null, relevant: null, contentHash: null,
          fetchedAt: Date.now(), fetchSeq: this.store.nextFetchSeq(), fetchPriority: item.priority, note: o.message.slice(0, 500),
        });
        // the strategy hears of every page with a fetch_seq, as the resume replay (fetchHistory) does
        this.strategy.onLinksStored?.({ id: item.id, url: item.url, depth: item.depth, life: item.life, priority: item.priority, relevance: null, relevant: false }, [], []);
        const updates = this.strategy.takeUpdates?.();
        if (updates?.length) this.frontier.reprioritize(updates);
      });
      this.stats.page({ relevant: false, error: true, bytes: 0, newUrls: 0, pruned: 0 });
      this.emit('warn', { code: o.code, message: o.message, url: item.url });
    } catch (e) {
      this.fatal ??= e;
      this.stopping = true;
    }
  }
}
