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
  private readonly st: { host: Database.Statement; url: Database.Statement; row: Database.Statement; drop: Database.Statement; link: Database.Statement };
  private urls = new Set<number>();
  private hosts = new Set<number>();

  constructor(db: Database.Database) {
    this.st = {
      host: db.prepare('INSERT OR IGNORE INTO hosts (id, name) VALUES (?, ?)'),
      url: db.prepare(
        `INSERT OR IGNORE INTO urls (id, hash, url, host_id, state, depth, priority, life, seq, parent_id, anchor, hops, discovered_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      row: db.prepare('SELECT hash, url, host_id, state, depth, priority, life, parent_id, anchor, hops, discovered_at FROM urls WHERE id = ? AND fetch_seq IS NULL'),
      drop: db.prepare('DELETE FROM urls WHERE id = ? AND fetch_seq IS NULL'),
      link: db.prepare('UPDATE OR IGNORE links SET to_id = ? WHERE from_id = ? AND to_id = ?'),
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

  /**
   * Links of page `fromId` recorded to a reserved id whose URL turned out to have another (a worker
   * added it first): they point to the URL's id, and the placeholder row moves there.
   */
  relink(fromId: number, moves: readonly { from: number; to: number }[]): void {
    for (const m of moves) {
      const r = this.st.row.get(m.from) as { hash: Buffer; url: string; host_id: number; state: number; depth: number; priority: number; life: number; parent_id: number | null; anchor: string | null; hops: number; discovered_at: number } | undefined;
      this.st.drop.run(m.from);
      if (r) this.st.url.run(m.to, r.hash, r.url, r.host_id, r.state, r.depth, r.priority, r.life, m.to, r.parent_id, r.anchor, r.hops, r.discovered_at);
      this.st.link.run(m.to, fromId, m.from);
      this.urls.delete(m.from);
      this.urls.add(m.to);
    }
  }

  /** Forgets what was written (after a failed write or commit). */
  forget(): void {
    this.urls = new Set();
    this.hosts = new Set();
  }
}
