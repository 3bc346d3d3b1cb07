import type { SqliteStore } from './sqlite-store.js';
import type { HostRef, MetricsRow, PageRecord, Store, StoreCounters } from './store.js';
import { UrlState } from '../frontier/url-state.js';

/** How many page marks a segment keeps before it drops those of committed groups (see CrawlFileStore.marks). */
const MARKS_MAX = 4096;

/**
 * The {@link Store} door on a SQLite crawl file (SqliteStore). A page's record is all or nothing
 * within the store's group commit (a failure rolls the whole group back: SqliteStore.pageUnit);
 * calls run synchronously and resolve at once. In a segment of a shared crawl (`segment`), the URL rows a record is about (the page, its link
 * targets) and its host are written first under the frontier's ids, as the file has no frontier of
 * its own.
 */
export class CrawlFileStore implements Store {
  private readonly hostIds = new Map<string, number>();
  /**
   * In a segment: the commit group of each page recorded whose durability was not asked yet (see
   * {@link durable}), by URL id; those of committed groups are dropped when it grows past MARKS_MAX.
   */
  private readonly marks = new Map<number, number>();

  /**
   * `segment`: a segment of a shared crawl; `hostId` then gives the frontier's id of a link target's
   * host (asked once per host), as the segment writes the targets' rows with their hosts.
   */
  constructor(readonly file: SqliteStore, private readonly opts: { segment?: boolean; hostId?: (name: string) => Promise<number> } = {}) {}

  get path(): string {
    return this.file.path;
  }

  async getMeta(key: string): Promise<string | undefined> {
    return this.file.getMeta(key);
  }

  async setMeta(values: Record<string, string>): Promise<void> {
    this.file.transaction(() => {
      for (const [k, v] of Object.entries(values)) this.file.setMeta(k, v);
    });
  }

  async recordPage(rec: PageRecord): Promise<number | null> {
    if (this.opts.segment && this.opts.hostId) {
      for (const l of rec.links) {
        if (l.hostId !== undefined || !l.host) continue;
        let id = this.hostIds.get(l.host);
        if (id === undefined) this.hostIds.set(l.host, (id = await this.opts.hostId(l.host)));
        l.hostId = id;
      }
    }
    return this.recordPageNow(rec);
  }

  /** {@link Store.recordPage}, synchronously (for callers already in the store's transaction). */
  recordPageNow(rec: PageRecord): number | null {
    const seq = this.recordUnit(rec);
    if (this.opts.segment) this.markRecorded(rec.url.id);
    return seq;
  }

  private markRecorded(id: number): void {
    const mark = this.file.commitMark();
    if (this.marks.size >= MARKS_MAX) {
      // (of groups that ended: durable() of those pages then waits for the open group, later but safe)
      for (const [k, m] of this.marks) if (m < mark) this.marks.delete(k);
    }
    this.marks.set(id, mark);
  }

  private recordUnit(rec: PageRecord): number | null {
    const f = this.file;
    return f.pageUnit(() => {
      if (this.opts.segment) f.ensureUrls(rec);
      const fetchSeq = rec.fetched === false ? null : f.nextFetchSeq();
      const u = rec.url;
      if (rec.response) f.recordResponse({ urlId: u.id, ...rec.response });
      if (rec.links.length) f.recordLinks(u.id, rec.links);
      f.recordOutcome({
        urlId: u.id, state: rec.state, status: rec.status, error: rec.error, relevance: rec.relevance, relevant: rec.relevant,
        contentHash: rec.contentHash, fetchedAt: rec.fetchedAt, fetchSeq, fetchPriority: u.priority, note: rec.note,
        simhash: rec.simhash, lang: rec.lang, duplicateOf: rec.duplicateOf,
      });
      if (rec.hostCounts) f.bumpHost(u.host.id, rec.hostCounts.fetched, rec.hostCounts.errors);
      return fetchSeq;
    });
  }

  async relinkTargets(fromId: number, moves: readonly { from: number; to: number }[]): Promise<void> {
    this.file.transaction(() => this.file.relinkTargets(fromId, moves), false);
  }

  durable(urlId?: number): Promise<void> {
    const mark = urlId === undefined ? undefined : this.marks.get(urlId);
    if (mark === undefined) return this.file.whenCommitted();
    this.marks.delete(urlId!);
    return this.file.whenCommitted(mark);
  }

  async anchorsTo(urlId: number): Promise<string[]> {
    return this.file.anchorsTo(urlId);
  }

  async findByContentHash(hash: Buffer): Promise<number | undefined> {
    return this.file.findByContentHash(hash);
  }

  async fingerprints(): Promise<{ id: number; simhash: Uint8Array }[]> {
    return this.file.fingerprints();
  }

  async setHostRobots(host: HostRef, status: string, crawlDelayMs: number | null): Promise<void> {
    this.file.transaction(() => {
      if (this.opts.segment) this.file.ensureHost(host);
      this.file.setHostRobots(host.id, status, crawlDelayMs);
    });
  }

  async recordRobotsUnreachable(host: HostRef): Promise<void> {
    if (this.opts.segment) this.file.transaction(() => this.file.ensureHost(host));
    this.file.recordRobotsUnreachable(host.id);
  }

  async recordMetrics(m: MetricsRow): Promise<void> {
    this.file.recordMetrics(m);
  }

  async counters(): Promise<StoreCounters> {
    return this.file.counters();
  }

  async close(): Promise<void> {
    this.file.close();
  }
}

export { UrlState };
