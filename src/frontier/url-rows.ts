import type { KnownUrl, NewUrl } from './local-frontier.js';
import { type FrontierStatements, INSERT_COLUMNS } from './frontier-statements.js';
import type { HostSlot } from './host-queue.js';
import { SeenIndex } from './seen-index.js';
import { lookupState, UrlState } from './url-state.js';
import type { CachedRow, UrlRowCache } from './url-row-cache.js';

/** Rows per multi-row INSERT in {@link UrlRows.insert}. */
export const INSERT_CHUNK = 16;

type KnownRow = {
  hash: Buffer; id: number; host_id: number; state: number; depth: number; priority: number; life: number; inlinks: number; inlink_score: number; seq: number;
};

/** Writes new URLs to the `urls` table in multi-row INSERTs (one parameter array, reused). */
export class UrlRows {
  private readonly params: unknown[] = new Array(INSERT_CHUNK * INSERT_COLUMNS).fill(null);

  constructor(private readonly st: FrontierStatements) {}

  /** Inserts `entries` with ids (and sequence numbers) from `firstId`, on the hosts `hostOf`. */
  insert(entries: NewUrl[], firstId: number, hostOf: HostSlot[], now: number): void {
    const params = this.params;
    let k = 0;
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i];
      params[k++] = firstId + i;
      params[k++] = e.hash;
      params[k++] = SeenIndex.fingerprint(e.hash);
      params[k++] = e.url;
      params[k++] = hostOf[i].id;
      params[k++] = e.state ?? UrlState.QUEUED;
      params[k++] = e.depth;
      params[k++] = e.priority;
      params[k++] = e.life;
      params[k++] = firstId + i; // seq: given out with the id
      params[k++] = e.parentId;
      params[k++] = e.anchor;
      params[k++] = e.inlinks ?? 0;
      params[k++] = e.inlinkScore ?? 0;
      params[k++] = e.hops ?? 0;
      params[k++] = now;
      params[k++] = e.note ?? null;
      if (k === params.length) {
        this.st.insert(INSERT_CHUNK).run(params);
        k = 0;
      }
    }
    if (k > 0) this.st.insert(k / INSERT_COLUMNS).run(params.slice(0, k));
  }
}

/**
 * Known URLs among these hashes: the seen-index gives each hash its candidate ids, looked up in
 * `cache` and the rest read in chunks of 64 (and cached); a candidate counts only if its full hash
 * matches. URLs in flight are reported as IN_FLIGHT. A hash's hex is made only when it has
 * candidates, and a cached row is answered from the cache's columns: most of a page's links have
 * none, and a `Set` of every link's hex and two objects a known URL were 6 KB a page of garbage.
 */
export function knownUrls(st: FrontierStatements, seen: SeenIndex, hashes: Buffer[], inFlight: Set<number>, cache: UrlRowCache): Map<string, KnownUrl> {
  const out = new Map<string, KnownUrl>();
  const ids: number[] = [];
  const missing: number[] = [];
  /** the hex of each hash with a candidate not in the cache: a row read from the file counts if it is one of them */
  let missingHex: Set<string> | null = null;
  for (const h of hashes) {
    const from = ids.length;
    seen.find(h, ids);
    if (ids.length === from) continue;
    const hex = h.toString('hex');
    for (let k = from; k < ids.length; k++) {
      const known = cache.known(ids[k], hex, inFlight);
      if (known) out.set(hex, known);
      else if (known === undefined) {
        missing.push(ids[k]);
        (missingHex ??= new Set()).add(hex);
      }
    }
  }
  for (let i = 0; i < missing.length; i += 64) {
    const chunk = missing.slice(i, i + 64);
    for (const k of st.byIds(chunk.length).all(...chunk) as KnownRow[]) {
      const r: CachedRow = {
        hashHex: k.hash.toString('hex'), id: k.id, hostId: k.host_id, state: k.state, depth: k.depth, priority: k.priority, life: k.life,
        inlinks: k.inlinks, inlinkScore: k.inlink_score, seq: k.seq,
      };
      cache.put(r);
      if (!missingHex!.has(r.hashHex)) continue;
      out.set(r.hashHex, {
        id: r.id, hostId: r.hostId, state: lookupState(r.state, r.id, inFlight), depth: r.depth, priority: r.priority, life: r.life, inlinks: r.inlinks, inlinkScore: r.inlinkScore,
      });
    }
  }
  return out;
}
