import { existsSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { type Candidate, candidate } from './host-queue.js';

/** Entries buffered in memory (all hosts together) before they are written as runs, by default. */
export const RUN_BUFFER = 1 << 20;
/** Bytes per entry on disk: priority (float64), seq (uint32), id (uint32). */
const ENTRY = 16;

/** Saved Buffers larger than this are stored in chunks of this size (see RunStore.save). */
export const SAVE_CHUNK = 8 * 1024 * 1024;
const CHUNKED = 'chunked:';

/**
 * The back of the per-host queues, on disk: what a host has queued beyond the few best URLs the
 * scheduler keeps in memory. New entries are buffered per host; when the buffer is full, each host's
 * entries are sorted and appended as one run (a row holding a packed array, linked to the host's
 * previous run, so the table needs no index and every write is an append). Taking a host's best
 * entries reads all its runs and buffered entries, merges them, hands out the best and writes the
 * rest back as one run. So every write is an append of a whole run, and no entry ever costs a
 * random B-tree insert.
 *
 * The runs live in a SQLite database of their own with a small cache: a private temporary one, or a
 * file next to the crawl file that outlives a clean stop as a snapshot ({@link RunStore.save}).
 * They are an index the frontier can always rebuild from the `urls` table, so while the crawl runs
 * they need no journal, no sync and no commit, and memory stays bounded whatever the queue's length.
 *
 * Entries are never removed one by one: one whose URL changed priority or state stays until it is
 * taken, and the frontier drops it then (it checks each handed-out URL against its row).
 */
export class RunStore {
  private readonly db: Database.Database;
  private readonly st: { insert: Database.Statement; chain: Database.Statement; dropMany: Database.Statement };
  /** per host: its newest run (each run row links to the host's previous one, so no index is needed) */
  private readonly newest = new Map<number, number>();
  /** per host: buffered entries, flat [priority, seq, id, …] */
  private readonly buffered = new Map<number, number[]>();
  private bufferedTotal = 0;
  /** per host: entries in its runs on disk */
  private readonly onDisk = new Map<number, number>();

  /**
   * @param path file of the runs ('' for a private temporary database); with `snapshot`, a file left
   *   by {@link RunStore.save} is reopened as it is, otherwise any file there is replaced
   * @param cacheMb page cache
   * @param bufferEntries entries buffered in memory before they are written as runs
   */
  constructor(readonly path: string, cacheMb = 32, private readonly bufferEntries = RUN_BUFFER, snapshot = false) {
    if (path && !snapshot) removeFile(path);
    this.db = new Database(path);
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.pragma(`cache_size = -${Math.max(1, Math.round(cacheMb * 1024))}`);
    this.db.exec(`CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY, prev INTEGER NOT NULL, data BLOB NOT NULL);
                  CREATE TABLE IF NOT EXISTS saved (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
                  CREATE TABLE IF NOT EXISTS saved_hosts (host INTEGER PRIMARY KEY, newest INTEGER NOT NULL, on_disk INTEGER NOT NULL);`);
    this.st = {
      insert: this.db.prepare('INSERT INTO runs (prev, data) VALUES (?, ?)'),
      // a host's runs, newest first, in one statement (each names the one before it), and their removal in one
      chain: this.db.prepare(
        `WITH RECURSIVE chain(id, prev, data) AS (SELECT id, prev, data FROM runs WHERE id = ?
           UNION ALL SELECT r.id, r.prev, r.data FROM runs r JOIN chain c ON r.id = c.prev) SELECT id, data FROM chain`,
      ),
      dropMany: this.db.prepare('DELETE FROM runs WHERE id IN (SELECT value FROM json_each(?))'),
    };
    // one transaction for the whole life of the store: nothing here needs to reach the disk
    this.db.exec('BEGIN');
  }

  /** Entries a host has here (buffered or on disk), stale ones included. */
  count(host: number): number {
    return (this.buffered.get(host)?.length ?? 0) / 3 + (this.onDisk.get(host) ?? 0);
  }

  push(host: number, priority: number, seq: number, id: number): void {
    let b = this.buffered.get(host);
    if (!b) this.buffered.set(host, (b = []));
    b.push(priority, seq, id);
    if (++this.bufferedTotal >= this.bufferEntries) this.spill();
  }

  /**
   * Removes and returns a host's best `limit` entries, best first, skipping those `skip` rejects
   * (they are dropped). The rest stays: in the memory buffer while it has room, else as one run.
   */
  take(host: number, limit: number, skip: (id: number) => boolean): Candidate[] {
    // gather the host's entries in one buffer (runs as stored, buffered ones packed), then sort an
    // index: no object per entry, only for the few handed out
    const parts: Buffer[] = [];
    const newest = this.newest.get(host) ?? 0;
    if (newest !== 0) {
      const ids: number[] = [];
      for (const r of this.st.chain.all(newest) as { id: number; data: Buffer }[]) {
        ids.push(r.id);
        parts.push(r.data);
      }
      this.st.dropMany.run(JSON.stringify(ids));
    }
    this.newest.delete(host);
    this.onDisk.delete(host);
    const b = this.buffered.get(host);
    if (b) {
      parts.push(pack(b));
      this.bufferedTotal -= b.length / 3;
      this.buffered.delete(host);
    }
    const all = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    const n = all.length / ENTRY;
    const prio = new Float64Array(n);
    const seq = new Uint32Array(n);
    const ids = new Uint32Array(n);
    const order: number[] = [];
    for (let i = 0, o = 0; i < n; i++, o += ENTRY) {
      prio[i] = all.readDoubleLE(o);
      seq[i] = all.readUInt32LE(o + 8);
      ids[i] = all.readUInt32LE(o + 12);
      if (!skip(ids[i])) order.push(i);
    }
    order.sort((x, y) => prio[y] - prio[x] || seq[x] - seq[y]);
    const best: Candidate[] = [];
    for (let k = 0; k < Math.min(limit, order.length); k++) best.push(candidate(ids[order[k]], prio[order[k]], seq[order[k]]));
    const left = order.length - limit;
    if (left > 0 && this.bufferedTotal + left < this.bufferEntries) {
      // the rest stays in memory while the buffer has room (the next refill then reads no run; the
      // buffer's bound still holds: a spill writes it out with the rest)
      const rest: number[] = new Array(left * 3);
      for (let k = limit, o = 0; k < order.length; k++) {
        const i = order[k];
        rest[o++] = prio[i];
        rest[o++] = seq[i];
        rest[o++] = ids[i];
      }
      this.buffered.set(host, rest);
      this.bufferedTotal += left;
    } else if (left > 0) {
      const rest = Buffer.allocUnsafe(left * ENTRY);
      for (let k = limit, o = 0; k < order.length; k++, o += ENTRY) all.copy(rest, o, order[k] * ENTRY, order[k] * ENTRY + ENTRY);
      this.append(host, rest);
      this.onDisk.set(host, left);
    }
    return best;
  }

  /** Writes every buffered entry as one sorted run per host. */
  spill(): void {
    for (const [host, b] of this.buffered) {
      const n = b.length / 3;
      const order = Array.from({ length: n }, (_, i) => 3 * i);
      order.sort((x, y) => b[y] - b[x] || b[x + 1] - b[y + 1]);
      const sorted: number[] = new Array(b.length);
      order.forEach((at, k) => {
        sorted[3 * k] = b[at];
        sorted[3 * k + 1] = b[at + 1];
        sorted[3 * k + 2] = b[at + 2];
      });
      this.append(host, pack(sorted));
      this.onDisk.set(host, (this.onDisk.get(host) ?? 0) + n);
    }
    this.buffered.clear();
    this.bufferedTotal = 0;
  }

  /** Appends a run to the host's chain. */
  private append(host: number, data: Buffer): void {
    const id = Number(this.st.insert.run(this.newest.get(host) ?? 0, data).lastInsertRowid);
    this.newest.set(host, id);
  }

  /**
   * Reads what {@link RunStore.save} wrote, if anything, and forgets it (the runs now belong to a
   * live queue again). Returns null for a store without a snapshot.
   */
  load(): Map<string, unknown> | null {
    // large Buffers were saved in chunks (see save): put back together one chunk at a time
    const rows = this.db.prepare("SELECT key, value FROM saved WHERE key NOT LIKE '%#%'").all() as { key: string; value: unknown }[];
    if (rows.length === 0) return null;
    const chunk = this.db.prepare('SELECT value FROM saved WHERE key = ?').pluck();
    for (const r of rows) {
      if (typeof r.value !== 'string' || !r.value.startsWith(CHUNKED)) continue;
      const [count, bytes] = r.value.slice(CHUNKED.length).split('/').map(Number);
      const whole = Buffer.allocUnsafeSlow(bytes); // its own memory, offset 0: callers may view it as wider words
      let at = 0;
      for (let i = 0; i < count; i++) at += (chunk.get(`${r.key}#${i}`) as Buffer).copy(whole, at);
      r.value = whole;
    }
    for (const h of this.db.prepare('SELECT host, newest, on_disk FROM saved_hosts').raw().iterate() as Iterable<[number, number, number]>) {
      this.newest.set(h[0], h[1]);
      this.onDisk.set(h[0], h[2]);
    }
    // committed before any run changes: a crash from here on leaves a file that is no snapshot
    this.db.exec('DELETE FROM saved; DELETE FROM saved_hosts; COMMIT; BEGIN');
    return new Map(rows.map((r) => [r.key, r.value]));
  }

  /**
   * Writes everything buffered, plus `extra` (key → number, string or Buffer), and closes: the file
   * holds the whole queue then, for {@link RunStore.load} on the next start.
   */
  save(extra: Record<string, number | string | Buffer>): void {
    this.spill();
    const hosts = this.db.prepare('INSERT INTO saved_hosts (host, newest, on_disk) VALUES (?, ?, ?)');
    for (const [host, newest] of this.newest) hosts.run(host, newest, this.onDisk.get(host) ?? 0);
    const put = this.db.prepare('INSERT OR REPLACE INTO saved (key, value) VALUES (?, ?)');
    for (const [k, v] of Object.entries(extra)) {
      if (!Buffer.isBuffer(v) || v.length <= SAVE_CHUNK) {
        put.run(k, v);
        continue;
      }
      // in chunks, so neither SQLite nor the reader ever holds a second copy of a large table
      const count = Math.ceil(v.length / SAVE_CHUNK);
      for (let i = 0; i < count; i++) put.run(`${k}#${i}`, v.subarray(i * SAVE_CHUNK, (i + 1) * SAVE_CHUNK));
      put.run(k, `${CHUNKED}${count}/${v.length}`);
    }
    this.db.exec('COMMIT');
    this.db.pragma('synchronous = NORMAL');
    this.db.close();
  }

  /** Closes, and deletes the file: nothing here outlives the process unless saved. */
  close(): void {
    if (!this.db.open) return;
    this.db.close(); // a private temporary file goes with it
    if (this.path) removeFile(this.path);
  }
}

function removeFile(path: string): void {
  for (const p of [path, `${path}-journal`]) if (existsSync(p)) rmSync(p, { force: true });

}

/** Packs flat [priority, seq, id, …] entries into the on-disk layout. */
function pack(flat: number[]): Buffer {
  const buf = Buffer.allocUnsafe((flat.length / 3) * ENTRY);
  for (let i = 0, o = 0; i < flat.length; i += 3, o += ENTRY) {
    buf.writeDoubleLE(flat[i], o);
    buf.writeUInt32LE(flat[i + 1], o + 8);
    buf.writeUInt32LE(flat[i + 2], o + 12);
  }
  return buf;
}
