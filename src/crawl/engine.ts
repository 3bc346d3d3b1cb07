import type { Claim, Settlement } from '../frontier/frontier.js';
import type { PipelineMeter } from './pipeline-meter.js';

/**
 * Where the engine's work comes from: the crawl's frontier, or the revisit schedule's due pages.
 * The same contract as the Frontier door's claim and settle (leases, politeness, budget).
 */
export interface WorkSource<W> {
  /** How many items a claim should ask for at least (see Frontier.claimBatch); absent: 1. */
  readonly claimBatch?: number;
  claim(max: number, now: number): Promise<SourceClaim<W>>;
  settle(work: W, how: Settlement, now: number): Promise<boolean>;
}

export type SourceClaim<W> = Exclude<Claim, { kind: 'urls' }> | { kind: 'urls'; leases: W[] };

/** Why a run of the engine ended. */
export type EngineEnd = 'done' | 'signal' | 'max-pages' | 'max-bytes';

export interface EngineOptions<W> {
  source: WorkSource<W>;
  /** Most items in the pipeline at once. */
  concurrency: number;
  /**
   * One item through the pipeline; resolves to how its lease is settled. A rejection is fatal: the
   * engine stops taking work, lets the items in flight finish, and run() throws it.
   */
  handle(work: W): Promise<Settlement>;
  /** Called after each settle; `current` is false when the lease had expired and was served again. */
  settled?(work: W, current: boolean): void;
  /** Checked before each claim: a reason to stop now (a byte budget), or null. */
  limit?(): EngineEnd | null;
  /** The clock (ms); default Date.now. */
  now?: () => number;
  /** Waits `ms` on that clock; default a timer that a settle or stop() cuts short. A test clock advances itself. */
  sleep?: (ms: number) => Promise<void>;
  /** Told when items enter and leave the pipeline, and why free slots wait (pipeline-meter.ts). */
  meter?: PipelineMeter;
}

/**
 * The crawl engine's loop, shared by the crawl and the recrawl: claims work from a source while
 * fewer than `concurrency` items are in flight, runs each through the pipeline (`handle`), settles
 * it, and sleeps when the source says when to ask again. `stop()` ends it gracefully: nothing new
 * starts, items in flight finish and are settled.
 */
export class Engine<W> {
  /** Items in the pipeline or settling. */
  private readonly inFlight = new Set<Promise<void>>();
  /** Items in the pipeline (their handle has not resolved): a slot frees when its item's settle is sent, before its reply. */
  private handling = 0;
  private stopping = false;
  private fatal: unknown = null;
  private wake: (() => void) | null = null;
  private readonly now: () => number;

  /** Free slots the loop waits for before it claims (see WorkSource.claimBatch). */
  private readonly least: number;

  constructor(private readonly o: EngineOptions<W>) {
    this.now = o.now ?? Date.now;
    this.least = Math.max(1, Math.min(o.source.claimBatch ?? 1, Math.floor(o.concurrency / 4)));
  }

  get active(): number {
    return this.inFlight.size;
  }

  stop(): void {
    this.stopping = true;
    this.wake?.();
  }

  /** Makes the loop look again now (work was added from outside). */
  poke(): void {
    this.wake?.();
  }

  /** Fails the run with `err` (the loop stops and run() throws it once the items in flight are done). */
  fail(err: unknown): void {
    this.fatal ??= err;
    this.stopping = true;
    this.wake?.();
  }

  async run(): Promise<EngineEnd> {
    let end: EngineEnd = 'done';
    try {
      for (;;) {
        if (this.fatal) throw this.fatal;
        if (this.stopping) {
          end = 'signal';
          break;
        }
        const limited = this.o.limit?.();
        if (limited) {
          end = limited;
          break;
        }
        let waitUntil = Infinity;
        const room = this.o.concurrency - this.handling;
        // a source whose claims cost a round trip gets them in batches: a few free slots at a time
        // (at most a quarter of them), or at once when none is busy
        if (room > 0 && (room >= this.least || this.handling === 0)) {
          const next = await this.o.source.claim(room, this.now());
          if (next.kind === 'urls') {
            this.o.meter?.waiting(null);
            for (const w of next.leases) this.dispatch(w);
            continue;
          }
          this.o.meter?.waiting(next.kind === 'hold' ? 'order' : next.kind === 'wait' ? 'politeness' : 'other');
          if (next.kind === 'empty' && this.inFlight.size === 0) break;
          // items in flight may still turn out not to count (a retry, robots.txt): wait for them
          if (next.kind === 'budget' && this.inFlight.size === 0) {
            end = 'max-pages';
            break;
          }
          if (next.kind === 'wait') waitUntil = next.until;
          if (next.kind === 'hold') waitUntil = next.until ?? Infinity; // a settle wakes the loop
        } else this.o.meter?.waiting(room > 0 ? 'other' : null);
        if (this.fatal || this.stopping) continue;
        await this.sleep(waitUntil - this.now());
      }
      await Promise.all([...this.inFlight]);
      if (this.fatal) throw this.fatal;
      return end;
    } catch (err) {
      this.fatal ??= err;
      await Promise.allSettled([...this.inFlight]);
      throw this.fatal;
    }
  }

  private dispatch(w: W): void {
    this.handling++;
    this.o.meter?.pipeline(1);
    const settle = (how: Settlement) => {
      const s = this.o.source.settle(w, how, this.now());
      // the slot is free: the loop may claim now (a shared frontier sends the settle with that claim)
      this.handling--;
      this.o.meter?.pipeline(-1);
      this.wake?.();
      return s;
    };
    const p = this.o
      .handle(w)
      .then(
        (how) => settle(how),
        (err) => {
          this.fail(err);
          // nothing was recorded: the source puts it back (the embedded frontier keeps it out until reopen)
          return settle({ state: 'done' });
        },
      )
      .then(
        (current) => this.o.settled?.(w, current),
        (err) => this.fail(err),
      )
      .finally(() => {
        this.inFlight.delete(p);
        this.wake?.();
      });
    this.inFlight.add(p);
  }

  private sleep(ms: number): Promise<void> {
    if (this.o.sleep && Number.isFinite(ms)) {
      // a settle still wakes the loop: whichever comes first
      return Promise.race([this.o.sleep(Math.max(0, ms)), this.timerSleep(Infinity)]);
    }
    return this.timerSleep(ms);
  }

  private timerSleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | null = null;
      const done = () => {
        if (timer) clearTimeout(timer);
        if (this.wake === done) this.wake = null;
        resolve();
      };
      if (Number.isFinite(ms)) timer = setTimeout(done, Math.max(0, Math.min(ms, 60_000)));
      this.wake = done;
    });
  }
}
