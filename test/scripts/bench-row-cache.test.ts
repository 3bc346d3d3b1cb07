import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;

describe('bench-row-cache', () => {
  it('runs a crawl\'s calls on the base\'s row cache and this checkout\'s, checks they answer alike, and times a full collection with each full', () => {
    const r = spawnSync('npx', ['tsx', '--expose-gc', 'scripts/bench-row-cache.ts', '--base', 'HEAD', '--pages', '1000', '--turn', '100', '--gcs', '1'], { cwd: root, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.same_answers).toBe(true);
    // 5 new URLs a page, one forgotten: the cache holds most of them (its bound is far)
    expect(out.rows_held).toBeGreaterThan(4000);
    expect(out.rows_held).toBeLessThanOrEqual(5000);
    expect(out.base_us_per_page).toBeGreaterThan(0);
    expect(out.new_us_per_page).toBeGreaterThan(0);
    expect(out.full_gc_rounds_ms.base).toHaveLength(1);
    expect(out.full_gc_rounds_ms.new).toHaveLength(1);
    const worktrees = spawnSync('git', ['worktree', 'list'], { cwd: root, encoding: 'utf8' }).stdout;
    expect(worktrees).not.toContain('bench-row-cache');
  });

  it('asks for --expose-gc when it is missing', () => {
    const r = spawnSync('npx', ['tsx', 'scripts/bench-row-cache.ts', '--base', 'HEAD', '--pages', '10'], { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--expose-gc');
  });
});
