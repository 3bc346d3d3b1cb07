import { describe, expect, it } from 'vitest';
import { compare, extractJson, lowerIsBetter, median, numberAt, renderTable, splitArgs } from '../../scripts/bench-compare.js';

describe('extractJson', () => {
  it('reads a whole pretty-printed object', () => {
    expect(extractJson(`${JSON.stringify({ a: 1, b: { c: 2 } }, null, 2)}\n`)).toEqual({ a: 1, b: { c: 2 } });
  });

  it('skips progress lines printed before the object', () => {
    const out = `generating…\n{ not json\n${JSON.stringify({ x: 3 }, null, 2)}\n`;
    expect(extractJson(out)).toEqual({ x: 3 });
  });

  it('fails on empty output, on no object and on a JSON array', () => {
    expect(() => extractJson('')).toThrow(/printed nothing/);
    expect(() => extractJson('done in 3 s\n')).toThrow(/no JSON object.*done in 3 s/);
    expect(() => extractJson('[1, 2]')).toThrow(/no JSON object/);
  });
});

describe('numberAt', () => {
  const o = { drain: { dequeues_per_s: 1200, note: 'x' }, zero: 0, nan: null };
  it('follows a dotted path', () => {
    expect(numberAt(o, 'drain.dequeues_per_s')).toBe(1200);
    expect(numberAt(o, 'zero')).toBe(0);
  });
  it('refuses a missing field or one that is not a finite number', () => {
    expect(() => numberAt(o, 'drain.missing')).toThrow(/no field drain.missing/);
    expect(() => numberAt(o, 'zero.deeper')).toThrow(/no field/);
    expect(() => numberAt(o, 'drain.note')).toThrow(/not a number/);
    expect(() => numberAt(o, 'nan')).toThrow(/not a number/);
  });
});

describe('median', () => {
  it('takes the middle value, or the mean of the two middle ones', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
    expect(() => median([])).toThrow();
  });
});

describe('splitArgs', () => {
  it('splits on whitespace and keeps quoted groups together', () => {
    expect(splitArgs('  --urls 200000   --hosts 2000 ')).toEqual(['--urls', '200000', '--hosts', '2000']);
    expect(splitArgs(`--name "a b" --x='c d' e`)).toEqual(['--name', 'a b', '--x=c d', 'e']);
    expect(splitArgs('')).toEqual([]);
  });
});

describe('compare and renderTable', () => {
  const base = [{ r: 100, s: { t: 2 } }, { r: 90, s: { t: 4 } }, { r: 110, s: { t: 3 } }];
  const next = [{ r: 95, s: { t: 3 } }, { r: 85, s: { t: 3 } }, { r: 99, s: { t: 3.3 } }];
  it('gives the medians and the ratio new/base per field', () => {
    const [r, t] = compare(['r', 's.t'], base, next);
    expect(r).toMatchObject({ field: 'r', baseMedian: 100, newMedian: 95, base: [100, 90, 110], next: [95, 85, 99] });
    expect(r.ratio).toBeCloseTo(0.95);
    expect(t.ratio).toBeCloseTo(1);
  });

  it('fails when a round lacks a field', () => {
    expect(() => compare(['r'], base, [{ r: 1 }, {}])).toThrow(/no field r/);
  });

  it('prints one row per field with the ratio to three decimals', () => {
    const table = renderTable(compare(['r', 'seconds'], [{ r: 100, seconds: 2 }], [{ r: 50, seconds: 3 }]));
    const lines = table.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[2]).toMatch(/^\| r +\| 100 +\| 50 +\| 0\.500 +\| higher +\| 100 +\| 50 +\|$/);
    expect(lines[3]).toMatch(/\| seconds +\| 2 +\| 3 +\| 1\.500 +\| lower /);
  });
});

describe('lowerIsBetter', () => {
  it('knows times, CPU and memory from rates', () => {
    for (const f of ['reopen.seconds', 'cpu_ms_per_page', 'peak_rss_mb', 'peak_rss_mb.max_rss', 'sqlite_calls_per_page', 'sqlite_us_per_page', 'main_thread_busy', 'cpu_ms_per_page_by_thread.main', 'cpu_ms_per_page_by_thread.node_helpers', 'pipeline.analysis_ms.queued']) expect(lowerIsBetter(f)).toBe(true);
    for (const f of ['end_to_end_pages_per_s', 'drain.dequeues_per_s', 'lookup.hashes_per_s', 'pipeline.analysis_threads_busy', 'ratio_to_bare_loop']) expect(lowerIsBetter(f)).toBe(false);
  });
});
