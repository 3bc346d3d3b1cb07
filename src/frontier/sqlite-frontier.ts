import type Database from 'better-sqlite3';
import { BinaryHeap } from './binary-heap.js';
import type { Frontier, FrontierItem, KnownUrl, NewUrl, NextResult, UrlChange } from './frontier.js';
import { type Candidate, type HeapEntry, type HostSlot, newHostSlot, offerCandidate } from './host-queue.js';
import { UrlState } from '../store/schema.js';
import { type FrontierStatements, INSERT_COLUMNS, prepareStatements } from './frontier-statements.js';

export interface SqliteFrontierOptions {
  /** Default politeness delay between two requests to one host (ms). */
  delayMs: number;
  /** Requests in flight per host. */
  perHostConcurrency: number;
  /** Best queued URLs of a host kept in memory (default 4): one store query per this many hand-outs. */
  candidatesPerHost?: number;
}

/** Rows per multi-row INSERT in {@link SqliteFrontier.add}. */
const INSERT_CHUNK = 64;

type UrlRow = { url: string; depth: number; priority: number; life: number; seq: number; hops: number; parent_id: number | null; anchor: string | null };

/**
 * {@link Frontier} on the `urls` and `hosts` tables of the crawl's SQLite file. URLs live on disk
 * (the queue is the partial index `urls_queue`); memory holds one small slot per host with its few
 * best candidates, and two heaps of hosts: ready ones ordered by their best URL (priority desc, seq
 * asc) and waiting ones ordered by the time they may be contacted again. Stale heap entries are
 * dropped in bulk when they outnumber live ones.
 *
 * URLs handed out keep state QUEUED on disk until their outcome is recorded (one write per URL
 * instead of two); the frontier knows them as in flight and {@link SqliteFrontier.lookup} reports
 * them as IN_FLIGHT. A crash loses nothing: they are simply still queued on reopen. One released
 * without an outcome is set IN_FLIGHT on disk, so it is not handed out again before a reopen.
 */
export class SqliteFrontier implements Frontier {
  private readonly hosts = new Map<number, HostSlot>();
  private readonly hostIds = new Map<string, number>();
  private readonly ready = new BinaryHeap<HeapEntry>((a, b) => a.priority > b.priority || (a.priority === b.priority && a.seq < b.seq));
  private readonly waiting = new BinaryHeap<HeapEntry>((a, b) => a.nextAt < b.nextAt);
  private readonly inFlightIds = new Set<number>();
  private readonly cap: number;
  private queued = 0;
  private nextSeq: number;
  private nextId: number;
  /** latest `now` seen by next(): a host free at or before it goes straight to the ready heap */
  private lastNow = -Infinity;
  private readonly st: FrontierStatements;

  constructor(db: Database.Database, private readonly opts: SqliteFrontierOptions) {
    this.cap = Math.max(1, opts.candidatesPerHost ?? 4);
    this.st = prepareStatements(db);
    // files written before URLs in flight stayed QUEUED on disk
    db.prepare('UPDATE urls SET state = ? WHERE state = ?').run(UrlState.QUEUED, UrlState.IN_FLIGHT);
    const last = db.prepare('SELECT id, seq FROM urls ORDER BY id DESC LIMIT 1').get() as { id: number; seq: number } | undefined;
    // ids and sequence numbers are both given out in insertion order: the last row has the largest
    this.nextSeq = (last?.seq ?? 0) + 1;
    this.nextId = (last?.id ?? 0) + 1;
    this.queued = (db.prepare('SELECT COUNT(*) AS n FROM urls WHERE state = 0').get() as { n: number }).n;
    const rows = db.prepare('SELECT id, name, delay_ms, next_at FROM hosts').all() as { id: number; name: string; delay_ms: number | null; next_at: number }[];
    for (const h of rows) {
      const slot = this.slot(h.id, h.name);
      if (h.delay_ms != null) slot.delayMs = h.delay_ms;
      slot.nextAt = h.next_at; // a back-off (deferHost) outlives the process
      slot.more = true;
      this.refill(slot);
      this.schedule(slot);
    }
  }

  private slot(id: number, name: string): HostSlot {
    let s = this.hosts.get(id);
    if (!s) {
      s = newHostSlot(id, name, this.opts.delayMs);
      this.hosts.set(id, s);
      this.hostIds.set(name, id);
    }
    return s;
  }

  hostId(name: string): number {
    const cached = this.hostIds.get(name);
    if (cached !== undefined) return cached;
    const row = this.st.hostByName.get(name) as { id: number } | undefined;
    const id = row ? row.id : Number(this.st.hostInsert.run(name).lastInsertRowid);
    this.slot(id, name);
    return id;
  }

  lookup(hashes: Buffer[]): Map<string, KnownUrl> {
    const out = new Map<string, KnownUrl>();
    // one statement per chunk of up to 64 hashes instead of one per link
    for (let i = 0; i < hashes.length; i += 64) {
      const chunk = hashes.slice(i, i + 64);
      const rows = this.st.lookup(chunk.length).all(...chunk) as {
        hash: Buffer; id: number; host_id: number; state: number; depth: number; priority: number; life: number; inlinks: number; inlink_score: number;
      }[];
      for (const r of rows) {
        const state = r.state === UrlState.QUEUED && this.inFlightIds.has(r.id) ? UrlState.IN_FLIGHT : r.state;
        out.set(r.hash.toString('hex'), {
          id: r.id, hostId: r.host_id, state, depth: r.depth, priority: r.priority, life: r.life, inlinks: r.inlinks, inlinkScore: r.inlink_score,
        });
      }
    }
    return out;
  }

  add(entries: NewUrl[]): number[] {
    const n = entries.length;
    const ids = new Array<number>(n);
    const hostOf = new Array<HostSlot>(n);
    const now = Date.now();
    const firstId = this.nextId;
    const firstSeq = this.nextSeq;
    this.nextId += n;
    this.nextSeq += n;
    // multi-row INSERTs of INSERT_CHUNK rows; ids and sequence numbers are given out here
    const params: unknown[] = [];
    for (let i = 0; i < n; i++) {
      const e = entries[i];
      const host = (hostOf[i] = this.slot(this.hostId(e.host), e.host));
      ids[i] = firstId + i;
      params.push(
        firstId + i, e.hash, e.url, host.id, e.state ?? UrlState.QUEUED, e.depth, e.priority, e.life, firstSeq + i, e.parentId, e.anchor,
        e.inlinks ?? 0, e.inlinkScore ?? 0, e.hops ?? 0, now, e.note ?? null,
      );
      if (params.length === INSERT_CHUNK * INSERT_COLUMNS) this.flushInsert(params);
    }
    if (params.length > 0) this.flushInsert(params);
    // the rows are in the store now: a host waiting for a refill reads them from there
    let refilled: Set<HostSlot> | null = null;
    for (let i = 0; i < n; i++) {
      if ((entries[i].state ?? UrlState.QUEUED) !== UrlState.QUEUED) continue;
      this.queued++;
      const host = hostOf[i];
      if (refilled?.has(host)) continue;
      if (host.cands.length === 0 && host.more) {
        this.refill(host);
        (refilled ??= new Set()).add(host);
        this.schedule(host);
      } else if (offerCandidate(host, { id: firstId + i, priority: entries[i].priority, seq: firstSeq + i }, this.cap)) {
        this.schedule(host);
      }
    }
    return ids;
  }

  private flushInsert(params: unknown[]): void {
    this.st.insert(params.length / INSERT_COLUMNS).run(params);
    params.length = 0;
  }

  update(changes: UrlChange[]): void {
    const touched = new Set<HostSlot>();
    for (const c of changes) {
      const r = this.st.update.run({
        id: c.id, priority: c.priority ?? null, life: c.life ?? null, state: c.state ?? null,
        inlinks: c.inlinks ?? null, inlinkScore: c.inlinkScore ?? null,
      });
      if (r.changes === 0) continue;
      if (c.state === UrlState.QUEUED) this.queued++;
      if (c.priority !== undefined || c.state !== undefined) touched.add(this.hosts.get(c.hostId)!);
    }
    for (const host of touched) {
      host.cands = [];
      host.more = true;
      this.refill(host);
      this.schedule(host);
    }
  }

  reprioritize(updates: { id: number; priority: number }[]): number {
    const touched = new Set<HostSlot>();
    let changed = 0;
    for (const u of updates) {
      const r = this.st.reprioritize.get(u.priority, u.id) as { host_id: number } | undefined;
      if (!r) continue;
      changed++;
      touched.add(this.hosts.get(r.host_id)!);
    }
    for (const host of touched) {
      host.cands = [];
      host.more = true;
      this.refill(host);
      this.schedule(host);
    }
    return changed;
  }

  next(now: number): NextResult {
    if (now > this.lastNow) this.lastNow = now;
    // hosts whose delay has elapsed become ready
    for (let w = this.waiting.peek(); w && w.nextAt <= now; w = this.waiting.peek()) {
      this.waiting.pop();
      if (w.host.entry === w) this.pushReady(w.host);
    }
    for (;;) {
      const e = this.ready.pop();
      if (!e) break;
      const host = e.host;
      if (host.entry !== e) continue;
      host.entry = null;
      if (host.nextAt > now) {
        this.pushWaiting(host); // the clock went back: not yet
        continue;
      }
      const c = host.cands.shift()!;
      const row = this.st.take.get(c.id) as UrlRow | undefined;
      if (row) {
        this.queued--;
        this.inFlightIds.add(c.id);
        host.inFlight++;
        host.nextAt = Math.max(host.nextAt, now + host.delayMs);
      }
      if (host.cands.length === 0 && host.more) this.refill(host);
      this.schedule(host);
      if (!row) continue; // recorded behind the frontier's back: skip it
      return {
        kind: 'url',
        item: {
          id: c.id, url: row.url, hostId: host.id, host: host.name, depth: row.depth, priority: row.priority,
          life: row.life, seq: row.seq, hops: row.hops, parentId: row.parent_id, anchor: row.anchor,
        },
      };
    }
    // skip stale entries at the top so the wait time is right
    for (let w = this.waiting.peek(); w && w.host.entry !== w; w = this.waiting.peek()) this.waiting.pop();
    const top = this.waiting.peek();
    return top ? { kind: 'wait', until: top.nextAt } : { kind: 'empty' };
  }

  release(item: FrontierItem, now: number): void {
    const host = this.hosts.get(item.hostId)!;
    if (this.inFlightIds.delete(item.id)) {
      // released without an outcome (the caller failed): it stays out of the queue until reopen, as IN_FLIGHT
      this.st.unrecorded.run(item.id);
    } else if (!this.requeued.delete(item.id)) return; // not handed out, or released twice
    host.inFlight--;
    host.nextAt = Math.max(host.nextAt, now + host.delayMs);
    this.schedule(host);
  }

  /** URLs given back by requeue() whose release() is still to come. */
  private readonly requeued = new Set<number>();

  setHostDelay(hostId: number, delayMs: number): void {
    const host = this.hosts.get(hostId);
    if (!host || host.delayMs === delayMs) return;
    host.delayMs = delayMs;
    this.st.hostDelay.run(delayMs, hostId);
  }

  closeHost(hostId: number): void {
    this.setClosed(hostId, true);
  }

  openHost(hostId: number): void {
    this.setClosed(hostId, false);
  }

  private setClosed(hostId: number, closed: boolean): void {
    const host = this.hosts.get(hostId);
    if (host && host.closed !== closed) {
      host.closed = closed;
      this.schedule(host);
    }
  }

  deferHost(hostId: number, until: number): void {
    const host = this.hosts.get(hostId);
    if (!host || until <= host.nextAt) return;
    host.nextAt = until;
    this.st.hostNext.run(until, hostId);
    this.schedule(host);
  }

  requeue(item: FrontierItem): void {
    if (!this.inFlightIds.has(item.id)) return;
    const row = this.st.queuedRow.get(item.id) as { priority: number; seq: number } | undefined;
    if (!row) return; // its outcome was recorded: nothing to retry
    this.inFlightIds.delete(item.id);
    this.requeued.add(item.id);
    this.queued++;
    const host = this.hosts.get(item.hostId)!;
    if (host.cands.length === 0 && host.more) this.refill(host);
    else offerCandidate(host, { id: item.id, priority: row.priority, seq: row.seq }, this.cap);
    this.schedule(host);
  }

  size(): number {
    return this.queued;
  }

  inFlight(): number {
    return this.inFlightIds.size + this.requeued.size;
  }

  /** Sizes of the in-memory structures (for benchmarks and monitoring). */
  memoryStats(): { hosts: number; ready: number; waiting: number; candidates: number } {
    let candidates = 0;
    for (const h of this.hosts.values()) candidates += h.cands.length;
    return { hosts: this.hosts.size, ready: this.ready.size, waiting: this.waiting.size, candidates };
  }

  /** Reads a host's best queued URLs that are not in flight from the store. */
  private refill(host: HostSlot): void {
    const limit = this.cap + host.inFlight;
    const rows = this.st.head.all(host.id, limit) as Candidate[];
    host.cands = [];
    for (const r of rows) if (host.cands.length < this.cap && !this.inFlightIds.has(r.id)) host.cands.push({ id: r.id, priority: r.priority, seq: r.seq });
    host.more = rows.length === limit;
  }

  /** Puts the host in the right heap for its current state; any older entry of it becomes stale. */
  private schedule(host: HostSlot): void {
    const e = host.entry;
    if (host.cands.length === 0 || host.closed || host.inFlight >= this.opts.perHostConcurrency) {
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

  private pushWaiting(host: HostSlot): void {
    host.entry = { host, kind: 'wait', nextAt: host.nextAt, priority: 0, seq: 0 };
    this.waiting.push(host.entry);
    if (this.waiting.size > 2 * this.hosts.size + 1024) this.waiting.retain((x) => x.host.entry === x);
  }

  private pushReady(host: HostSlot): void {
    const h = host.cands[0];
    host.entry = { host, kind: 'ready', nextAt: host.nextAt, priority: h.priority, seq: h.seq };
    this.ready.push(host.entry);
    if (this.ready.size > 2 * this.hosts.size + 1024) this.ready.retain((x) => x.host.entry === x);
  }
}
