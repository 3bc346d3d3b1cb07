import Database from 'better-sqlite3';
import { before, type Candidate } from './host-queue.js';

/** Entries buffered in memory (all hosts together) before they are written as runs, by default. */
export const RUN_BUFFER = 1 << 18;
/** Bytes per entry on disk: priority (float64), seq (uint32), id (uint32). */
const ENTRY = 16;

/**
 * The back of the per-host queues, on disk: what a host has queued beyond the few best URLs the
 * scheduler keeps in memory. New entries are buffered per host; when the buffer is full, each host's
 * entries are sorted and appended as one run (a row holding a packed array). Taking a host's best
 * entries reads all its runs and buffered entries, merges them, hands out the best and writes the
 * rest back as one run. So every write is an append of a whole run, and no entry ever costs a
 * random B-tree insert.
 *
 * The runs live in a private temporary SQLite database (deleted when closed) with a small cache:
 * they are an index the frontier rebuilds from the `urls` table when it opens, so they need no
 * journal, no sync and no commit, and memory stays bounded whatever the queue's length.
 *
 * Entries are never removed one by one: one whose URL changed priority or state stays until it is
 * taken, and the frontier drops it then (it checks each handed-out URL against its row).
 */
export class RunStore {
  private readonly db: Database.Database;
  private readonly st: { insert: Database.Statement; runs: Database.Statement; drop: Database.Statement };
  /** per host: buffered entries, flat [priority, seq, id, …] */
  private readonly buffered = new Map<number, number[]>();
  private bufferedTotal = 0;
  /** per host: entries in its runs on disk */
  private readonly onDisk = new Map<number, number>();

  /**
   * @param cacheMb page cache of the temporary database
   * @param bufferEntries entries buffered in memory before they are written as runs
   */
  constructor(cacheMb = 32, private readonly bufferEntries = RUN_BUFFER) {
    this.db = new Database('');
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.pragma(`cache_size = -${Math.max(1, Math.round(cacheMb * 1024))}`);
    this.db.exec(`CREATE TABLE runs (id INTEGER PRIMARY KEY, host INTEGER NOT NULL, data BLOB NOT NULL);
                  CREATE INDEX runs_host ON runs (host);`);
    this.st = {
      insert: this.db.prepare('INSERT INTO runs (host, data) VALUES (?, ?)'),
      runs: this.db.prepare('SELECT data FROM runs WHERE host = ?').pluck(),
      drop: this.db.prepare('DELETE FROM runs WHERE host = ?'),
    };
    // one transaction for the whole life of the store: nothing here needs to reach the disk
    this.db.exec('BEGIN');
  }

  /** Entries a host has here (buffered or on disk), stale ones included. */
  count(host: number): number {
    return (this.buffered.get(host)?.length ?? 0) / 3 + (this.onDisk.get(host) ?? 0);
  }

  push(host: number, c: Candidate): void {
    let b = this.buffered.get(host);
    if (!b) this.buffered.set(host, (b = []));
    b.push(c.priority, c.seq, c.id);
    if (++this.bufferedTotal >= this.bufferEntries) this.spill();
  }

  /**
   * Removes and returns a host's best `limit` entries, best first, skipping those `skip` rejects
   * (they are dropped). The rest stays, as one run.
   */
  take(host: number, limit: number, skip: (id: number) => boolean): Candidate[] {
    const all: Candidate[] = [];
    if ((this.onDisk.get(host) ?? 0) > 0) {
      for (const data of this.st.runs.all(host) as Buffer[]) decode(data, all);
      this.st.drop.run(host);
      this.onDisk.delete(host);
    }
    const b = this.buffered.get(host);
    if (b) {
      for (let i = 0; i < b.length; i += 3) all.push({ priority: b[i], seq: b[i + 1], id: b[i + 2] });
      this.bufferedTotal -= b.length / 3;
      this.buffered.delete(host);
    }
    const live = skip ? all.filter((c) => !skip(c.id)) : all;
    live.sort((a, c) => (before(a, c) ? -1 : before(c, a) ? 1 : 0));
    const best = live.slice(0, limit);
    if (live.length > limit) this.write(host, live, limit);
    return best;
  }

  /** Writes every buffered entry as one sorted run per host. */
  spill(): void {
    for (const [host, b] of this.buffered) {
      const entries: Candidate[] = [];
      for (let i = 0; i < b.length; i += 3) entries.push({ priority: b[i], seq: b[i + 1], id: b[i + 2] });
      entries.sort((a, c) => (before(a, c) ? -1 : before(c, a) ? 1 : 0));
      this.write(host, entries, 0);
    }
    this.buffered.clear();
    this.bufferedTotal = 0;
  }

  close(): void {
    if (this.db.open) this.db.close(); // the temporary file goes with it
  }

  /** Appends entries[from..] as one run of the host. */
  private write(host: number, entries: Candidate[], from: number): void {
    const n = entries.length - from;
    if (n <= 0) return;
    const buf = Buffer.allocUnsafe(n * ENTRY);
    for (let i = 0; i < n; i++) {
      const e = entries[from + i];
      buf.writeDoubleLE(e.priority, i * ENTRY);
      buf.writeUInt32LE(e.seq, i * ENTRY + 8);
      buf.writeUInt32LE(e.id, i * ENTRY + 12);
    }
    this.st.insert.run(host, buf);
    this.onDisk.set(host, (this.onDisk.get(host) ?? 0) + n);
  }
}

function decode(data: Buffer, out: Candidate[]): void {
  for (let o = 0; o + ENTRY <= data.length; o += ENTRY) {
    out.push({ priority: data.readDoubleLE(o), seq: data.readUInt32LE(o + 8), id: data.readUInt32LE(o + 12) });
  }
}
