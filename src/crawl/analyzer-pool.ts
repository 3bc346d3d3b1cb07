import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { TopicrawlError } from '../errors.js';
import type { AnalysisConfig, AnalysisInput, PageAnalysis } from './page-analysis.js';
import { unpackAnalysis, type WireAnalysis } from './analysis-wire.js';
import { NO_WAITS, type AnalysisWaitTotals } from './pipeline-meter.js';

interface Slot {
  w: Worker;
  busy: number;
  /** Pages handed over in this turn of the event loop, sent together at its end (see analyze()). */
  outbox: { id: number; input: AnalysisInput }[];
  /** Settles once the thread has loaded (its 'ready' message), or has ended. */
  ready: Promise<void>;
  exited: Promise<void>;
}

/** How long close() waits for a thread to end by itself before terminating it. */
const CLOSE_GRACE_MS = 10_000;

/** Most analysis threads a crawl process may be given (`--analysis-threads`). */
export const MAX_ANALYSIS_THREADS = 64;

/** Most analysis threads a crawl process starts by default (more did not pay in earlier measurements). */
const MAX_DEFAULT_THREADS = 4;

/**
 * The analysis threads a crawl process starts when not told (`crawl --analysis-threads`): one per
 * core left once the crawl's own thread has one, shared among `processes` crawl processes on the
 * machine (`--workers`), 1 to 4. On this project's 2-core machine one thread did better than one per
 * core (scripts/bench-crawl.ts, README "One analysis thread on 2 cores"): each thread is a V8 isolate
 * that compiles and collects on its own, and two of them beside the crawl's thread oversubscribe 2 cores.
 */
export function defaultAnalysisThreads(cores = availableParallelism(), processes = 1): number {
  return Math.max(1, Math.min(MAX_DEFAULT_THREADS, Math.floor(cores / Math.max(1, processes)) - 1));
}

/**
 * Where the analysis thread's code comes from, by where this module runs: compiled, the bundle
 * dist/crawl/page-worker.cjs through its code cache (bin/load-bundle.cjs, as the CLI's); from tsc's
 * output, page-worker.js itself; from the sources, an entry that loads page-worker.ts through tsx
 * (threads do not inherit the main thread's loader). Paths from the dist/ or src/ folder: in dist/
 * this code runs from the bundle dist/cli/main.cjs, one folder deep as it is.
 */
function workerEntry(): { entry: string | URL; eval: boolean } {
  const here = import.meta.url;
  if (here.endsWith('.cjs')) {
    const load = fileURLToPath(new URL('../../bin/load-bundle.cjs', here));
    const bundle = fileURLToPath(new URL('../crawl/page-worker.cjs', here));
    return { entry: `require(${JSON.stringify(load)}).loadBundle(${JSON.stringify(bundle)})`, eval: true };
  }
  return { entry: new URL(here.endsWith('.ts') ? '../crawl/page-worker-entry.js' : '../crawl/page-worker.js', here), eval: false };
}

/**
 * Runs page analysis on worker threads so parsing and scoring use the machine's other cores while
 * the main thread fetches and writes the store. With `workers: 0` it runs inline (same results).
 * The default: {@link defaultAnalysisThreads}.
 */
export class AnalyzerPool {
  private readonly workers: Slot[] = [];
  private readonly pending = new Map<number, { resolve: (a: PageAnalysis) => void; reject: (e: Error) => void; slot: Slot; handedAt: number }>();
  /** Where the analysed pages' time went so far (see {@link waits}). */
  private readonly waitTotals: AnalysisWaitTotals = { ...NO_WAITS };
  /** `workers: 0`: the analysis in this thread (page-analysis.js, parse5 and the decoders, loaded then only) */
  private inline: Promise<(i: AnalysisInput) => PageAnalysis> | null;
  private nextId = 1;

  constructor(private readonly cfg: AnalysisConfig, workers = defaultAnalysisThreads()) {
    this.threads = workers;
    this.inline = workers > 0 ? null : AnalyzerPool.inlineAnalyzer(cfg);
    const code = workers > 0 ? workerEntry() : null;
    for (let i = 0; i < workers; i++) {
      const w = new Worker(code!.entry, { workerData: cfg, eval: code!.eval });
      let loaded!: () => void;
      const ready = new Promise<void>((resolve) => (loaded = resolve));
      const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      void exited.then(loaded);
      const slot: Slot = { w, busy: 0, outbox: [], ready, exited };
      w.on('message', (m: { id: number; result?: WireAnalysis; at?: [number, number]; error?: string; ready?: true }) => {
        if (m.ready) return loaded();
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.at) this.timed(p.handedAt, m.at[0], m.at[1]);
        if (--p.slot.busy === 0) p.slot.w.unref();
        if (m.result) p.resolve(unpackAnalysis(m.result));
        else p.reject(new TopicrawlError('E_PARSE', m.error ?? 'page analysis failed'));
      });
      w.on('error', (err) => this.failAll(slot, err));
      w.unref();
      this.workers.push(slot);
    }
  }

  private static async inlineAnalyzer(cfg: AnalysisConfig): Promise<(i: AnalysisInput) => PageAnalysis> {
    const { createAnalyzer } = await import('./page-analysis.js');
    return createAnalyzer(cfg);
  }

  /** The analysis threads this pool started (0: it analyses inline), after close() too. */
  readonly threads: number;

  /**
   * Scores the pages with these keywords from now on (relevance feedback: the topic's plus the
   * added terms). A page handed to analyze() after this call is scored with them; one handed before
   * (already sent to a thread) keeps the keywords it was sent with.
   */
  setKeywords(keywords: Record<string, number>): void {
    if (this.inline) this.inline = AnalyzerPool.inlineAnalyzer({ ...this.cfg, keywords: { ...keywords } });
    for (const s of this.workers) {
      this.send(s); // (pages handed over before keep the keywords they were handed over with)
      s.w.postMessage({ keywords });
    }
  }

  analyze(input: AnalysisInput): Promise<PageAnalysis> {
    if (this.inline) {
      return this.inline.then((analyze) => {
        try {
          return analyze(input);
        } catch (err) {
          throw new TopicrawlError('E_PARSE', err instanceof Error ? err.message : String(err));
        }
      });
    }
    let slot = this.workers[0];
    for (const s of this.workers) if (s.busy < slot.busy) slot = s;
    const id = this.nextId++;
    if (slot.busy++ === 0) slot.w.ref();
    const handedAt = performance.timeOrigin + performance.now();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, slot, handedAt });
      // the pages handed over in this turn go in one message at its end: each message wakes the
      // thread, which on a busy machine costs more than the copy
      if (slot.outbox.push({ id, input }) === 1) setImmediate(() => this.send(slot));
    });
  }

  /**
   * How busy the threads were over their lives (their event loops): the share of the time, on
   * average, and the seconds, all threads together; null when the pool analyses on the calling
   * thread, or after close().
   */
  busy(): { share: number; seconds: number } | null {
    if (this.workers.length === 0) return null;
    let share = 0;
    let ms = 0;
    for (const s of this.workers) {
      const u = s.w.performance.eventLoopUtilization();
      share += u.utilization;
      ms += u.active;
    }
    return { share: share / this.workers.length, seconds: ms / 1000 };
  }

  /**
   * Where the time of the pages analysed on the threads went, in all since the pool started: from
   * the hand-over (analyze()) to the start of the page's analysis on its thread (`queuedMs`: the
   * outbox, the message, the pages before it), the analysis itself (`analysingMs`, the thread's wall
   * clock, packing the result included) and from the result's post to this thread reading it
   * (`returningMs`: this thread's event loop busy with other work). Null when the pool analyses on
   * the calling thread. Clock readings of two threads: a negative span (their origins differ by a
   * few µs) counts as 0.
   */
  waits(): AnalysisWaitTotals | null {
    return this.threads > 0 ? { ...this.waitTotals } : null;
  }

  private timed(handedAt: number, started: number, ended: number): void {
    const t = this.waitTotals;
    t.pages++;
    t.queuedMs += Math.max(0, started - handedAt);
    t.analysingMs += Math.max(0, ended - started);
    t.returningMs += Math.max(0, performance.timeOrigin + performance.now() - ended);
  }

  /** Sends a thread the pages waiting in its outbox. */
  private send(slot: Slot): void {
    if (slot.outbox.length === 0) return;
    const pages = slot.outbox;
    slot.outbox = [];
    slot.w.postMessage({ pages });
  }

  /**
   * Ends the threads. Each is asked to end after the pages sent to it (and only once it has loaded):
   * a thread terminated while it runs native code (the language detector, or loading it) would
   * abort the whole process. One that has not ended within CLOSE_GRACE_MS is terminated.
   */
  async close(): Promise<void> {
    await Promise.all(
      this.workers.map(async (s) => {
        s.w.ref(); // (an idle thread is unref'd: the process must wait for it now)
        await s.ready;
        this.send(s);
        s.w.postMessage({ close: true });
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), CLOSE_GRACE_MS)));
        const how = await Promise.race([s.exited, late]);
        clearTimeout(timer);
        if (how === 'late') await s.w.terminate();
      }),
    );
    this.workers.length = 0;
  }

  private failAll(slot: Slot, err: Error): void {
    for (const [id, p] of this.pending) {
      if (p.slot !== slot) continue;
      this.pending.delete(id);
      p.reject(new TopicrawlError('E_INTERNAL', `analysis worker failed: ${err.message}`));
    }
  }
}
