import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { BinaryHeap } from './binary-heap.js';
import type { Frontier, FrontierItem, KnownUrl, NewUrl, NextResult, UrlChange } from './frontier.js';
import { type HeapEntry, type HostSlot, newHostSlot } from './host-queue.js';
import { UrlState } from '../store/schema.js';
import { type FrontierStatements, INSERT_COLUMNS, prepareStatements } from './frontier-statements.js';
import { RunStore } from './run-store.js';
import { SeenIndex } from './seen-index.js';

export interface SqliteFrontierOptions {
  /** Default politeness delay between two requests to one host (ms). */
  delayMs: number;
  /** Requests in flight per host. */
  perHostConcurrency: number;
  /** Best queued URLs of a host kept in memory (default 4): one store query per this many hand-outs. */
  candidatesPerHost?: number;
  /** Page cache of the on-disk queues, in MB (default 32); the rest of the queues stay on disk. */
  queueCacheMb?: number;
  /** Queue entries buffered in memory before they are written to disk as runs (default 1,048,576). */
  runBuffer?: number;
}

/** Rows per multi-row INSERT in {@link SqliteFrontier.add}. */
const INSERT_CHUNK = 16;

type KnownRow = {
  hash: Buffer; id: number; host_id: number; state: number; depth: number; priority: number; life: number; inlinks: number; inlink_score: number;
};
type QueueKey = { id: number; host_id: number; state: number; priority: number; seq: number };
type UrlRow = { url: string; depth: number; priority: number; life: number; seq: number; hops: number; parent_id: number | null; anchor: string | null };

/**
 * {@link Frontier} on the `urls` and `hosts` tables of the crawl's SQLite file, which are the truth,
 * plus two structures rebuilt from them when the frontier opens:
 * - the seen-index ({@link SeenIndex}), in memory: URL hash fingerprint → id, confirmed against the
 *   stored hash; so `urls` needs no index on its hash and adding a URL is an append;
 * - the per-host queues: each host's best URLs in memory (its front, a sorted list of at least
 *   `candidatesPerHost` and at most an eighth of its queue, up to 4096), the rest on disk as sorted
 *   runs ({@link RunStore}), merged when the front runs out.
 * Memory also holds one small slot per host, and two heaps of hosts:
 * ready ones ordered by their best URL (priority desc, seq asc) and waiting ones ordered by the time
 * they may be contacted again. Stale heap entries are dropped in bulk when they outnumber live ones.
 *
 * URLs handed out keep state QUEUED in `urls` until their outcome is recorded (one write per URL
 * instead of two); the frontier knows them as in flight and {@link SqliteFrontier.lookup} reports
 * them as IN_FLIGHT. A crash loses nothing: they are simply still queued on reopen. One released
 * without an outcome is set IN_FLIGHT on disk, so it is not handed out again before a reopen.
 * Call {@link SqliteFrontier.close} when done (it frees the temporary queue file).
 */
export class SqliteFrontier implements Frontier {
  private readonly hosts = new Map<number, HostSlot>();
  private readonly byName = new Map<string, HostSlot>();
  private readonly ready = new BinaryHeap<HeapEntry>((a, b) => a.priority > b.priority || (a.priority === b.priority && a.seq < b.seq));
  private readonly waiting = new BinaryHeap<HeapEntry>((a, b) => a.nextAt < b.nextAt);
  private readonly inFlightIds = new Set<number>();
  private readonly cap: number;
  private queued = 0;
  private nextSeq = 1;
  private nextId = 1;
  /** latest `now` seen by next(): a host free at or before it goes straight to the ready heap */
  private lastNow = -Infinity;
  private readonly st: FrontierStatements;

  private seen = new SeenIndex();
  /** parameters of one multi-row INSERT, reused */
  private readonly insertParams: unknown[] = new Array(INSERT_CHUNK * INSERT_COLUMNS).fill(null);
  private runs: RunStore;
  private closed = false;
  /** How the queues were opened: from the snapshot of a clean stop, or rebuilt from `urls`. */
  openedFrom: 'snapshot' | 'rebuild' = 'rebuild';

  constructor(private readonly db: Database.Database, private readonly opts: SqliteFrontierOptions) {
    this.cap = Math.max(1, opts.candidatesPerHost ?? 4);
    this.st = prepareStatements(db);
    // a crawl file on disk keeps its queues next to it between runs; an in-memory one cannot
    const file = db.memory || !db.name ? '' : `${db.name}-queues`;
    const stamp = db.prepare("SELECT value FROM meta WHERE key = 'frontier_snapshot'").pluck().get() as string | undefined;
    const reuse = !!file && stamp !== undefined && existsSync(file);
    this.runs = new RunStore(file, opts.queueCacheMb, opts.runBuffer, reuse);
    try {
      if (stamp !== undefined) db.prepare("DELETE FROM meta WHERE key = 'frontier_snapshot'").run(); // good for one open only
      const rows = db.prepare('SELECT id, name, delay_ms, next_at FROM hosts').all() as { id: number; name: string; delay_ms: number | null; next_at: number }[];
      for (const h of rows) {
        const slot = this.slot(h.id, h.name);
        if (h.delay_ms != null) slot.delayMs = h.delay_ms;
        slot.nextAt = h.next_at; // a back-off (deferHost) outlives the process
      }
      const saved = reuse ? this.runs.load() : null;
      const lastId = (db.prepare('SELECT MAX(id) AS m FROM urls').pluck().get() as number | null) ?? 0;
      if (saved && saved.get('stamp') === stamp && saved.get('last_id') === lastId) {
        this.restore(saved);
        this.openedFrom = 'snapshot';
      } else this.rebuild(db);
      // ids and sequence numbers are given out together, so they are equal
      this.nextSeq = this.nextId = lastId + 1;
      for (const slot of this.hosts.values()) {
        slot.more = this.runs.count(slot.id) > 0;
        if (slot.cands.length === 0 && slot.more) this.refill(slot);
        this.schedule(slot);
      }
    } catch (err) {
      this.runs.close();
      throw err;
    }
  }

  /** One pass over the URLs rebuilds the seen-index and the queues. */
  private rebuild(db: Database.Database): void {
    if (this.runs.path) {
      // a snapshot that does not match: start its file afresh
      this.runs.close();
      this.runs = new RunStore(this.runs.path, this.opts.queueCacheMb, this.opts.runBuffer);
    }
    // files written before URLs in flight stayed QUEUED on disk
    db.prepare('UPDATE urls SET state = ? WHERE state = ?').run(UrlState.QUEUED, UrlState.IN_FLIGHT);
    const { n } = db.prepare('SELECT COUNT(*) AS n FROM urls').get() as { n: number };
    this.seen = new SeenIndex(n);
    for (const [id, fp, hash, host, state, priority, seq] of scanUrls(db)) {
      this.seen.addFingerprint(fp ?? SeenIndex.fingerprint(Buffer.from(hash!, 'hex')), id);
      if (state === UrlState.QUEUED) {
        this.offer(this.hosts.get(host)!, id, priority, seq);
        this.queued++;
      }
    }
  }

  /** Takes the queues and seen-index a clean stop saved; URLs released without an outcome are queued again. */
  private restore(saved: Map<string, unknown>): void {
    this.seen = SeenIndex.fromBuffer(saved.get('seen') as Buffer, saved.get('seen_count') as number);
    this.queued = saved.get('queued') as number;
    const stray = this.db.prepare('UPDATE urls SET state = ? WHERE state = ? RETURNING id, host_id, priority, seq').all(UrlState.QUEUED, UrlState.IN_FLIGHT) as QueueKey[];
    for (const r of stray) {
      this.offer(this.hosts.get(r.host_id)!, r.id, r.priority, r.seq);
      this.queued++;
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
    if (!this.runs.path) return this.runs.close();
    // everything queued goes to the runs: the fronts, and URLs handed out that no outcome recorded
    for (const host of this.hosts.values()) for (const c of host.cands.splice(0)) this.runs.push(host.id, c.priority, c.seq, c.id);
    let queued = this.queued;
    for (const id of this.inFlightIds) {
      const r = this.st.queueKey.get(id) as QueueKey | undefined;
      if (r?.state !== UrlState.QUEUED) continue;
      this.runs.push(r.host_id, r.priority, r.seq, r.id);
      queued++;
    }
    const stamp = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
    this.runs.save({ stamp, last_id: this.nextId - 1, queued, seen: this.seen.toBuffer(), seen_count: this.seen.size });
    this.db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('frontier_snapshot', ?)").run(stamp);
  }

  private slot(id: number, name: string): HostSlot {
    let s = this.hosts.get(id);
    if (!s) {
      s = newHostSlot(id, name, this.opts.delayMs, this.cap);
      this.hosts.set(id, s);
      this.byName.set(name, s);
    }
    return s;
  }

  /** A host's slot by name, created (with its row) if new. */
  private slotByName(name: string): HostSlot {
    const cached = this.byName.get(name);
    if (cached !== undefined) return cached;
    const row = this.st.hostByName.get(name) as { id: number } | undefined;
    const id = row ? row.id : Number(this.st.hostInsert.run(name).lastInsertRowid);
    return this.slot(id, name);
  }

  hostId(name: string): number {
    return this.slotByName(name).id;
  }

  lookup(hashes: Buffer[]): Map<string, KnownUrl> {
    const out = new Map<string, KnownUrl>();
    const ids: number[] = [];
    for (const h of hashes) this.seen.find(h, ids);
    if (ids.length === 0) return out;
    const wanted = new Set(hashes.map((h) => h.toString('hex')));
    // one statement per chunk of up to 64 ids; a candidate counts only if its full hash matches
    for (let i = 0; i < ids.length; i += 64) {
      const chunk = ids.slice(i, i + 64);
      for (const r of this.st.byIds(chunk.length).all(...chunk) as KnownRow[]) {
        const key = r.hash.toString('hex');
        if (!wanted.has(key)) continue;
        const state = r.state === UrlState.QUEUED && this.inFlightIds.has(r.id) ? UrlState.IN_FLIGHT : r.state;
        out.set(key, {
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
    const params = this.insertParams;
    let k = 0;
    for (let i = 0; i < n; i++) {
      const e = entries[i];
      const host = (hostOf[i] = this.slotByName(e.host));
      ids[i] = firstId + i;
      params[k++] = firstId + i;
      params[k++] = e.hash;
      params[k++] = SeenIndex.fingerprint(e.hash);
      params[k++] = e.url;
      params[k++] = host.id;
      params[k++] = e.state ?? UrlState.QUEUED;
      params[k++] = e.depth;
      params[k++] = e.priority;
      params[k++] = e.life;
      params[k++] = firstSeq + i;
      params[k++] = e.parentId;
      params[k++] = e.anchor;
      params[k++] = e.inlinks ?? 0;
      params[k++] = e.inlinkScore ?? 0;
      params[k++] = e.hops ?? 0;
      params[k++] = now;
      params[k++] = e.note ?? null;
      if (k === params.length) {
        this.st.insert(INSERT_CHUNK).run(params);
        k = 0;
      }
    }
    if (k > 0) this.st.insert(k / INSERT_COLUMNS).run(params.slice(0, k));
    for (let i = 0; i < n; i++) {
      this.seen.add(entries[i].hash, firstId + i);
      if ((entries[i].state ?? UrlState.QUEUED) !== UrlState.QUEUED) continue;
      this.queued++;
      const host = hostOf[i];
      if (this.offer(host, firstId + i, entries[i].priority, firstSeq + i)) this.schedule(host);
    }
    return ids;
  }

  /**
   * Queues an entry for its host: into the front when it ranks there (the front's last entry may
   * move to the runs), else into the runs. Returns true when it became the host's head.
   */
  private offer(host: HostSlot, id: number, priority: number, seq: number): boolean {
    if (host.cands.length === 0 && host.more) this.refill(host);
    const a = host.cands;
    let i = a.length;
    while (i > 0 && (priority > a[i - 1].priority || (priority === a[i - 1].priority && seq < a[i - 1].seq))) i--;
    if (i === a.length && (host.more || a.length >= host.frontCap)) {
      this.runs.push(host.id, priority, seq, id); // no object for what goes to disk
      host.more = true;
      return false;
    }
    a.splice(i, 0, { id, priority, seq });
    if (a.length > host.frontCap) {
      const last = a.pop()!;
      this.runs.push(host.id, last.priority, last.seq, last.id);
      host.more = true;
    }
    return i === 0;
  }

  update(changes: UrlChange[]): void {
    const touched = new Set<HostSlot>();
    for (const c of changes) {
      const moves = c.priority !== undefined || c.state !== undefined;
      const old = moves ? (this.st.queueKey.get(c.id) as QueueKey | undefined) : undefined;
      const r = this.st.update.run({
        id: c.id, priority: c.priority ?? null, life: c.life ?? null, state: c.state ?? null,
        inlinks: c.inlinks ?? null, inlinkScore: c.inlinkScore ?? null,
      });
      if (r.changes === 0 || !old) continue;
      const host = this.requeueKey(old, c.priority ?? old.priority, c.state ?? old.state);
      if (host) touched.add(host);
    }
    this.refresh(touched);
  }

  reprioritize(updates: { id: number; priority: number }[]): number {
    const touched = new Set<HostSlot>();
    let changed = 0;
    for (const u of updates) {
      const old = this.st.queueKey.get(u.id) as QueueKey | undefined;
      if (!old || old.state !== UrlState.QUEUED) continue;
      this.st.reprioritize.run(u.priority, u.id);
      changed++;
      const host = this.requeueKey(old, u.priority, UrlState.QUEUED);
      if (host) touched.add(host);
    }
    this.refresh(touched);
    return changed;
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
      // an entry left behind by a change of priority or state, or a duplicate of one in flight, is dropped
      const taken = this.inFlightIds.has(c.id) ? undefined : (this.st.take.get(c.id) as UrlRow | undefined);
      const row = taken && taken.priority === c.priority ? taken : undefined;
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
    this.offer(host, item.id, row.priority, row.seq);
    this.schedule(host);
  }

  size(): number {
    return this.queued;
  }

  inFlight(): number {
    return this.inFlightIds.size + this.requeued.size;
  }

  /** Sizes of the in-memory structures (for benchmarks and monitoring). */
  memoryStats(): { hosts: number; ready: number; waiting: number; candidates: number; seen: number; seenMb: number } {
    let candidates = 0;
    for (const h of this.hosts.values()) candidates += h.cands.length;
    return {
      hosts: this.hosts.size, ready: this.ready.size, waiting: this.waiting.size, candidates, seen: this.seen.size,
      seenMb: Math.round(this.seen.bytes / 2 ** 20),
    };
  }

  /**
   * Refills a host's empty front from its runs: an eighth of what it has queued there (at least
   * `candidatesPerHost`, at most 4096), so a long queue is merged and rewritten only a few times
   * per eighth consumed (each entry is rewritten about eight times in all).
   */
  private refill(host: HostSlot): void {
    const want = Math.min(4096, Math.max(this.cap, this.runs.count(host.id) >> 3));
    host.cands = this.runs.take(host.id, want, (id) => this.inFlightIds.has(id));
    host.frontCap = Math.max(this.cap, host.cands.length);
    host.more = this.runs.count(host.id) > 0;
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

type ScanRow = [id: number, fp: number | null, hash: string | null, host: number, state: number, priority: number, seq: number];

/**
 * Every URL in id order, with what the frontier rebuilds itself from: the fingerprint (or, for rows
 * of older files without one, the hash in hex), host, state, priority and seq. Rows come in chunks
 * of 100,000 packed as one JSON string by SQLite: 2–3× faster than stepping through them one by one.
 */
function* scanUrls(db: Database.Database): Iterable<ScanRow> {
  const chunk = db.prepare(
    `SELECT json_group_array(json_array(id, fp, CASE WHEN fp IS NULL THEN hex(hash) END, host_id, state, priority, seq)) AS rows, max(id) AS last
       FROM (SELECT * FROM urls WHERE id > ? ORDER BY id LIMIT 100000)`,
  );
  for (let after = 0; ; ) {
    const r = chunk.get(after) as { rows: string; last: number | null };
    if (r.last === null) return;
    yield* JSON.parse(r.rows) as ScanRow[];
    after = r.last;
  }
}
