import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const versus = join(root, 'scripts/bench-versus.ts');

/** A benchmark that prints progress, then JSON with `rate` = factor × its first argument. */
const bench = (factor: number) => `
const n = Number(process.argv[2] ?? 1);
process.stderr.write('working\\n');
console.log('progress line');
console.log(JSON.stringify({ rate: ${factor} * n, nested: { s: 2 }, where: process.cwd() }, null, 2));
`;

let repo: string;
let baseSha: string;
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
const worktrees = () => git('worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ')).length;
const leftovers = () => readdirSync(tmpdir()).filter((f) => f.startsWith('bench-versus-'));
function run(args: string[]) {
  const r = spawnSync('npx', ['tsx', versus, ...args], { cwd: repo, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

beforeEach(() => {
  repo = realpathSync(mkdtempSync(join(tmpdir(), 'versus-repo-')));
  git('init', '-q');
  git('config', 'user.email', 'bench@test');
  git('config', 'user.name', 'bench');
  writeFileSync(join(repo, 'bench.ts'), bench(100));
  git('add', 'bench.ts');
  git('commit', '-qm', 'base');
  baseSha = git('rev-parse', 'HEAD');
  writeFileSync(join(repo, 'bench.ts'), bench(150));
  git('commit', '-qam', 'new');
  symlinkSync(realpathSync(join(root, 'node_modules')), join(repo, 'node_modules'));
});

afterEach(() => {
  rmSync(repo, { recursive: true, force: true });
});

describe('bench-versus', () => {
  it('runs the script at the base commit and here, alternately, and prints medians and ratios', () => {
    const before = leftovers().length;
    const r = run(['--base', baseSha.slice(0, 8), '--script', 'bench.ts', '--rounds', '2', '--fields', 'rate,nested.s', '--base-args', '2', '--', '3']);
    expect(r.err).not.toMatch(/bench-versus:/);
    expect(r.code).toBe(0);
    // base: 100 × 2 (its own args); new: 150 × 3
    expect(r.out).toMatch(/\| rate +\| 200 +\| 450 +\| 2\.250 +\| higher +\| 200 200 +\| 450 450 +\|/);
    expect(r.out).toMatch(/\| nested\.s +\| 2 +\| 2 +\| 1\.000 /);
    expect(r.out).toContain('$ npx tsx bench.ts 2');
    expect(r.out).toContain('$ npx tsx bench.ts 3');
    // the order alternates: base first in round 1, new first in round 2
    expect(r.err.match(/round \d\/2 (base|new )/g)).toEqual(['round 1/2 base', 'round 1/2 new ', 'round 2/2 new ', 'round 2/2 base']);
    expect(worktrees()).toBe(1);
    expect(leftovers().length).toBe(before);
  });

  it('stops with an error naming the side and round when a run prints no JSON, and removes the worktree', () => {
    writeFileSync(join(repo, 'bench.ts'), "console.log('no figures today');\n");
    const r = run(['--base', baseSha, '--script', 'bench.ts', '--rounds', '3']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/no default fields for bench\.ts/);
    const r2 = run(['--base', baseSha, '--script', 'bench.ts', '--rounds', '3', '--fields', 'rate']);
    expect(r2.code).toBe(1);
    expect(r2.err).toMatch(/bench-versus: new \(working tree\) round 1: no JSON object in its output \(last line: "no figures today"\)/);
    expect(r2.out).toBe('');
    expect(worktrees()).toBe(1);
  });

  it('fails on a run that exits non-zero, on a missing field, and on an unknown commit', () => {
    writeFileSync(join(repo, 'bench.ts'), "process.stderr.write('boom\\n'); process.exit(3);\n");
    const crash = run(['--base', baseSha, '--script', 'bench.ts', '--rounds', '1', '--fields', 'rate']);
    expect(crash.code).toBe(1);
    expect(crash.err).toMatch(/new \(working tree\) round 1: exited 3; stderr ends:\nboom/);

    git('checkout', '-q', 'bench.ts');
    const missing = run(['--base', baseSha, '--script', 'bench.ts', '--rounds', '1', '--fields', 'rate,speed']);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/base \(\w+\) round 1: no field speed in its JSON/);

    const unknown = run(['--base', 'no-such-commit', '--script', 'bench.ts', '--fields', 'rate']);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/bench-versus: .*no-such-commit|Needed a single revision/);
    expect(worktrees()).toBe(1);
  });
});
