import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;

describe('bench-update-journal', () => {
  it('times the frontier\'s batched UPDATE with and without OR FAIL on a real crawl file, after checking that both change the rows alike', () => {
    const r = spawnSync('npx', ['tsx', 'scripts/bench-update-journal.ts', '--urls', '3000', '--statements', '5', '--rounds', '2'], { cwd: root, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.same_result).toBe(true);
    // 2 rounds × 2 forms × 5 statements × 64 distinct rows
    expect(out.rows_changed).toBe(2 * 2 * 5 * 64);
    expect(out.plain_rounds_ms).toHaveLength(2);
    expect(out.or_fail_rounds_ms).toHaveLength(2);
    expect(out.plain_us_per_row).toBeGreaterThan(0);
    expect(out.or_fail_us_per_row).toBeGreaterThan(0);
    expect(out.or_fail_to_plain).toBeGreaterThan(0);
  });

  it('rejects a bad count with a message', () => {
    const r = spawnSync('npx', ['tsx', 'scripts/bench-update-journal.ts', '--urls', '0'], { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--urls must be a positive integer');
  });
});
