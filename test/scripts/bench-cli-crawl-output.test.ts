import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { crawlSummaryJson, deoptCounts } from '../../scripts/bench-cli-crawl.js';

/**
 * The crawl benchmark reads the crawl's --json summary from its stdout, where V8's tracing flags
 * (BENCH_NODE_FLAGS=--trace-deopt) print too, and counts the deoptimisations they report. The
 * trace here is node's own, from a script that deoptimises a function with a second object shape.
 */
const SCRIPT = `
function get(o) { return o.a + 1; }
let s = 0;
for (let i = 0; i < 200000; i++) s += get({ a: i });
for (let i = 0; i < 2000; i++) s += get({ b: 1, a: i });
console.log(JSON.stringify({ fetched: 3, strategy: 'x' }, null, 2));
for (let i = 0; i < 2000; i++) s += get({ c: 1, b: 1, a: i });
`;

function traced(): string {
  const r = spawnSync(process.execPath, ['--trace-deopt', '-e', SCRIPT], { encoding: 'utf8' });
  expect(r.status).toBe(0);
  return r.stdout;
}

describe('the crawl output of the benchmarks', () => {
  it('finds the summary among V8 trace lines, and takes a plain one as it is', () => {
    const out = traced();
    expect(out).toMatch(/^\[bailout/m); // the trace is there, before the summary
    expect(crawlSummaryJson(out)).toEqual({ fetched: 3, strategy: 'x' });
    expect(crawlSummaryJson('{"fetched":5}')).toEqual({ fetched: 5 });
    expect(() => crawlSummaryJson('[bailout …]\nno summary\n')).toThrow(/no JSON summary/);
  });

  it('counts the deoptimisations by function and reason', () => {
    const d = deoptCounts(traced());
    expect(d).not.toBeNull();
    expect(d!.top['get: wrong map']).toBeGreaterThanOrEqual(1);
    expect(Object.values(d!.top).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(d!.total);
    expect(deoptCounts('{\n"fetched": 1\n}\n')).toBeNull();
  });

  it('orders the counts, most frequent first, and keeps the top ones', () => {
    const line = (fn: string, reason: string) =>
      `[bailout (kind: deopt-eager, reason: ${reason}): begin. deoptimizing 0x1 <JSFunction ${fn} (sfi = 0x2)>, 0x3 <Code TURBOFAN>, opt id 1]`;
    const text = [line('offer', 'wrong map'), line('take', 'not a Smi'), line('offer', 'wrong map'), line('(sfi', 'overflow')].join('\n');
    expect(deoptCounts(text)).toEqual({ total: 4, top: { 'offer: wrong map': 2, 'take: not a Smi': 1, '(anonymous): overflow': 1 } });
    expect(deoptCounts(text, 1)).toEqual({ total: 4, top: { 'offer: wrong map': 2 } });
  });
});
