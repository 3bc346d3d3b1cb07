/**
 * Inclusive shares of `perf script` samples (profile-crawl.ts): how much of a thread's time is spent
 * in a function and everything it calls, and what that time is made of. profileThreads
 * (perf-threads.ts) says which innermost frames are sampled; these say which of our functions the
 * samples are under — the question "what is under the frontier's `next`?" that a flat profile, with
 * no function over a few percent, leaves open. Pure functions over parsed samples, so that they are
 * tested on made-up text (test/scripts/perf-inclusive.test.ts).
 */
import { shares, shortFrame, type PerfSample, type Shares, type ThreadKind } from './perf-threads.js';

/** `count` as a share of `total`, rounded to 4 places as {@link shares} rounds them. */
function share(count: number, total: number): number {
  return +(count / Math.max(1, total)).toFixed(4);
}

/**
 * The process's main thread (the crawl's) in samples of unknown origin: the thread whose chains
 * reach node's main instance (`node::NodeMainInstance::Run`, or `node::Start`). Null when none does.
 */
export function mainThreadOf(samples: readonly PerfSample[]): number | null {
  for (const s of samples) if (s.frames.some((f) => f.includes('node::NodeMainInstance::Run') || f === 'node::Start')) return s.tid;
  return null;
}

/**
 * For each kind of thread, the JavaScript functions (frames named `JS:…`, by {@link shortFrame}: a
 * bundle's functions keep their line, so that anonymous ones stay apart) with the most samples at
 * or under them, a sample counted once per function however deep it recurses; the `top` largest.
 */
export function inclusiveByKind(samples: readonly PerfSample[], kinds: ReadonlyMap<number, ThreadKind>, top = 15): Record<string, Shares> {
  const counts = new Map<string, Map<string, number>>();
  const totals = new Map<string, number>();
  for (const s of samples) {
    const kind = kinds.get(s.tid) ?? 'other';
    totals.set(kind, (totals.get(kind) ?? 0) + 1);
    let m = counts.get(kind);
    if (!m) counts.set(kind, (m = new Map()));
    const seen = new Set<string>();
    for (const f of s.frames) {
      if (!f.startsWith('JS:')) continue;
      const k = shortFrame(f);
      if (seen.has(k)) continue;
      seen.add(k);
      m.set(k, (m.get(k) ?? 0) + 1);
    }
  }
  const out: Record<string, Shares> = {};
  for (const [kind, m] of counts) out[kind] = shares(m, totals.get(kind)!, top);
  return out;
}

/** What is under one function on one kind of thread (see {@link focusOn}). */
export interface Focus {
  /** The frame matched, as {@link shortFrame} names it (the most sampled one when several match). */
  frame: string;
  kind: string;
  /** Its share of that kind's samples, itself and what it calls. */
  inclusive: number;
  /** Samples with it innermost, as a share of that kind's samples. */
  self: number;
  /** The frames it calls directly (from its outermost call in each sample), each a share of that kind's samples. */
  callees: [string, number][];
  /** The innermost frames of its samples (native ones too: SQLite, the collector, …), each a share of that kind's samples. */
  leaves: [string, number][];
}

/**
 * The frames whose {@link shortFrame} contains `name`, on each kind of thread where one is sampled:
 * for the most sampled such frame, its inclusive and self shares, its direct callees and the
 * innermost frames under it (`top` of each). A recursive function counts from its outermost call.
 */
export function focusOn(samples: readonly PerfSample[], kinds: ReadonlyMap<number, ThreadKind>, name: string, top = 15): Focus[] {
  const totals = new Map<string, number>();
  const hits = new Map<string, Map<string, number>>(); // kind → matching frame → samples
  for (const s of samples) {
    const kind = kinds.get(s.tid) ?? 'other';
    totals.set(kind, (totals.get(kind) ?? 0) + 1);
    const seen = new Set<string>();
    for (const f of s.frames) {
      const k = shortFrame(f);
      if (!k.includes(name) || seen.has(k)) continue;
      seen.add(k);
      let m = hits.get(kind);
      if (!m) hits.set(kind, (m = new Map()));
      m.set(k, (m.get(k) ?? 0) + 1);
    }
  }
  const out: Focus[] = [];
  for (const [kind, m] of hits) {
    const frame = [...m].sort((a, b) => b[1] - a[1])[0][0];
    const callees = new Map<string, number>();
    const leaves = new Map<string, number>();
    let n = 0;
    let self = 0;
    for (const s of samples) {
      if ((kinds.get(s.tid) ?? 'other') !== kind) continue;
      const names = s.frames.map(shortFrame); // innermost first
      const at = names.lastIndexOf(frame); // its outermost call
      if (at < 0) continue;
      n++;
      if (at === 0) self++;
      else callees.set(names[at - 1], (callees.get(names[at - 1]) ?? 0) + 1);
      leaves.set(names[0], (leaves.get(names[0]) ?? 0) + 1);
    }
    const total = totals.get(kind)!;
    out.push({
      frame, kind, inclusive: share(n, total), self: share(self, total),
      callees: shares(callees, total, top).shares, leaves: shares(leaves, total, top).shares,
    });
  }
  return out.sort((a, b) => b.inclusive - a.inclusive);
}
