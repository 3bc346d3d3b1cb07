import { BinaryHeap } from './binary-heap.js';
import type { HeapEntry, HostSlot } from './host-queue.js';

/**
 * Which host goes next (seed 002's politeness scheduler): two heaps of hosts, ready ones ordered by
 * their best URL (priority desc, seq asc) and waiting ones ordered by the time they may be
 * contacted again. A host has at most one live entry (`host.entry`); older ones are stale and are
 * skipped, and dropped in bulk when they outnumber live ones.
 */
export class HostScheduler {
  private readonly ready = new BinaryHeap<HeapEntry>((a, b) => a.priority > b.priority || (a.priority === b.priority && a.seq < b.seq));
  private readonly waiting = new BinaryHeap<HeapEntry>((a, b) => a.nextAt < b.nextAt);
  /** latest `now` seen by popReady(): a host free at or before it goes straight to the ready heap */
  private lastNow = -Infinity;

  constructor(
    private readonly perHostConcurrency: number,
    /** number of hosts, to bound the stale entries kept */
    private readonly hostCount: () => number,
  ) {}

  get sizes(): { ready: number; waiting: number } {
    return { ready: this.ready.size, waiting: this.waiting.size };
  }

  /** Puts the host in the right heap for its current state; any older entry of it becomes stale. */
  schedule(host: HostSlot): void {
    const e = host.entry;
    if (host.cands.length === 0 || host.closed || host.inFlight >= this.perHostConcurrency) {
      host.entry = null;
      return;
    }
    // a waiting entry reads the head when it becomes ready, so only its time matters
    if (e && e.kind === 'wait' && e.nextAt === host.nextAt) return;
    const h = host.cands[0];
    if (e && e.kind === 'ready' && e.priority === h.priority && e.seq === h.seq && host.nextAt <= this.lastNow) return;
    if (host.nextAt <= this.lastNow) this.pushReady(host);
    else this.pushWaiting(host);
  }

  /**
   * The host whose best URL ranks first among those that may be contacted at `now`, taken off the
   * heaps (schedule it again once its front changed), or null.
   */
  popReady(now: number): HostSlot | null {
    if (now > this.lastNow) this.lastNow = now;
    // hosts whose delay has elapsed become ready
    for (let w = this.waiting.peek(); w && w.nextAt <= now; w = this.waiting.peek()) {
      this.waiting.pop();
      if (w.host.entry === w) this.pushReady(w.host);
    }
    for (let e = this.ready.pop(); e; e = this.ready.pop()) {
      const host = e.host;
      if (host.entry !== e) continue;
      host.entry = null;
      if (host.nextAt > now) {
        this.pushWaiting(host); // the clock went back: not yet
        continue;
      }
      return host;
    }
    return null;
  }

  /** When the first waiting host may be contacted, or null if no host waits. */
  nextWake(): number | null {
    // skip stale entries at the top so the wait time is right
    for (let w = this.waiting.peek(); w && w.host.entry !== w; w = this.waiting.peek()) this.waiting.pop();
    return this.waiting.peek()?.nextAt ?? null;
  }

  private pushWaiting(host: HostSlot): void {
    host.entry = { host, kind: 'wait', nextAt: host.nextAt, priority: 0, seq: 0 };
    this.waiting.push(host.entry);
    if (this.waiting.size > 2 * this.hostCount() + 1024) this.waiting.retain((x) => x.host.entry === x);
  }

  private pushReady(host: HostSlot): void {
    const h = host.cands[0];
    host.entry = { host, kind: 'ready', nextAt: host.nextAt, priority: h.priority, seq: h.seq };
    this.ready.push(host.entry);
    if (this.ready.size > 2 * this.hostCount() + 1024) this.ready.retain((x) => x.host.entry === x);
  }
}
