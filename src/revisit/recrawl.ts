import { closeCrawlState, openCrawlState, type CrawlState } from '../crawl/crawl-state.js';
import { analysisConfig, fetcherOptions } from '../crawl/crawl-settings.js';
import { intakeLinks } from '../crawl/link-intake.js';
import { createAnalyzer, type AnalysisInput, type PageAnalysis } from '../crawl/page-analysis.js';
import { TypedEmitter } from '../events.js';
import type { Fetcher, FetchResult } from '../fetch/fetcher.js';
import { RobotsCache } from '../fetch/robots.js';
import { UndiciFetcher } from '../fetch/undici-fetcher.js';
import { compressBody } from '../store/body-codec.js';
import { RevisitStore, type CheckOutcome, type DuePage } from '../store/revisit-store.js';
import { storeError } from '../store/open-database.js';
import type { Config } from '../topic/config.js';
import { budgetLevel, classOf, enrolFetchedPages } from './revisit-schedule.js';
import { nextIntervalMs, pageChangeRate, type BudgetLevel } from './revisit-policy.js';
import { nextAges } from './last-modified.js';
import { readSitemapSignals, SitemapSignals, type SignalScore } from './sitemap-signals.js';
import { judgeResponse } from './check-outcome.js';
import { storedConfig, type RecrawlEvents, type RecrawlerOptions, type RecrawlSummary } from './recrawl-types.js';
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
  private readonly analyze: (input: AnalysisInput) => PageAnalysis;
  private readonly now: () => number;
  private readonly sleepFn: (ms: number) => Promise<void>;
  private readonly budgetEvery: number;
  /** host id → earliest next request (ms), and its politeness delay */
  private readonly hostReady = new Map<number, number>();
  private readonly hostDelay = new Map<number, number>();
  private budget: BudgetLevel | null = null;
  private sinceBudget = 0;
  private readonly signals: SitemapSignals;
  private nextSitemapsAt = 0;
  private readonly startedAt: number;
  /** Checks between two budget solves: budgetEvery, or one per 1% of the pages in scheduling if more. */
  private solveEvery = 500;
  private stopping = false;
  private wake: (() => void) | null = null;
  private sum!: RecrawlSummary;
  /** What runDue() threw, if it did: close() then reports nothing of its own over it. */
  private runError: unknown = undefined;

  constructor(private readonly opts: RecrawlerOptions) {
    super();
    this.cfg = opts.config ?? storedConfig(opts.dbPath);
    this.analyze = createAnalyzer(analysisConfig(this.cfg));
    this.state = openCrawlState(this.cfg, opts.dbPath);
    this.rs = new RevisitStore(this.state.store.db);
    this.now = opts.now ?? Date.now;
    this.sleepFn = opts.sleep ?? ((ms) => this.timerSleep(ms));
    this.budgetEvery = opts.budgetEvery ?? 500;
    this.startedAt = this.now();
    // the interval holds across runs (a recrawl every few minutes from cron does not read sitemaps every time)
    this.signals = new SitemapSignals(JSON.parse(this.state.store.getMeta('sitemap_signal_scores') ?? '{}') as Record<string, SignalScore>);
    const lastRead = Number(this.state.store.getMeta('sitemaps_checked_at'));
    if (lastRead > 0) this.nextSitemapsAt = lastRead + this.cfg.revisit.sitemap_interval_ms;
    this.ownsFetcher = !opts.fetcher;
    this.fetcher = opts.fetcher ?? new UndiciFetcher(fetcherOptions(this.cfg, opts));
    const p = this.cfg.politeness;
    this.robots = p.robots ? new RobotsCache(this.fetcher, { userAgent: p.user_agent, now: this.now }) : null;
    // politeness holds across runs: a host asked just before this run started waits its delay
    if (!opts.now) for (const [id, at] of this.rs.hostNextTimes(Date.now())) this.hostReady.set(id, at);
  }

  /** Asks the run to stop: nothing new starts; checks in flight finish and are recorded. */
  stop(): void {
    this.stopping = true;
    this.wake?.();
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
    const cutoff = until ?? this.now();
    const { store } = this.state;
    this.sum = {
      db: this.opts.dbPath, enrolled: 0, checked: 0, changed: 0, unchanged: 0, notModified: 0, deleted: 0, failed: 0, robotsSkipped: 0, robotsUnavailable: 0,
      sitemapsRead: 0, sitemapSignals: 0, sitemapConfirmed: 0,
      newUrls: 0, bytesSaved: 0, wireBytes: 0, scheduled: 0, nextDueAt: null, reason: 'done',
    };
    const settings = this.cfg.revisit;
    this.sum.enrolled += enrolFetchedPages(this.rs, settings, (fn) => store.transaction(fn));
    this.solveBudget();
    const inflight = new Map<number, Promise<void>>();
    let fatal: unknown = null;
    const concurrency = Math.max(1, this.cfg.politeness.concurrency);
    for (;;) {
      if (fatal) throw fatal;
      if (this.stopping) {
        this.sum.reason = 'signal';
        break;
      }
      if (settings.sitemap_interval_ms > 0 && this.now() >= this.nextSitemapsAt) {
        await this.readSitemaps();
        this.nextSitemapsAt = this.now() + settings.sitemap_interval_ms;
      }
      const now = this.now();
      let wakeAt = Infinity;
      for (const p of this.rs.duePerHost(Math.min(now, cutoff))) {
        if (inflight.size >= concurrency) break;
        if (inflight.has(p.hostId)) continue;
        const ready = this.hostReady.get(p.hostId) ?? 0;
        if (ready > now) {
          wakeAt = Math.min(wakeAt, ready);
          continue;
        }
        const task = this.check(p)
          .catch((err) => {
            fatal ??= err;
          })
          .finally(() => inflight.delete(p.hostId));
        inflight.set(p.hostId, task);
      }
      if (inflight.size > 0) {
        await Promise.race(inflight.values());
        continue;
      }
      if (wakeAt === Infinity) {
        const next = this.rs.nextDueAt();
        if (until !== undefined && next !== null && next <= until) wakeAt = Math.max(next, now);
      }
      if (wakeAt === Infinity) {
        if (until === undefined || now >= until) break;
        wakeAt = until;
      }
      if (until !== undefined && settings.sitemap_interval_ms > 0) wakeAt = Math.min(wakeAt, Math.max(now, this.nextSitemapsAt));
      await this.sleepFn(wakeAt - now);
      if (until !== undefined) this.sum.enrolled += enrolFetchedPages(this.rs, settings, (fn) => store.transaction(fn));
    }
    await Promise.allSettled(inflight.values());
    if (fatal) throw fatal;
    store.transaction(() => store.setMeta('sitemap_signal_scores', JSON.stringify(this.signals.scores())));
    store.commit();
    this.sum.scheduled = this.rs.scheduled().length;
    this.sum.nextDueAt = this.rs.nextDueAt();
    return { ...this.sum };
  }

  /** Reads the sitemaps for change signals (sitemap-signals.ts); their requests count for politeness. */
  private async readSitemaps(): Promise<void> {
    const r = await readSitemapSignals(this.signals, { fetcher: this.fetcher, robots: this.robots, state: this.state, rs: this.rs, cfg: this.cfg, now: this.now });
    for (const e of r.errors) this.emit('warn', { code: 'W_SITEMAP', message: `sitemap ${e.sitemap}: ${e.message}` });
    for (const [host, at] of r.contacted) {
      const id = this.state.frontier.hostId(host);
      const ready = Math.max(at, this.now()) + (this.hostDelay.get(id) ?? this.cfg.politeness.delay_ms);
      this.hostReady.set(id, Math.max(this.hostReady.get(id) ?? 0, ready));
    }
    this.state.store.transaction(() => this.state.store.setMeta('sitemaps_checked_at', String(this.now())));
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
      if (!this.opts.now) this.rs.saveHostNextTimes(new Map([...this.hostReady].filter(([, at]) => at > Date.now())));
    } catch (err) {
      saveError = err; // reported below unless the run's own error is the one to report
    }
    try {
      if (this.ownsFetcher) await this.fetcher.close();
    } finally {
      closeCrawlState(this.state, this.runError);
    }
    if (saveError && !this.runError) throw storeError(this.opts.dbPath, saveError);
  }

  private timerSleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, Math.min(ms, 2 ** 31 - 1)));
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }

  /** robots.txt for a due page: false when it is disallowed now (then postponed). Sets the host's delay. */
  private async admit(p: DuePage): Promise<boolean> {
    const pol = this.cfg.politeness;
    if (!this.robots) {
      this.hostDelay.set(p.hostId, pol.delay_ms);
      return true;
    }
    let rules = this.robots.cached(p.url);
    const fetchedNow = !rules;
    if (!rules) rules = await this.robots.get(p.url);
    const delay = Math.max(pol.delay_ms, Math.min(rules.crawlDelayMs ?? 0, pol.max_crawl_delay_ms));
    this.hostDelay.set(p.hostId, delay);
    if (fetchedNow) this.state.store.setHostRobots(p.hostId, rules.status, rules.crawlDelayMs);
    if (rules.failure) {
      // RFC 9309 §2.3.1.4: nothing of the host while its robots.txt cannot be fetched; not a verdict
      // on the page (no check, no failure counted): it is tried again after its class's shortest interval
      const at = this.now();
      this.state.store.transaction(() => this.rs.postpone(p.urlId, at + classOf(p.cls, this.cfg.revisit).min_ms));
      this.sum.robotsUnavailable++;
      if (fetchedNow) {
        this.emit('warn', { code: rules.failure.code, message: `robots.txt ${rules.failure.reason}: the host's due pages are postponed`, url: p.url });
        this.hostReady.set(p.hostId, at + delay);
      }
      return false;
    }
    if (!rules.isAllowed(p.url)) {
      const at = this.now();
      this.state.store.transaction(() => this.rs.postpone(p.urlId, at + classOf(p.cls, this.cfg.revisit).max_ms));
      this.sum.robotsSkipped++;
      this.emit('warn', { code: 'E_ROBOTS', message: 'robots.txt disallows this page now: revisit postponed', url: p.url });
      if (fetchedNow) this.hostReady.set(p.hostId, at + delay);
      return false;
    }
    // fetching robots.txt was a request to the host too
    if (fetchedNow && delay > 0) await this.sleepFn(delay);
    return true;
  }

  private async check(p: DuePage): Promise<void> {
    if (!(await this.admit(p))) return;
    const headers: Record<string, string> = {};
    if (p.etag) headers['if-none-match'] = p.etag;
    if (p.lastModified) headers['if-modified-since'] = p.lastModified;
    const res = await this.fetcher.fetch(p.url, { headers });
    const at = this.now();
    this.hostReady.set(p.hostId, at + (this.hostDelay.get(p.hostId) ?? this.cfg.politeness.delay_ms));
    const settings = this.cfg.revisit;
    const cls = classOf(p.cls, settings);
    const { row, outcome, savedBytes, parsed } = judgeResponse(p, res, settings.max_failures, () => this.rs.storedBodyBytes(p.urlId));
    const changedBody = outcome === 'changed' ? res : null;
    if (outcome === 'changed' || outcome === 'unchanged' || outcome === 'not_modified') {
      row.ages = nextAges(row.ages, {
        outcome, at, previousAt: p.lastCheckAt, previousLastModified: p.lastModified, lastModified: res.headers['last-modified'] ?? null,
      });
      row.checks++;
      if (outcome === 'changed') row.changes++;
      if (this.signals.checked(p.urlId, outcome, at)) this.sum.sitemapConfirmed++;
      row.failures = 0;
      row.lastCheckAt = at;
      row.nextAt = at + nextIntervalMs(row, cls, { minChecks: settings.min_checks, budget: this.budget });
    } else if (outcome === 'failed') {
      row.nextAt = at + cls.min_ms;
    } else {
      row.deletedAt = at;
    }
    const analysis = changedBody && HTML_TYPES.has(changedBody.contentType ?? '')
      ? this.analyze({ url: p.url, host: p.host, body: res.body, contentType: res.headers['content-type'] ?? null, html: true, anchors: this.state.store.anchorsTo(p.urlId), parsed: parsed ?? undefined })
      : null;
    let newUrls = 0;
    this.state.store.transaction(() => {
      if (changedBody) newUrls = this.storeChanged(p, changedBody, analysis, at);
      if (outcome === 'deleted') {
        const why = res.status > 0 ? `HTTP ${res.status}` : (res.error?.code ?? 'no response');
        this.rs.removeContent(p.urlId, `deleted on revisit ${new Date(at).toISOString()}: ${why}${row.failures > 0 ? ` (${row.failures} failures in a row)` : ''}`);
      }
      this.rs.recordCheck(row, { at, status: res.status, outcome, wireBytes: res.wireBytes, savedBytes });
    });
    this.count(outcome, res.wireBytes, savedBytes, newUrls);
    const rate = row.checks > 0 ? pageChangeRate(row) : null;
    this.emit('check', {
      url: p.url, status: res.status, outcome, cls: row.cls, checks: row.checks, changes: row.changes, rate,
      nextAt: outcome === 'deleted' ? null : row.nextAt, newUrls,
    });
    if (++this.sinceBudget >= this.solveEvery) {
      this.solveBudget();
    }
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

  /** Stores a changed page's new version and sends its new links into the frontier. Returns the URLs added. */
  private storeChanged(p: DuePage, res: FetchResult, analysis: PageAnalysis | null, at: number): number {
    const { store, frontier, strategy } = this.state;
    store.recordResponse({
      urlId: p.urlId, status: res.status, headers: res.headers, contentType: res.contentType, charset: analysis?.charset ?? null,
      title: analysis?.title ?? null, stored: analysis?.stored ?? compressBody(res.body), bodyBytes: res.body.length,
      wireBytes: res.wireBytes, fetchedAt: at, elapsedMs: res.elapsedMs,
    });
    if (!analysis) return 0;
    const relevant = analysis.relevance === null ? null : analysis.relevance >= this.cfg.relevance.threshold;
    this.rs.updateContent(p.urlId, analysis.contentHash ? Buffer.from(analysis.contentHash) : null, analysis.relevance, relevant);
    if (analysis.nofollow) return 0;
    // only links the page did not have before: the others were counted when it was first fetched
    const had = this.rs.linkedHashes(p.urlId);
    const fresh = analysis.links.filter((l) => !had.has(Buffer.from(l.hash).toString('hex')));
    if (fresh.length === 0) return 0;
    const u = this.rs.pageInfo(p.urlId);
    const page = { id: p.urlId, url: p.url, depth: u.depth, life: u.life, priority: u.priority, relevance: analysis.relevance, relevant: relevant ?? false };
    const out = intakeLinks({ frontier, strategy, maxDepth: this.cfg.limits.max_depth }, page, fresh);
    store.recordLinks(p.urlId, out.links.filter(Boolean));
    const updates = strategy.takeUpdates?.();
    if (updates?.length) frontier.reprioritize(updates);
    return out.added - out.pruned;
  }

  private count(outcome: CheckOutcome, wire: number, saved: number, newUrls: number): void {
    const s = this.sum;
    s.checked++;
    s.wireBytes += wire;
    s.bytesSaved += saved;
    s.newUrls += newUrls;
    if (outcome === 'changed') s.changed++;
    else if (outcome === 'unchanged') s.unchanged++;
    else if (outcome === 'not_modified') s.notModified++;
    else if (outcome === 'deleted') s.deleted++;
    else s.failed++;
  }
}
