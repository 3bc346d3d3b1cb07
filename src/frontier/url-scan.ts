import type Database from 'better-sqlite3';

export type ScanRow = [id: number, fp: number | null, hash: string | null, host: number, state: number, priority: number, seq: number];

/**
 * Every URL in id order, with what the frontier rebuilds itself from: the fingerprint (or, for rows
 * of older files without one, the hash in hex), host, state, priority and seq. Rows come in chunks
 * of 100,000 packed as one JSON string by SQLite: 2–3× faster than stepping through them one by one.
 */
export function* scanUrls(db: Database.Database): Iterable<ScanRow> {
  const chunk = db.prepare(
    `SELECT json_group_array(json_array(id, fp, CASE WHEN fp IS NULL THEN hex(hash) END, host_id, state, priority, seq)) AS rows, max(id) AS last
       FROM (SELECT * FROM urls WHERE id > ? ORDER BY id LIMIT 100000)`,
  );
  for (let after = 0; ; ) {
    const r = chunk.get(after) as { rows: string; last: number | null };
    if (r.last === null) return;
    yield* JSON.parse(r.rows) as ScanRow[];
    after = r.last;
  }
}
