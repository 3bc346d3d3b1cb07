import type { Candidate, HostSlot } from './host-queue.js';
import type { RunStore } from './run-store.js';

/** True when `a` ranks before `b` in a host's queue and among hosts: priority desc, then seq asc. */
export function outranks(a: Candidate, b: Candidate): boolean {
  return a.priority > b.priority || (a.priority === b.priority && a.seq < b.seq);
}

/**
 * Best-first order across the requests in flight. With N requests allowed in flight, the URLs in
 * flight should be the N best queued ones; politeness may forbid that (one request at a time per
 * host, a delay between two), but filling a free slot at once with the best URL of the hosts that
 * may be contacted spends it on a worse URL whenever better ones wait only for a request in flight
 * to end (with delay 0 and one request per host, a crawl at 32 in flight fetches from 32 hosts at
 * once, the poor ones included).
 *
 * This set keeps the busy hosts: those with as many requests in flight as they may have, which
 * become contactable the moment one ends. {@link BusyHosts.outnumbered} says whether a candidate is
 * outranked by N URLs: the requests in flight plus the queued URLs of busy hosts that rank before
 * it. Then the free slot is better left waiting for one of them. Hosts with a politeness delay or
 * a back-off are not counted: after their request they wait again, and that wait is politeness. Busy hosts are at most as many
 * as the requests in flight and each queue is read only while it outranks the candidate, so a check
 * costs O(N).
 */
export class BusyHosts {
  private readonly hosts = new Set<HostSlot>();

  constructor(private readonly perHostConcurrency: number) {}

  /** Call after a host's requests in flight changed. */
  update(host: HostSlot): void {
    if (host.inFlight >= this.perHostConcurrency) this.hosts.add(host);
    else this.hosts.delete(host);
  }

  /**
   * Whether at least `limit` URLs outrank `c` at `now`: the `inFlight` requests (handed out
   * earlier, so taken as better) and the queued URLs that rank before it on busy hosts that nothing
   * else keeps waiting (open, no politeness delay, no back-off past `now`). A busy host's front is
   * extended from its runs (which rank after the whole front) as far as the count needs.
   */
  outnumbered(c: Candidate, now: number, inFlight: number, limit: number, runs: RunStore, isInFlight: (id: number) => boolean): boolean {
    let n = inFlight;
    if (n === 0 || !Number.isFinite(limit)) return false;
    if (n >= limit) return true;
    for (const h of this.hosts) {
      if (h.closed || h.delayMs > 0 || h.nextAt > now) continue;
      for (let i = 0; ; i++) {
        if (i === h.cands.length && !extendFront(runs, h, limit - n, isInFlight)) break;
        if (!outranks(h.cands[i], c)) break;
        if (++n >= limit) return true;
      }
    }
    return false;
  }
}

/**
 * Appends a host's next `want` best entries from its runs to its front (they rank after all of it)
 * and lets the front keep them. Returns false when the runs had none.
 */
function extendFront(runs: RunStore, host: HostSlot, want: number, isInFlight: (id: number) => boolean): boolean {
  if (!host.more) return false;
  const more = runs.take(host.id, Math.max(1, want), isInFlight);
  host.more = runs.count(host.id) > 0;
  if (more.length === 0) return false;
  for (const e of more) host.cands.push(e);
  host.frontCap = Math.max(host.frontCap, host.cands.length);
  return true;
}
