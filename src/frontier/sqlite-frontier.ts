import type Database from 'better-sqlite3';
import type { LocalFrontier, FrontierItem, KnownUrl, NewUrl, NextResult, UrlChange } from './local-frontier.js';
import { BusyHosts } from './busy-hosts.js';
import { type Candidate, type HostSlot, offerEntry, refillFront } from './host-queue.js';
import { HostScheduler } from './host-scheduler.js';
import { HostTable } from './host-table.js';
import { knownUrls, UrlRows } from './url-rows.js';
import { UrlState } from '../frontier/url-state.js';
import { type FrontierStatements, prepareStatements } from './frontier-statements.js';
import type { RunStore } from './run-store.js';
import { openQueues, saveQueues } from './queue-snapshot.js';
import { SeenIndex } from './seen-index.js';
import { UrlRowCache } from './url-row-cache.js';
import { foldChanges, type QueueKey, readQueueKeys, stillQueued, writeChanges, writePriorities } from './url-changes.js';
import type { SqliteFrontierOptions } from './sqlite-frontier-options.js';

export type { SqliteFrontierOptions };


type UrlRow = { url: string; depth: number; priority: number; life: number; seq: number; hops: number; parent_id: number | null; anchor: string | null; anchors: string };

/**
 * {@link Frontier} on the `urls` and `hosts` tables of the crawl's SQLite file, which are the truth,
 * plus two structures rebuilt from them when the frontier opens (or read from the snapshot a clean
 * stop left next to the crawl file, see {@link SqliteFrontier.close}):
 * - the seen-index ({@link SeenIndex}), in memory: URL hash fingerprint → id, confirmed against the
 *   stored hash; so `urls` needs no index on its hash and adding a URL is an append;
 * - the per-host queues: each host's best URLs in memory (its front, a sorted list of at least
 *   `candidatesPerHost` and at most an eighth of its queue, up to 4096), the rest on disk as sorted
 *   runs ({@link RunStore}), merged when the front runs out.
 * Memory also holds one small slot per host, and the {@link HostScheduler}'s heaps of hosts.
 *
 * URLs handed out keep state QUEUED in `urls` until their outcome is recorded (one write per URL
 * instead of two); the frontier knows them as in flight and {@link SqliteFrontier.lookup} reports
 * them as IN_FLIGHT. A crash loses nothing: they are simply still queued on reopen. One released
 * without an outcome is set IN_FLIGHT on disk, so it is not handed out again before a reopen.
 * Call {@link SqliteFrontier.close} when done.
 */
export class SqliteFrontier implements LocalFrontier {
  private readonly hosts: HostTable;
  private readonly scheduler: HostScheduler;
  private readonly inFlightIds = new Set<number>();
  /** hosts with as many requests in flight as they may have: only a release makes them contactable */
  private readonly busy: BusyHosts;
  private readonly cap: number;
  private queued = 0;
  private nextSeq = 1;
  private nextId = 1;
  private readonly st: FrontierStatements;

  private seen = new SeenIndex();
  private readonly rows: UrlRows;
  /** Rows of known URLs as on disk, so that lookups and queue moves need not read them again. */
  private readonly cache: UrlRowCache;
  private runs: RunStore;
  private closed = false;
  /** How the queues were opened: from the snapshot of a clean stop, or rebuilt from `urls`. */
  openedFrom: 'snapshot' | 'rebuild' = 'rebuild';

  /**
   * `beforeTake`: called with a URL's id just before its row and anchors are read to hand it out
   * (the store writes the links to it that it still holds: SqliteStore.flushAnchorsTo).
   */
  constructor(private readonly db: Database.Database, private readonly opts: SqliteFrontierOptions, private readonly beforeTake?: (id: number) => void) {
    this.cap = Math.max(1, opts.candidatesPerHost ?? 4);
    this.cache = new UrlRowCache(opts.rowCache);
    this.busy = new BusyHosts(opts.perHostConcurrency);
    this.scheduler = new HostScheduler(opts.perHostConcurrency, () => this.hosts.size);
    this.st = prepareStatements(db);
    this.rows = new UrlRows(this.st);
    this.hosts = new HostTable(this.st, opts.delayMs, this.cap);
    const opened = openQueues(db, opts, this.hosts, (runs, host, id, priority, seq) => offerEntry(runs, host, { id, priority, seq }, this.cap, this.isInFlight));
    ({ runs: this.runs, seen: this.seen, queued: this.queued, openedFrom: this.openedFrom } = opened);
    const lastId = opened.lastId;
    try {
      // ids and sequence numbers are given out together, so they are equal
      this.nextSeq = this.nextId = lastId + 1;
      for (const slot of this.hosts.values()) {
        slot.more = this.runs.count(slot.id) > 0;
        // a small front for now (every host at once): the host's first refill takes its usual share
        if (slot.cands.length === 0 && slot.more) refillFront(this.runs, slot, this.cap, this.isInFlight, true);
        this.schedule(slot);
      }
    } catch (err) {
      this.runs.close();
      throw err;
    }
  }

  /**
   * Frees the queues. On a crawl file, they are saved next to it first (with the seen-index), so the
   * next open reads them instead of rebuilding them from every URL; the file is used only if the
   * crawl file's stamp and last URL id still match it (anything else, a crash included, rebuilds).
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.hosts.saveNextTimes(this.db, Date.now()); // a run started right after this one keeps the delay
    saveQueues(this.db, this.st, this.runs, this.hosts, this.inFlightIds, { queued: this.queued, lastId: this.nextId - 1, seen: this.seen });
  }

  hostId(name: string): number {
    return this.hosts.byNameOrCreate(name).id;
  }

  lookup(hashes: Buffer[]): Map<string, KnownUrl> {
    return knownUrls(this.st, this.seen, hashes, this.inFlightIds, this.cache);
  }

  add(entries: NewUrl[]): number[] {
    const n = entries.length;
    const ids = Array.from({ length: n }, (_, i) => this.nextId + i);
    const hostOf = new Array<HostSlot>(n);
    const now = Date.now();
    const firstId = this.nextId;
    const firstSeq = this.nextSeq;
    this.nextId += n;
    this.nextSeq += n;
    for (let i = 0; i < n; i++) hostOf[i] = this.hosts.byNameOrCreate(entries[i].host);
    this.rows.insert(entries, firstId, hostOf, now);
    for (let i = 0; i < n; i++) {
      const e = entries[i];
      this.seen.add(e.hash, firstId + i);
      this.cache.put({
        hashHex: e.hash.toString('hex'), id: firstId + i, hostId: hostOf[i].id, state: e.state ?? UrlState.QUEUED, depth: e.depth, priority: e.priority,
        life: e.life, inlinks: e.inlinks ?? 0, inlinkScore: e.inlinkScore ?? 0, seq: firstSeq + i,
      });
      if ((e.state ?? UrlState.QUEUED) !== UrlState.QUEUED) continue;
      this.queued++;
      const host = hostOf[i];
      if (this.offer(host, firstId + i, e.priority, firstSeq + i)) this.schedule(host);
    }
    return ids;
  }

  private offer(host: HostSlot, id: number, priority: number, seq: number): boolean {
    return offerEntry(this.runs, host, { id, priority, seq }, this.cap, this.isInFlight, this.current);
  }

  update(changes: UrlChange[]): void {
    // one read of the rows that move and one write for the batch (a URL changed twice: both at once)
    const folded = foldChanges(changes);
    const moving = folded.filter((c) => c.priority !== undefined || c.state !== undefined);
    const old = moving.length ? readQueueKeys(this.st, moving.map((c) => c.id), this.cache) : undefined;
    writeChanges(this.st, folded);
    for (const c of folded) this.cache.apply(c);
    const touched = new Set<HostSlot>();
    for (const c of moving) {
      const o = old!.get(c.id);
      if (!o) continue; // no such URL
      const host = this.requeueKey(o, c.priority ?? o.priority, c.state ?? o.state);
      if (host) touched.add(host);
    }
    this.refresh(touched);
  }

  reprioritize(updates: { id: number; priority: number }[]): number {
    const last = new Map<number, number>();
    for (const u of updates) last.set(u.id, u.priority);
    const old = readQueueKeys(this.st, [...last.keys()], this.cache);
    const live: { id: number; priority: number }[] = [];
    for (const [id, priority] of last) if (old.get(id)?.state === UrlState.QUEUED) live.push({ id, priority });
    writePriorities(this.st, live);
    for (const u of live) this.cache.setPriority(u.id, u.priority);
    const touched = new Set<HostSlot>();
    for (const u of live) {
      const host = this.requeueKey(old.get(u.id)!, u.priority, UrlState.QUEUED);
      if (host) touched.add(host);
    }
    this.refresh(touched);
    return live.length;
  }

  /**
   * Moves a URL's queue entry after its priority or state changed (the row is already updated).
   * Returns its host when its queue changed. URLs in flight have no entry: requeue() makes one.
   */
  private requeueKey(old: QueueKey, priority: number, state: number): HostSlot | null {
    const wasQueued = old.state === UrlState.QUEUED;
    const isQueued = state === UrlState.QUEUED;
    if (wasQueued === isQueued && (!isQueued || priority === old.priority)) return null;
    if (this.inFlightIds.has(old.id)) return null;
    const host = this.hosts.get(old.host_id);
    if (!host) return null;
    if (wasQueued) {
      // in the front it goes now; in the runs it stays, stale, until taken (next() drops it then)
      const at = host.cands.findIndex((c) => c.id === old.id);
      if (at >= 0) host.cands.splice(at, 1);
      this.queued--;
    }
    if (isQueued) {
      this.offer(host, old.id, priority, old.seq);
      this.queued++;
    }
    return host;
  }

  /** Reschedules hosts whose queue changed under them. */
  private refresh(hosts: Set<HostSlot>): void {
    for (const host of hosts) {
      if (host.cands.length === 0 && host.more) this.refill(host);
      this.schedule(host);
    }
  }

  /**
   * The best URL of the hosts that may be contacted at `now`. With a global `concurrency` N, that
   * URL is held back (`hold`) while N better ones are in flight or queued on hosts busy with their
   * requests in flight (see {@link BusyHosts}): the free slot waits for them instead of going to a
   * worse URL, so the URLs in flight are, as far as politeness lets them be, the N best.
   */
  next(now: number): NextResult {
    for (let host = this.scheduler.popReady(now); host; host = this.scheduler.popReady(now)) {
      const limit = this.opts.concurrency ?? Infinity;
      if (this.busy.outnumbered(host.cands[0], now, this.inFlight(), limit, this.runs, this.isInFlight)) {
        this.schedule(host); // still ready, with the same head
        return { kind: 'hold', until: this.scheduler.nextWake() };
      }
      const c = host.cands.shift()!;
      // an entry left behind by a change of priority or state, or a duplicate of one in flight, is dropped
      // (the row cache tells most stale entries without a read: their row is no longer queued, or at another priority)
      const cached = this.cache.get(c.id);
      const stale = this.inFlightIds.has(c.id) || (cached !== undefined && (cached.state !== UrlState.QUEUED || cached.priority !== c.priority));
      if (!stale) this.beforeTake?.(c.id);
      const taken = stale ? undefined : (this.st.take.get(c.id) as UrlRow | undefined);
      const row = taken && taken.priority === c.priority ? taken : undefined;
      if (row) {
        this.queued--;
        this.inFlightIds.add(c.id);
        host.inFlight++;
        this.busy.update(host);
        host.nextAt = Math.max(host.nextAt, now + host.delayMs);
      }
      if (host.cands.length === 0 && host.more) this.refill(host);
      this.schedule(host);
      if (!row) continue; // recorded behind the frontier's back: skip it
      return {
        kind: 'url',
        item: {
          id: c.id, url: row.url, hostId: host.id, host: host.name, depth: row.depth, priority: row.priority,
          life: row.life, seq: row.seq, hops: row.hops, parentId: row.parent_id, anchor: row.anchor, anchors: JSON.parse(row.anchors) as string[],
        },
      };
    }
    const wake = this.scheduler.nextWake();
    return wake !== null ? { kind: 'wait', until: wake } : { kind: 'empty' };
  }

  release(item: FrontierItem, now: number, recorded = false): void {
    const host = this.hosts.get(item.hostId)!;
    this.cache.forget(item.id); // its outcome was written by the store, or it is set aside below
    if (this.inFlightIds.delete(item.id)) {
      // released without an outcome (the caller failed): it stays out of the queue until reopen, as IN_FLIGHT
      // (one whose outcome is written is no longer QUEUED: nothing to mark)
      if (!recorded) this.st.unrecorded.run(item.id);
    } else if (!this.requeued.delete(item.id)) return; // not handed out, or released twice
    host.inFlight--;
    this.busy.update(host);
    host.nextAt = Math.max(host.nextAt, now + host.delayMs);
    this.schedule(host);
  }

  /** URLs given back by requeue() whose release() is still to come. */
  private readonly requeued = new Set<number>();

  setHostDelay(hostId: number, delayMs: number): void {
    this.hosts.setDelay(hostId, delayMs);
  }

  closeHost(hostId: number): void {
    const host = this.hosts.setClosed(hostId, true);
    if (host) this.schedule(host);
  }

  openHost(hostId: number): void {
    const host = this.hosts.setClosed(hostId, false);
    if (host) this.schedule(host);
  }

  deferHost(hostId: number, until: number): void {
    const host = this.hosts.defer(hostId, until);
    if (host) this.schedule(host);
  }

  requeue(item: FrontierItem): void {
    if (!this.inFlightIds.has(item.id)) return;
    const row = this.st.queueKey.get(item.id) as QueueKey | undefined;
    if (row?.state !== UrlState.QUEUED) return; // its outcome was recorded: nothing to retry
    this.inFlightIds.delete(item.id);
    this.requeued.add(item.id);
    this.queued++;
    const host = this.hosts.get(item.hostId)!;
    this.offer(host, item.id, row.priority, row.seq);
    this.schedule(host);
  }

  size(): number {
    return this.queued;
  }

  inFlight(): number {
    return this.inFlightIds.size + this.requeued.size;
  }

  /** Hosts by scheduling state at `now` (see {@link HostTable.states}): for monitoring, not per page. */
  hostStates(now: number): { waiting: number; sleeping: number } {
    return this.hosts.states(now, this.opts.perHostConcurrency);
  }

  /** Sizes of the in-memory structures (for benchmarks and monitoring). */
  memoryStats(): { hosts: number; ready: number; waiting: number; candidates: number; seen: number; seenMb: number } {
    let candidates = 0;
    for (const h of this.hosts.values()) candidates += h.cands.length;
    return {
      hosts: this.hosts.size, ...this.scheduler.sizes, candidates, seen: this.seen.size,
      seenMb: Math.round(this.seen.bytes / 2 ** 20),
    };
  }

  private refill(host: HostSlot): void {
    refillFront(this.runs, host, this.cap, this.isInFlight, false, this.current);
  }

  /** Of entries taken from the runs, those whose URL is still queued with that priority. */
  private readonly current = (taken: Candidate[]): Candidate[] => stillQueued(this.st, this.cache, taken);

  private readonly isInFlight = (id: number) => this.inFlightIds.has(id);

  private schedule(host: HostSlot): void {
    this.scheduler.schedule(host);
  }
}
