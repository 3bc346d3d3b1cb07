import type Database from 'better-sqlite3';

/** Columns of one row of the multi-row INSERT, in order (see {@link FrontierStatements.insert}). */
export const INSERT_COLUMNS = 17;

export type FrontierStatements = ReturnType<typeof prepareStatements>;

/** The SQL of {@link SqliteFrontier}, prepared once per connection. */
export function prepareStatements(db: Database.Database) {
  const inserts = new Map<number, Database.Statement>();
  const lookups = new Map<number, Database.Statement>();
  return {
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
          `SELECT hash, id, host_id, state, depth, priority, life, inlinks, inlink_score FROM urls WHERE id IN (${new Array(n).fill('?').join(',')})`,
        );
        lookups.set(n, st);
      }
      return st;
    },
    /** where a URL sits in the queues (read before its priority or state changes) */
    queueKey: db.prepare('SELECT id, host_id, state, priority, seq FROM urls WHERE id = ?'),
    update: db.prepare(
      `UPDATE urls SET priority = COALESCE(@priority, priority), life = COALESCE(@life, life), state = COALESCE(@state, state),
         inlinks = COALESCE(@inlinks, inlinks), inlink_score = COALESCE(@inlinkScore, inlink_score) WHERE id = @id`,
    ),
    reprioritize: db.prepare('UPDATE urls SET priority = ? WHERE id = ? AND state = 0'),
    take: db.prepare('SELECT url, depth, priority, life, seq, hops, parent_id, anchor FROM urls WHERE id = ? AND state = 0'),
    /** a URL released without an outcome leaves the queue until reopen */
    unrecorded: db.prepare('UPDATE urls SET state = 1 WHERE id = ? AND state = 0'),
    hostByName: db.prepare('SELECT id FROM hosts WHERE name = ?'),
    hostInsert: db.prepare('INSERT INTO hosts (name) VALUES (?)'),
    hostDelay: db.prepare('UPDATE hosts SET delay_ms = ? WHERE id = ?'),
    hostNext: db.prepare('UPDATE hosts SET next_at = ? WHERE id = ?'),
    hostNextAtLeast: db.prepare('UPDATE hosts SET next_at = MAX(next_at, ?) WHERE id = ?'),
  };
}
