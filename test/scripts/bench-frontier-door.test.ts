import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;

/** bench-frontier on a small frontier; its JSON. The script itself fails unless every URL ends FETCHED. */
function bench(...extra: string[]): Record<string, any> {
  const r = spawnSync('npx', ['tsx', 'scripts/bench-frontier.ts', '--urls', '3000', '--hosts', '40', '--batch', '500', '--dequeue-batch', '100', '--delay-seconds', '2', ...extra], {
    cwd: root,
    encoding: 'utf8',
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
}

describe('bench-frontier', () => {
  it('--door: every URL enqueued through intake, looked up through known, and drained through claim, recordPage and settle', () => {
    const out = bench('--door');
    expect(out.door).toBe(true);
    expect(out.enqueue.queued).toBe(3000);
    expect(out.lookup.found).toBe(out.lookup.known);
    // the delayed phase: 1 s per host over 2 simulated seconds, so at most 2 URLs of each of 40 hosts
    expect(out.delayed.dequeued).toBeGreaterThan(0);
    expect(out.delayed.dequeued).toBeLessThanOrEqual(2 * 40 + 40);
    expect(out.reopen.queued).toBe(3000 - out.delayed.dequeued);
    expect(out.drain.dequeued).toBe(out.reopen.queued);
    expect(out.drain).toMatchObject({ left: 0, in_flight: 0 });
    expect(out.fetched_total).toBe(3000);
  });

  it('the default path serves the same URLs in the delayed phase as the door', () => {
    const plain = bench();
    const door = bench('--door');
    expect(plain.door).toBeUndefined();
    expect(plain.fetched_total).toBe(3000);
    expect(plain.delayed.dequeued).toBe(door.delayed.dequeued);
    expect(plain.drain.dequeued).toBe(door.drain.dequeued);
  });
});
