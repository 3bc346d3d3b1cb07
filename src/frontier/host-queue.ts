/** A queued URL as the scheduler sees it: enough to order it within its host and among hosts. */
export interface Candidate {
  id: number;
  priority: number;
  seq: number;
}

/** True when `a` must be fetched before `b`: higher priority first, then first-in first-out. */
export function before(a: Candidate, b: Candidate): boolean {
  return a.priority > b.priority || (a.priority === b.priority && a.seq < b.seq);
}

/** An entry of the scheduler's heaps; it is live while its host points at it. */
export interface HeapEntry {
  host: HostSlot;
  /** 'wait': in the waiting heap until `nextAt`; 'ready': in the ready heap with this head */
  kind: 'wait' | 'ready';
  nextAt: number;
  priority: number;
  seq: number;
}

/**
 * Per-host scheduling state, kept in memory: a few dozen bytes plus up to `cap` candidates per host.
 *
 * `cands` is a prefix of the host's queue (queued URLs not in flight), best first: the store holds
 * the whole queue, this list saves one query per hand-out. `more` says the store may hold queued
 * URLs of the host that rank after the list; when the list runs out and `more` is set, it is
 * refilled from the store.
 */
export interface HostSlot {
  id: number;
  name: string;
  cands: Candidate[];
  more: boolean;
  nextAt: number;
  inFlight: number;
  delayMs: number;
  closed: boolean;
  /** the host's live heap entry, if it is scheduled; any other entry of this host is stale */
  entry: HeapEntry | null;
}

export function newHostSlot(id: number, name: string, delayMs: number): HostSlot {
  return { id, name, cands: [], more: false, nextAt: 0, inFlight: 0, delayMs, closed: false, entry: null };
}

/**
 * Offers a newly queued URL to its host's candidate list (which must not be waiting for a refill:
 * empty with `more` set). Returns true when it became the host's head.
 */
export function offerCandidate(host: HostSlot, c: Candidate, cap: number): boolean {
  const a = host.cands;
  let i = a.length;
  while (i > 0 && before(c, a[i - 1])) i--;
  // ranks after every cached candidate while the store holds more: it waits there for a refill
  if (i === a.length && host.more) return false;
  a.splice(i, 0, c);
  if (a.length > cap) {
    a.pop();
    host.more = true;
  }
  return i === 0;
}
