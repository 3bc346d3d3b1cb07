import type Database from 'better-sqlite3';
import { BinaryHeap } from './binary-heap.js';
import type { Frontier, FrontierItem, KnownUrl, NewUrl, NextResult, UrlChange } from './frontier.js';
import { UrlState } from '../store/schema.js';

/** Per-host scheduling state, kept in memory (a few dozen bytes per host). */
interface HostSlot {
  id: number;
  name: string;
  /** best queued URL of this host, or null when its queue is empty */
  head: { id: number; priority: number; seq: number } | null;
  nextAt: number;
  inFlight: number;
  delayMs: number;
  closed: boolean;
  /** bumped on every change; heap entries with an older version are stale */
  version: number;
}

interface HeapEntry {
  host: HostSlot;
  version: number;
  priority: number;
  seq: number;
  nextAt: number;
}

export interface SqliteFrontierOptions {
  /** Default politeness delay between two requests to one host (ms). */
  delayMs: number;
  /** Requests in flight per host. */
  perHostConcurrency: number;
}

/**
 * {@link Frontier} on the `urls` and `hosts` tables of the crawl's SQLite file. URLs live on disk;
 * memory holds one small slot per host and two heaps of hosts: ready ones ordered by their best
 * URL (priority desc, seq asc) and waiting ones ordered by the time they may be contacted again.
 */
export class SqliteFrontier implements Frontier {
  private readonly hosts = new Map<number, HostSlot>();
  private readonly hostIds = new Map<string, number>();
  private readonly ready = new BinaryHeap<HeapEntry>((a, b) => a.priority > b.priority || (a.priority === b.priority && a.seq < b.seq));
  private readonly waiting = new BinaryHeap<HeapEntry>((a, b) => a.nextAt < b.nextAt);
  private queued = 0;
  private inFlightCount = 0;
  private nextSeq: number;
  private readonly st: ReturnType<SqliteFrontier['prepare']>;

  constructor(private readonly db: Database.Database, private readonly opts: SqliteFrontierOptions) {
    this.st = this.prepare();
    // URLs handed out but never recorded (crash, kill -9) go back to the queue.
    db.prepare('UPDATE urls SET state = ? WHERE state = ?').run(UrlState.QUEUED, UrlState.IN_FLIGHT);
    this.nextSeq = ((db.prepare('SELECT MAX(seq) AS m FROM urls').get() as { m: number | null }).m ?? 0) + 1;
    this.queued = (db.prepare('SELECT COUNT(*) AS n FROM urls WHERE state = ?').get(UrlState.QUEUED) as { n: number }).n;
    for (const h of db.prepare('SELECT id, name, delay_ms FROM hosts').all() as { id: number; name: string; delay_ms: number | null }[]) {
      const slot = this.slot(h.id, h.name);
      if (h.delay_ms != null) slot.delayMs = h.delay_ms;
    }
    const withQueue = db.prepare('SELECT DISTINCT host_id AS id FROM urls WHERE state = ?').all(UrlState.QUEUED) as { id: number }[];
    for (const { id } of withQueue) this.refreshHead(this.hosts.get(id)!);
  }

  private prepare() {
    const db = this.db;
    return {
      insert: db.prepare(
        `INSERT INTO urls (hash, url, host_id, state, depth, priority, life, seq, parent_id, anchor, inlinks, inlink_score, hops, discovered_at, note)
         VALUES (@hash, @url, @hostId, @state, @depth, @priority, @life, @seq, @parentId, @anchor, @inlinks, @inlinkScore, @hops, @at, @note)`,
      ),
      update: db.prepare(
        `UPDATE urls SET priority = COALESCE(@priority, priority), life = COALESCE(@life, life), state = COALESCE(@state, state),
           inlinks = COALESCE(@inlinks, inlinks), inlink_score = COALESCE(@inlinkScore, inlink_score) WHERE id = @id`,
      ),
      head: db.prepare('SELECT id, priority, seq FROM urls WHERE host_id = ? AND state = 0 ORDER BY priority DESC, seq LIMIT 1'),
      take: db.prepare(
        'UPDATE urls SET state = 1 WHERE id = ? RETURNING id, url, host_id, depth, priority, life, seq, hops, parent_id, anchor',
      ),
      requeue: db.prepare('UPDATE urls SET state = 0 WHERE id = ? AND state = 1'),
      hostByName: db.prepare('SELECT id FROM hosts WHERE name = ?'),
      hostInsert: db.prepare('INSERT INTO hosts (name) VALUES (?)'),
      hostDelay: db.prepare('UPDATE hosts SET delay_ms = ? WHERE id = ?'),
      hostNext: db.prepare('UPDATE hosts SET next_at = ? WHERE id = ?'),
    };
  }

  private slot(id: number, name: string): HostSlot {
    let s = this.hosts.get(id);
    if (!s) {
      s = { id, name, head: null, nextAt: 0, inFlight: 0, delayMs: this.opts.delayMs, closed: false, version: 0 };
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
      const rows = this.lookupStatement(chunk.length).all(...chunk) as {
        hash: Buffer; id: number; host_id: number; state: number; depth: number; priority: number; life: number; inlinks: number; inlink_score: number;
      }[];
      for (const r of rows) {
        out.set(r.hash.toString('hex'), {
          id: r.id, hostId: r.host_id, state: r.state, depth: r.depth, priority: r.priority, life: r.life,
          inlinks: r.inlinks, inlinkScore: r.inlink_score,
        });
      }
    }
    return out;
  }

  private readonly lookupStatements = new Map<number, Database.Statement>();
  private lookupStatement(n: number): Database.Statement {
    let st = this.lookupStatements.get(n);
    if (!st) {
      st = this.db.prepare(
        `SELECT hash, id, host_id, state, depth, priority, life, inlinks, inlink_score FROM urls WHERE hash IN (${new Array(n).fill('?').join(',')})`,
      );
      this.lookupStatements.set(n, st);
    }
    return st;
  }

  add(entries: NewUrl[]): number[] {
    const ids: number[] = [];
    const now = Date.now();
    for (const e of entries) {
      const hostId = this.hostId(e.host);
      const state = e.state ?? UrlState.QUEUED;
      const seq = this.nextSeq++;
      const id = Number(
        this.st.insert.run({
          hash: e.hash, url: e.url, hostId, state, depth: e.depth, priority: e.priority, life: e.life, seq,
          parentId: e.parentId, anchor: e.anchor, inlinks: e.inlinks ?? 0, inlinkScore: e.inlinkScore ?? 0,
          hops: e.hops ?? 0, at: now, note: e.note ?? null,
        }).lastInsertRowid,
      );
      ids.push(id);
      if (state === UrlState.QUEUED) {
        this.queued++;
        this.offerHead(this.hosts.get(hostId)!, { id, priority: e.priority, seq });
      }
    }
    return ids;
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
    for (const slot of touched) this.refreshHead(slot);
  }

  next(now: number): NextResult {
    // hosts whose delay has elapsed become ready
    for (;;) {
      const w = this.waiting.peek();
      if (!w || w.nextAt > now) break;
      this.waiting.pop();
      if (w.version === w.host.version) this.pushReady(w.host);
    }
    for (;;) {
      const e = this.ready.pop();
      if (!e) break;
      const host = e.host;
      if (e.version !== host.version || !host.head || host.closed) continue;
      const row = this.st.take.get(host.head.id) as
        | { id: number; url: string; host_id: number; depth: number; priority: number; life: number; seq: number; hops: number; parent_id: number | null; anchor: string | null }
        | undefined;
      if (!row) {
        this.refreshHead(host);
        continue;
      }
      this.queued--;
      this.inFlightCount++;
      host.inFlight++;
      host.nextAt = Math.max(host.nextAt, now + host.delayMs);
      this.refreshHead(host);
      return {
        kind: 'url',
        item: {
          id: row.id, url: row.url, hostId: row.host_id, host: host.name, depth: row.depth, priority: row.priority,
          life: row.life, seq: row.seq, hops: row.hops, parentId: row.parent_id, anchor: row.anchor,
        },
      };
    }
    // skip stale entries at the top so the wait time is right
    for (let w = this.waiting.peek(); w && w.version !== w.host.version; w = this.waiting.peek()) this.waiting.pop();
    const top = this.waiting.peek();
    return top ? { kind: 'wait', until: top.nextAt } : { kind: 'empty' };
  }

  release(item: FrontierItem, now: number): void {
    const host = this.hosts.get(item.hostId)!;
    host.inFlight--;
    this.inFlightCount--;
    host.nextAt = Math.max(host.nextAt, now + host.delayMs);
    this.st.hostNext.run(host.nextAt, host.id);
    this.schedule(host);
  }

  setHostDelay(hostId: number, delayMs: number): void {
    const host = this.hosts.get(hostId);
    if (!host || host.delayMs === delayMs) return;
    host.delayMs = delayMs;
    this.st.hostDelay.run(delayMs, hostId);
  }

  closeHost(hostId: number): void {
    const host = this.hosts.get(hostId);
    if (host && !host.closed) {
      host.closed = true;
      host.version++;
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
    const r = this.st.requeue.run(item.id);
    if (r.changes === 0) return;
    this.queued++;
    const host = this.hosts.get(item.hostId)!;
    this.offerHead(host, { id: item.id, priority: item.priority, seq: item.seq });
  }

  size(): number {
    return this.queued;
  }

  inFlight(): number {
    return this.inFlightCount;
  }

  /** New URL of a host: becomes its head if it beats the current one. */
  private offerHead(host: HostSlot, cand: { id: number; priority: number; seq: number }): void {
    const h = host.head;
    if (h && (h.priority > cand.priority || (h.priority === cand.priority && h.seq < cand.seq))) return;
    host.head = cand;
    this.schedule(host);
  }

  private refreshHead(host: HostSlot): void {
    const r = this.st.head.get(host.id) as { id: number; priority: number; seq: number } | undefined;
    host.head = r ? { id: r.id, priority: r.priority, seq: r.seq } : null;
    this.schedule(host);
  }

  /** Puts the host in the right heap for its current state (older entries become stale). */
  private schedule(host: HostSlot): void {
    host.version++;
    if (!host.head || host.closed || host.inFlight >= this.opts.perHostConcurrency) return;
    // every scheduled host passes through `waiting`; next(now) moves it to `ready` once nextAt <= now
    this.waiting.push({ host, version: host.version, priority: 0, seq: 0, nextAt: host.nextAt });
  }

  private pushReady(host: HostSlot): void {
    const h = host.head!;
    this.ready.push({ host, version: host.version, priority: h.priority, seq: h.seq, nextAt: host.nextAt });
  }
}
