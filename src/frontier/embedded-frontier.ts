import type { Claim, Frontier, HostStates, IntakeBatch, IntakeResult, KnownUrl, Lease, Settlement, UrlKey } from './frontier.js';
import type { FrontierItem, NewUrl } from './local-frontier.js';
import type { SqliteFrontier } from './sqlite-frontier.js';

/** The page budget a frontier enforces: pages in all and per host, and what earlier runs counted. */
export interface FrontierBudget {
  maxPages: number;
  maxPagesPerHost: number;
  /** Pages the crawl file already counts (a resume). */
  counted: number;
  /** Pages per host id the crawl file already counts. */
  hostCounted: ReadonlyMap<number, number>;
}

/**
 * The {@link Frontier} door on the embedded SQLite frontier (one process, one crawl file). Calls run
 * synchronously on the shared connection and resolve at once; durability is the store's group commit.
 * Leases last as long as the process (`expiresAt` Infinity): a crash leaves the URLs queued in the
 * file, served again on reopen. The budget is counted here, from the crawl file's counts on open.
 */
export class EmbeddedFrontier implements Frontier {
  private counted: number;
  private readonly hostCounted: Map<number, number>;
  private readonly suspended = new Set<number>();
  private held = 0;

  /**
   * `write` runs the frontier's writes in the store's transaction (SqliteStore.joinGroup: the
   * group commit that the page records join, without a savepoint of their own), as they share the connection.
   */
  constructor(
    readonly local: SqliteFrontier,
    private readonly budget: FrontierBudget,
    private readonly write: <T>(fn: () => T) => T = (fn) => fn(),
  ) {
    this.counted = budget.counted;
    this.hostCounted = new Map(budget.hostCounted);
    for (const [host, n] of this.hostCounted) if (n >= budget.maxPagesPerHost) local.closeHost(host);
  }

  async known(urls: readonly UrlKey[]): Promise<Map<string, KnownUrl>> {
    return this.local.lookup(urls.map((u) => u.hash));
  }

  async intake(batch: IntakeBatch): Promise<IntakeResult> {
    return this.write(() => this.intakeNow(batch));
  }

  private intakeNow(batch: IntakeBatch): IntakeResult {
    const adds = batch.adds ?? [];
    let ids: number[] = [];
    const existingAt: number[] = [];
    if (adds.length) {
      // a URL another page added since the caller looked it up is not added twice
      const known = this.local.lookup(adds.map((a) => a.hash));
      if (known.size === 0) ids = this.local.add(adds);
      else {
        const fresh: NewUrl[] = [];
        const at: number[] = [];
        ids = new Array(adds.length);
        adds.forEach((a, i) => {
          const k = known.get(a.hash.toString('hex'));
          if (k) {
            ids[i] = k.id;
            existingAt.push(i);
          } else {
            fresh.push(a);
            at.push(i);
          }
        });
        this.local.add(fresh).forEach((id, n) => (ids[at[n]] = id));
      }
    }
    if (batch.changes?.length) this.local.update(batch.changes);
    if (batch.updates?.length) this.local.reprioritize(batch.updates);
    return { ids, existing: existingAt.length, existingAt };
  }

  async claim(max: number, now: number): Promise<Claim> {
    const leases: Lease[] = [];
    const room = Math.min(max, this.budget.maxPages - this.counted);
    while (leases.length < room) {
      const next = this.local.next(now);
      if (next.kind === 'url') {
        leases.push(this.lease(next.item));
        continue;
      }
      if (leases.length) break;
      return next;
    }
    if (leases.length) return { kind: 'urls', leases };
    return { kind: 'budget' };
  }

  private lease(item: FrontierItem): Lease {
    this.count(item.hostId, 1);
    this.held++;
    return Object.assign(item, { token: '', expiresAt: Infinity }); // the item is the frontier's fresh object: no copy
  }

  /** Counts (+1) or gives back (-1) a page of the budget; closes or reopens its host. */
  private count(hostId: number, n: 1 | -1): void {
    this.counted += n;
    const c = (this.hostCounted.get(hostId) ?? 0) + n;
    this.hostCounted.set(hostId, c);
    if (c >= this.budget.maxPagesPerHost) this.local.closeHost(hostId);
    else if (n < 0 && !this.suspended.has(hostId)) this.local.openHost(hostId);
  }

  async settle(lease: Lease, how: Settlement, now: number): Promise<boolean> {
    // memory only, but for a URL released without an outcome (one row marked: it joins the open group, if any)
    if (how.state === 'requeue') this.local.requeue(lease);
    if (how.deferUntil !== undefined) this.local.deferHost(lease.hostId, how.deferUntil);
    if (how.counted === false) this.count(lease.hostId, -1);
    this.local.release(lease, now, how.state === 'done' && how.recorded === true);
    this.held--;
    return true;
  }

  async hostId(name: string): Promise<number> {
    return this.write(() => this.local.hostId(name));
  }

  async setHostDelay(hostId: number, delayMs: number): Promise<void> {
    this.local.setHostDelay(hostId, delayMs);
  }

  async deferHost(hostId: number, until: number): Promise<void> {
    this.local.deferHost(hostId, until);
  }

  async suspendHost(hostId: number): Promise<void> {
    this.suspended.add(hostId);
    this.local.closeHost(hostId);
  }

  async size(): Promise<number> {
    return this.local.size();
  }

  async hostStates(now: number): Promise<HostStates> {
    return { ...this.local.hostStates(now), suspended: this.suspended.size };
  }

  leased(): number {
    return this.held;
  }

  /** Saves the queues next to the crawl file (SqliteFrontier.close). The store is closed by its owner. */
  async close(): Promise<void> {
    this.local.close();
  }
}
