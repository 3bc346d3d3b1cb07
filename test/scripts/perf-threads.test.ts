import { describe, expect, it } from 'vitest';
import { CRAWL_PARTS, parsePerfScript, profileThreads, shortFrame, threadKinds, type PerfSample } from '../../scripts/perf-threads.js';

/** One sample as `perf script -F tid,ip,sym` prints it: the thread id, then frames innermost first. */
function sample(tid: number, frames: string[]): string {
  return `${tid} \n${frames.map((f, i) => `\t    ${(0x7f00 + i).toString(16)} ${f}`).join('\n')}\n\n`;
}

const PID = 100;
const MAIN = ['node::SpinEventLoopInternal', 'node::NodeMainInstance::Run', 'node::Start', '__libc_start_call_main'];
const WORKER = ['node::SpinEventLoopInternal', 'node::worker::Worker::Run', 'start_thread'];
const PLATFORM = ['v8::platform::DefaultJobWorker::Run', 'node::(anonymous namespace)::PlatformWorkerThread', 'start_thread'];

describe('parsePerfScript', () => {
  it('reads each sample with its thread and its frames, innermost first, symbols with spaces kept', () => {
    const text = sample(7, ['sqlite3VdbeExec', 'JS:*run /x/dist/cli/main.cjs:30708:16', ...MAIN]) + sample(8, ['[unknown]']) + sample(7, ['v8::internal::Heap::Scavenge(int)']);
    const s = parsePerfScript(text);
    expect(s.map((x) => x.tid)).toEqual([7, 8, 7]);
    expect(s[0].frames[0]).toBe('sqlite3VdbeExec');
    expect(s[0].frames[1]).toBe('JS:*run /x/dist/cli/main.cjs:30708:16');
    expect(s[0].frames).toHaveLength(2 + MAIN.length);
    expect(s[2].frames).toEqual(['v8::internal::Heap::Scavenge(int)']);
  });

  it('reads a thread id that perf right-aligned with spaces (ids shorter than its column)', () => {
    const s = parsePerfScript(`   6526 \n\t  bca5c1 v8::internal::Heap::Scavenge(int)\n\n    812 \n\t     311 JS:*knownUrls /w/dist/cli/main.cjs:26050:19\n\t  72a JS:*known /w/dist/cli/main.cjs:1:1\n`);
    expect(s.map((x) => x.tid)).toEqual([6526, 812]);
    expect(s[1].frames).toEqual(['JS:*knownUrls /w/dist/cli/main.cjs:26050:19', 'JS:*known /w/dist/cli/main.cjs:1:1']);
  });

  it('skips frames before any sample and lines that are not a thread id', () => {
    expect(parsePerfScript('\t  123 orphan\nnot-a-tid\n')).toEqual([]);
  });
});

describe('threadKinds', () => {
  it('tells the crawl thread, the analysis and WAL threads, other workers, V8 helpers and the rest apart', () => {
    const samples: PerfSample[] = [
      { tid: PID, frames: ['JS:*next dist/cli/main.cjs:1', ...MAIN] },
      { tid: 101, frames: ['JS:*scanUnits /w/dist/crawl/page-worker.cjs:792:19', ...WORKER] },
      { tid: 101, frames: ['BrotliCompress', ...WORKER] },
      { tid: 102, frames: ['walCheckpoint', 'sqlite3WalCheckpoint', 'JS:^pragma node_modules/better-sqlite3/lib/methods/pragma.js:4', ...WORKER] },
      { tid: 103, frames: ['JS:^something else.js:1', ...WORKER] },
      { tid: 104, frames: ['v8::internal::ConcurrentMarking::RunMajor', ...PLATFORM] },
      { tid: 105, frames: ['uv__work_done', 'start_thread'] },
    ];
    const k = threadKinds(samples, PID);
    expect(Object.fromEntries(k)).toEqual({ [PID]: 'crawl', 101: 'analysis', 102: 'wal', 103: 'worker', 104: 'v8_helpers', 105: 'other' });
  });
});

describe('profileThreads', () => {
  it('gives each kind its share, the most sampled innermost frames, and the crawl thread by part', () => {
    const text = [
      // crawl thread: 2 SQLite writes (one under a message), 1 COMMIT, 1 GC, 1 HTTP (a request written from setImmediate), 2 page handling, 1 other
      sample(PID, ['sqlite3BtreeInsert', 'better_sqlite3::Statement::JS_run', 'JS:*recordFetch /w/dist/cli/main.cjs:24790:27', 'node::worker::MessagePort::OnMessage', ...MAIN]),
      sample(PID, ['sqlite3VdbeExec', 'better_sqlite3::Statement::JS_run', ...MAIN]),
      sample(PID, ['pwrite64', 'better_sqlite3::Database::JS_exec', ...MAIN]),
      sample(PID, ['v8::internal::Scavenger::ScavengeObject', 'node::worker::MessagePort::OnMessage', ...MAIN]),
      sample(PID, ['__libc_write', 'JS:*writeH1 /w/dist/cli/main.cjs:8545:21', 'JS:*_resume /w/dist/cli/main.cjs:9441:21', 'JS:*processImmediate node:internal/timers:438:28', 'node::Environment::CheckImmediate', ...MAIN]),
      sample(PID, ['JS:*knownUrls /w/dist/cli/main.cjs:26050:19', 'node::worker::MessagePort::OnMessage', ...MAIN]),
      sample(PID, ['Builtins_FindOrderedHashMapEntry', 'JS:*knownUrls /w/dist/cli/main.cjs:26050:19', 'node::worker::MessagePort::OnMessage', ...MAIN]),
      sample(PID, ['uv_run', ...MAIN]),
      // analysis thread: 3 samples, V8 helper: 1
      sample(101, ['JS:*scanUnits /w/dist/crawl/page-worker.cjs:792:19', ...WORKER]),
      sample(101, ['JS:*scanUnits /w/dist/crawl/page-worker.cjs:792:19', ...WORKER]),
      sample(101, ['BrotliCompress', ...WORKER]),
      sample(104, ['v8::internal::ConcurrentMarking::RunMajor', ...PLATFORM]),
    ].join('');
    const p = profileThreads(parsePerfScript(text), PID, 2);
    expect(p.samples).toBe(12);
    expect(p.byKind.shares).toEqual([['crawl', +(8 / 12).toFixed(4)], ['analysis', 0.25], ['v8_helpers', +(1 / 12).toFixed(4)]]);
    // the analysis thread's innermost frames, its folder shortened, the line number dropped
    expect(p.selfByKind.analysis.shares).toEqual([['JS:*scanUnits dist/crawl/page-worker.cjs:792', +(2 / 3).toFixed(4)], ['BrotliCompress', +(1 / 3).toFixed(4)]]);
    expect(p.selfByKind.crawl.shares).toHaveLength(2); // --top
    // a write under a message is a write; the scavenge under a message is the collector's
    const parts = Object.fromEntries(p.crawlParts.shares);
    expect(parts).toEqual({ sqlite_write: 0.25, sqlite_exec: 0.125, gc: 0.125, http: 0.125, page_handling: 0.25, other: 0.125 });
    expect(p.crawlParts.samples).toBe(8);
  });

  it('names every part it can give, and refuses an empty profile', () => {
    expect(new Set(CRAWL_PARTS.map(([p]) => p)).size).toBe(CRAWL_PARTS.length);
    expect(() => profileThreads([], PID)).toThrow(/no perf sample/);
  });
});

describe('shortFrame', () => {
  it('drops the folder before dist/ and the column', () => {
    expect(shortFrame('JS:*run /work/main/dist/cli/main.cjs:30708:16')).toBe('JS:*run dist/cli/main.cjs:30708');
    expect(shortFrame('sqlite3VdbeExec')).toBe('sqlite3VdbeExec');
  });
});
