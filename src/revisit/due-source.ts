import type { SourceClaim, WorkSource } from '../crawl/engine.js';
import type { HostDelays } from '../crawl/robots-gate.js';
import type { Settlement } from '../frontier/frontier.js';
import { type HostSlot, newHostSlot } from '../frontier/host-queue.js';
import { HostScheduler } from '../frontier/host-scheduler.js';
import type { DuePage, RevisitStore } from '../store/revisit-store.js';

/** A due page handed to the pipeline; `requested` is set once a request went to its host. */
export interface DueWork extends DuePage {
  requested: boolean;
}

export interface DueSourceOptions {
  rs: RevisitStore;
  /** The topic's politeness delay (a host's robots.txt Crawl-delay raises it through setHostDelay). */
  delayMs: number;
  /** Pages due at or before this time are served (the run's `until`, or its start). */
  cutoff: () => number;
  /**
   * When nothing is due now and nothing is in flight: when to look again (null: the run is over).
   * The recrawler answers from the schedule's next due time, its `until` and its sitemap interval.
   */
  idle: (now: number) => number | null;
  /** Runs before each claim (reading sitemaps when they are due, enrolling new pages after a sleep). */
  beforeClaim?: (now: number, sleptBefore: boolean) => Promise<void>;
}

/**
 * The recrawl's source of work for the crawl engine: the revisit schedule's due pages, one host at
 * a time, most overdue first, with per-host politeness through the frontier's own {@link HostScheduler}
 * (a host is contacted again one delay after its last request ended; robots.txt Crawl-delay included).
 */
export class DueSource implements WorkSource<DueWork>, HostDelays {
  private readonly hosts = new Map<number, HostSlot>();
  private readonly scheduler = new HostScheduler(1, () => this.hosts.size);
  private readonly due = new Map<number, DuePage>();
  private inFlight = 0;
  private sleptBefore = false;

  constructor(private readonly o: DueSourceOptions) {}

  /** Hosts' next allowed times from earlier runs (politeness across runs). */
  restoreHostTimes(times: Map<number, number>): void {
    for (const [id, at] of times) this.slot(id, '').nextAt = at;
  }

  /** Each host's next allowed time later than `now` (saved for the next run). */
  hostTimes(now: number): Map<number, number> {
    return new Map([...this.hosts.values()].filter((h) => h.nextAt > now).map((h) => [h.id, h.nextAt]));
  }

  async setHostDelay(hostId: number, delayMs: number): Promise<void> {
    this.slot(hostId, '').delayMs = delayMs;
  }

  /** A request went to a host outside the pipeline (a sitemap): it waits its delay from `at`. */
  contacted(hostId: number, at: number): void {
    const h = this.slot(hostId, '');
    h.nextAt = Math.max(h.nextAt, at + h.delayMs);
  }

  async claim(max: number, now: number): Promise<SourceClaim<DueWork>> {
    await this.o.beforeClaim?.(now, this.sleptBefore);
    this.sleptBefore = false;
    // the schedule is the truth: each host's most overdue page, refreshed on every claim
    for (const h of this.hosts.values()) {
      if (h.inFlight === 0 && h.cands.length) {
        h.cands = [];
        this.scheduler.schedule(h);
      }
    }
    this.due.clear();
    for (const p of this.o.rs.duePerHost(Math.min(now, this.o.cutoff()))) {
      const h = this.slot(p.hostId, p.host);
      if (h.inFlight > 0) continue;
      h.cands = [{ id: p.urlId, priority: -p.nextAt, seq: p.urlId }];
      this.due.set(p.urlId, p);
      this.scheduler.schedule(h);
    }
    const leases: DueWork[] = [];
    for (let h = this.scheduler.popReady(now); h && leases.length < max; h = leases.length < max ? this.scheduler.popReady(now) : null) {
      const c = h.cands.shift()!;
      h.inFlight++;
      this.inFlight++;
      leases.push({ ...this.due.get(c.id)!, requested: false });
    }
    if (leases.length) return { kind: 'urls', leases };
    const wake = this.scheduler.nextWake();
    if (wake !== null) return this.wait(wake);
    if (this.inFlight > 0) return { kind: 'empty' }; // a settle wakes the engine
    const at = this.o.idle(now);
    return at === null ? { kind: 'empty' } : this.wait(at);
  }

  private wait(until: number): SourceClaim<DueWork> {
    this.sleptBefore = true;
    return { kind: 'wait', until };
  }

  async settle(w: DueWork, _how: Settlement, now: number): Promise<boolean> {
    const h = this.hosts.get(w.hostId)!;
    h.inFlight--;
    this.inFlight--;
    // a page whose check made no request (robots.txt, known already) leaves its host's time as it was
    if (w.requested) h.nextAt = Math.max(h.nextAt, now + h.delayMs);
    this.scheduler.schedule(h);
    return true;
  }

  private slot(id: number, name: string): HostSlot {
    let h = this.hosts.get(id);
    if (!h) this.hosts.set(id, (h = newHostSlot(id, name, this.o.delayMs, 1)));
    if (name && !h.name) h.name = name;
    return h;
  }
}
