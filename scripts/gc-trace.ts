/**
 * V8's garbage collections in an output of `--trace-gc-nvp` (BENCH_NODE_FLAGS="--trace-gc-nvp"),
 * added up by isolate (a thread: the crawl's, each analysis thread, the WAL checkpoint thread) and
 * by kind of collection. One line per collection, e.g.
 * `[12638:0x32e4af50]  514 ms: pause=2.8 mutator=80.7 gc=s … promoted=0 …`: `gc=s` is a scavenge
 * (the young generation), `mc` a full mark-compact, `mmc` a minor mark-compact. `pause` is the time
 * the isolate's own thread stopped for it (the concurrent marking and sweeping on V8's helper threads
 * are not in it); `promoted` the bytes a scavenge moved to the old generation, which is what brings
 * the next full collection nearer.
 */

/** One kind of collection on one isolate. */
export interface GcKindTotals {
  count: number;
  pause_ms: number;
  promoted_mb: number;
}

/** An isolate's collections, in the order the isolates first reported one (the crawl's thread first in practice: it starts first). */
export interface IsolateGc {
  isolate: string;
  /** ms since the isolate started, of its first and last collection */
  first_ms: number;
  last_ms: number;
  by_kind: Record<string, GcKindTotals>;
}

const LINE = /^\[\d+:(0x[0-9a-f]+)\]\s+(\d+) ms: (.*)$/gm;

function field(rest: string, name: string): number {
  const m = rest.match(new RegExp(`(?:^| )${name}=([\\d.]+)`));
  return m ? Number(m[1]) : 0;
}

/** The collections traced in `stdout` by isolate, or null when it holds no --trace-gc-nvp line. */
export function gcCounts(stdout: string): IsolateGc[] | null {
  const by = new Map<string, IsolateGc>();
  for (const m of stdout.matchAll(LINE)) {
    const rest = m[3];
    const kind = rest.match(/(?:^| )gc=(\S+)/)?.[1];
    if (!kind || !/(?:^| )pause=/.test(rest)) continue; // a plain --trace-gc line, or another trace
    const at = Number(m[2]);
    let iso = by.get(m[1]);
    if (!iso) by.set(m[1], (iso = { isolate: m[1], first_ms: at, last_ms: at, by_kind: {} }));
    iso.last_ms = at;
    const k = (iso.by_kind[kind] ??= { count: 0, pause_ms: 0, promoted_mb: 0 });
    k.count++;
    k.pause_ms += field(rest, 'pause');
    k.promoted_mb += field(rest, 'promoted') / 1e6;
  }
  if (by.size === 0) return null;
  for (const iso of by.values()) {
    for (const k of Object.values(iso.by_kind)) {
      k.pause_ms = Math.round(k.pause_ms);
      k.promoted_mb = +k.promoted_mb.toFixed(1);
    }
  }
  return [...by.values()];
}
