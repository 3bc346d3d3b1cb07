import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { TopicrawlError } from '../errors.js';
import type { UrlState } from '../frontier/url-state.js';
import { openDatabase, urlsHasDedupColumns } from './open-database.js';

/**
 * Read-only queries about single URLs and the crawl's meta, for `explain`, evaluation, resume and
 * recrawl: the SQL those modules need, so that none of them holds SQL of its own. Each function reads
 * an open crawl file (or a merged view of a crawl's segments, see segments.ts) and never writes.
 */

/** The value of a meta key, or null when the file has none. */
export function readMeta(db: Database.Database, key: string): string | null {
  return (db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value ?? null;
}

/**
 * The value of a meta key in the crawl file at `path`, opened read-only and closed again; null when
 * the file has no such key. E_USAGE when there is no file at `path` (or it is not a crawl file).
 */
export function readMetaOf(path: string, key: string): string | null {
  if (!existsSync(path)) throw new TopicrawlError('E_USAGE', `${path}: no such crawl file`, { path });
  const db = openDatabase(path, { readonly: true });
  try {
    return readMeta(db, key);
  } finally {
    db.close();
  }
}

/** The highest priority of any URL the file knows; null when it knows none (a fresh crawl). */
export function maxPriority(db: Database.Database): number | null {
  return (db.prepare('SELECT MAX(priority) AS m FROM urls').get() as { m: number | null }).m;
}

/** Every host of the file with the pages recorded on it so far (any outcome): the per-host budget's count. */
export function hostFetchedCounts(db: Database.Database): { id: number; fetched: number }[] {
  return db.prepare('SELECT id, fetched FROM hosts').all() as { id: number; fetched: number }[];
}

/** SQL: 1 when the row's page duplicates an earlier one (exact or near), else 0; 0 in a file without the column. */
const dupFlag = (db: Database.Database) => (urlsHasDedupColumns(db) ? '(dup_of IS NOT NULL)' : '0');

/**
 * Every page with a recorded outcome (fetched or failed), in no particular order, with whether it
 * duplicates an earlier page (`dup`: a harvest does not count it as a new relevant page).
 */
export function* recordedUrls(db: Database.Database): Generator<{ url: string; dup: boolean }> {
  for (const r of db.prepare(`SELECT url, ${dupFlag(db)} AS dup FROM urls WHERE fetch_seq IS NOT NULL`).iterate() as Iterable<{ url: string; dup: number }>) {
    yield { url: r.url, dup: r.dup === 1 };
  }
}

/** Every page with a recorded outcome in fetch order, with its HTTP status (null or 0: no response) and whether it is a duplicate. */
export function recordedInFetchOrder(db: Database.Database): { url: string; status: number | null; dup: boolean }[] {
  return (db.prepare(`SELECT url, status, ${dupFlag(db)} AS dup FROM urls WHERE fetch_seq IS NOT NULL ORDER BY fetch_seq`).all() as { url: string; status: number | null; dup: number }[])
    .map((r) => ({ url: r.url, status: r.status, dup: r.dup === 1 }));
}

/** What the file holds about one URL (columns of `urls`, named as in the schema). */
export interface StoredUrl {
  id: number;
  url: string;
  state: UrlState;
  depth: number;
  priority: number;
  life: number;
  parent_id: number | null;
  inlinks: number;
  inlink_score: number;
  hops: number;
  fetch_seq: number | null;
  fetch_priority: number | null;
  status: number | null;
  relevance: number | null;
  relevant: number | null;
  error: string | null;
  note: string | null;
}

const URL_COLUMNS =
  'id, url, state, depth, priority, life, parent_id, inlinks, inlink_score, hops, fetch_seq, fetch_priority, status, relevance, relevant, error, note';

/** The URL whose 16-byte hash (url-hash.ts) is `hash`, or undefined. A plain lookup: no index is assumed. */
export function urlByHash(db: Database.Database, hash: Uint8Array): StoredUrl | undefined {
  return db.prepare(`SELECT ${URL_COLUMNS} FROM urls WHERE hash = ?`).get(hash) as StoredUrl | undefined;
}

/** A URL's address and relevance by id (a parent page), or undefined. */
export function urlBrief(db: Database.Database, id: number): { id: number; url: string; relevance: number | null; relevant: number | null } | undefined {
  return db.prepare('SELECT id, url, relevance, relevant FROM urls WHERE id = ?').get(id) as
    | { id: number; url: string; relevance: number | null; relevant: number | null }
    | undefined;
}

/** The links to URL `id` (links table) with the linking page's address, in the order those pages were fetched. */
export function anchorsTo(db: Database.Database, id: number): { fromId: number; fromUrl: string; anchor: string }[] {
  return db
    .prepare(
      `SELECT l.from_id AS fromId, u.url AS fromUrl, l.anchor AS anchor
         FROM links l JOIN urls u ON u.id = l.from_id
        WHERE l.to_id = ? ORDER BY u.fetch_seq IS NULL, u.fetch_seq, u.id`,
    )
    .all(id) as { fromId: number; fromUrl: string; anchor: string }[];
}

/**
 * The depth of the last page fetched before fetch number `beforeSeq` (any, when null) that links to
 * URL `id`, itself excluded; undefined when there is none.
 */
export function lastLinkerDepth(db: Database.Database, id: number, beforeSeq: number | null): number | undefined {
  const row = db
    .prepare(
      `SELECT u.depth AS depth FROM links l JOIN urls u ON u.id = l.from_id
        WHERE l.to_id = ? AND u.fetch_seq IS NOT NULL AND u.fetch_seq < ? AND u.id <> ?
        ORDER BY u.fetch_seq DESC LIMIT 1`,
    )
    .get(id, beforeSeq ?? Number.MAX_SAFE_INTEGER, id) as { depth: number } | undefined;
  return row?.depth;
}
