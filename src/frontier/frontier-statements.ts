import type Database from 'better-sqlite3';

/** Columns of one row of the multi-row INSERT, in order (see {@link FrontierStatements.insert}). */
export const INSERT_COLUMNS = 17;

export type FrontierStatements = ReturnType<typeof prepareStatements>;

/** Rows per statement of the batched reads and writes by id ({@link FrontierStatements.keysByIds} and the like). */
export const ID_CHUNK = 256;

/**
 * The smallest power of two ≥ n (at most {@link ID_CHUNK}): batched statements are prepared for
 * these sizes only, the rest of a chunk padded with its last row (a repeated id reads or writes
 * the same row the same way), so a crawl prepares a few statements, not one per batch size.
 */
export function paddedSize(n: number): number {
  return Math.min(powerOfTwoAtLeast(n), ID_CHUNK);
}

/** The smallest power of two ≥ n: the sizes of the multi-row statements padded by repeating a row (here, HostBumps, PageRowBatch). */
export function powerOfTwoAtLeast(n: number): number {
  let k = 1;
  while (k < n) k *= 2;
  return k;
}

/** The SQL of {@link SqliteFrontier}, prepared once per connection. */
export function prepareStatements(db: Database.Database) {
  const inserts = new Map<number, Database.Statement>();
  const lookups = new Map<number, Database.Statement>();
  const sized = (cache: Map<number, Database.Statement>, n: number, sql: (n: number) => string) => {
    let st = cache.get(n);
    if (!st) {
      st = db.prepare(sql(n));
      cache.set(n, st);
    }
    return st;
  };
  const keys = new Map<number, Database.Statement>();
  const updates = new Map<number, Database.Statement>();
  const reprioritizes = new Map<number, Database.Statement>();
  const values = (n: number, cols: number) => new Array(n).fill(`(${new Array(cols).fill('?').join(',')})`).join(',');
  return {
    /** where `n` URLs sit in the queues, by id (a padded size, see {@link paddedSize}) */
    keysByIds: (n: number) => sized(keys, n, (k) => `SELECT id, host_id, state, priority, seq FROM urls WHERE id IN (${new Array(k).fill('?').join(',')})`),
    /**
     * Changes of `n` URLs in one statement: per row id, priority, life, state, inlinks, inlink_score
     * (null: unchanged). Rows must have distinct ids, but for padding (a row repeated as it is).
     *
     * OR FAIL: a statement that changes many rows and may abort (the NOT NULL columns) makes
     * SQLite copy every page it touches into a statement journal first, so that an abort can undo
     * the statement alone; these rows are random in the file, so that is a page copied (8 KB, a
     * malloc and a memcpy) per row. Nothing here needs the statement undone alone: the frontier's
     * writes are not all or nothing anyway (SqliteStore.joinGroup) and a failure is a broken store,
     * fatal to the crawl. `npx tsx scripts/bench-statement-journal.ts` (a crawl file of 150,000 URL
     * rows, 400 statements of 64 random rows a round): 3.0–3.5 against 4.5–5.2 µs a row (0.65–0.67, 2026-12-05).
     * (Not on the page outcome's single-row UPDATE: it needs no journal, and with the content-hash
     * trigger OR FAIL made it 3.4 times slower in a micro-benchmark.)
     */
    updateMany: (n: number) => sized(updates, n, (k) =>
      `UPDATE OR FAIL urls SET priority = COALESCE(v.column2, urls.priority), life = COALESCE(v.column3, urls.life), state = COALESCE(v.column4, urls.state),
         inlinks = COALESCE(v.column5, urls.inlinks), inlink_score = COALESCE(v.column6, urls.inlink_score)
       FROM (VALUES ${values(k, 6)}) AS v WHERE urls.id = v.column1`),
    /** New priorities of `n` queued URLs in one statement: per row id, priority (distinct ids, but for padding); OR FAIL: see updateMany. */
    reprioritizeMany: (n: number) => sized(reprioritizes, n, (k) =>
      `UPDATE OR FAIL urls SET priority = v.column2 FROM (VALUES ${values(k, 2)}) AS v WHERE urls.id = v.column1 AND urls.state = 0`),
    /** INSERT of `rows` URLs: id, hash, fp, url, host_id, state, depth, priority, life, seq, parent_id, anchor, inlinks, inlink_score, hops, discovered_at, note */
    insert(rows: number): Database.Statement {
      let st = inserts.get(rows);
      if (!st) {
        const row = `(${new Array(INSERT_COLUMNS).fill('?').join(',')})`;
        st = db.prepare(
          `INSERT INTO urls (id, hash, fp, url, host_id, state, depth, priority, life, seq, parent_id, anchor, inlinks, inlink_score, hops, discovered_at, note)
           VALUES ${new Array(rows).fill(row).join(',')}`,
        );
        inserts.set(rows, st);
      }
      return st;
    },
    /** Known URLs among `n` ids (candidates from the seen-index, confirmed by their hash). */
    byIds(n: number): Database.Statement {
      let st = lookups.get(n);
      if (!st) {
        st = db.prepare(
          `SELECT hash, id, host_id, state, depth, priority, life, inlinks, inlink_score, seq FROM urls WHERE id IN (${new Array(n).fill('?').join(',')})`,
        );
        lookups.set(n, st);
      }
      return st;
    },
    /** where a URL sits in the queues (read before its priority or state changes) */
    queueKey: db.prepare('SELECT id, host_id, state, priority, seq FROM urls WHERE id = ?'),
    /**
     * a queued URL's row as it is handed out, with the anchor texts of the links to it recorded so
     * far (up to 50, as the store's anchorsTo reads them; a JSON array): one read instead of two
     */
    take: db.prepare(
      `SELECT url, depth, priority, life, seq, hops, parent_id, anchor,
         (SELECT json_group_array(a.anchor) FROM (SELECT anchor FROM links WHERE to_id = urls.id AND anchor <> '' LIMIT 50) a) AS anchors
       FROM urls WHERE id = ? AND state = 0`,
    ),
    /** a URL released without an outcome leaves the queue until reopen */
    unrecorded: db.prepare('UPDATE urls SET state = 1 WHERE id = ? AND state = 0'),
    hostByName: db.prepare('SELECT id FROM hosts WHERE name = ?'),
    hostInsert: db.prepare('INSERT INTO hosts (name) VALUES (?)'),
    hostDelay: db.prepare('UPDATE hosts SET delay_ms = ? WHERE id = ?'),
    hostNext: db.prepare('UPDATE hosts SET next_at = ? WHERE id = ?'),
    hostNextAtLeast: db.prepare('UPDATE hosts SET next_at = MAX(next_at, ?) WHERE id = ?'),
  };
}
