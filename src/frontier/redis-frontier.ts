import { hostname } from 'node:os';
import type { Claim, Frontier, HostStates, IntakeBatch, IntakeResult, KnownUrl, Lease, Settlement, UrlKey } from './frontier.js';
import { RedisHostIds } from './redis-host-ids.js';
import { RedisIdBlocks } from './redis-id-blocks.js';
import { decodeLease, encodeAdds, optionalArg as opt, replyNumber as num, encodeSettle, encodeUpdates, redisScore, SETTLE_DONE, SETTLE_RELEASE, SETTLE_REQUEUE } from './redis-codec.js';
import type { RedisConnection } from './redis-connection.js';
import { UrlState } from './url-state.js';
import { crawlPrefix, DEFAULT_LEASE_MS, type RedisFrontierOptions } from './redis-frontier-options.js';

export { crawlPrefix, type RedisFrontierOptions } from './redis-frontier-options.js';

/** Adds per intake script call: one call keeps the server busy for ~100 ms at most (other workers wait meanwhile). */
const INTAKE_CHUNK = 4096;
/** Pairs per known() script call. */
const KNOWN_CHUNK = 4096;
/** How long settles and updates wait for a call to ride with before they are sent on their own (ms). */
const PENDING_MS = 5;

/**
 * {@link Frontier} shared by many worker processes through one Redis server: every decision (seen
 * once, order, politeness, leases, budgets) is taken by a Lua script running atomically on the
 * server, with the server's clock (`TIME`). The key layout is described in `redis/common.lua`.
 *
 * Clocks: `Lease.expiresAt` is on the server's clock; `wait.until` is translated to the caller's
 * clock (the `now` it passed), so `until - now` is how long to wait; `deferUntil` and
 * {@link RedisFrontier.deferHost} are taken relative to the caller's clock (`now`, Date.now()).
 *
 * A URL's state on the frontier: QUEUED, IN_FLIGHT (leased), PRUNED/SKIPPED as added or changed,
 * FETCHED once a lease was settled `done` (the store keeps the real outcome). Durability is the
 * server's (no persistence: a restart loses the crawl; AOF everysec: at most a second).
 */
export class RedisFrontier implements Frontier {
  readonly prefix: string;
  readonly workerId: string;
  /** A claim is a round trip: the engine claims a few URLs at a time (see Frontier.claimBatch). */
  readonly claimBatch = 8;
  private readonly key: string;
  private readonly base: (string | number)[];
  private readonly leaseMs: number;
  private readonly beforeSettle: ((lease: Lease) => Promise<void>) | undefined;
  /** This client's leases not settled yet, by token, with the token's bytes. */
  private readonly mine = new Map<string, { lease: Lease; raw: Buffer }>();
  private readonly hostIds = new RedisHostIds();
  /** A lease's host name (see decodeLease), learning its id. */
  private readonly hostName = (id: number, b: Buffer, start: number, end: number) => this.hostIds.nameOf(id, b, start, end);
  private readonly idBlocks = new RedisIdBlocks((n) => this.conn.run('reserving URL ids', (c) => c.incrby(`${this.prefix}seq`, n)));
  private closed = false;
  /** This client's number in the worker registry (in its lease members). */
  private workerNo = 0;
  /** Claims sent: each carries its number, so that the server answers a resent one as the first time. */
  private claimNo = 0;
  /**
   * Settles and the strategy's priority updates not sent yet: they ride with the next claim, lookup
   * or intake (in the same script call, applied first), go on their own after PENDING_MS with no
   * call to ride, or just before any other call (so that calls take effect in the order they were made).
   */
  private settles: { entry: Buffer; token: string; resolve: (ok: boolean) => void; reject: (e: unknown) => void }[] = [];
  private updates: { blob: Buffer; resolve: (r: IntakeResult) => void; reject: (e: unknown) => void }[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  /** A send of the pending confirmations is queued as a microtask (see {@link confirmSoon}). */
  private confirming = false;

  private constructor(private readonly conn: RedisConnection, opts: RedisFrontierOptions) {
    this.prefix = crawlPrefix(opts.crawlId);
    this.key = `${this.prefix}ready`;
    this.workerId = opts.workerId ?? `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
    this.leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
    this.beforeSettle = opts.beforeSettle;
    this.base = [this.prefix, opts.perHostConcurrency, opts.maxPagesPerHost ?? 0, opts.delayMs, opts.maxPages ?? 0];
  }

  /** Connects (E_REDIS if the server does not answer) and registers this client as a worker. */
  static async open(conn: RedisConnection, opts: RedisFrontierOptions): Promise<RedisFrontier> {
    const f = new RedisFrontier(conn, opts);
    await conn.connect();
    f.workerNo = Number(await conn.run('registering the worker', (c) => c.tcHosts(f.key, ...f.base, 'worker', f.workerId)));
    const info = JSON.stringify({ host: hostname(), pid: process.pid, startedAt: Date.now() });
    await conn.run('registering the worker', (c) => c.hset(`${f.prefix}winfo`, f.workerId, info));
    f.hostIds.reset(await f.epoch());
    await f.idBlocks.prepare();
    return f;
  }

  /** Ids reserved for this client (see RedisIdBlocks): at hand nearly always, else once a block is reserved. */
  reserveIds(n: number): number[] | Promise<number[]> {
    return this.idBlocks.take(n);
  }

  /** The crawl's epoch on the server (redis/hosts.lua), in which the host ids learnt hold. */
  private async epoch(): Promise<string> {
    return String(await this.conn.run('reading the crawl\'s epoch', (c) => c.tcHosts(this.key, ...this.base, 'epoch')));
  }

  async known(urls: readonly UrlKey[]): Promise<Map<string, KnownUrl>> {
    const out = new Map<string, KnownUrl>();
    for (let i = 0; i < urls.length; i += KNOWN_CHUNK) {
      const part = urls.slice(i, i + KNOWN_CHUNK);
      const p = this.takePending();
      const args: (string | Buffer)[] = [p.updates, p.settles];
      for (const u of part) args.push(u.host, u.hash);
      const rows = (await p.answer(this.conn.run('known', (c) => c.tcKnownBuffer(this.key, ...this.base, ...args)) as Promise<Buffer[]>, (r) => r[0])).slice(1);
      rows.forEach((r, j) => {
        if (r.length === 0) return;
        const d = (k: number) => r.readDoubleBE(8 * k);
        this.hostIds.set(part[j].host, d(1));
        out.set(part[j].hash.toString('hex'), {
          id: d(0), hostId: d(1), state: d(2) as UrlState, depth: d(3), priority: d(4), life: d(5), inlinks: d(6), inlinkScore: d(7),
        });
      });
    }
    return out;
  }

  async intake(batch: IntakeBatch): Promise<IntakeResult> {
    const adds = batch.adds ?? [];
    const changes = batch.changes ?? [];
    const updates = batch.updates ?? [];
    if (adds.length === 0 && changes.length === 0) {
      if (updates.length === 0) return { ids: [], existing: 0, existingAt: [] };
      // nothing to answer but that it was applied: it rides with the next call
      return new Promise<IntakeResult>((resolve, reject) => {
        this.updates.push({ blob: encodeUpdates(updates), resolve, reject });
        this.schedulePending();
      });
    }
    // the adds' ids: reserved by the caller, or at hand; else the server gives its own (above every
    // id reserved so far: those blocks are dropped once this is sent)
    const reserved = batch.reserved ?? (adds.length ? this.idBlocks.takeNow(adds.length) : null);
    // adds in chunks, sent one after the other without waiting (run in order on the server); the
    // changes and updates ride with the last chunk, what was pending with the first
    const calls: Promise<number[]>[] = [];
    for (let i = 0; i === 0 || i < adds.length; i += INTAKE_CHUNK) {
      const last = i + INTAKE_CHUNK >= adds.length;
      const ch = last ? changes : [];
      const p = i === 0 ? this.takePending() : null;
      const chunk = adds.slice(i, i + INTAKE_CHUNK);
      let sent = encodeAdds(chunk, (host) => this.hostIds.get(host), this.hostIds.epoch, reserved?.slice(i, i + INTAKE_CHUNK));
      const rest: (string | number | Buffer)[] = [ch.length, last ? encodeUpdates(updates) : '', p?.updates ?? '', p?.settles ?? ''];
      for (const c of ch) rest.push(c.id, c.hostId, c.hash ?? '', c.priority === undefined ? '' : redisScore(c.priority), opt(c.life), opt(c.state), opt(c.inlinks), opt(c.inlinkScore));
      const send = () => this.conn.run('intake', (c) => c.tcIntakeBuffer(this.key, ...this.base, sent.blob, ...rest)) as Promise<[Buffer, Buffer, ...number[]]>;
      // host ids of an earlier epoch (the server lost the crawl's keys): nothing was done; again by
      // name, with the server's ids (the ids reserved were of the lost crawl)
      const call = send().catch(async (err: unknown) => {
        if (!(err instanceof Error && err.message.includes('TC_STALE_HOSTS'))) throw err;
        this.hostIds.reset(await this.epoch());
        sent = encodeAdds(chunk);
        const again = send();
        this.idBlocks.passed();
        return again;
      });
      calls.push((p ? p.answer(call, (r) => r[0]) : call).then((r) => {
        this.hostIds.learn(chunk, sent.byName, r[1]);
        return r.slice(2) as number[];
      }));
    }
    if (!reserved && adds.length) this.idBlocks.passed();
    const ids: number[] = [];
    const existingAt: number[] = [];
    for (const id of (await Promise.all(calls)).flat()) {
      if (id < 0) existingAt.push(ids.length);
      ids.push(Math.abs(id));
    }
    return { ids, existing: existingAt.length, existingAt };
  }

  async claim(max: number, now: number): Promise<Claim> {
    const p = this.takePending();
    const call = this.conn.run('claim', (c) => c.tcClaimBuffer(this.key, ...this.base, Math.max(1, max), this.leaseMs, this.workerNo, p.updates, p.settles, ++this.claimNo)) as Promise<(Buffer | number)[]>;
    const b = await p.answer(call, (r) => r[2] as Buffer);
    const kind = String(b[0]);
    const serverNow = num(b[1]);
    switch (kind) {
      case 'budget': return { kind: 'budget' };
      case 'empty': return { kind: 'empty' };
      case 'wait': return { kind: 'wait', until: num(b[3]) - serverNow + now };
    }
    const leases: Lease[] = [];
    const hostName = this.hostName;
    for (let i = 3; i < b.length; i++) {
      const raw = b[i] as Buffer;
      const lease = decodeLease(raw, hostName);
      this.mine.set(lease.token, { lease, raw });
      leases.push(lease);
    }
    return { kind: 'urls', leases };
  }

  /**
   * With `beforeSettle` (a worker whose records are committed in groups), a lease settled done is
   * first released (its host freed now, with the next claim) and confirmed done once the record is
   * durable; one never confirmed (the worker died) expires and its URL is served again.
   */
  async settle(lease: Lease, how: Settlement, now: number): Promise<boolean> {
    const defer = how.deferUntil === undefined ? null : Math.max(0, Math.ceil(how.deferUntil - now));
    const counted = how.counted !== false;
    if (how.state === 'requeue' || !this.beforeSettle) return this.queueSettle(lease.token, how.state === 'done' ? SETTLE_DONE : SETTLE_REQUEUE, counted, defer);
    const released = this.queueSettle(lease.token, SETTLE_RELEASE, counted, defer);
    released.catch(() => undefined); // (awaited below, or answered with the confirmation)
    await this.beforeSettle(lease);
    // not sent yet: one entry says done at once
    const pending = this.settles.find((p) => p.token === lease.token && p.entry[32] === SETTLE_RELEASE);
    if (pending) {
      pending.entry[32] = SETTLE_DONE;
      this.confirmSoon();
      return released;
    }
    if (!(await released)) return false;
    const done = this.queueSettle(lease.token, SETTLE_DONE, counted, null);
    this.confirmSoon();
    return done;
  }

  /**
   * Sends the confirmations once the microtasks of the commit that made them durable have run, not
   * after PENDING_MS or with the next claim: a worker killed between its commit and the confirmation
   * reaching the server leaves pages recorded whose leases expire and go back to the budget (fetched
   * again, or others instead: the crawl then records more than its budget). This keeps that window
   * to the commit's own microtasks (at most a few settle calls per commit group), the socket
   * written at once rather than at the loop's next turn (RedisConnection gathers a turn's commands).
   */
  private confirmSoon(): void {
    if (this.confirming) return;
    this.confirming = true;
    queueMicrotask(() => {
      this.confirming = false;
      this.sendPending();
      this.conn.flush();
    });
  }

  private queueSettle(token: string, what: 0 | 1 | 2, counted: boolean, deferMs: number | null): Promise<boolean> {
    const entry = encodeSettle(this.mine.get(token)?.raw ?? token, what, counted, deferMs);
    return new Promise<boolean>((resolve, reject) => {
      this.settles.push({ entry, token, resolve, reject });
      this.schedulePending();
    });
  }

  /**
   * Sends what is pending on its own if no other call took it within PENDING_MS (the engine's next
   * claim usually does, or the next page's lookup).
   */
  private schedulePending(): void {
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = null;
      this.sendPending();
    }, PENDING_MS);
  }

  /** Sends the pending settles and updates now, in one settle script call (not awaited here: their callers are answered). */
  private sendPending(): void {
    if (this.settles.length === 0 && this.updates.length === 0) return;
    const p = this.takePending();
    void p.answer(this.conn.run('settle', (c) => c.tcSettle(this.key, ...this.base, p.updates, p.settles)), (res) => Buffer.from(res as number[])).catch(() => undefined);
  }

  /**
   * The pending settles and updates, encoded, to send with a call; `answer(call, settledOf)` answers
   * their callers from that call's reply (`settledOf`: the settles' results in it, a byte each), or
   * with its failure, and returns the call.
   */
  private takePending(): { updates: Buffer; settles: Buffer; answer<R>(call: Promise<R>, settledOf: (reply: R) => Buffer): Promise<R> } {
    const settles = this.settles;
    const updates = this.updates;
    this.settles = [];
    this.updates = [];
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    return {
      updates: Buffer.concat(updates.map((u) => u.blob)),
      settles: Buffer.concat(settles.map((p) => p.entry)),
      answer: (call, settledOf) => call.then(
        (reply) => {
          const settled = settles.length ? settledOf(reply) : Buffer.alloc(0);
          settles.forEach((p, i) => {
            this.mine.delete(p.token);
            p.resolve(settled[i] === 1);
          });
          for (const u of updates) u.resolve({ ids: [], existing: 0, existingAt: [] });
          return reply;
        },
        (err: unknown) => {
          for (const p of [...settles, ...updates]) p.reject(err);
          throw err;
        },
      ),
    };
  }

  async hostId(name: string): Promise<number> {
    this.sendPending();
    return Number(await this.conn.run('host id', (c) => c.tcHosts(this.key, ...this.base, 'id', name)));
  }

  async setHostDelay(hostId: number, delayMs: number): Promise<void> {
    this.sendPending();
    await this.conn.run('setting a host delay', (c) => c.tcHosts(this.key, ...this.base, 'delay', hostId, Math.max(0, Math.round(delayMs))));
  }

  async deferHost(hostId: number, until: number): Promise<void> {
    const ms = Math.max(0, Math.ceil(until - Date.now()));
    this.sendPending();
    await this.conn.run('deferring a host', (c) => c.tcHosts(this.key, ...this.base, 'defer', hostId, ms));
  }

  async suspendHost(hostId: number): Promise<void> {
    this.sendPending();
    await this.conn.run('suspending a host', (c) => c.tcHosts(this.key, ...this.base, 'suspend', hostId));
  }

  async size(): Promise<number> {
    this.sendPending();
    return Number((await this.conn.run('size', (c) => c.get(`${this.prefix}queued`))) ?? 0);
  }

  /** One script call; the server's clock decides who is sleeping (not `now`). */
  async hostStates(_now?: number): Promise<HostStates> {
    this.sendPending();
    const [waiting, sleeping, suspended] = (await this.conn.run('reading the host states', (c) => c.tcHosts(this.key, ...this.base, 'states'))) as number[];
    return { waiting, sleeping, suspended };
  }

  leased(): number {
    return this.mine.size;
  }

  /**
   * Puts this client's unsettled leases back in their queues (not counted) and leaves the worker
   * registry: the time it left is recorded beside its last claim (`stats --frontier` shows both).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const now = Date.now();
    const settling = new Set(this.settles.map((p) => p.token));
    const open = [...this.mine.values()].map((m) => m.lease).filter((lease) => !settling.has(lease.token));
    await Promise.all(open.map((lease) => this.settle(lease, { state: 'requeue', counted: false }, now)));
    await this.conn.run('leaving the worker registry', (c) => c.hset(`${this.prefix}wleft`, String(this.workerNo), String(Date.now())));
  }
}
