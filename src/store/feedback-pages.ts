import type Database from 'better-sqlite3';
import { urlsHasDedupColumns } from './open-database.js';

/** A scored page as relevance feedback reads it back from the crawl file. */
export interface ScoredPageRow {
  url: string;
  seq: number;
  relevance: number;
  /** The stored body, still compressed with `codec`. */
  body: Buffer | null;
  codec: string;
  charset: string | null;
}

/** Which pages relevance feedback counts: scored (parsed HTML) and duplicating no earlier page. */
function scoredWhere(db: Database.Database): string {
  return `u.relevance IS NOT NULL AND u.fetch_seq IS NOT NULL${urlsHasDedupColumns(db) ? ' AND u.dup_of IS NULL' : ''}`;
}

/** How many pages of the crawl file relevance feedback counts (see scoredWhere). */
export function scoredPageCount(db: Database.Database): number {
  return (db.prepare(`SELECT COUNT(*) AS n FROM urls u WHERE ${scoredWhere(db)}`).get() as { n: number }).n;
}

/** The first `n` pages relevance feedback counts, in fetch order, with their stored bodies. */
export function firstScoredPages(db: Database.Database, n: number): ScoredPageRow[] {
  const rows = db
    .prepare(
      `SELECT u.url, u.fetch_seq AS seq, u.relevance, r.body, r.body_codec AS codec, r.charset
       FROM urls u JOIN responses r ON r.url_id = u.id WHERE ${scoredWhere(db)} ORDER BY u.fetch_seq LIMIT ?`,
    )
    .all(n) as ScoredPageRow[];
  return rows;
}
