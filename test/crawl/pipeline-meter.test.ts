import { describe, expect, it } from 'vitest';
import type { Settlement } from '../../src/frontier/frontier.js';
import { Engine, type SourceClaim, type WorkSource } from '../../src/crawl/engine.js';
import { combinePipelines, PipelineMeter, RunPipeline, waitMeans, waitsSince, type AnalysisWaitTotals, type PipelineSummary } from '../../src/crawl/pipeline-meter.js';
import { pipelineLine } from '../../src/cli/format.js';

/** A clock the test moves by hand. */
function manualClock() {
  let t = 1000;
  return { now: () => t, to: (x: number) => (t = 1000 + x) };
}

describe('PipelineMeter', () => {
  it('gives time-weighted means of the pages in the pipeline, at each stage, and of the empty slots by why', () => {
    const c = manualClock();
    const m = new PipelineMeter(4, c.now);
    // 0–10: one page fetching, the frontier holds the other 3 slots for best-first order
    m.pipeline(1);
    m.stage('fetching', 1);
    m.waiting('order');
    c.to(10);
    // 10–30: that page at analysis, a second one fetching; the frontier waits for a politeness delay
    m.stage('fetching', -1);
    m.stage('analysing', 1);
    m.pipeline(1);
    m.stage('fetching', 1);
    m.waiting('politeness');
    c.to(30);
    // 30–40: both leave; nothing to fetch
    m.stage('analysing', -1);
    m.stage('fetching', -1);
    m.pipeline(-1);
    m.pipeline(-1);
    m.waiting('other');
    c.to(40);
    const s = m.summary({ crawlThread: 0.5, analysisThreads: 0.25 });
    expect(s.concurrency).toBe(4);
    expect(s.meanInFlight).toBeCloseTo((1 * 10 + 2 * 20) / 40);
    expect(s.meanFetching).toBeCloseTo((1 * 10 + 1 * 20) / 40);
    expect(s.meanAnalysing).toBeCloseTo((1 * 20) / 40);
    expect(s.idleSlots.order).toBeCloseTo((3 * 10) / 40);
    expect(s.idleSlots.politeness).toBeCloseTo((2 * 20) / 40);
    expect(s.idleSlots.other).toBeCloseTo((4 * 10) / 40);
    expect([s.crawlThreadBusy, s.analysisThreadsBusy]).toEqual([0.5, 0.25]);
  });

  it('counts no empty slot while the engine is not waiting for the frontier, and no time at all gives zeros', () => {
    const c = manualClock();
    const m = new PipelineMeter(2, c.now);
    expect(m.summary({ crawlThread: 0, analysisThreads: null }).meanInFlight).toBe(0);
    m.pipeline(1);
    m.waiting('order');
    m.waiting(null);
    c.to(20);
    const s = m.summary({ crawlThread: 0, analysisThreads: null });
    expect(s.meanInFlight).toBeCloseTo(1);
    expect(s.idleSlots).toEqual({ order: 0, politeness: 0, other: 0 });
  });

  it('keeps running totals in seconds for monitoring, which stop growing when the run ends', () => {
    const c = manualClock();
    const m = new PipelineMeter(3, c.now);
    m.pipeline(1);
    m.stage('analysing', 1);
    m.waiting('politeness');
    c.to(500);
    expect(m.totals()).toEqual({ pageSeconds: { inFlight: 0.5, fetching: 0, analysing: 0.5 }, emptySlotSeconds: { order: 0, politeness: 1, other: 0 } });
    c.to(1000);
    m.end();
    const atEnd = m.totals();
    expect(atEnd.pageSeconds.inFlight).toBeCloseTo(1);
    expect(atEnd.emptySlotSeconds.politeness).toBeCloseTo(2);
    c.to(5000);
    expect(m.totals()).toEqual(atEnd);
    expect(m.summary({ crawlThread: 0, analysisThreads: null }).meanInFlight).toBeCloseTo(1);
  });

  it('combines several processes: limits, pages and empty slots added, busy shares averaged', () => {
    const p = (n: number, busy: number | null): PipelineSummary => ({
      concurrency: 8, meanInFlight: n, meanFetching: n / 2, meanAnalysing: n / 4, idleSlots: { order: 1, politeness: n, other: 0.5 },
      crawlThreadBusy: n / 10, analysisThreadsBusy: busy, analysisWaits: busy === null ? null : { queuedMs: n, analysingMs: 1, returningMs: n / 2 },
    });
    const both = combinePipelines([p(2, 0.5), p(4, null), null, p(6, 0.9)])!;
    expect(both.concurrency).toBe(24);
    expect(both.meanInFlight).toBeCloseTo(12);
    expect(both.meanFetching).toBeCloseTo(6);
    expect(both.meanAnalysing).toBeCloseTo(3);
    expect(both.idleSlots.order).toBeCloseTo(3);
    expect(both.idleSlots.politeness).toBeCloseTo(12);
    expect(both.idleSlots.other).toBeCloseTo(1.5);
    expect(both.crawlThreadBusy).toBeCloseTo(0.4);
    expect(both.analysisThreadsBusy).toBeCloseTo(0.7);
    // a page's waits at analysis: the mean of the processes that analysed on threads
    expect(both.analysisWaits!.queuedMs).toBeCloseTo(4);
    expect(both.analysisWaits!.analysingMs).toBeCloseTo(1);
    expect(both.analysisWaits!.returningMs).toBeCloseTo(2);
    expect(combinePipelines([null])).toBeNull();
    expect(combinePipelines([p(1, null)])!.analysisThreadsBusy).toBeNull();
    expect(combinePipelines([p(1, null)])!.analysisWaits).toBeNull();
  });

  it('reads as one line in the crawl summary', () => {
    const line = pipelineLine({
      concurrency: 16, meanInFlight: 5.94, meanFetching: 2.01, meanAnalysing: 3.86, idleSlots: { order: 9.71, politeness: 0, other: 0.26 },
      crawlThreadBusy: 0.554, analysisThreadsBusy: 0.846, analysisWaits: { queuedMs: 3.66, analysingMs: 0.757, returningMs: 0.604 },
    });
    expect(line).toBe('5.9 of 16 pages in flight on average (2.0 fetching, 3.9 at analysis); empty slots: 9.7 held for best-first order, ' +
      '0.0 for politeness, 0.3 nothing to fetch; busy: crawl thread 55%, analysis threads 85%; ' +
      'a page at analysis: 3.7 ms queued, 0.8 ms analysed, 0.6 ms back to the crawl thread');
    expect(pipelineLine({
      concurrency: 1, meanInFlight: 1, meanFetching: 0.5, meanAnalysing: 0.5, idleSlots: { order: 0, politeness: 0, other: 0 },
      crawlThreadBusy: 0.9, analysisThreadsBusy: null, analysisWaits: null,
    })).toMatch(/busy: crawl thread 90% \(analysis on it\)$/);
  });
});

describe('waitsSince and waitMeans', () => {
  it('give the pages analysed between two readings of the totals, and their means', () => {
    const at = (pages: number, q: number, a: number, r: number): AnalysisWaitTotals => ({ pages, queuedMs: q, analysingMs: a, returningMs: r });
    expect(waitsSince(at(10, 30, 8, 5), at(30, 90, 24, 9))).toEqual(at(20, 60, 16, 4));
    expect(waitMeans(waitsSince(at(10, 30, 8, 5), at(30, 90, 24, 9)))).toEqual({ queuedMs: 3, analysingMs: 0.8, returningMs: 0.2 });
    expect(waitMeans(waitsSince(null, at(4, 8, 4, 2)))).toEqual({ queuedMs: 2, analysingMs: 1, returningMs: 0.5 });
    expect(waitMeans(waitsSince(at(4, 8, 4, 2), at(4, 8, 4, 2)))).toBeNull(); // no page in between
    expect(waitsSince(null, null)).toBeNull(); // analysis on the crawl's thread
    expect(waitMeans(null)).toBeNull();
  });
});

describe('RunPipeline', () => {
  it("counts only the pages its run analysed in a page's waits at analysis", () => {
    let totals: AnalysisWaitTotals = { pages: 100, queuedMs: 500, analysingMs: 100, returningMs: 50 }; // a run before this one
    const run = new RunPipeline(2, { busy: () => ({ share: 0.5, seconds: 1 }), waits: () => totals });
    totals = { pages: 104, queuedMs: 510, analysingMs: 103, returningMs: 50.5 };
    expect(run.reading().analysisWaits).toEqual({ pages: 4, queuedMs: 10, analysingMs: 3, returningMs: 0.5 }); // monitoring: this run's so far
    totals = { pages: 110, queuedMs: 520, analysingMs: 108, returningMs: 51 };
    const w = run.end().analysisWaits!;
    expect(w.queuedMs).toBeCloseTo(2);
    expect(w.analysingMs).toBeCloseTo(0.8);
    expect(w.returningMs).toBeCloseTo(0.1);
    totals = { pages: 200, queuedMs: 900, analysingMs: 200, returningMs: 90 }; // after the end: as it was then
    expect(run.reading().analysisWaits).toEqual({ pages: 10, queuedMs: 20, analysingMs: 8, returningMs: 1 });
    expect(new RunPipeline(2, { busy: () => null, waits: () => null }).end().analysisWaits).toBeNull();
  });

  it('reads the analysis threads while the run goes on, and keeps what they were when it ended', async () => {
    let threadSeconds = 0.25;
    const run = new RunPipeline(2, { busy: () => ({ share: 0.5, seconds: threadSeconds }) });
    run.meter.pipeline(1);
    await new Promise((r) => setTimeout(r, 20));
    expect(run.reading().busySeconds.analysis).toBe(0.25);
    threadSeconds = 0.5;
    expect(run.reading().busySeconds.analysis).toBe(0.5);
    const summary = run.end();
    expect(summary.analysisThreadsBusy).toBe(0.5);
    expect(summary.meanInFlight).toBeGreaterThan(0.9);
    expect(summary.crawlThreadBusy).toBeGreaterThanOrEqual(0);
    expect(summary.crawlThreadBusy).toBeLessThanOrEqual(1);
    // the threads are closed after the run: the figures stay as they were at its end
    const atEnd = run.reading();
    threadSeconds = 9;
    await new Promise((r) => setTimeout(r, 10));
    expect(run.reading()).toEqual(atEnd);
    expect(atEnd.busySeconds.analysis).toBe(0.5);
    expect(atEnd.pageSeconds.inFlight).toBeGreaterThan(0.015);
    expect(run.end()).toBe(summary);
  });
});

/** Items that take `ms` each; claims answer `answer` (hold or wait) whenever `busy` items are in flight. */
class HoldingSource implements WorkSource<number> {
  private next = 1;
  inFlight = 0;
  constructor(private readonly total: number, private readonly busy: number, private readonly answer: 'hold' | 'wait') {}

  async claim(max: number, now: number): Promise<SourceClaim<number>> {
    if (this.next > this.total) return { kind: 'empty' };
    if (this.inFlight >= this.busy) return this.answer === 'hold' ? { kind: 'hold', until: null } : { kind: 'wait', until: now + 2 };
    const n = Math.min(max, this.busy - this.inFlight, this.total - this.next + 1);
    this.inFlight += n;
    return { kind: 'urls', leases: Array.from({ length: n }, () => this.next++) };
  }

  async settle(_w: number, _how: Settlement): Promise<boolean> {
    this.inFlight--;
    return true;
  }
}

describe('Engine and PipelineMeter', () => {
  for (const answer of ['hold', 'wait'] as const) {
    it(`counts the slots a source leaves empty with '${answer}' under ${answer === 'hold' ? 'best-first order' : 'politeness'}`, async () => {
      const meter = new PipelineMeter(6);
      const source = new HoldingSource(12, 2, answer);
      let most = 0;
      const engine = new Engine<number>({
        source, concurrency: 6, meter,
        handle: async () => {
          most = Math.max(most, source.inFlight);
          await new Promise((r) => setTimeout(r, 15));
          return { state: 'done' };
        },
      });
      expect(await engine.run()).toBe('done');
      const s = meter.summary({ crawlThread: 0, analysisThreads: null });
      expect(most).toBe(2);
      // two in flight nearly all the time: the other four slots were left empty, for the source's reason
      expect(s.meanInFlight).toBeGreaterThan(1);
      expect(s.meanInFlight).toBeLessThanOrEqual(2);
      const [mine, theirs] = answer === 'hold' ? [s.idleSlots.order, s.idleSlots.politeness] : [s.idleSlots.politeness, s.idleSlots.order];
      expect(mine).toBeGreaterThan(2);
      expect(mine).toBeLessThanOrEqual(6 - s.meanInFlight + 1e-9);
      expect(theirs).toBe(0);
    });
  }
});
