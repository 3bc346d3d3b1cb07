export type { CrawlerOptions, CrawlSummary } from './crawl-types.js';
import { TopicrawlError, toOutcome } from '../errors.js';
import { TypedEmitter, type CrawlEvents, type StopReason } from '../events.js';
import type { Fetcher } from '../fetch/fetcher.js';
import { RobotsCache } from '../fetch/robots.js';
import { UndiciFetcher } from '../fetch/undici-fetcher.js';
import type { Frontier, HostStates, Lease, Settlement } from '../frontier/frontier.js';
import { storeError } from '../store/open-database.js';
import type { Store } from '../store/store.js';
import type { Strategy } from '../strategy/strategy.js';
import { AnalyzerPool } from './analyzer-pool.js';
import { RetryPolicy } from './retry-policy.js';
import { RobotsGate } from './robots-gate.js';
import { RobotsStep } from './robots-step.js';
import type { ScopeDecision } from '../url/scope.js';
import { analysisConfig, fetcherOptions, normalizeOptions, processorDeps, retrySettings, scopeOf } from './crawl-settings.js';
import { closeCrawlState, openCrawlState } from './crawl-state.js';
import { Serial } from './serial.js';
import { Engine } from './engine.js';
import { RunPipeline, type PipelineReading, type PipelineSummary } from './pipeline-meter.js';
import type { CrawlBackend, CrawlerOptions, CrawlSummary } from './crawl-types.js';
import { CrawlStats } from './crawl-stats.js';
import { processFetch, type ProcessorDeps } from './page-processor.js';
import { seedFrontier } from './seeds.js';
import { readSitemapsOnce } from './sitemap-seeds.js';
import { recordFailedPage } from './failure-record.js';
import { nearDupIndexOf } from './near-dup-setup.js';
import { FeedbackTrigger } from './feedback-trigger.js';

/**
 * The crawl loop (DESIGN.md): the frontier hands out the best URL a polite schedule allows; the
 * fetcher gets it; the page is decoded, parsed, scored and its links go through the strategy back
 * into the frontier, all recorded in the SQLite file. Up to `politeness.concurrency` pages are in
 * flight. `stop()` ends it gracefully: nothing new starts, requests in flight finish and are
 * recorded. Page failures are recorded outcomes; only a broken store stops the crawl with an error.
 */
export class Crawler extends TypedEmitter<CrawlEvents> {
  private backend!: CrawlBackend;
  private store!: Store;
  private frontier!: Frontier;
  private strategy!: Strategy;
  private readonly fetcher: Fetcher;
  private readonly ownsFetcher: boolean;
  private robots: RobotsStep | null = null;
  private readonly robotsCache: RobotsCache | null;
  private readonly scope: (url: string) => ScopeDecision;
  private readonly retry: RetryPolicy;
  private readonly suspended = new Set<string>();
  private deps!: ProcessorDeps;
  /** The run's pipeline figures (null: the run has not started), and their summary once it ended. */
  private pipeline: RunPipeline | null = null;
  private pipelineSummary: PipelineSummary | null = null;
  private readonly analyzers: AnalyzerPool;
  /** Relevance feedback (`relevance.feedback`), or null: off. */
  private readonly feedback: FeedbackTrigger | null = null;
  private stats!: CrawlStats;
  private resumed = false;
  private engine: Engine<Lease> | null = null;
  private readonly serial = new Serial();
  private stopping = false;
  /** This run handed out a URL / some host answered (a page, or its robots.txt). */
  private attempted = false;
  private reached = false;
  private fatal: unknown = null;
  /** What run() threw, if it did: close() then reports nothing of its own over it. */
  private runError: unknown = undefined;
  private opened: Promise<void> | null = null;
  private lastSize = 0;
  /** close() was called: the frontier is, or is being, closed. */
  private closed = false;

  constructor(private readonly opts: CrawlerOptions) {
    super();
    const cfg = opts.config;
    const analysis = analysisConfig(cfg); // first: a bad classifier model file fails before the store is opened
    if (cfg.relevance.feedback && opts.backend) {
      throw new TopicrawlError('E_CONFIG', 'relevance.feedback: not available in a shared crawl (--frontier redis://…); run it with a crawl file of its own');
    }
    this.ownsFetcher = !opts.fetcher;
    this.fetcher = opts.fetcher ?? new UndiciFetcher(fetcherOptions(cfg, opts));
    this.retry = new RetryPolicy(retrySettings(cfg));
    this.robotsCache = cfg.politeness.robots ? new RobotsCache(this.fetcher, { userAgent: cfg.politeness.user_agent }) : null;
    this.scope = scopeOf(cfg);
    // the embedded crawl file opens now, so a file in use or of another topic fails here (before any thread starts)
    const state = opts.backend ? null : openCrawlState(cfg, opts.dbPath, opts.strategy, { fresh: opts.fresh, batchPageRows: true });
    this.analyzers = new AnalyzerPool(analysis, opts.workers);
    if (state && cfg.relevance.feedback) this.feedback = new FeedbackTrigger(cfg, state.store, this.analyzers, this);
    if (state) {
      this.useBackend({
        store: state.store, frontier: state.frontier, strategy: state.strategy, resumed: state.resumed,
        close: async (pending) => closeCrawlState(state, pending),
      });
    }
  }

  private useBackend(b: CrawlBackend): void {
    const cfg = this.opts.config;
    this.backend = b;
    ({ store: this.store, frontier: this.frontier, strategy: this.strategy, resumed: this.resumed } = b);
    const gate = this.robotsCache
      ? new RobotsGate(this.robotsCache, this.frontier, this.store, {
          delayMs: cfg.politeness.delay_ms,
          maxCrawlDelayMs: this.opts.maxCrawlDelayMs ?? cfg.politeness.max_crawl_delay_ms,
        })
      : null;
    this.robots = gate && this.robotsCache
      ? new RobotsStep(gate, this.robotsCache, this.retry, this.store, {
          warn: (w) => this.emit('warn', w),
          hostError: () => this.stats.hostError(),
          suspendHost: (item, why) => this.suspendHost(item, why),
          recordFailure: (item, err) => this.recordFailure(item, err),
        })
      : null;
    this.deps = processorDeps(cfg, {
      store: this.store, frontier: this.frontier, analyzers: this.analyzers, strategy: this.strategy, scope: this.scope,
      serial: (fn) => this.serial.run(fn), timing: this.opts.timing,
    });
  }

  /** Opens the backend (if given as a factory) and queues the seeds; run() calls it. */
  private open(): Promise<void> {
    return (this.opened ??= (async () => {
      const cfg = this.opts.config;
      if (this.opts.backend) this.useBackend(await this.opts.backend(this.opts.strategy));
      const start = this.backend.start;
      // a worker joining a shared crawl lets the one that started it queue the seeds and read the
      // sitemaps first: their requests are outside the frontier's politeness, so nobody else may be fetching then
      if (start?.role === 'join') await start.wait();
      else {
        await seedFrontier(this.frontier, this.strategy, cfg.seeds, normalizeOptions(cfg));
        if ((await this.store.getMeta('sitemaps_read')) === undefined) await this.readSitemaps();
        await start?.done();
      }
      this.stats = new CrawlStats(await this.store.counters(), Date.now); // after the seeds: they are known URLs
      if (cfg.dedup.enabled) this.deps.nearDups = await nearDupIndexOf(this.store, cfg.dedup.max_distance);
    })());
  }

  /** The ordering strategy in use (read-only: for tests and `explain`-style reports of its figures). */
  get strategyInstance(): Strategy {
    return this.strategy ?? this.opts.strategy;
  }

  /**
   * The pipeline's running totals and the threads' busy seconds in this run, for monitoring
   * (Prometheus counters); null before the run starts. After the run, as it ended.
   */
  pipelineTotals(): PipelineReading | null {
    return this.pipeline?.reading() ?? null;
  }

  /**
   * The frontier's hosts by scheduling state now (Frontier.hostStates), for monitoring; null before
   * the crawl opened its frontier or once it is closed.
   */
  async hostStates(): Promise<HostStates | null> {
    if (!this.frontier || this.closed) return null;
    return this.frontier.hostStates(Date.now());
  }

  /** Asks the crawl to stop: nothing new starts; pages in flight finish and are recorded. */
  stop(): void {
    this.stopping = true;
    this.engine?.stop();
  }

  async run(): Promise<CrawlSummary> {
    const cfg = this.opts.config;
    let tick: NodeJS.Timeout | null = null;
    let reason: StopReason = 'done';
    try {
      await this.open();
      this.lastSize = await this.frontier.size();
      this.emit('start', { resumed: this.resumed, queued: this.lastSize, fetched: this.stats.fetched });
      tick = setInterval(() => void this.tick(), this.opts.progressEveryMs ?? 1000);
      this.pipeline = new RunPipeline(cfg.politeness.concurrency, this.analyzers);
      const meter = (this.deps.meter = this.pipeline.meter);
      this.engine = new Engine<Lease>({
        source: this.frontier, concurrency: cfg.politeness.concurrency, handle: (lease) => this.handle(lease), meter,
        settled: (lease, current) => {
          if (!current) this.emit('warn', { code: 'W_LEASE_EXPIRED', message: 'the lease expired before the page was recorded: another worker fetched it again', url: lease.url });
        },
        limit: () => (this.stats.bytes >= cfg.limits.max_bytes ? 'max-bytes' : null),
      });
      if (this.stopping) this.engine.stop();
      reason = await this.engine.run();
      if (this.attempted && !this.reached) {
        this.emit('warn', {
          code: 'W_UNREACHABLE',
          message: `no host could be reached in this run${this.suspended.size ? ` (suspended: ${[...this.suspended].join(', ')})` : ''}; the URLs stay queued for a later run`,
        });
      }
    } catch (err) {
      reason = 'error';
      this.runError = err;
      throw err;
    } finally {
      if (tick) clearInterval(tick);
      if (this.stats) {
        // the last snapshot with the frontier's size now (a tick's is a tick old)
        if (reason !== 'error') this.lastSize = await this.frontier.size().catch(() => this.lastSize);
        await this.tick();
      }
      this.emit('end', { reason });
      if (this.pipeline) this.pipelineSummary = this.pipeline.end(); // (before the analysis threads close)
      if (this.ownsFetcher) await this.fetcher.close();
      await this.analyzers.close();
      try {
        if (this.store) await this.store.setMeta({ last_stop: JSON.stringify({ reason, at: new Date().toISOString() }) });
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
  close(): Promise<void> {
    this.closed = true;
    // the embedded crawl file is closed before this returns (a crawl started right after may open it)
    if (!this.opts.backend) return this.backend.close(this.runError);
    return (async () => {
      if (!this.opened) return;
      await this.opened.catch(() => undefined);
      if (this.backend) await this.backend.close(this.runError);
    })();
  }

  private async summary(reason: StopReason): Promise<CrawlSummary> {
    return this.stats.summary(await this.store.counters(), {
      reason, db: this.opts.dbPath, topic: this.opts.config.name, strategy: this.strategy.name, resumed: this.resumed,
      suspendedHosts: [...this.suspended], unreachable: this.attempted && !this.reached, feedback: this.feedback?.current ?? null,
      analysisThreads: this.analyzers.threads, pipeline: this.pipelineSummary,
    });
  }

  private async tick(): Promise<void> {
    const snap = this.stats.snapshot(this.lastSize);
    this.frontier.size().then((n) => (this.lastSize = n), () => undefined);
    this.emit('progress', snap);
    const flat = this.stats.flatDiscovery();
    if (flat !== null) {
      this.emit('warn', {
        code: 'W_DISCOVERY_FLAT',
        message: `the discovery rate has stayed at ${flat.toFixed(2)} new URLs per page for ${3 * CrawlStats.flatWindow} pages: a URL trap? (see topicrawl stats)`,
      });
    }
    try {
      await this.store.recordMetrics({ at: Date.now(), queued: snap.frontier, known: this.stats.known, ...snap });
    } catch (err) {
      this.fatal ??= err;
      this.engine?.fail(err);
    }
  }

  /** One leased URL through the pipeline: robots.txt, fetch, retry, analyse, record, links. Returns how to settle its lease. */
  private async handle(item: Lease): Promise<Settlement> {
    this.attempted = true;
    try {
      if (this.robots) {
        const settled = await this.robots.admit(item, () => (this.reached = true));
        if (settled) return settled;
      }
      this.deps.meter?.stage('fetching', 1);
      const res = await this.fetcher.fetch(item.url).finally(() => this.deps.meter?.stage('fetching', -1));
      if (res.status > 0) this.reached = true;
      for (const h of this.opts.hooks ?? []) await h.fetched?.(item, res);
      const d = this.retry.decide(item.id, item.hostId, res, Date.now());
      if (d.kind === 'retry') {
        // not an outcome yet: the URL goes back to the head of its host's queue, the host backs off
        this.emit('warn', { code: res.error?.code ?? 'E_HTTP', message: `retry ${d.attempt} after ${res.error?.message ?? `HTTP ${res.status}`}`, url: item.url });
        return { state: 'requeue', counted: false, deferUntil: d.deferUntil };
      }
      let deferUntil: number | undefined;
      if (d.kind === 'give-up') {
        deferUntil = d.deferUntil;
        if (d.suspend) await this.suspendHost(item);
      }
      const done = await processFetch(this.deps, item, res, d.attempts);
      done.heard.catch((err: unknown) => this.heardFailed(item, err));
      this.stats.page({ relevant: done.relevant, error: done.error, bytes: done.event.bytes, newUrls: done.newUrls, pruned: done.pruned });
      this.emit('page', done.event);
      if (this.feedback) await this.feedback.heard(done.event, (fn) => this.serial.run(fn));
      for (const h of this.opts.hooks ?? []) await h.recorded?.(item, { page: done.event, outlinks: done.outlinks });
      return { state: 'done', deferUntil, recorded: true };
    } catch (err) {
      if (err instanceof TopicrawlError && err.fatal) throw err;
      await this.recordFailure(item, err);
      return { state: 'done' };
    }
  }

  /** Sitemaps of the topic and of the seed hosts' robots.txt, read once per crawl file. */
  private readSitemaps(): Promise<void> {
    const cfg = this.opts.config;
    const deps = {
      fetcher: this.fetcher, robots: this.robotsCache, frontier: this.frontier, strategy: this.strategy,
      scope: this.scope, normalize: normalizeOptions(cfg), seeds: cfg.seeds, sitemaps: cfg.sitemaps,
      maxUrls: cfg.limits.max_sitemap_urls, maxDepth: cfg.limits.max_sitemap_depth,
    };
    return readSitemapsOnce(deps, this.store, cfg.politeness.delay_ms, (w) => this.emit('warn', w));
  }

  /** A host that keeps failing is left alone for the rest of the run; its URLs stay queued. */
  private async suspendHost(item: Lease, why?: string): Promise<void> {
    if (this.suspended.has(item.host)) return;
    this.suspended.add(item.host);
    await this.frontier.suspendHost(item.hostId);
    await this.store.setMeta({ suspended_hosts: JSON.stringify([...this.suspended]) });
    this.emit('warn', {
      code: 'E_HOST_SUSPENDED',
      message: `host ${item.host} suspended ${why ? `because ${why}` : `after ${this.opts.config.politeness.host_failure_limit} failed attempts in a row`}; its URLs stay queued for a later run`,
      url: item.url,
    });
  }

  /** The frontier did not take the strategy's updates after a recorded page: fatal if the frontier is gone, else a warning. */
  private heardFailed(item: Lease, err: unknown): void {
    if (err instanceof TopicrawlError && err.fatal) {
      this.fatal ??= err;
      this.engine?.fail(err);
      return;
    }
    const o = toOutcome(err);
    this.emit('warn', { code: o.code, message: `the strategy's priority updates after this page were lost: ${o.message}`, url: item.url });
  }

  /** An unexpected error on one page becomes its recorded outcome; the crawl goes on. */
  private async recordFailure(item: Lease, err: unknown): Promise<void> {
    const { outcome: o, seq } = await recordFailedPage(this.deps, item, err);
    this.stats.page({ relevant: false, error: true, bytes: 0, newUrls: 0, pruned: 0 });
    // a failed attempt is a recorded page too (its outcome is the error): listeners count it as the summary does
    this.emit('page', {
      url: item.url, host: item.host, status: 0, depth: item.depth, relevance: null, relevant: null, priority: item.priority,
      error: o.code, bytes: 0, seq, newUrls: 0,
    });
    this.emit('warn', { code: o.code, message: o.message, url: item.url });
  }
}
