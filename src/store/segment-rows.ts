import type Database from 'better-sqlite3';
import { urlHash } from '../url/url-hash.js';
import { UrlState } from './schema.js';
import type { HostRef, PageRecord } from './store.js';

/**
 * The URL and host rows a segment of a shared crawl writes itself, under the shared frontier's ids
 * (a segment has no frontier of its own): the page of a record and its link targets (placeholders,
 * state QUEUED), and their hosts. It remembers the ids it wrote, so that a link to a URL seen before
 * costs no statement; {@link SegmentRows.forget} when a write fails (the rows may have been rolled
 * back), and past a million URLs it starts over (the rows are INSERT OR IGNORE).
 */
export class SegmentRows {
  private readonly st: { host: Database.Statement; url: Database.Statement };
  private urls = new Set<number>();
  private hosts = new Set<number>();

  constructor(db: Database.Database) {
    this.st = {
      host: db.prepare('INSERT OR IGNORE INTO hosts (id, name) VALUES (?, ?)'),
      url: db.prepare(
        `INSERT OR IGNORE INTO urls (id, hash, url, host_id, state, depth, priority, life, seq, parent_id, anchor, hops, discovered_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
    };
  }

  ensureHost(host: HostRef): void {
    if (this.hosts.has(host.id)) return;
    this.st.host.run(host.id, host.name);
    this.hosts.add(host.id);
  }

  ensureUrls(rec: PageRecord): void {
    const u = rec.url;
    const now = Date.now();
    this.ensureHost(u.host);
    this.st.url.run(u.id, u.hash ?? urlHash(u.url), u.url, u.host.id, UrlState.QUEUED, u.depth, u.priority, u.life, u.id, u.parentId, u.anchor, u.hops, now);
    if (this.urls.size > 1_000_000) this.urls.clear();
    for (const l of rec.links) {
      if (!l.url || !l.hash || l.hostId === undefined || this.urls.has(l.toId)) continue;
      if (l.host) this.ensureHost({ id: l.hostId, name: l.host });
      this.st.url.run(l.toId, l.hash, l.url, l.hostId, UrlState.QUEUED, u.depth + 1, 0, 0, l.toId, u.id, l.anchor || null, 0, now);
      this.urls.add(l.toId);
    }
  }

  /** Forgets what was written (after a failed write or commit). */
  forget(): void {
    this.urls = new Set();
    this.hosts = new Set();
  }
}
