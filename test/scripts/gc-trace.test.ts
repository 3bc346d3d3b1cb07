import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { gcCounts } from '../../scripts/gc-trace.js';

/**
 * The crawl benchmark adds up V8's collections from --trace-gc-nvp (BENCH_NODE_FLAGS). The trace
 * here is node's own, from a script that keeps a growing array alive (scavenges promote it) and
 * then asks for a full collection.
 */
const SCRIPT = `
const keep = [];
for (let i = 0; i < 300000; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 200000) keep.length = 0; }
globalThis.gc();
console.log(JSON.stringify({ fetched: 1 }));
`;

describe('V8 collections in a --trace-gc-nvp output', () => {
  it('adds up scavenges and full collections of the isolate, with their pauses and what they promoted', () => {
    const r = spawnSync(process.execPath, ['--trace-gc-nvp', '--expose-gc', '-e', SCRIPT], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    const gc = gcCounts(r.stdout);
    expect(gc).not.toBeNull();
    expect(gc).toHaveLength(1); // one isolate: no worker in the script
    const [iso] = gc!;
    expect(iso.isolate).toMatch(/^0x[0-9a-f]+$/);
    expect(iso.by_kind.s.count).toBeGreaterThan(0);
    expect(iso.by_kind.s.promoted_mb).toBeGreaterThan(0); // the kept objects moved to the old generation
    expect(iso.by_kind.mc.count).toBeGreaterThanOrEqual(1); // the full collection asked for
    const lines = r.stdout.split('\n').filter((l) => / gc=\S+/.test(l) && /pause=/.test(l));
    expect(Object.values(iso.by_kind).reduce((t, k) => t + k.count, 0)).toBe(lines.length);
    expect(iso.last_ms).toBeGreaterThanOrEqual(iso.first_ms);
  });

  it('keeps isolates apart in the order they first report, and reads pause and promoted bytes', () => {
    const text = [
      '[7:0xa1]      10 ms: pause=2.5 mutator=8.0 gc=s reduce_memory=0 promoted=1000000 nodes_promoted=3',
      '[7:0xb2]      12 ms: pause=1.0 mutator=5.0 gc=s promoted=0',
      '{"fetched": 2}',
      '[7:0xa1]      50 ms: Mark-Compact 17.2 (23.7) -> 14.5 (24.5) MB, 5.1 / 0.0 ms  (plain --trace-gc: not counted)',
      '[7:0xa1]      60 ms: pause=7.25 mutator=40 gc=mc reduce_memory=0 promoted=0',
      '[7:0xa1]      70 ms: pause=1.5 mutator=9 gc=s promoted=2500000',
    ].join('\n');
    expect(gcCounts(text)).toEqual([
      { isolate: '0xa1', first_ms: 10, last_ms: 70, by_kind: { s: { count: 2, pause_ms: 4, promoted_mb: 3.5 }, mc: { count: 1, pause_ms: 7, promoted_mb: 0 } } },
      { isolate: '0xb2', first_ms: 12, last_ms: 12, by_kind: { s: { count: 1, pause_ms: 1, promoted_mb: 0 } } },
    ]);
    expect(gcCounts('{"fetched": 1}\n')).toBeNull();
  });
});
