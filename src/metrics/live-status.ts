import type { HostStates } from '../frontier/frontier.js';
import type { PageEvent, ProgressSnapshot, StopReason } from '../events.js';
import { HarvestCurve } from './harvest-curve.js';
import { RecentRate } from './recent-rate.js';
import type { StatusJson } from './status-json.js';
import { Tallies } from './tallies.js';

/** Who the status is of (see StatusJson). */
export interface StatusMeta {
  topic: string;
  strategy: string;
  worker: string | null;
}

/** Whether a page counts in the estimated harvest, as the crawl's summary counts it: relevant, and no duplicate of an earlier page. */
export function inHarvest(e: PageEvent): boolean {
  return e.relevant === true && !e.duplicateOf;
}

const LATEST = 15;
const TOP = 10;

/**
 * The live page's model: what `/status.json` answers, kept up to date from the crawl's events
 * (page, progress, warn, start, end) at O(1) per page. The crawl's totals come from its progress
 * snapshots; the curve and the tables count this process's pages.
 */
export class LiveStatus {
  private state: StatusJson['state'] = 'starting';
  private reason: StopReason | null = null;
  private readonly startedAt: number;
  private snap: ProgressSnapshot | null = null;
  /** This process's counts: now, and when the latest snapshot was taken. */
  private pages = 0;
  private relevant = 0;
  private errorPages = 0;
  private bytes = 0;
  private atSnap = { pages: 0, relevant: 0, errors: 0, bytes: 0 };
  private readonly curve = new HarvestCurve();
  private readonly rate = new RecentRate();
  private readonly hosts = new Tallies(() => ({ pages: 0, relevant: 0, errors: 0 }));
  private readonly errors = new Tallies(() => ({ count: 0 }));
  private readonly warnings = new Tallies(() => ({ count: 0 }));
  private readonly latest: StatusJson['latestRelevant'] = [];

  constructor(private readonly meta: StatusMeta, private readonly now: () => number = Date.now) {
    this.startedAt = now();
  }

  started(): void {
    this.state = 'running';
  }

  ended(reason: StopReason): void {
    this.state = 'ended';
    this.reason = reason;
  }

  page(e: PageEvent): void {
    this.pages++;
    const h = this.hosts.of(e.host);
    h.pages++;
    if (inHarvest(e)) {
      this.relevant++;
      h.relevant++;
      this.latest.unshift({ url: e.url, relevance: e.relevance ?? 0, seq: e.seq, at: this.now() });
      if (this.latest.length > LATEST) this.latest.pop();
    }
    this.bytes += e.bytes;
    if (e.error) {
      this.errorPages++;
      h.errors++;
      this.errors.of(e.error === 'E_HTTP' && e.status > 0 ? `E_HTTP ${e.status}` : e.error).count++;
    }
    this.curve.add(this.pages, this.relevant);
  }

  progress(s: ProgressSnapshot): void {
    this.snap = s;
    this.atSnap = { pages: this.pages, relevant: this.relevant, errors: this.errorPages, bytes: this.bytes };
    this.rate.sample(this.now(), this.pages);
  }

  /**
   * The crawl's totals now: its latest progress snapshot (about once a second) plus this process's
   * pages since; the frontier's figures as of the snapshot. Null before the first snapshot.
   */
  totals(): Pick<ProgressSnapshot, 'fetched' | 'relevant' | 'harvest' | 'errors' | 'bytes' | 'frontier' | 'pruned' | 'discoveryRate'> | null {
    const s = this.snap;
    if (!s) return null;
    const fetched = s.fetched + this.pages - this.atSnap.pages;
    const relevant = s.relevant + this.relevant - this.atSnap.relevant;
    return {
      fetched, relevant, harvest: fetched ? relevant / fetched : 0, errors: s.errors + this.errorPages - this.atSnap.errors,
      bytes: s.bytes + this.bytes - this.atSnap.bytes, frontier: s.frontier, pruned: s.pruned, discoveryRate: s.discoveryRate,
    };
  }

  warn(code: string): void {
    this.warnings.of(code).count++;
  }

  /** StatusJson.harvestCurve. */
  harvestCurve(): [number, number][] {
    return this.curve.points();
  }

  json(hosts: HostStates | null): StatusJson {
    const now = this.now();
    const s = this.totals();
    const counted = (t: Tallies<{ count: number }>) => t.top(50, (v) => v.count).map(({ key, value }) => ({ kind: key, count: value.count }));
    return {
      topic: this.meta.topic, strategy: this.meta.strategy, worker: this.meta.worker,
      state: this.state, reason: this.reason, startedAt: this.startedAt, now, elapsedMs: now - this.startedAt,
      pages: s?.fetched ?? 0, pagesThisRun: this.pages, pagesPerSec: this.rate.perSec(), pagesPerSecAvg: this.snap?.pagesPerSec ?? 0,
      relevant: s?.relevant ?? 0, harvest: s?.harvest ?? 0, errors: s?.errors ?? 0, bytes: s?.bytes ?? 0,
      frontier: s?.frontier ?? 0, pruned: s?.pruned ?? 0, discoveryRate: s?.discoveryRate ?? 0, hosts,
      harvestCurve: this.harvestCurve(),
      topHosts: this.hosts.top(TOP, (v) => v.pages).map(({ key, value }) => ({ host: key, ...value })),
      latestRelevant: this.latest.slice(),
      errorsByKind: counted(this.errors),
      warningsByKind: counted(this.warnings),
    };
  }
}
