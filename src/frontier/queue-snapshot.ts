import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { FrontierStatements } from './frontier-statements.js';
import type { HostSlot } from './host-queue.js';
import type { HostTable } from './host-table.js';
import { RunStore } from './run-store.js';
import { SeenIndex } from './seen-index.js';
import type { SqliteFrontierOptions } from './sqlite-frontier-options.js';
import { scanUrls } from './url-scan.js';
import { UrlState } from './url-state.js';

type QueueKey = { id: number; host_id: number; state: number; priority: number; seq: number };

/** What {@link openQueues} gives the SQLite frontier. */
export interface OpenedQueues {
  runs: RunStore;
  seen: SeenIndex;
  /** URLs queued. */
  queued: number;
  /** The largest URL id in the file. */
  lastId: number;
  openedFrom: 'snapshot' | 'rebuild';
}

/**
 * Opens the SQLite frontier's queues and seen-index: from the snapshot a clean stop left next to the
 * crawl file (`<file>-queues`, used only if the file's stamp and last URL id still match it), or
 * rebuilt in one pass over `urls` (anything else, a crash included). `offer` puts a queued URL in
 * its host's queue, on the runs it is given (the ones returned).
 */
export function openQueues(
  db: Database.Database, opts: SqliteFrontierOptions, hosts: HostTable,
  offer: (runs: RunStore, host: HostSlot, id: number, priority: number, seq: number) => void,
): OpenedQueues {
  // a crawl file on disk keeps its queues next to it between runs; an in-memory one cannot
  const file = db.memory || !db.name ? '' : `${db.name}-queues`;
  const stamp = db.prepare("SELECT value FROM meta WHERE key = 'frontier_snapshot'").pluck().get() as string | undefined;
  const reuse = !!file && stamp !== undefined && existsSync(file);
  let runs = new RunStore(file, opts.queueCacheMb, opts.runBuffer, reuse);
  try {
    if (stamp !== undefined) db.prepare("DELETE FROM meta WHERE key = 'frontier_snapshot'").run(); // good for one open only
    hosts.load(db);
    const saved = reuse ? runs.load() : null;
    const lastId = (db.prepare('SELECT MAX(id) AS m FROM urls').pluck().get() as number | null) ?? 0;
    if (saved && saved.get('stamp') === stamp && saved.get('last_id') === lastId) {
      // URLs released without an outcome are queued again
      const seen = SeenIndex.fromBuffer(saved.get('seen') as Buffer, saved.get('seen_count') as number);
      let queued = saved.get('queued') as number;
      const stray = db.prepare('UPDATE urls SET state = ? WHERE state = ? RETURNING id, host_id, priority, seq').all(UrlState.QUEUED, UrlState.IN_FLIGHT) as QueueKey[];
      for (const r of stray) {
        offer(runs, hosts.get(r.host_id)!, r.id, r.priority, r.seq);
        queued++;
      }
      return { runs, seen, queued, lastId, openedFrom: 'snapshot' };
    }
    if (runs.path) {
      // a snapshot that does not match: start its file afresh
      runs.close();
      runs = new RunStore(runs.path, opts.queueCacheMb, opts.runBuffer);
    }
    // files written before URLs in flight stayed QUEUED on disk
    db.prepare('UPDATE urls SET state = ? WHERE state = ?').run(UrlState.QUEUED, UrlState.IN_FLIGHT);
    const { n } = db.prepare('SELECT COUNT(*) AS n FROM urls').get() as { n: number };
    const seen = new SeenIndex(n);
    let queued = 0;
    for (const [id, fp, hash, host, state, priority, seq] of scanUrls(db)) {
      seen.addFingerprint(fp ?? SeenIndex.fingerprint(Buffer.from(hash!, 'hex')), id);
      if (state === UrlState.QUEUED) {
        offer(runs, hosts.get(host)!, id, priority, seq);
        queued++;
      }
    }
    return { runs, seen, queued, lastId, openedFrom: 'rebuild' };
  } catch (err) {
    runs.close();
    throw err;
  }
}

/**
 * Saves the queues next to the crawl file at a clean stop (everything queued: the hosts' fronts, the
 * runs, and URLs handed out that no outcome recorded), with the seen-index, and stamps the file so
 * that the next open reads them instead of rebuilding them. Closes the runs.
 */
export function saveQueues(
  db: Database.Database, st: FrontierStatements, runs: RunStore, hosts: HostTable, inFlight: Iterable<number>,
  s: { queued: number; lastId: number; seen: SeenIndex },
): void {
  if (!runs.path) return runs.close();
  for (const host of hosts.values()) for (const c of host.cands.splice(0)) runs.push(host.id, c.priority, c.seq, c.id);
  let queued = s.queued;
  for (const id of inFlight) {
    const r = st.queueKey.get(id) as QueueKey | undefined;
    if (r?.state !== UrlState.QUEUED) continue;
    runs.push(r.host_id, r.priority, r.seq, r.id);
    queued++;
  }
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
  runs.save({ stamp, last_id: s.lastId, queued, seen: s.seen.toBuffer(), seen_count: s.seen.size });
  db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('frontier_snapshot', ?)").run(stamp);
}
