import { describe, expect, it } from 'vitest';
import { focusOn, inclusiveByKind, mainThreadOf } from '../../scripts/perf-inclusive.js';
import type { PerfSample, ThreadKind } from '../../scripts/perf-threads.js';

const MAIN = ['node::SpinEventLoopInternal', 'node::NodeMainInstance::Run', 'node::Start', '__libc_start_call_main'];
const WORKER = ['node::SpinEventLoopInternal', 'node::worker::Worker::Run', 'start_thread'];
const loop = 'JS:*run /w/dist/cli/main.cjs:30708:10';
const next = 'JS:*next /w/dist/cli/main.cjs:27014:5';
const flush = 'JS:*flushLinks /w/dist/cli/main.cjs:28400:3';
const intake = 'JS:*intakeLinks /w/dist/cli/main.cjs:24622:27';
const anon = (line: number): string => `JS:* /w/dist/cli/main.cjs:${line}:1`;
const scan = 'JS:*scanUnits /w/dist/crawl/page-worker.cjs:792:19';

/** Frames innermost first, as parsePerfScript gives them. */
const crawl = (...inner: string[]): PerfSample => ({ tid: 100, frames: [...inner, ...MAIN] });
const samples: PerfSample[] = [
  crawl('sqlite3BtreeInsert', 'better_sqlite3::Statement::JS_run', flush, next, loop),
  crawl('sqlite3VdbeExec', 'better_sqlite3::Statement::JS_run', flush, next, loop),
  crawl(next, loop),
  crawl('Builtins_FindOrderedHashMapEntry', anon(25379), intake),
  crawl(anon(11), anon(25379), intake),
  // a recursive call: counted once, from its outermost call
  crawl('sqlite3VdbeExec', next, anon(5), next, loop),
  crawl('epoll_pwait'),
  { tid: 101, frames: [scan, 'JS:*explain /w/dist/crawl/page-worker.cjs:1:1', ...WORKER] },
  { tid: 101, frames: ['Builtins_ArrayPrototypePush', scan, ...WORKER] },
];
const kinds = new Map<number, ThreadKind>([[100, 'crawl'], [101, 'analysis']]);

describe('mainThreadOf', () => {
  it("finds the thread that reaches node's main instance, and none in samples without it", () => {
    expect(mainThreadOf(samples)).toBe(100);
    expect(mainThreadOf(samples.filter((s) => s.tid !== 100))).toBeNull();
  });
});

describe('inclusiveByKind', () => {
  it('counts each JavaScript function once per sample at or under it, anonymous ones apart by line', () => {
    const inc = inclusiveByKind(samples, kinds);
    const crawlShares = Object.fromEntries(inc.crawl.shares);
    expect(inc.crawl.samples).toBe(7);
    // next: 4 samples (one of them recursive: once), the loop 4, flushLinks 2, intakeLinks 2
    expect(crawlShares['JS:*next dist/cli/main.cjs:27014']).toBeCloseTo(4 / 7, 4);
    expect(crawlShares['JS:*run dist/cli/main.cjs:30708']).toBeCloseTo(4 / 7, 4);
    expect(crawlShares['JS:*flushLinks dist/cli/main.cjs:28400']).toBeCloseTo(2 / 7, 4);
    expect(crawlShares['JS:* dist/cli/main.cjs:25379']).toBeCloseTo(2 / 7, 4);
    expect(crawlShares['JS:* dist/cli/main.cjs:11']).toBeCloseTo(1 / 7, 4);
    expect(Object.keys(crawlShares).some((k) => !k.startsWith('JS:'))).toBe(false); // native frames are not listed
    expect(inc.analysis.shares[0]).toEqual(['JS:*scanUnits dist/crawl/page-worker.cjs:792', 1]);
  });

  it('keeps the `top` largest, largest first', () => {
    const inc = inclusiveByKind(samples, kinds, 2);
    expect(inc.crawl.shares).toHaveLength(2);
    expect(inc.crawl.shares[0][1]).toBeGreaterThanOrEqual(inc.crawl.shares[1][1]);
  });
});

describe('focusOn', () => {
  it("gives a function's inclusive and self shares, its direct callees and the innermost frames under it", () => {
    const [f, ...rest] = focusOn(samples, kinds, '*next ');
    expect(rest).toHaveLength(0);
    expect(f.kind).toBe('crawl');
    expect(f.frame).toBe('JS:*next dist/cli/main.cjs:27014');
    expect(f.inclusive).toBeCloseTo(4 / 7, 4);
    expect(f.self).toBeCloseTo(1 / 7, 4);
    // from its outermost call: flushLinks twice, the anonymous function once (the recursion inside it is not a callee of its own)
    expect(Object.fromEntries(f.callees)).toEqual({ 'JS:*flushLinks dist/cli/main.cjs:28400': +(2 / 7).toFixed(4), 'JS:* dist/cli/main.cjs:5': +(1 / 7).toFixed(4) });
    expect(Object.fromEntries(f.leaves)).toEqual({
      sqlite3VdbeExec: +(2 / 7).toFixed(4), sqlite3BtreeInsert: +(1 / 7).toFixed(4), 'JS:*next dist/cli/main.cjs:27014': +(1 / 7).toFixed(4),
    });
  });

  it('answers on every kind of thread where the name is sampled, and nothing for a name never sampled', () => {
    const on = focusOn(samples, kinds, 'dist/');
    expect(on.map((f) => f.kind).sort()).toEqual(['analysis', 'crawl']);
    expect(on.find((f) => f.kind === 'analysis')!.frame).toBe('JS:*scanUnits dist/crawl/page-worker.cjs:792');
    expect(focusOn(samples, kinds, 'noSuchFunction')).toEqual([]);
  });
});
