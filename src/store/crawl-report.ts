import type Database from 'better-sqlite3';
import { revisitFigures, type RevisitFigures } from './revisit-store.js';
import { MERGED_STORED_BYTES_KEY, ROBOTS_UNREACHABLE_KEY } from './schema.js';
import { urlsHasDedupColumns } from './open-database.js';
import { FEEDBACK_META_KEY, parseFeedback, type FeedbackRecord } from './feedback-record.js';

/** Read-only queries over a crawl file, for `stats`, `export` and evaluation. */

export interface HostStatusRow {
  host: string;
  fetched: number;
  queued: number;
  statuses: Record<string, number>;
  errors: number;
  robots: string | null;
  delayMs: number | null;
}

/**
 * The figures of a crawl file, read from it: `topicrawl stats` prints them and the crawl's
 * end-of-run summary takes its figures from here too, so the two always agree.
 */
export interface CrawlTotals {
  topic: string | null;
  strategy: string | null;
  createdAt: string | null;
  /** every URL the file knows, whatever its state (seeds, sitemap URLs and skipped ones included) */
  known: number;
  /** pages with a recorded outcome (what the page budget counts), failed ones included */
  fetched: number;
  /** of those, pages with no response (network errors, timeouts): state failed */
  failed: number;
  /** of those, pages whose outcome carries an error code (no response, HTTP 4xx/5xx, a bad redirect) */
  errors: number;
  /** URLs waiting to be fetched (queued, or handed out when a crash stopped the crawl) */
  queued: number;
  /** URLs pruned by Fish-Search life now (a pruned URL revived by a better parent is queued again) */
  pruned: number;
  /** URLs never fetched: robots.txt, scope of a redirect target */
  skipped: number;
  /** pages at or above the relevance threshold (in a language in scope), duplicates left out: what the harvest counts */
  relevant: number;
  scored: number;
  /** relevant / fetched */
  harvest: number;
  /**
   * pages that duplicate an earlier page: `exact` (the same title and text), `near` (SimHash within
   * dedup.max_distance), and `relevant` how many of them scored relevant (not counted in `relevant`)
   */
  duplicates: { exact: number; near: number; relevant: number };
  /** body bytes of the stored responses */
  bytes: number;
  storedBytes: number;
  hosts: number;
  links: number;
  discoveryRate: number;
  firstFetchAt: number | null;
  lastFetchAt: number | null;
  /** Hosts suspended by the last run after repeated failures (their URLs stay queued). */
  suspendedHosts: string[];
  /** The terms relevance feedback added to the keywords (meta `relevance_feedback`); null: none. */
  feedback: FeedbackRecord | null;
}

export function crawlTotals(db: Database.Database): CrawlTotals {
  const meta = (k: string) => (db.prepare('SELECT value FROM meta WHERE key = ?').get(k) as { value: string } | undefined)?.value ?? null;
  // a file written before near-duplicates (opened read-only) has no dup_of: no duplicates then
  // (exact: the same content hash as the page it duplicates; near: a SimHash within the distance, maybe 0)
  const dedup = urlsHasDedupColumns(db);
  const dups = dedup
    ? `SUM(u.relevant = 1 AND u.dup_of IS NULL) AS relevant, SUM(u.dup_of IS NOT NULL AND o.content_hash IS u.content_hash) AS exact,
       SUM(u.dup_of IS NOT NULL AND o.content_hash IS NOT u.content_hash) AS near, SUM(u.dup_of IS NOT NULL AND u.relevant = 1) AS dup_relevant`
    : 'SUM(u.relevant = 1) AS relevant, 0 AS exact, 0 AS near, 0 AS dup_relevant';
  const u = db
    .prepare(
      `SELECT COUNT(*) AS known, SUM(u.state IN (2, 3)) AS fetched, SUM(u.state = 3) AS failed,
              SUM(u.state IN (2, 3) AND u.error IS NOT NULL) AS errors, SUM(u.state IN (0, 1)) AS queued,
              SUM(u.state = 4) AS pruned, SUM(u.state = 5) AS skipped, ${dups}, SUM(u.relevance IS NOT NULL) AS scored,
              MIN(u.fetched_at) AS first, MAX(u.fetched_at) AS last
       FROM urls u${dedup ? ' LEFT JOIN urls o ON o.id = u.dup_of' : ''}`,
    )
    .get() as Record<string, number | null>;
  const r = db.prepare('SELECT COALESCE(SUM(body_bytes), 0) AS b, COALESCE(SUM(LENGTH(body)), 0) AS s FROM responses').get() as { b: number; s: number };
  const hosts = (db.prepare('SELECT COUNT(*) AS n FROM hosts').get() as { n: number }).n;
  const links = (db.prepare('SELECT COUNT(*) AS n FROM links').get() as { n: number }).n;
  const attempted = u.fetched ?? 0;
  return {
    topic: meta('topic'), strategy: meta('strategy'), createdAt: meta('created_at'),
    known: u.known ?? 0, fetched: u.fetched ?? 0, failed: u.failed ?? 0, errors: (u.errors ?? 0) + Number(meta(ROBOTS_UNREACHABLE_KEY) ?? 0), queued: u.queued ?? 0, pruned: u.pruned ?? 0,
    skipped: u.skipped ?? 0, relevant: u.relevant ?? 0, scored: u.scored ?? 0,
    harvest: attempted ? (u.relevant ?? 0) / attempted : 0,
    duplicates: { exact: u.exact ?? 0, near: u.near ?? 0, relevant: u.dup_relevant ?? 0 },
    bytes: r.b, storedBytes: r.s + Number(meta(MERGED_STORED_BYTES_KEY) ?? 0), hosts, links,
    // every known URL but the seeds was discovered by a fetched page
    discoveryRate: attempted ? Math.max(0, (u.known ?? 0) - (db.prepare('SELECT COUNT(*) AS n FROM urls WHERE depth = 0').get() as { n: number }).n) / attempted : 0,
    firstFetchAt: u.first ?? null, lastFetchAt: u.last ?? null,
    suspendedHosts: JSON.parse(meta('suspended_hosts') ?? '[]') as string[],
    feedback: parseFeedback(meta(FEEDBACK_META_KEY)),
  };
}

export function statusByHost(db: Database.Database): HostStatusRow[] {
  const hosts = db
    .prepare(
      `SELECT h.id, h.name, h.robots_status, h.delay_ms, h.errors,
              (SELECT COUNT(*) FROM urls WHERE host_id = h.id AND state IN (2, 3)) AS fetched,
              (SELECT COUNT(*) FROM urls WHERE host_id = h.id AND state IN (0, 1)) AS queued
       FROM hosts h ORDER BY fetched DESC, h.name`,
    )
    .all() as { id: number; name: string; robots_status: string | null; delay_ms: number | null; errors: number; fetched: number; queued: number }[];
  const st = db.prepare(
    `SELECT CASE WHEN state = 3 THEN COALESCE(error, 'failed') WHEN state = 5 THEN COALESCE(error, 'skipped') ELSE CAST(status AS TEXT) END AS k,
            COUNT(*) AS n FROM urls WHERE host_id = ? AND state IN (2, 3, 5) GROUP BY k ORDER BY k`,
  );
  return hosts.map((h) => ({
    host: h.name, fetched: h.fetched, queued: h.queued, errors: h.errors, robots: h.robots_status, delayMs: h.delay_ms,
    statuses: Object.fromEntries((st.all(h.id) as { k: string; n: number }[]).map((r) => [r.k, r.n])),
  }));
}

export interface ExportRow {
  url: string;
  status: number;
  depth: number;
  relevance: number | null;
  relevant: boolean | null;
  fetched_at: string;
  priority: number;
  fetch_seq: number;
  error: string | null;
  title: string | null;
  content_type: string | null;
  /** the text's language (ISO 639-1), null when it could not be told (or the page is not HTML) */
  lang: string | null;
  /** the 64-bit SimHash of the text, 16 hex digits; null: none */
  simhash: string | null;
  /** the URL of the earlier page this one duplicates, and the SimHash distance (0: the same content); null: none */
  duplicate_of: string | null;
  duplicate_distance: number | null;
  /** `exact`: the same title and text as that page; `near`: a SimHash within dedup.max_distance; null: no duplicate */
  duplicate: 'exact' | 'near' | null;
}

/** Every fetched (or failed) page in fetch order. */
export function* exportRows(db: Database.Database): Generator<ExportRow> {
  const dedup = urlsHasDedupColumns(db);
  const extra = dedup ? ', u.lang, hex(u.simhash) AS simhash, d.url AS dup_url, u.dup_distance, (d.content_hash IS u.content_hash) AS dup_exact' : '';
  const join = dedup ? ' LEFT JOIN urls d ON d.id = u.dup_of' : '';
  const it = db
    .prepare(
      `SELECT u.url, u.status, u.depth, u.relevance, u.relevant, u.fetched_at, u.fetch_priority, u.fetch_seq, u.error, r.title, r.content_type${extra}
       FROM urls u LEFT JOIN responses r ON r.url_id = u.id${join}
       WHERE u.fetch_seq IS NOT NULL ORDER BY u.fetch_seq`,
    )
    .iterate() as IterableIterator<Record<string, unknown>>;
  for (const r of it) {
    const simhash = (r.simhash as string | null | undefined) || null;
    yield {
      url: r.url as string, status: r.status as number, depth: r.depth as number, relevance: r.relevance as number | null,
      relevant: r.relevant === null ? null : r.relevant === 1, fetched_at: new Date(r.fetched_at as number).toISOString(),
      priority: r.fetch_priority as number, fetch_seq: r.fetch_seq as number, error: r.error as string | null,
      title: (r.title as string | null) ?? null, content_type: (r.content_type as string | null) ?? null,
      lang: (r.lang as string | null | undefined) ?? null, simhash: simhash ? simhash.toLowerCase() : null,
      duplicate_of: (r.dup_url as string | null | undefined) ?? null, duplicate_distance: (r.dup_distance as number | null | undefined) ?? null,
      duplicate: r.dup_url ? (r.dup_exact === 1 ? 'exact' : 'near') : null,
    };
  }
}

/** Pages fetched with a 2xx answer, by language (ISO 639-1; `und`: not told, or not HTML), most first: `stats`. */
export function pagesByLanguage(db: Database.Database): Record<string, number> {
  if (!urlsHasDedupColumns(db)) return {};
  const rows = db
    .prepare(
      `SELECT COALESCE(lang, 'und') AS lang, COUNT(*) AS n FROM urls
       WHERE state = 2 AND fetch_seq IS NOT NULL AND status BETWEEN 200 AND 299 GROUP BY 1 ORDER BY n DESC, lang`,
    )
    .all() as { lang: string; n: number }[];
  return Object.fromEntries(rows.map((r) => [r.lang, r.n]));
}


export type { RevisitFigures } from './revisit-store.js';

/**
 * The revisit part of `stats` (pages scheduled, due at `now`, checks, changes per day over the last
 * 7 days of checks, deleted, 304 share, bytes saved); null when the file has no revisit rows.
 */
export function revisitTotals(db: Database.Database, now: number = Date.now()): RevisitFigures | null {
  return revisitFigures(db, now);
}
