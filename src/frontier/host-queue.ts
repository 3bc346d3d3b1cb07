import type { RunStore } from './run-store.js';

/** A queued URL as the scheduler sees it: enough to order it within its host and among hosts. */
export interface Candidate {
  id: number;
  priority: number;
  seq: number;
}

/**
 * A new candidate. Every candidate is made here, so that all have one shape (one hidden class): a
 * host's front mixes entries offered one by one with entries taken from the runs, and two shapes
 * there made V8 throw away and recompile the offer's optimised code dozens of times in a crawl.
 */
export function candidate(id: number, priority: number, seq: number): Candidate {
  return { id, priority, seq };
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

/**
 * A host's queue is its front (`host.cands`, best first, in memory) plus its entries in the run
 * store, which all rank after the whole front. These two keep that so.
 */

/**
 * Queues an entry for its host: into the front when it ranks there (the front's last entry may
 * move to the runs), else into the runs. `cap` is the smallest front a refill makes. Returns true
 * when it became the host's head.
 */
export function offerEntry(
  runs: RunStore, host: HostSlot, entry: { id: number; priority: number; seq: number }, cap: number, isInFlight: (id: number) => boolean,
  current?: (taken: Candidate[]) => Candidate[],
): boolean {
  const { id, priority, seq } = entry;
  if (host.cands.length === 0 && host.more) refillFront(runs, host, cap, isInFlight, false, current);
  const a = host.cands;
  let i = a.length;
  while (i > 0 && (priority > a[i - 1].priority || (priority === a[i - 1].priority && seq < a[i - 1].seq))) i--;
  if (i === a.length && (host.more || a.length >= host.frontCap)) {
    runs.push(host.id, priority, seq, id); // no object for what goes to disk
    host.more = true;
    return false;
  }
  a.splice(i, 0, candidate(id, priority, seq));
  if (a.length > host.frontCap) {
    const last = a.pop()!;
    runs.push(host.id, last.priority, last.seq, last.id);
    host.more = true;
  }
  return i === 0;
}

/**
 * Refills a host's empty front from its runs: an eighth of what it has queued there (at least
 * `min`, at most 4096), so a long queue is merged and rewritten only a few times per eighth
 * consumed (each entry is rewritten about eight times in all). URLs in flight are dropped. `small`
 * takes only `min` (a frontier opening on millions of queued URLs fills every host's front at once).
 * `current`, if given, keeps of the entries taken those still current (stale ones, left behind by a
 * change of priority or state, are dropped in one batch rather than one by one when handed out);
 * if it keeps none, the next ones are taken.
 */
export function refillFront(
  runs: RunStore, host: HostSlot, min: number, isInFlight: (id: number) => boolean, small = false, current?: (taken: Candidate[]) => Candidate[],
): void {
  const want = small ? min : Math.min(4096, Math.max(min, runs.count(host.id) >> 3));
  let taken = 0;
  do {
    host.cands = runs.take(host.id, want, isInFlight);
    taken = host.cands.length;
    if (current && taken) host.cands = current(host.cands);
    host.more = runs.count(host.id) > 0;
  } while (host.cands.length === 0 && host.more);
  host.frontCap = Math.max(min, taken);
}
