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
 * Per-host scheduling state, kept in memory: a few dozen bytes plus the host's front.
 *
 * `cands` is the front of the host's queue (queued URLs not in flight), best first; every other
 * queued URL of the host is in the run store and ranks after the whole front. `more` says the run
 * store holds entries of the host; when the front runs out and `more` is set, it is refilled from
 * there. Entries in the run store may be stale (their URL changed priority or state since).
 */
export interface HostSlot {
  id: number;
  name: string;
  cands: Candidate[];
  /** how many entries the front may hold before its last one moves to the runs */
  frontCap: number;
  more: boolean;
  nextAt: number;
  inFlight: number;
  delayMs: number;
  closed: boolean;
  /** the host's live heap entry, if it is scheduled; any other entry of this host is stale */
  entry: HeapEntry | null;
}

export function newHostSlot(id: number, name: string, delayMs: number, frontCap: number): HostSlot {
  return { id, name, cands: [], frontCap, more: false, nextAt: 0, inFlight: 0, delayMs, closed: false, entry: null };
}
