import { AnalyzerPool } from '../crawl/analyzer-pool.js';
import { closeCrawlState, openCrawlState, type CrawlState } from '../crawl/crawl-state.js';
import { analysisConfig, fetcherOptions } from '../crawl/crawl-settings.js';
import { FEEDBACK_META_KEY, parseFeedback, withFeedbackKeywords } from '../crawl/relevance-feedback.js';
import { Engine } from '../crawl/engine.js';
import type { PageAnalysis } from '../crawl/page-analysis.js';
import { strategyHears } from '../crawl/page-processor.js';
import { RobotsGate } from '../crawl/robots-gate.js';
import { TypedEmitter } from '../events.js';
import { toOutcome } from '../errors.js';
import type { Settlement } from '../frontier/frontier.js';
import type { Fetcher } from '../fetch/fetcher.js';
import { RobotsCache } from '../fetch/robots.js';
import { UndiciFetcher } from '../fetch/undici-fetcher.js';
import { RevisitStore, type CheckOutcome } from '../store/revisit-store.js';
import { DueSource, type DueWork } from './due-source.js';
import { storeError } from '../store/open-database.js';
import type { Config } from '../topic/config.js';
import { budgetLevel, classOf, enrolFetchedPages, scheduleAfterCheck } from './revisit-schedule.js';
import { pageChangeRate, type BudgetLevel } from './revisit-policy.js';
import { readSitemapSignals, SitemapSignals, type SignalScore } from './sitemap-signals.js';
import { judgeResponse } from './check-outcome.js';
import { storeChangedPage, takeNewLinks } from './changed-page.js';
import { countCheck, storedConfig, type RecrawlEvents, type RecrawlerOptions, type RecrawlSummary } from './recrawl-types.js';
import { HTML_TYPES } from '../fetch/html-types.js';

export { storedConfig } from './recrawl-types.js';
export type { CheckEvent, RecrawlEvents, RecrawlerOptions, RecrawlSummary } from './recrawl-types.js';

/**
 * Revisits the pages of a crawl file that are due (seed 001 §2.5, seed 002): conditional requests
 * from the stored validators (a 304 is unchanged), a change is a different hash of the normalised
 * text, every check recorded, each page's next visit from its estimated change rate (Cho &
 * Garcia-Molina) within its class's bounds, 404/410 or `max_failures` failures in a row delete the
 * page's content, and new links of changed pages go into the frontier through the crawl's own
 * path. Politeness per host (the topic's delay, raised by robots.txt Crawl-delay) and robots.txt
 * rules apply as in the crawl. Page failures are outcomes; only a broken store throws.
 */
export class Recrawler extends TypedEmitter<RecrawlEvents> {
  private readonly cfg: Config;
  private readonly state: CrawlState;
  private readonly rs: RevisitStore;
  private readonly fetcher: Fetcher;
  private readonly ownsFetcher: boolean;
  private readonly robots: RobotsCache | null;
  private readonly gate: RobotsGate | null;
  private readonly analyzers: AnalyzerPool;
  private readonly now: () => number;
  private readonly sleepFn: ((ms: number) => Promise<void>) | undefined;
  private readonly budgetEvery: number;
  private readonly source: DueSource;
  private budget: BudgetLevel | null = null;
  private sinceBudget = 0;
  private readonly signals: SitemapSignals;
  private nextSitemapsAt = 0;
  private readonly startedAt: number;
  /** Checks between two budget solves: budgetEvery, or one per 1% of the pages in scheduling if more. */
  private solveEvery = 500;
  private engine: Engine<DueWork> | null = null;
  private stopping = false;
  private until: number | undefined;
  private sum!: RecrawlSummary;
  /** What runDue() threw, if it did: close() then reports nothing of its own over it. */
  private runError: unknown = undefined;

  constructor(private readonly opts: RecrawlerOptions) {
    super();
    this.cfg = opts.config ?? storedConfig(opts.dbPath);
    const analysis = analysisConfig(this.cfg);
    this.state = openCrawlState(this.cfg, opts.dbPath);
    this.rs = new RevisitStore(this.state.file.db);
    this.now = opts.now ?? Date.now;
    this.sleepFn = opts.sleep;
    this.budgetEvery = opts.budgetEvery ?? 500;
    this.startedAt = this.now();
    // the interval holds across runs (a recrawl every few minutes from cron does not read sitemaps every time)
    this.signals = new SitemapSignals(JSON.parse(this.state.file.getMeta('sitemap_signal_scores') ?? '{}') as Record<string, SignalScore>);
    const lastRead = Number(this.state.file.getMeta('sitemaps_checked_at'));
    if (lastRead > 0) this.nextSitemapsAt = lastRead + this.cfg.revisit.sitemap_interval_ms;
    this.ownsFetcher = !opts.fetcher;
    this.fetcher = opts.fetcher ?? new UndiciFetcher(fetcherOptions(this.cfg, opts));
    const p = this.cfg.politeness;
    this.source = new DueSource({
      rs: this.rs, delayMs: p.delay_ms, cutoff: () => this.until ?? this.startedRunAt,
      idle: (now) => this.idle(now), beforeClaim: (now, slept) => this.beforeClaim(now, slept),
    });
    this.robots = p.robots ? new RobotsCache(this.fetcher, { userAgent: p.user_agent, now: this.now }) : null;
    this.gate = this.robots
      ? new RobotsGate(this.robots, this.source, this.state.store, { delayMs: p.delay_ms, maxCrawlDelayMs: p.max_crawl_delay_ms }, (ms) => this.sleep(ms))
      : null;
    this.analyzers = new AnalyzerPool(analysis, 0); // inline: a changed page's parse from the judge is reused
    // a changed page is scored as the crawl scores its pages: with the terms relevance feedback added, if any
    const feedback = this.cfg.relevance.feedback ? parseFeedback(this.state.file.getMeta(FEEDBACK_META_KEY)) : null;
    if (feedback) this.analyzers.setKeywords(withFeedbackKeywords(this.cfg.keywords, feedback));
    // politeness holds across runs: a host asked just before this run started waits its delay
    if (!opts.now) this.source.restoreHostTimes(this.rs.hostNextTimes(Date.now()));
  }

  private startedRunAt = 0;

  private sleep(ms: number): Promise<void> {
    return this.sleepFn ? this.sleepFn(ms) : new Promise((r) => setTimeout(r, ms));
  }

  /** Asks the run to stop: nothing new starts; checks in flight finish and are recorded. */
  stop(): void {
    this.stopping = true;
    this.engine?.stop();
  }

  /**
   * Revisits due pages, most overdue first. Without `until`: the pages due now, then returns. With
   * `until` (ms): keeps going, sleeping until the next page is due, until that time.
   */
  async runDue(until?: number): Promise<RecrawlSummary> {
    try {
      return await this.revisitDue(until);
    } catch (err) {
      this.runError = err;
      throw err;
    }
  }

  private async revisitDue(until?: number): Promise<RecrawlSummary> {
    this.until = until;
    this.startedRunAt = this.now();
    const { file } = this.state;
    this.sum = {
      db: this.opts.dbPath, enrolled: 0, checked: 0, changed: 0, unchanged: 0, notModified: 0, deleted: 0, failed: 0, robotsSkipped: 0, robotsUnavailable: 0,
      sitemapsRead: 0, sitemapSignals: 0, sitemapConfirmed: 0,
      newUrls: 0, bytesSaved: 0, wireBytes: 0, scheduled: 0, nextDueAt: null, reason: 'done',
    };
    this.sum.enrolled += enrolFetchedPages(this.rs, this.cfg.revisit, (fn) => file.transaction(fn));
    this.solveBudget();
    this.engine = new Engine<DueWork>({
      source: this.source, concurrency: Math.max(1, this.cfg.politeness.concurrency), handle: (w) => this.check(w),
      now: this.now, sleep: this.sleepFn,
    });
    if (this.stopping) this.engine.stop();
    const end = await this.engine.run();
    if (end === 'signal') this.sum.reason = 'signal';
    file.transaction(() => file.setMeta('sitemap_signal_scores', JSON.stringify(this.signals.scores())));
    file.commit();
    this.sum.scheduled = this.rs.scheduled().length;
    this.sum.nextDueAt = this.rs.nextDueAt();
    return { ...this.sum };
  }

  /** Before each claim: the sitemaps when they are due; after a sleep in a long run, pages fetched meanwhile join the schedule. */
  private async beforeClaim(now: number, sleptBefore: boolean): Promise<void> {
    if (sleptBefore && this.until !== undefined) this.sum.enrolled += enrolFetchedPages(this.rs, this.cfg.revisit, (fn) => this.state.file.transaction(fn));
    if (this.cfg.revisit.sitemap_interval_ms > 0 && now >= this.nextSitemapsAt) {
      await this.readSitemaps();
      this.nextSitemapsAt = this.now() + this.cfg.revisit.sitemap_interval_ms;
    }
  }

  /** Nothing due now and nothing in flight: when the next page is due within the run, or the run's end (null: done). */
  private idle(now: number): number | null {
    const until = this.until;
    let wakeAt = Infinity;
    const next = this.rs.nextDueAt();
    if (until !== undefined && next !== null && next <= until) wakeAt = Math.max(next, now);
    if (wakeAt === Infinity) {
      if (until === undefined || now >= until) return null;
      wakeAt = until;
    }
    if (this.cfg.revisit.sitemap_interval_ms > 0) wakeAt = Math.min(wakeAt, Math.max(now, this.nextSitemapsAt));
    return wakeAt;
  }

  /** Reads the sitemaps for change signals (sitemap-signals.ts); their requests count for politeness. */
  private async readSitemaps(): Promise<void> {
    const r = await readSitemapSignals(this.signals, { fetcher: this.fetcher, robots: this.robots, state: this.state, rs: this.rs, cfg: this.cfg, now: this.now });
    for (const e of r.errors) this.emit('warn', { code: 'W_SITEMAP', message: `sitemap ${e.sitemap}: ${e.message}` });
    for (const [host, at] of r.contacted) this.source.contacted(await this.state.frontier.hostId(host), Math.max(at, this.now()));
    this.state.file.transaction(() => this.state.file.setMeta('sitemaps_checked_at', String(this.now())));
    this.sum.sitemapsRead += r.sitemapsRead;
    this.sum.sitemapSignals += r.signalled;
    this.sum.newUrls += r.added;
  }

  /**
   * Closes the fetcher (if it made it), the frontier and the store (releasing the file's lock), all
   * of them even if one fails; throws E_STORE if closing failed, unless runDue() already threw.
   */
  async close(): Promise<void> {
    let saveError: unknown = null;
    try {
      // with the real clock (not a simulated one), the next run starts where this one's delays end
      if (!this.opts.now) this.rs.saveHostNextTimes(this.source.hostTimes(Date.now()));
    } catch (err) {
      saveError = err; // reported below unless the run's own error is the one to report
    }
    try {
      if (this.ownsFetcher) await this.fetcher.close();
      await this.analyzers.close();
    } finally {
      closeCrawlState(this.state, this.runError);
    }
    if (saveError && !this.runError) throw storeError(this.opts.dbPath, saveError);
  }

  /** robots.txt for a due page (the crawl's gate): false when it may not be fetched now (then postponed). */
  private async admit(p: DueWork): Promise<boolean> {
    if (!this.gate) return true;
    const v = await this.gate.admit(p);
    if (v.fetchedNow) p.requested = true; // fetching robots.txt was a request to the host too
    if (v.kind === 'fetch') return true;
    const at = this.now();
    const cls = classOf(p.cls, this.cfg.revisit);
    if (v.kind === 'unavailable') {
      // RFC 9309 §2.3.1.4: nothing of the host while its robots.txt cannot be fetched; not a verdict
      // on the page (no check, no failure counted): it is tried again after its class's shortest interval
      this.state.file.transaction(() => this.rs.postpone(p.urlId, at + cls.min_ms));
      this.sum.robotsUnavailable++;
      if (v.fetchedNow) this.emit('warn', { code: v.failure.code, message: `robots.txt ${v.failure.reason}: the host's due pages are postponed`, url: p.url });
      return false;
    }
    this.state.file.transaction(() => this.rs.postpone(p.urlId, at + cls.max_ms));
    this.sum.robotsSkipped++;
    this.emit('warn', { code: 'E_ROBOTS', message: 'robots.txt disallows this page now: revisit postponed', url: p.url });
    return false;
  }

  /** One due page through the pipeline: robots.txt, a conditional request, the judge, analysis, record, new links. */
  private async check(p: DueWork): Promise<Settlement> {
    if (!(await this.admit(p))) return { state: 'done' };
    const headers: Record<string, string> = {};
    if (p.etag) headers['if-none-match'] = p.etag;
    if (p.lastModified) headers['if-modified-since'] = p.lastModified;
    p.requested = true;
    let res = await this.fetcher.fetch(p.url, { headers });
    const item = { id: p.urlId, url: p.url, host: p.host, hostId: p.hostId };
    try {
      for (const h of this.opts.hooks ?? []) await h.fetched?.(item, res);
    } catch (err) {
      // a hook that throws fails this check (as a failed fetch: retried after the class's min_ms), never the run
      const o = toOutcome(err);
      this.emit('warn', { code: o.code, message: o.message, url: p.url });
      res = { ...res, status: 0, body: Buffer.alloc(0), error: o };
    }
    const at = this.now();
    const settings = this.cfg.revisit;
    const cls = classOf(p.cls, settings);
    const { row, outcome, savedBytes, parsed } = judgeResponse(p, res, settings.max_failures, () => this.rs.storedBodyBytes(p.urlId));
    const changedBody = outcome === 'changed' ? res : null;
    scheduleAfterCheck(row, outcome, {
      at, previousAt: p.lastCheckAt, previousLastModified: p.lastModified, lastModified: res.headers['last-modified'] ?? null,
      cls, minChecks: settings.min_checks, budget: this.budget,
    });
    if (outcome !== 'failed' && outcome !== 'deleted' && this.signals.checked(p.urlId, outcome, at)) this.sum.sitemapConfirmed++;
    const analysis = changedBody && HTML_TYPES.has(changedBody.contentType ?? '')
      ? await this.analyzers.analyze({ url: p.url, host: p.host, body: res.body, contentType: res.headers['content-type'] ?? null, html: true, anchors: this.state.file.anchorsTo(p.urlId), parsed: parsed ?? undefined })
      : null;
    const links = changedBody && analysis ? await takeNewLinks(this.state, this.rs, this.cfg, p, analysis) : null;
    let newUrls = 0;
    this.state.file.transaction(() => {
      if (changedBody) newUrls = storeChangedPage(this.state.file, this.rs, this.cfg, p, changedBody, analysis, at, links);
      if (outcome === 'deleted') {
        const why = res.status > 0 ? `HTTP ${res.status}` : (res.error?.code ?? 'no response');
        this.rs.removeContent(p.urlId, `deleted on revisit ${new Date(at).toISOString()}: ${why}${row.failures > 0 ? ` (${row.failures} failures in a row)` : ''}`);
      }
      this.rs.recordCheck(row, { at, status: res.status, outcome, wireBytes: res.wireBytes, savedBytes });
    });
    countCheck(this.sum, outcome, res.wireBytes, savedBytes, newUrls);
    const rate = row.checks > 0 ? pageChangeRate(row) : null;
    const check = {
      url: p.url, status: res.status, outcome, cls: row.cls, checks: row.checks, changes: row.changes, rate,
      nextAt: outcome === 'deleted' ? null : row.nextAt, newUrls,
    };
    this.emit('check', check);
    try {
      for (const h of this.opts.hooks ?? []) await h.recorded?.(item, { check });
    } catch (err) {
      const o = toOutcome(err); // (the check is recorded already: a warning)
      this.emit('warn', { code: o.code, message: o.message, url: p.url });
    }
    if (links) await strategyHears(this.state, links.page, links.out.infos, links.out.links.map((l) => l.toId));
    if (++this.sinceBudget >= this.solveEvery) {
      this.solveBudget();
    }
    return { state: 'done' };
  }

  /**
   * Solves the budget level over every page in scheduling (revisit-schedule.ts budgetLevel). The
   * solve reads every row, so on large files it runs less often: after budgetEvery checks, or after
   * one check per 1% of the pages if that is more (100,000 pages: every 1,000 checks).
   */
  private solveBudget(): void {
    const rows = this.rs.scheduled();
    this.budget = budgetLevel(rows, this.cfg.revisit, this.signals.checksPerDay(this.now(), this.startedAt));
    this.solveEvery = Math.max(this.budgetEvery, Math.ceil(rows.length / 100));
    this.sinceBudget = 0;
  }
}
