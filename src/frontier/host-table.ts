import type Database from 'better-sqlite3';
import type { FrontierStatements } from './frontier-statements.js';
import { type HostSlot, newHostSlot } from './host-queue.js';
import { detached } from '../url/detached.js';

/**
 * The frontier's hosts: one {@link HostSlot} per host, by id and by name, loaded from the `hosts`
 * table when the frontier opens and created (with its row) when a new host's first URL is added.
 * What must outlive the process is written through to `hosts`: a host's politeness delay
 * (Crawl-delay) and its back-off time (`next_at`); the time after its last request is saved there
 * on close ({@link HostTable.saveNextTimes}). Whether a host is closed (robots.txt being
 * fetched) lasts only for the run.
 *
 * The methods that change when a host may be asked return the slot whose schedule changed (null
 * when nothing did), so that the frontier reschedules it.
 */
export class HostTable {
  private readonly byId = new Map<number, HostSlot>();
  private readonly byName = new Map<string, HostSlot>();

  constructor(
    private readonly st: FrontierStatements,
    /** Politeness delay of a host with none of its own (ms). */
    private readonly delayMs: number,
    /** Smallest front a host's refill makes (see host-queue.ts). */
    private readonly frontCap: number,
  ) {}

  /** Loads every host of the crawl file, with its stored delay and back-off. */
  load(db: Database.Database): void {
    const rows = db.prepare('SELECT id, name, delay_ms, next_at FROM hosts').all() as { id: number; name: string; delay_ms: number | null; next_at: number }[];
    for (const h of rows) {
      const slot = this.slot(h.id, h.name);
      if (h.delay_ms != null) slot.delayMs = h.delay_ms;
      slot.nextAt = h.next_at; // a back-off (defer) outlives the process
    }
  }

  get size(): number {
    return this.byId.size;
  }

  get(id: number): HostSlot | undefined {
    return this.byId.get(id);
  }

  values(): IterableIterator<HostSlot> {
    return this.byId.values();
  }

  /**
   * Hosts with queued URLs that may be contacted at `now` (`waiting`) or wait for their delay or a
   * back-off (`sleeping`); hosts closed (page budget, suspended) or with every request slot in
   * flight (`perHostConcurrency`) count in neither. One pass over the slots.
   */
  states(now: number, perHostConcurrency: number): { waiting: number; sleeping: number } {
    let waiting = 0;
    let sleeping = 0;
    for (const h of this.byId.values()) {
      if (h.closed || h.inFlight >= perHostConcurrency || (h.cands.length === 0 && !h.more)) continue;
      if (h.nextAt > now) sleeping++;
      else waiting++;
    }
    return { waiting, sleeping };
  }

  /** A host's slot by name, created (with its row) if new. */
  byNameOrCreate(name: string): HostSlot {
    const cached = this.byName.get(name);
    if (cached !== undefined) return cached;
    const row = this.st.hostByName.get(name) as { id: number } | undefined;
    const id = row ? row.id : Number(this.st.hostInsert.run(name).lastInsertRowid);
    return this.slot(id, name);
  }

  /** Sets a host's own politeness delay (ms), kept in `hosts`. */
  setDelay(id: number, delayMs: number): void {
    const host = this.byId.get(id);
    if (!host || host.delayMs === delayMs) return;
    host.delayMs = delayMs;
    this.st.hostDelay.run(delayMs, id);
  }

  /** Closes (or opens) a host for this run. */
  setClosed(id: number, closed: boolean): HostSlot | null {
    const host = this.byId.get(id);
    if (!host || host.closed === closed) return null;
    host.closed = closed;
    return host;
  }

  /** Asks nothing of a host before `until` (ms), kept in `hosts`; an earlier time changes nothing. */
  defer(id: number, until: number): HostSlot | null {
    const host = this.byId.get(id);
    if (!host || until <= host.nextAt) return null;
    host.nextAt = until;
    this.st.hostNext.run(until, id);
    return host;
  }

  /**
   * Keeps in `hosts` when each host may next be asked, for the hosts contacted lately (next time
   * after `now`): the politeness delay after the last request then holds across runs.
   */
  saveNextTimes(db: Database.Database, now: number): void {
    db.transaction(() => {
      for (const host of this.byId.values()) if (host.nextAt > now) this.st.hostNextAtLeast.run(host.nextAt, host.id);
    })();
  }

  private slot(id: number, name: string): HostSlot {
    let s = this.byId.get(id);
    if (!s) {
      s = newHostSlot(id, detached(name), this.delayMs, this.frontCap); // (kept for the run: not a view on a page's string)
      this.byId.set(id, s);
      this.byName.set(s.name, s);
    }
    return s;
  }
}
