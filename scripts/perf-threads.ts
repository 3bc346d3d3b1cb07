/**
 * The figures of scripts/profile-crawl.ts, apart from running anything (so that tests can check
 * them): Linux `perf` samples of one crawl process (`perf script -F tid,ip,sym`, call chains), put
 * together by thread (the crawl's thread, the analysis threads, the WAL checkpoint thread, V8's
 * helper threads) and, on the crawl's thread, by the part of the work a sample was in.
 *
 * Unlike V8's `--cpu-prof`, which charges native work to the JavaScript function that called it,
 * `perf` sees V8's builtins, SQLite, CLD2, Brotli and the kernel on every thread; with node's
 * `--perf-basic-prof` it names JavaScript frames too ("JS:*name file:line").
 */

/** One sample: its thread and its call chain, the innermost frame first. */
export interface PerfSample {
  tid: number;
  frames: string[];
}

/** What a thread of the crawl process is, from its call chains. */
export type ThreadKind = 'crawl' | 'analysis' | 'wal' | 'worker' | 'v8_helpers' | 'other';

/**
 * Parses `perf script -F tid,ip,sym` output: a line that starts with a thread id opens a sample,
 * indented lines are its frames ("address symbol"), innermost first.
 */
export function parsePerfScript(text: string): PerfSample[] {
  const out: PerfSample[] = [];
  let cur: PerfSample | null = null;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    // a frame's line starts with a tab; a sample's first line is its thread id, right-aligned by
    // perf (padded with spaces when the id is shorter than the column: a fresh machine's 4-digit ids)
    if (line[0] !== '\t') {
      const tid = Number(line.trim().split(/\s+/)[0]);
      if (!Number.isInteger(tid)) continue;
      cur = { tid, frames: [] };
      out.push(cur);
      continue;
    }
    if (!cur) continue;
    const t = line.trim();
    const sp = t.indexOf(' ');
    cur.frames.push(sp < 0 ? '[unknown]' : t.slice(sp + 1).trim());
  }
  return out;
}

/**
 * Each thread's kind: `pid`'s own thread is the crawl's; a node worker thread (`Worker::Run` in its
 * chains) is an analysis thread when its JavaScript is the page worker's, the WAL thread when it
 * checkpoints (SQLite's `sqlite3WalCheckpoint`, or the checkpointer's JavaScript); V8's platform
 * threads are its helpers (collector, optimising compiler).
 */
export function threadKinds(samples: readonly PerfSample[], pid: number): Map<number, ThreadKind> {
  const seen = new Map<number, { worker: boolean; page: boolean; checkpoint: boolean; platform: boolean }>();
  for (const s of samples) {
    let f = seen.get(s.tid);
    if (!f) seen.set(s.tid, (f = { worker: false, page: false, checkpoint: false, platform: false }));
    for (const fr of s.frames) {
      if (fr.includes('node::worker::Worker::Run')) f.worker = true;
      else if (fr.includes('PlatformWorkerThread')) f.platform = true;
      else if (fr.startsWith('JS:') && fr.includes('page-worker')) f.page = true;
      else if (fr.includes('checkpoint-worker') || fr === 'sqlite3WalCheckpoint') f.checkpoint = true;
    }
  }
  const out = new Map<number, ThreadKind>();
  for (const [tid, f] of seen) {
    out.set(tid, tid === pid ? 'crawl' : f.worker ? (f.page ? 'analysis' : f.checkpoint ? 'wal' : 'worker') : f.platform ? 'v8_helpers' : 'other');
  }
  return out;
}

/**
 * The crawl thread's parts: a sample counts for the first rule, in this order, that one of its
 * frames matches (SQLite before the page's handling that called it, and so on).
 */
export const CRAWL_PARTS: readonly (readonly [part: string, marks: readonly string[]])[] = [
  ['sqlite_write', ['Statement::JS_run']],
  ['sqlite_exec', ['Database::JS_exec']],
  ['sqlite_read', ['Statement::JS_get', 'Statement::JS_all', 'StatementIterator::']],
  ['gc', ['Scavenger', 'MarkCompact', 'v8::internal::Heap::', 'Sweeper', 'IncrementalMarking', 'cppgc::']],
  ['unpack_analysis', ['unpackAnalysis']],
  ['post_message', ['PostMessage']],
  // (undici is bundled into the crawl's code, so its frames are known by its functions' names: the
  // HTTP/1 writer and reader, llhttp's WebAssembly; a request's write runs from setImmediate)
  ['http', ['undici', 'uv__stream_io', 'LibuvStreamWrap', 'TCPWrap', 'writeH1', 'resumeH1', 'connectH1', 'onHttpSocket', 'wasm-function', 'wasm_on_']],
  ['epoll', ['epoll_pwait', 'epoll_wait']],
  ['page_handling', ['MessagePort::OnMessage']],
  ['immediates', ['CheckImmediate']],
  ['timers', ['Timer']],
];

/** Share of samples (0–1) by key, largest first, with the count they were taken over. */
export interface Shares {
  samples: number;
  shares: [string, number][];
}

/** The `top` largest counts as shares of `total`, largest first (perf-inclusive.ts's too). */
export function shares(counts: Map<string, number>, total: number, top = Infinity): Shares {
  const list = [...counts].sort((a, b) => b[1] - a[1]).slice(0, top);
  return { samples: total, shares: list.map(([k, v]) => [k, +(v / total).toFixed(4)]) };
}

export interface ThreadProfile {
  /** Every sample of the process. */
  samples: number;
  /** Each kind of thread's share of the process's samples (threads of one kind added up). */
  byKind: Shares;
  /** The innermost frames ("self") most sampled on each kind of thread, its `top` largest. */
  selfByKind: Record<string, Shares>;
  /** The crawl thread's samples by {@link CRAWL_PARTS} (`other`: none matched). */
  crawlParts: Shares;
}

/** Puts the samples together as {@link ThreadProfile} says; `pid`: the crawl process's id. */
export function profileThreads(samples: readonly PerfSample[], pid: number, top = 15): ThreadProfile {
  if (samples.length === 0) throw new Error('no perf sample: nothing to report');
  const kinds = threadKinds(samples, pid);
  const byKind = new Map<string, number>();
  const self = new Map<string, Map<string, number>>();
  const parts = new Map<string, number>();
  let crawlSamples = 0;
  for (const s of samples) {
    const kind = kinds.get(s.tid)!;
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
    let m = self.get(kind);
    if (!m) self.set(kind, (m = new Map()));
    const leaf = shortFrame(s.frames[0] ?? '[unknown]');
    m.set(leaf, (m.get(leaf) ?? 0) + 1);
    if (kind !== 'crawl') continue;
    crawlSamples++;
    const part = CRAWL_PARTS.find(([, marks]) => s.frames.some((f) => marks.some((k) => f.includes(k))))?.[0] ?? 'other';
    parts.set(part, (parts.get(part) ?? 0) + 1);
  }
  const selfByKind: Record<string, Shares> = {};
  for (const [kind, m] of self) selfByKind[kind] = shares(m, byKind.get(kind)!, top);
  return { samples: samples.length, byKind: shares(byKind, samples.length), selfByKind, crawlParts: shares(parts, Math.max(1, crawlSamples)) };
}

/** A frame without the bundle's folder ("JS:*scanUnits dist/crawl/page-worker.cjs:792"), at most 100 characters. */
export function shortFrame(f: string): string {
  return f.replace(/\S*\/dist\//g, 'dist/').replace(/:\d+$/, '').slice(0, 100);
}
