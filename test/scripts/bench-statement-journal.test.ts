import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;

describe('bench-statement-journal', () => {
  it('times both writes in both forms on a real crawl file, after checking that the forms leave the rows alike', () => {
    const r = spawnSync('npx', ['tsx', 'scripts/bench-statement-journal.ts', '--urls', '3000', '--links', '5000', '--update-statements', '5', '--link-statements', '3', '--rounds', '2'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    const u = out.urls_update;
    expect(u.same_result).toBe(true);
    // 2 rounds × 2 forms × 5 statements × 64 distinct rows
    expect(u.rows_changed).toBe(2 * 2 * 5 * 64);
    expect(u.plain_rounds_ms).toHaveLength(2);
    expect(u.or_fail_rounds_ms).toHaveLength(2);
    expect(u.plain_us_per_row).toBeGreaterThan(0);
    expect(u.or_fail_us_per_row).toBeGreaterThan(0);
    const l = out.links_insert;
    expect(l.same_result).toBe(true);
    // 2 rounds × 2 forms × 3 statements × 512 new links (new pages: none is there before)
    expect(l.rows_inserted).toBe(2 * 2 * 3 * 512);
    expect(l.upsert_us_per_row).toBeGreaterThan(0);
    expect(l.insert_or_ignore_us_per_row).toBeGreaterThan(0);
    expect(l.insert_or_ignore_to_upsert).toBeGreaterThan(0);
  });

  it('rejects a bad count with a message', () => {
    const r = spawnSync('npx', ['tsx', 'scripts/bench-statement-journal.ts', '--link-statements', '0'], { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--link-statements must be a positive integer');
  });
});
