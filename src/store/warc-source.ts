import type Database from 'better-sqlite3';
import { decompressBody } from './body-codec.js';

/** What a crawl file holds of a fetched page's response, for WARC output (export, revisits). */
export interface StoredResponse {
  url: string;
  status: number;
  /** As the fetcher gave them: names lower-cased, repeated fields joined with ", ". */
  headers: Record<string, string>;
  /** The body as stored: decoded (content coding undone), possibly cut at the size cap. */
  body: Buffer;
  fetchedAt: number;
  depth: number;
  relevance: number | null;
  relevant: boolean | null;
  priority: number | null;
  fetchSeq: number | null;
}

const SELECT = `SELECT u.url, r.status, r.headers, r.body, r.body_codec, r.fetched_at, u.depth, u.relevance, u.relevant, u.fetch_priority, u.fetch_seq
  FROM responses r JOIN urls u ON u.id = r.url_id`;

function row(r: Record<string, unknown>): StoredResponse {
  return {
    url: r.url as string, status: r.status as number, headers: JSON.parse(r.headers as string) as Record<string, string>,
    body: decompressBody(r.body as Buffer | null, r.body_codec as string), fetchedAt: r.fetched_at as number,
    depth: r.depth as number, relevance: r.relevance as number | null, relevant: r.relevant === null ? null : r.relevant === 1,
    priority: r.fetch_priority as number | null, fetchSeq: r.fetch_seq as number | null,
  };
}

/** The stored response of a URL by its id (null: none stored, or removed as deleted). */
export function storedResponse(db: Database.Database, urlId: number): StoredResponse | null {
  const r = db.prepare(`${SELECT} WHERE r.url_id = ?`).get(urlId) as Record<string, unknown> | undefined;
  return r ? row(r) : null;
}

/** Every stored response, in fetch order. */
export function* storedResponses(db: Database.Database): Generator<StoredResponse> {
  for (const r of db.prepare(`${SELECT} ORDER BY u.fetch_seq, r.url_id`).iterate() as IterableIterator<Record<string, unknown>>) yield row(r);
}
