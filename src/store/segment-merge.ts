import Database from 'better-sqlite3';
import { UrlState } from '../frontier/url-state.js';
import { openDatabase } from './open-database.js';
import { DDL, MERGED_STORED_BYTES_KEY, ROBOTS_UNREACHABLE_KEY } from './schema.js';

/**
 * Merges the segments of a distributed crawl (one SQLite crawl file per worker, same schema, URL
 * and host ids global) into one temporary database with the crawl file's schema, so that every
 * report query runs on it unchanged. The segments are read one at a time through a read-only
 * connection (they are never written: no checkpoint of a worker's WAL either) into a staging database
 * attached as `seg` (a temporary one: SQLite keeps it in memory until it grows), merged in by SQL,
 * then dropped; so there is no limit on the number of segments (SQLite attaches at most 10 databases
 * at once) and no URI filenames are needed (better-sqlite3 does not enable them).
 *
 * The rules, so that nothing is lost or counted twice:
 * - urls: one row per id. A recorded outcome (fetched or failed) beats any other state, and of two
 *   outcomes (a lease expired and the page was fetched twice) the earliest `fetched_at` counts;
 *   otherwise skipped > pruned > queued/in flight, then the higher priority. `inlink_score` is the
 *   best of all rows; `inlinks` at least the most any segment saw, and (but for a skipped URL,
 *   whose count stopped when it was skipped) at least the distinct linking pages fetched before
 *   the URL in the merged crawl, as the crawl counts them. `fetch_seq` is renumbered 1..n in
 *   order of `fetched_at` (ties: segment order, then the segment's own order).
 * - responses: the one of the segment whose outcome counts; bodies are not copied (reports never
 *   read them): their stored sizes are summed into meta MERGED_STORED_BYTES_KEY.
 * - links: the union (one per from → to pair; the anchor of the first segment that has it).
 * - hosts: one row per id; robots fields of the latest robots.txt fetch, the latest `next_at`;
 *   `fetched` and `errors` recounted from the merged urls.
 * - revisits: the row with the latest check; checks: all of them. metrics: not merged (per worker).
 * - meta: the first segment's, with created_at the earliest, ROBOTS_UNREACHABLE_KEY summed,
 *   suspended_hosts the union, `worker` replaced by `workers` (JSON list) and `segments` (count).
 */

/** Ids of segment-local fetch orders are offset by the segment's number times this while merging. */
const SEQ_SPAN = 1e12;

const RECORDED = `${UrlState.FETCHED}, ${UrlState.FAILED}`;
const rank = (t: string) =>
  `(CASE WHEN ${t}state IN (${RECORDED}) THEN 3 WHEN ${t}state = ${UrlState.SKIPPED} THEN 2 WHEN ${t}state = ${UrlState.PRUNED} THEN 1 ELSE 0 END)`;
/** Whether the incoming row (excluded) replaces the merged one, in an upsert of urls. */
const BEATS = `(${rank('excluded.')} > ${rank('urls.')} OR (${rank('excluded.')} = ${rank('urls.')} AND CASE WHEN ${rank('excluded.')} = 3
  THEN excluded.fetched_at < urls.fetched_at ELSE excluded.priority > urls.priority END))`;

/** The tables staged from each segment; responses without their bodies (their size as body_len instead). */
const STAGED = ['meta', 'hosts', 'urls', 'links', 'revisits', 'checks', 'responses'] as const;

/** Blob columns of the schema that hold hashes (copied as hex). */
const HASH_COLUMNS = new Set(['hash', 'content_hash', 'simhash']);

const columnsOf = (db: Database.Database, schema: string, table: string): string[] =>
  (db.prepare(`PRAGMA ${schema}.table_info(${table})`).all() as { name: string }[]).map((c) => c.name);

/**
 * Copies the rows of the segment open as `src` into a fresh staging database attached to `db` as
 * `seg`: for each table, the columns it shares with the merged schema (older files may lack some).
 */
function stage(db: Database.Database, src: Database.Database): void {
  db.exec("ATTACH DATABASE '' AS seg");
  for (const table of STAGED) {
    const have = new Set(columnsOf(src, 'main', table));
    const cols = columnsOf(db, 'main', table).filter((c) => have.has(c) && c !== 'body');
    const extra = table === 'responses' ? ', body_len' : '';
    db.exec(`CREATE TABLE seg.${table} AS SELECT ${cols}${table === 'responses' ? ', 0 AS body_len' : ''} FROM main.${table} WHERE false`);
    const width = cols.length + (extra ? 1 : 0);
    // hashes cross as hex text: a Buffer per value took half the time of reading a segment
    const read = cols.map((c) => (HASH_COLUMNS.has(c) ? `CASE WHEN ${c} IS NULL THEN NULL ELSE hex(${c}) END` : c));
    const rows = src.prepare(`SELECT ${read}${extra ? ', LENGTH(body)' : ''} FROM ${table}`).raw().iterate() as Iterable<unknown[]>;
    // many rows per INSERT: binding one row per call was most of a merge's time
    const batch = Math.max(1, Math.min(500, Math.floor(30_000 / width)));
    const row = `(${[...cols.map((c) => (HASH_COLUMNS.has(c) ? 'unhex(?)' : '?')), ...(extra ? ['?'] : [])]})`;
    const insertOf = (n: number) => db.prepare(`INSERT INTO seg.${table} (${cols}${extra}) VALUES ${new Array(n).fill(row)}`);
    const full = insertOf(batch);
    db.transaction(() => {
      let values: unknown[] = [];
      for (const r of rows) {
        for (const v of r) values.push(v);
        if (values.length === batch * width) {
          full.run(values);
          values = [];
        }
      }
      if (values.length > 0) insertOf(values.length / width).run(values);
    })();
  }
}

/** The columns `table` has in the staging database (the ones the segment shares with the merged schema). */
function sharedColumns(db: Database.Database, table: string): string[] {
  return columnsOf(db, 'seg', table).filter((c) => c !== 'body_len');
}

/** One segment's rows merged in: meta returned, hosts, urls, links, revisits and checks written. */
function mergeRows(db: Database.Database, n: number): Map<string, string> {
  const meta = new Map((db.prepare('SELECT key, value FROM seg.meta').all() as { key: string; value: string }[]).map((r) => [r.key, r.value]));
  const robots = ['robots_status', 'robots_at', 'crawl_delay_ms', 'delay_ms'];
  const hostCols = sharedColumns(db, 'hosts');
  const newerRobots = 'COALESCE(excluded.robots_at, -1) > COALESCE(hosts.robots_at, -1)';
  db.exec(
    `INSERT INTO main.hosts (${hostCols}) SELECT ${hostCols} FROM seg.hosts WHERE true
     ON CONFLICT(id) DO UPDATE SET next_at = MAX(hosts.next_at, excluded.next_at),
     ${robots.filter((c) => hostCols.includes(c)).map((c) => `${c} = CASE WHEN ${newerRobots} THEN excluded.${c} ELSE hosts.${c} END`).join(', ')}`,
  );
  const urlCols = sharedColumns(db, 'urls');
  const select = urlCols.map((c) => (c === 'fetch_seq' ? `fetch_seq + ${n * SEQ_SPAN}` : c));
  const set = urlCols
    .filter((c) => c !== 'id')
    .map((c) => (c === 'inlinks' || c === 'inlink_score' ? `${c} = MAX(urls.${c}, excluded.${c})` : `${c} = excluded.${c}`));
  db.exec(`INSERT INTO main.urls (${urlCols}) SELECT ${select} FROM seg.urls WHERE true ON CONFLICT(id) DO UPDATE SET ${set.join(', ')} WHERE ${BEATS}`);
  // the backlink evidence of the rows that did not win
  db.exec(`UPDATE main.urls SET inlinks = MAX(urls.inlinks, s.inlinks), inlink_score = MAX(urls.inlink_score, s.inlink_score)
           FROM seg.urls s WHERE s.id = urls.id AND (s.inlinks > urls.inlinks OR s.inlink_score > urls.inlink_score)`);
  db.exec('INSERT OR IGNORE INTO main.links (from_id, to_id, anchor) SELECT from_id, to_id, anchor FROM seg.links');
  const revCols = sharedColumns(db, 'revisits');
  db.exec(
    `INSERT INTO main.revisits (${revCols}) SELECT ${revCols} FROM seg.revisits WHERE true ON CONFLICT(url_id) DO UPDATE SET
     ${revCols.filter((c) => c !== 'url_id').map((c) => `${c} = CASE WHEN excluded.last_check_at > revisits.last_check_at THEN excluded.${c} ELSE revisits.${c} END`).join(', ')}`,
  );
  const checkCols = sharedColumns(db, 'checks');
  db.exec(`INSERT INTO main.checks (${checkCols}) SELECT ${checkCols} FROM seg.checks`);
  return meta;
}

/**
 * After this segment's urls are merged in: the pages whose counted outcome is now this segment's
 * get this segment's response (or none, if it has none), with its body's stored size in
 * temp.merged_body_len.
 */
function mergeResponses(db: Database.Database, n: number): void {
  const cols = sharedColumns(db, 'responses');
  const won = `SELECT su.id FROM seg.urls su JOIN main.urls mu ON mu.id = su.id WHERE mu.fetch_seq = su.fetch_seq + ${n * SEQ_SPAN}`;
  db.exec(`DELETE FROM main.responses WHERE url_id IN (${won}); DELETE FROM temp.merged_body_len WHERE url_id IN (${won})`);
  const from = `FROM seg.responses r WHERE r.url_id IN (${won})`;
  db.exec(`INSERT INTO main.responses (${cols}, body) SELECT ${cols.map((c) => `r.${c}`)}, NULL ${from}`);
  db.exec(`INSERT INTO temp.merged_body_len (url_id, n) SELECT r.url_id, COALESCE(r.body_len, 0) ${from}`);
}

/** Fetch order 1..n over the whole crawl; hosts' counters and URLs' backlink counts over the merged rows. */
function settle(db: Database.Database): void {
  db.exec(`UPDATE urls SET fetch_seq = o.n FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY fetched_at, fetch_seq) AS n FROM urls WHERE fetch_seq IS NOT NULL) o
           WHERE urls.id = o.id`);
  db.exec(`UPDATE hosts SET fetched = 0, errors = 0;
           UPDATE hosts SET fetched = c.f, errors = c.e FROM (SELECT host_id, COUNT(*) AS f, SUM(error IS NOT NULL) AS e FROM urls WHERE state IN (${RECORDED}) GROUP BY host_id) c
           WHERE hosts.id = c.host_id`);
  db.exec(`UPDATE urls SET inlinks = MAX(urls.inlinks, c.n) FROM (
             SELECT l.to_id, COUNT(*) AS n FROM links l JOIN urls f ON f.id = l.from_id JOIN urls t ON t.id = l.to_id
              WHERE f.fetch_seq IS NOT NULL AND f.id <> t.id AND t.state <> ${UrlState.SKIPPED} AND (t.fetch_seq IS NULL OR f.fetch_seq < t.fetch_seq)
              GROUP BY l.to_id) c
           WHERE urls.id = c.to_id`);
}

/** The merged meta (see the rules above). */
function mergeMeta(metas: Map<string, string>[], storedBytes: number): Map<string, string> {
  const out = new Map(metas[0]);
  const all = (k: string) => metas.map((m) => m.get(k)).filter((v): v is string => v !== undefined);
  const created = all('created_at').sort()[0];
  if (created !== undefined) out.set('created_at', created);
  const unreachable = all(ROBOTS_UNREACHABLE_KEY).reduce((s, v) => s + Number(v), 0);
  if (unreachable > 0) out.set(ROBOTS_UNREACHABLE_KEY, String(unreachable));
  out.set('suspended_hosts', JSON.stringify([...new Set(all('suspended_hosts').flatMap((v) => JSON.parse(v) as string[]))].sort()));
  out.delete('worker');
  out.set('workers', JSON.stringify(all('worker')));
  out.set('segments', String(metas.length));
  out.set(MERGED_STORED_BYTES_KEY, String(storedBytes));
  return out;
}

/**
 * A temporary database (deleted when closed; SQLite keeps it in memory until it grows) holding the
 * crawl of `paths` merged by the rules above, set query-only. The paths must be crawl files of the
 * current schema (the caller checks them); the caller closes the result.
 */
export function mergeSegments(paths: readonly string[]): Database.Database {
  const db = new Database('');
  try {
    db.pragma('cache_size = -65536');
    db.pragma('foreign_keys = OFF'); // the segments are crawl files: their references hold
    db.exec(DDL);
    db.exec('CREATE TEMP TABLE merged_body_len (url_id INTEGER PRIMARY KEY, n INTEGER NOT NULL)');
    const metas = paths.map((p, i) => {
      const src = openDatabase(p, { readonly: true });
      try {
        // one read transaction: every table of a segment a live worker still writes from one snapshot
        src.exec('BEGIN');
        stage(db, src);
        src.exec('COMMIT');
      } finally {
        src.close();
      }
      try {
        return db.transaction(() => {
          const meta = mergeRows(db, i + 1);
          mergeResponses(db, i + 1);
          return meta;
        })();
      } finally {
        db.exec('DETACH DATABASE seg'); // ATTACH and DETACH are refused inside a transaction
      }
    });
    db.transaction(() => {
      settle(db);
      const storedBytes = (db.prepare('SELECT COALESCE(SUM(n), 0) AS s FROM temp.merged_body_len').get() as { s: number }).s;
      db.exec('DROP TABLE temp.merged_body_len; DELETE FROM meta');
      // the view is read many times per host (stats): an index crawl files do without
      db.exec('CREATE INDEX urls_host_state ON urls(host_id, state)');
      const put = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
      for (const [k, v] of mergeMeta(metas, storedBytes)) put.run(k, v);
    })();
    db.pragma('query_only = ON');
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
