import type Database from 'better-sqlite3';
import type { HistoryPage, LinkedHistoryPage, PageInfo } from '../strategy/strategy.js';

/**
 * The crawl's history as a strategy replays it on resume (see `ResumeState`): one lazy pass over
 * the store, never more than one page's outlinks in memory.
 */

/** URLs queued without a parent (seeds, sitemap URLs), in id order. */
export function* seedUrls(db: Database.Database): Iterable<{ id: number; url: string }> {
  yield* db.prepare('SELECT id, url FROM urls WHERE parent_id IS NULL ORDER BY id').iterate() as Iterable<{ id: number; url: string }>;
}

/** URLs still queued (or in flight at a crash), in id order. */
export function* queuedUrls(db: Database.Database): Iterable<{ id: number; url: string; priority: number }> {
  yield* db.prepare('SELECT id, url, priority FROM urls WHERE state IN (0, 1) ORDER BY id').iterate() as Iterable<{ id: number; url: string; priority: number }>;
}

type Row = {
  id: number; url: string; depth: number; life: number; fetch_priority: number | null; relevance: number | null;
  relevant: number | null; to_id: number | null;
};

/** A history row's page as strategies are told of it. */
function pageOf(r: Row): PageInfo {
  return { id: r.id, url: r.url, depth: r.depth, life: r.life, priority: r.fetch_priority ?? 0, relevance: r.relevance, relevant: r.relevant === 1 };
}

/** Fetched (or failed) pages in fetch order, each with the ids of its stored outlinks. */
export function* fetchHistory(db: Database.Database): Iterable<HistoryPage> {
  const rows = db
    .prepare(
      `SELECT u.id, u.url, u.depth, u.life, u.fetch_priority, u.relevance, u.relevant, l.to_id
         FROM urls u LEFT JOIN links l ON l.from_id = u.id
        WHERE u.fetch_seq IS NOT NULL ORDER BY u.fetch_seq`,
    )
    .iterate() as Iterable<Row>;
  yield* byPage<Row, HistoryPage>(rows, (r) => ({ page: pageOf(r), outlinks: [] }), (p, r) => p.outlinks.push(r.to_id!));
}

type LinkedRow = Row & { to_url: string | null; anchor: string | null };

/** {@link fetchHistory} with each outlink's URL and anchor text (one more join: read only by strategies that ask). */
export function* fetchLinkedHistory(db: Database.Database): Iterable<LinkedHistoryPage> {
  const rows = db
    .prepare(
      `SELECT u.id, u.url, u.depth, u.life, u.fetch_priority, u.relevance, u.relevant, l.to_id, t.url AS to_url, l.anchor
         FROM urls u LEFT JOIN links l ON l.from_id = u.id LEFT JOIN urls t ON t.id = l.to_id
        WHERE u.fetch_seq IS NOT NULL ORDER BY u.fetch_seq, l.to_id`,
    )
    .iterate() as Iterable<LinkedRow>;
  yield* byPage<LinkedRow, LinkedHistoryPage>(rows, (r) => ({ page: pageOf(r), outlinks: [], urls: [], anchors: [] }), (p, r) => {
    p.outlinks.push(r.to_id!);
    p.urls.push(r.to_url ?? '');
    p.anchors.push(r.anchor ?? '');
  });
}

/** Rows of pages joined with their links (one row per link, or one with no link) grouped back into pages, never more than one in memory. */
function* byPage<R extends Row, P extends HistoryPage>(rows: Iterable<R>, start: (r: R) => P, add: (p: P, r: R) => void): Iterable<P> {
  let cur: P | null = null;
  for (const r of rows) {
    if (!cur || cur.page.id !== r.id) {
      if (cur) yield cur;
      cur = start(r);
    }
    if (r.to_id !== null) add(cur, r);
  }
  if (cur) yield cur;
}
