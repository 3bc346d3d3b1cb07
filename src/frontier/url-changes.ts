import type { UrlChange } from './local-frontier.js';
import { type FrontierStatements, ID_CHUNK, paddedSize } from './frontier-statements.js';
import type { Candidate } from './host-queue.js';
import type { UrlRowCache } from './url-row-cache.js';
import { UrlState } from './url-state.js';

/** Where a URL sits in the queues, as its row says. */
export type QueueKey = { id: number; host_id: number; state: number; priority: number; seq: number };

/**
 * Batched reads and writes of URL rows by id for {@link SqliteFrontier}: one statement per chunk of
 * up to {@link ID_CHUNK} URLs instead of one or two per URL (a page's link intake changes a few
 * dozen known URLs at once, and a strategy re-ranks hundreds).
 */

/**
 * The queue keys of these ids (unknown ids are absent): from the row cache where it holds them, the
 * rest read in one statement per chunk.
 */
export function readQueueKeys(st: FrontierStatements, ids: readonly number[], cache?: UrlRowCache): Map<number, QueueKey> {
  const out = new Map<number, QueueKey>();
  const missing: number[] = [];
  for (const id of ids) {
    const k = cache?.queueKey(id);
    if (k) out.set(id, k);
    else missing.push(id);
  }
  forChunks(missing.length, (at, n, k) => {
    const params = new Array<number>(k);
    for (let i = 0; i < k; i++) params[i] = missing[at + Math.min(i, n - 1)];
    for (const r of st.keysByIds(k).all(params) as QueueKey[]) out.set(r.id, r);
  });
  return out;
}

/** Of queue entries taken from the runs, those whose URL is still queued with that priority (one read per batch). */
export function stillQueued(st: FrontierStatements, cache: UrlRowCache, taken: Candidate[]): Candidate[] {
  const rows = readQueueKeys(st, taken.map((c) => c.id), cache);
  return taken.filter((c) => {
    const r = rows.get(c.id);
    return r !== undefined && r.state === UrlState.QUEUED && r.priority === c.priority;
  });
}

/**
 * Merges changes of the same URL as applying them in turn would (a later field wins, an absent one
 * keeps the earlier), in the order of each URL's first change.
 */
export function foldChanges(changes: readonly UrlChange[]): UrlChange[] {
  const byId = new Map<number, UrlChange>();
  for (const c of changes) {
    const was = byId.get(c.id);
    if (!was) {
      byId.set(c.id, { ...c });
      continue;
    }
    if (c.priority !== undefined) was.priority = c.priority;
    if (c.life !== undefined) was.life = c.life;
    if (c.state !== undefined) was.state = c.state;
    if (c.inlinks !== undefined) was.inlinks = c.inlinks;
    if (c.inlinkScore !== undefined) was.inlinkScore = c.inlinkScore;
  }
  return [...byId.values()];
}

/** Writes changes of distinct URLs (see {@link foldChanges}): absent fields stay as they are. */
export function writeChanges(st: FrontierStatements, changes: readonly UrlChange[]): void {
  forChunks(changes.length, (at, n, k) => {
    const params = new Array<number | null>(k * 6);
    for (let i = 0, o = 0; i < k; i++) {
      const c = changes[at + Math.min(i, n - 1)];
      params[o++] = c.id;
      params[o++] = c.priority ?? null;
      params[o++] = c.life ?? null;
      params[o++] = c.state ?? null;
      params[o++] = c.inlinks ?? null;
      params[o++] = c.inlinkScore ?? null;
    }
    st.updateMany(k).run(params);
  });
}

/** Sets the priorities of distinct URLs that are queued (others are left alone). */
export function writePriorities(st: FrontierStatements, updates: readonly { id: number; priority: number }[]): void {
  forChunks(updates.length, (at, n, k) => {
    const params = new Array<number>(k * 2);
    for (let i = 0, o = 0; i < k; i++) {
      const u = updates[at + Math.min(i, n - 1)];
      params[o++] = u.id;
      params[o++] = u.priority;
    }
    st.reprioritizeMany(k).run(params);
  });
}

/** Calls `f(at, n, k)` per chunk of `total` rows: `n` rows from `at`, in a statement of `k` ≥ n rows (padded). */
function forChunks(total: number, f: (at: number, n: number, k: number) => void): void {
  for (let at = 0; at < total; at += ID_CHUNK) {
    const n = Math.min(ID_CHUNK, total - at);
    f(at, n, paddedSize(n));
  }
}
