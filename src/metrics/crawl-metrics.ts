import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PageHook, HookItem } from '../crawl/crawl-types.js';
import type { StrategyCall, StrategyTiming } from '../crawl/strategy-timing.js';
import type { CrawlEvents, PageEvent, ProgressSnapshot, StopReason, TypedEmitter } from '../events.js';
import type { FetchResult } from '../fetch/fetcher.js';
import type { CheckEvent } from '../revisit/recrawl-types.js';
import type { HostStates } from '../frontier/frontier.js';
import type { PipelineReading } from '../crawl/pipeline-meter.js';
import { inHarvest, LiveStatus, type StatusMeta } from './live-status.js';
import type { StatusJson } from './status-json.js';

/** What the metrics watch: a crawl's events, and its frontier's host states on demand (a Crawler). */
export interface MetricsSubject extends TypedEmitter<CrawlEvents> {
  hostStates(): Promise<HostStates | null>;
  /** The pipeline's running totals (a crawl; absent for a recrawl), null before its run starts. */
  pipelineTotals?(): PipelineReading | null;
}

/** `2xx` … `5xx` by an HTTP status; `none` when there was no response (status 0), `other` outside 100–599. */
export function statusClass(status: number): string {
  if (status === 0) return 'none';
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other';
}

/** Fetch latency buckets (seconds): prom-client's defaults and the slow end of a body timeout. */
const FETCH_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Strategy call buckets (seconds): 10 µs to 1 s (a PageRank recompute). */
const STRATEGY_BUCKETS = [0.00001, 0.00003, 0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1];
/** Host states are read at most this often (ms): a scrape and a live page's poll share one reading. */
const HOST_STATES_MS = 1000;

/**
 * The Prometheus metrics of one crawl process (prom-client, its own registry) and the live page's
 * status, both fed by the crawl's events (`watch`), its `fetched` hook (latency) and its strategy
 * timing: nothing in the crawl loop. Per page: a few counter increments and one histogram
 * observation (cached label children, no allocation). Crawl totals, frontier sizes and host states
 * are read when scraped. Every metric and label is listed in the README (Metrics and the live page).
 */
export class CrawlMetrics implements PageHook, StrategyTiming {
  readonly registry = new Registry();
  readonly live: LiveStatus;
  private subject: MetricsSubject | null = null;
  private hostsRead: { at: number; value: HostStates | null; pending: Promise<HostStates | null> | null } = { at: -Infinity, value: null, pending: null };
  private readonly pages: Counter<'status_class' | 'outcome'>;
  private readonly relevantPages: Counter;
  private readonly bytes: Counter;
  private readonly discovered: Counter;
  private readonly warnings: Counter<'code'>;
  private readonly checks: Counter<'outcome'>;
  private readonly fetchSeconds: Histogram<'status_class'>;
  private readonly strategySeconds: Histogram<'strategy' | 'call'>;
  private readonly pageChildren = new Map<string, { inc(n?: number): void }>();
  private readonly fetchChildren = new Map<string, { observe(v: number): void }>();
  private readonly strategyChildren = new Map<string, { observe(v: number): void }>();

  constructor(readonly meta: StatusMeta, opts: { defaultMetrics?: boolean } = {}) {
    this.live = new LiveStatus(meta);
    const registers = [this.registry];
    if (meta.worker !== null) this.registry.setDefaultLabels({ worker: meta.worker });
    if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
    const P = 'topicrawl_';
    this.pages = new Counter({ name: `${P}pages_total`, help: 'Pages recorded by this process, by HTTP status class (none: no response) and outcome (ok, or the error code)', labelNames: ['status_class', 'outcome'], registers });
    this.relevantPages = new Counter({ name: `${P}relevant_pages_total`, help: 'Pages recorded by this process at or above the relevance threshold, duplicates left out (estimated relevant, as the harvest counts them)', registers });
    this.bytes = new Counter({ name: `${P}bytes_total`, help: 'Body bytes of the pages recorded by this process (after decompression)', registers });
    this.discovered = new Counter({ name: `${P}discovered_urls_total`, help: 'URLs new to the frontier found on the pages recorded by this process', registers });
    this.warnings = new Counter({ name: `${P}warnings_total`, help: 'Warnings of this process by code (retries, suspended hosts, W_*)', labelNames: ['code'], registers });
    this.checks = new Counter({ name: `${P}revisit_checks_total`, help: 'Revisits of crawl --revisit recorded by this process, by outcome (changed, unchanged, not_modified, deleted, failed, …)', labelNames: ['outcome'], registers });
    this.fetchSeconds = new Histogram({ name: `${P}fetch_duration_seconds`, help: 'Time of each HTTP fetch, retries included, from the request to the end of the body, by status class', labelNames: ['status_class'], buckets: FETCH_BUCKETS, registers });
    this.strategySeconds = new Histogram({ name: `${P}strategy_duration_seconds`, help: 'Time of each call of the ordering strategy, by strategy and call', labelNames: ['strategy', 'call'], buckets: STRATEGY_BUCKETS, registers });
    const live = this.live;
    const fromSnapshot = (name: string, help: string, read: (s: NonNullable<ReturnType<LiveStatus['totals']>>) => number) =>
      new Gauge({ name: `${P}${name}`, help, registers, collect() {
        const t = live.totals();
        if (t) this.set(read(t));
      } });
    fromSnapshot('crawl_pages', 'Pages with a recorded outcome in the crawl file, earlier runs included (the summary\'s fetched)', (s) => s.fetched);
    fromSnapshot('crawl_relevant_pages', 'Pages of the crawl file at or above the relevance threshold', (s) => s.relevant);
    fromSnapshot('harvest_ratio', 'Estimated harvest: crawl_relevant_pages / crawl_pages', (s) => s.harvest);
    fromSnapshot('crawl_errors', 'Outcomes with an error code in the crawl file, and hosts whose robots.txt could not be fetched', (s) => s.errors);
    fromSnapshot('frontier_urls', 'URLs queued in the frontier (the shared frontier\'s, for a worker of a shared crawl)', (s) => s.frontier);
    fromSnapshot('pruned_urls', 'URLs pruned by Fish life', (s) => s.pruned);
    fromSnapshot('discovery_rate', 'New URLs per page over the last 100 pages', (s) => s.discoveryRate);
    const self = this;
    new Gauge({ name: `${P}frontier_hosts`, help: 'Hosts by scheduling state: waiting (may be contacted now), sleeping (politeness delay or back-off), suspended', labelNames: ['state'], registers, async collect() {
      const h = await self.hostStates();
      if (h) for (const state of ['waiting', 'sleeping', 'suspended'] as const) this.set({ state }, h[state]);
    } });
    // the pipeline's totals, read when scraped: their rate over a window is the window's mean
    // (pages at each stage, empty slots, busy threads)
    const fromPipeline = (name: string, help: string, label: string, read: (r: PipelineReading) => Record<string, number | null>) =>
      new Counter({ name: `${P}${name}`, help, labelNames: [label], registers, collect() {
        const r = self.subject?.pipelineTotals?.();
        if (!r) return;
        this.reset();
        for (const [k, v] of Object.entries(read(r))) if (v !== null) this.inc({ [label]: k }, v);
      } });
    fromPipeline('pipeline_page_seconds_total', 'Pages in the crawl\'s pipeline integrated over time (rate: pages on average), by stage: in_flight (claimed, not yet recorded), of them fetching and analysing (waiting for or in analysis)', 'stage',
      (r) => ({ in_flight: r.pageSeconds.inFlight, fetching: r.pageSeconds.fetching, analysing: r.pageSeconds.analysing }));
    fromPipeline('pipeline_empty_slot_seconds_total', 'Free slots of politeness.concurrency left empty, integrated over time (rate: empty slots on average), by why: order (held for best-first order), politeness (every host waiting for its delay), other (nothing to fetch)', 'reason',
      (r) => ({ order: r.emptySlotSeconds.order, politeness: r.emptySlotSeconds.politeness, other: r.emptySlotSeconds.other }));
    fromPipeline('thread_busy_seconds_total', 'Seconds the crawl\'s thread and the page-analysis threads (together) were busy since the run started (rate: busy share; analysis absent when pages are analysed on the crawl\'s thread)', 'thread',
      (r) => ({ crawl: r.busySeconds.crawl, analysis: r.busySeconds.analysis }));
    fromPipeline('analysis_wait_seconds_total', 'Seconds the pages analysed on the analysis threads since the run started spent, in all, by part: queued (from the hand-over to the start of their analysis), analysed (the analysis, wall clock), returning (from the result posted until the crawl\'s thread read it); divided by analysed_pages_total\'s rate: a page\'s mean. Absent when pages are analysed on the crawl\'s thread', 'part',
      (r): Record<string, number | null> => (r.analysisWaits ? { queued: r.analysisWaits.queuedMs / 1000, analysed: r.analysisWaits.analysingMs / 1000, returning: r.analysisWaits.returningMs / 1000 } : {}));
    new Counter({ name: `${P}analysed_pages_total`, help: 'Pages analysed on the analysis threads since the run started (0 when pages are analysed on the crawl\'s thread)', registers, collect() {
      const w = self.subject?.pipelineTotals?.()?.analysisWaits;
      this.reset();
      if (w) this.inc(w.pages);
    } });
    new Gauge({ name: `${P}crawl_info`, help: 'The crawl this process works on: its topic and strategy (value 1)', labelNames: ['topic', 'strategy'], registers })
      .set({ topic: meta.topic, strategy: meta.strategy }, 1);
  }

  /** Subscribes to a crawl's events; returns a function that unsubscribes. */
  watch(subject: MetricsSubject): () => void {
    this.subject = subject;
    const onStart = () => this.live.started();
    const onEnd = (e: { reason: StopReason }) => this.live.ended(e.reason);
    const onPage = (e: PageEvent) => this.page(e);
    const onProgress = (s: ProgressSnapshot) => this.live.progress(s);
    const onWarn = (w: { code: string }) => {
      this.warnings.inc({ code: w.code });
      this.live.warn(w.code);
    };
    subject.on('start', onStart).on('end', onEnd).on('page', onPage).on('progress', onProgress).on('warn', onWarn);
    return () => {
      subject.off('start', onStart).off('end', onEnd).off('page', onPage).off('progress', onProgress).off('warn', onWarn);
    };
  }

  private page(e: PageEvent): void {
    const sc = statusClass(e.status);
    const outcome = e.error ?? 'ok';
    const key = `${sc} ${outcome}`;
    let c = this.pageChildren.get(key);
    if (!c) this.pageChildren.set(key, (c = this.pages.labels(sc, outcome)));
    c.inc();
    if (inHarvest(e)) this.relevantPages.inc();
    if (e.bytes) this.bytes.inc(e.bytes);
    if (e.newUrls) this.discovered.inc(e.newUrls);
    this.live.page(e);
  }

  /** PageHook: every response as it came, retries included (latency). */
  fetched(_item: HookItem, res: FetchResult): void {
    const sc = statusClass(res.status);
    let h = this.fetchChildren.get(sc);
    if (!h) this.fetchChildren.set(sc, (h = this.fetchSeconds.labels(sc)));
    h.observe(res.elapsedMs / 1000);
  }

  /** PageHook: a recrawl's checks (`crawl --revisit`); a crawl's pages are counted from its page events. */
  recorded(_item: HookItem, what: { page: PageEvent } | { check: CheckEvent }): void {
    if ('check' in what) this.checks.inc({ outcome: what.check.outcome });
  }

  /** StrategyTiming. */
  timed(strategy: string, call: StrategyCall, seconds: number): void {
    const key = `${strategy} ${call}`;
    let h = this.strategyChildren.get(key);
    if (!h) this.strategyChildren.set(key, (h = this.strategySeconds.labels(strategy, call)));
    h.observe(seconds);
  }

  /** The host states, read at most once a second (a failed read keeps the last one). */
  private hostStates(): Promise<HostStates | null> {
    const r = this.hostsRead;
    if (!this.subject || Date.now() - r.at < HOST_STATES_MS) return Promise.resolve(r.value);
    r.pending ??= this.subject.hostStates().then(
      (v) => (r.value = v ?? r.value),
      () => r.value,
    ).finally(() => {
      r.at = Date.now();
      r.pending = null;
    });
    return r.pending;
  }

  /** The exposition text of `/metrics`. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  /** The answer of `/status.json`. */
  async status(): Promise<StatusJson> {
    return this.live.json(await this.hostStates());
  }
}
