/** The stages of a page in the crawl's pipeline that the meter follows (the rest of its time: robots.txt, recording). */
export type PipelineStage = 'fetching' | 'analysing';

/** Why the engine left free slots empty: the frontier's answer to its last claim (engine.ts). */
export type IdleReason = 'order' | 'politeness' | 'other';

/**
 * How full the crawl's pipeline was over a run: time-weighted means, so that they can be read
 * against `politeness.concurrency` and against each other (all in pages, or slots).
 */
export interface PipelineSummary {
  /** The crawl's limit of pages in the pipeline (`politeness.concurrency`; `--workers`: all processes'). */
  concurrency: number;
  /** Pages in the pipeline on average: claimed and not yet recorded. */
  meanInFlight: number;
  /** Of those, pages whose request was in flight. */
  meanFetching: number;
  /** Of those, pages waiting for their analysis or being analysed. */
  meanAnalysing: number;
  /**
   * Free slots left empty on average, by why the frontier had no URL for them: `order`, a URL was
   * held back for best-first order (better ones wait only for requests in flight: see BusyHosts);
   * `politeness`, every host with queued URLs was waiting for its delay or back-off; `other`, nothing
   * queued while pages were still in flight, the budget reached, or too few slots free to claim.
   */
  idleSlots: Record<IdleReason, number>;
  /** Share of the run's time the crawl's thread was busy (its event loop utilisation). */
  crawlThreadBusy: number;
  /** Share of their time the analysis threads were busy, on average; null when pages were analysed on the crawl's thread. */
  analysisThreadsBusy: number | null;
  /**
   * A page's time at analysis, in ms on average (see {@link AnalysisWaits}); null when pages were
   * analysed on the crawl's thread, or none was analysed.
   */
  analysisWaits: AnalysisWaits | null;
}

/**
 * Where a page's time at analysis goes, in ms on average: queued for its analysis thread (from the
 * hand-over to the start of its analysis), analysed (the analysis on the thread's wall clock), and
 * returning (from the result's post until the crawl's thread reads it, its event loop busy with
 * other work). Pages queued at the analysis threads: they are what the crawl waits for; results
 * returning late: the crawl's thread is.
 */
export interface AnalysisWaits {
  queuedMs: number;
  analysingMs: number;
  returningMs: number;
}

/** Totals of {@link AnalysisWaits} over `pages` pages (AnalyzerPool.waits). */
export interface AnalysisWaitTotals {
  pages: number;
  queuedMs: number;
  analysingMs: number;
  returningMs: number;
}

/** No page analysed yet. */
export const NO_WAITS: Readonly<AnalysisWaitTotals> = { pages: 0, queuedMs: 0, analysingMs: 0, returningMs: 0 };

/** The pages analysed between two readings of the totals (`from` null: since the start), and their time; null when `to` is. */
export function waitsSince(from: AnalysisWaitTotals | null, to: AnalysisWaitTotals | null): AnalysisWaitTotals | null {
  if (!to) return null;
  const b = from ?? NO_WAITS;
  return { pages: to.pages - b.pages, queuedMs: to.queuedMs - b.queuedMs, analysingMs: to.analysingMs - b.analysingMs, returningMs: to.returningMs - b.returningMs };
}

/** A page's means of such totals (null: no page). */
export function waitMeans(t: AnalysisWaitTotals | null): AnalysisWaits | null {
  if (!t || t.pages <= 0) return null;
  return { queuedMs: t.queuedMs / t.pages, analysingMs: t.analysingMs / t.pages, returningMs: t.returningMs / t.pages };
}

/**
 * The meter's running totals, for monitoring (Prometheus counters: their rates over a window are
 * the window's means): page-seconds at each stage, and slot-seconds left empty by why.
 */
export interface PipelineTotals {
  pageSeconds: { inFlight: number; fetching: number; analysing: number };
  emptySlotSeconds: Record<IdleReason, number>;
}

/** A crawl's pipeline totals with its threads' busy time, as monitoring reads them (Crawler.pipelineTotals). */
export interface PipelineReading extends PipelineTotals {
  /** Seconds the crawl's thread was busy since the run started; the analysis threads' together (null: none). */
  busySeconds: { crawl: number; analysis: number | null };
  /** The run's pages analysed on the threads so far and where their time went, in all (null: analysis on the crawl's thread). */
  analysisWaits: AnalysisWaitTotals | null;
}

/**
 * Measures the pipeline's levels as they change (the engine and the page pipeline call it): each
 * level's area under the curve over time, and the free slots' while the engine waits, by reason.
 * A few clock reads a page.
 */
export class PipelineMeter {
  private readonly start: number;
  private last: number;
  private inFlight = 0;
  private readonly level: Record<PipelineStage, number> = { fetching: 0, analysing: 0 };
  private inFlightArea = 0;
  private readonly area: Record<PipelineStage, number> = { fetching: 0, analysing: 0 };
  private readonly idleArea: Record<IdleReason, number> = { order: 0, politeness: 0, other: 0 };
  private idle: IdleReason | null = null;
  private ended = false;

  constructor(private readonly concurrency: number, private readonly now: () => number = () => performance.now()) {
    this.start = this.last = now();
  }

  /** A page entered (+1) or left (-1) the pipeline. */
  pipeline(delta: 1 | -1): void {
    this.advance();
    this.inFlight += delta;
  }

  /** A page entered or left a stage. */
  stage(stage: PipelineStage, delta: 1 | -1): void {
    this.advance();
    this.level[stage] += delta;
  }

  /** The engine waits with its free slots empty for this reason, or (null) is not waiting for the frontier. */
  waiting(reason: IdleReason | null): void {
    if (reason === this.idle) return;
    this.advance();
    this.idle = reason;
  }

  /** The totals so far (see {@link PipelineTotals}); after end(), as they were then. */
  totals(): PipelineTotals {
    this.advance();
    const s = (ms: number) => ms / 1000;
    return {
      pageSeconds: { inFlight: s(this.inFlightArea), fetching: s(this.area.fetching), analysing: s(this.area.analysing) },
      emptySlotSeconds: { order: s(this.idleArea.order), politeness: s(this.idleArea.politeness), other: s(this.idleArea.other) },
    };
  }

  /** The run ended: the figures stop here. */
  end(): void {
    this.advance();
    this.ended = true;
  }

  /** The means from the start to now (to the end, after end()). */
  summary(busy: { crawlThread: number; analysisThreads: number | null; analysisWaits?: AnalysisWaits | null }): PipelineSummary {
    this.advance();
    const span = this.last - this.start;
    const mean = (area: number) => (span > 0 ? area / span : 0);
    return {
      concurrency: this.concurrency,
      meanInFlight: mean(this.inFlightArea),
      meanFetching: mean(this.area.fetching),
      meanAnalysing: mean(this.area.analysing),
      idleSlots: { order: mean(this.idleArea.order), politeness: mean(this.idleArea.politeness), other: mean(this.idleArea.other) },
      crawlThreadBusy: busy.crawlThread,
      analysisThreadsBusy: busy.analysisThreads,
      analysisWaits: busy.analysisWaits ?? null,
    };
  }

  private advance(): void {
    if (this.ended) return;
    const t = this.now();
    const dt = t - this.last;
    if (dt <= 0) return;
    this.inFlightArea += this.inFlight * dt;
    this.area.fetching += this.level.fetching * dt;
    this.area.analysing += this.level.analysing * dt;
    if (this.idle) this.idleArea[this.idle] += Math.max(0, this.concurrency - this.inFlight) * dt;
    this.last = t;
  }
}

/**
 * The pipeline of several crawl processes of one crawl (`--workers`) as one: their limits, pages and
 * idle slots added up (their runs overlap), their threads' busy shares and a page's waits at analysis averaged.
 */
export function combinePipelines(xs: (PipelineSummary | null)[]): PipelineSummary | null {
  const ps = xs.filter((x): x is PipelineSummary => x !== null);
  if (ps.length === 0) return null;
  const sum = (f: (p: PipelineSummary) => number) => ps.reduce((s, p) => s + f(p), 0);
  const analysed = ps.filter((p) => p.analysisThreadsBusy !== null);
  return {
    concurrency: sum((p) => p.concurrency),
    meanInFlight: sum((p) => p.meanInFlight),
    meanFetching: sum((p) => p.meanFetching),
    meanAnalysing: sum((p) => p.meanAnalysing),
    idleSlots: { order: sum((p) => p.idleSlots.order), politeness: sum((p) => p.idleSlots.politeness), other: sum((p) => p.idleSlots.other) },
    crawlThreadBusy: sum((p) => p.crawlThreadBusy) / ps.length,
    analysisThreadsBusy: analysed.length ? analysed.reduce((s, p) => s + p.analysisThreadsBusy!, 0) / analysed.length : null,
    analysisWaits: meanWaits(ps.map((p) => p.analysisWaits)),
  };
}

function meanWaits(xs: (AnalysisWaits | null | undefined)[]): AnalysisWaits | null {
  const ws = xs.filter((x): x is AnalysisWaits => x != null);
  if (ws.length === 0) return null;
  const mean = (f: (w: AnalysisWaits) => number) => ws.reduce((s, w) => s + f(w), 0) / ws.length;
  return { queuedMs: mean((w) => w.queuedMs), analysingMs: mean((w) => w.analysingMs), returningMs: mean((w) => w.returningMs) };
}

/** What a run's pipeline reads of its analysis threads (AnalyzerPool). */
interface AnalysisThreads {
  busy(): { share: number; seconds: number } | null;
  /** Totals of where analysed pages' time went since the threads started (null: analysis on the crawl's thread). */
  waits?(): AnalysisWaitTotals | null;
}

/**
 * One crawl run's pipeline figures: its meter, and the busy time of the crawl's thread (from the
 * run's start) and of the analysis threads. end() takes the summary as the run ends, before the
 * analysis threads are closed; reading() serves monitoring during the run and after.
 */
export class RunPipeline {
  readonly meter: PipelineMeter;
  private readonly since = performance.eventLoopUtilization();
  /** The analysis threads' wait totals as the run started (the pool may have served a run before). */
  private readonly waitsAtStart: AnalysisWaitTotals | null;
  private ended: { summary: PipelineSummary; busySeconds: PipelineReading['busySeconds']; analysisWaits: AnalysisWaitTotals | null } | null = null;

  constructor(concurrency: number, private readonly analysis: AnalysisThreads) {
    this.meter = new PipelineMeter(concurrency);
    this.waitsAtStart = analysis.waits?.() ?? null;
  }

  /** The run ended: stops the meter and returns the summary (the same on later calls). */
  end(): PipelineSummary {
    if (!this.ended) {
      this.meter.end();
      const crawl = performance.eventLoopUtilization(this.since);
      const analysis = this.analysis.busy();
      const waits = this.runWaits();
      this.ended = {
        summary: this.meter.summary({ crawlThread: crawl.utilization, analysisThreads: analysis?.share ?? null, analysisWaits: waitMeans(waits) }),
        busySeconds: { crawl: crawl.active / 1000, analysis: analysis?.seconds ?? null },
        analysisWaits: waits,
      };
    }
    return this.ended.summary;
  }

  /** The running totals and busy seconds (after end(), as they were then). */
  reading(): PipelineReading {
    if (this.ended) return { ...this.meter.totals(), busySeconds: this.ended.busySeconds, analysisWaits: this.ended.analysisWaits };
    const busySeconds = { crawl: performance.eventLoopUtilization(this.since).active / 1000, analysis: this.analysis.busy()?.seconds ?? null };
    return { ...this.meter.totals(), busySeconds, analysisWaits: this.runWaits() };
  }

  /** The analysis threads' wait totals of this run's pages (the totals now less those at its start). */
  private runWaits(): AnalysisWaitTotals | null {
    return waitsSince(this.waitsAtStart, this.analysis.waits?.() ?? null);
  }
}
