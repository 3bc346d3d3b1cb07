import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { distIsFresh, sourceState } from '../../bin/runtime.cjs';
import { openDatabase } from '../../src/store/sqlite-store.js';
import { repoRoot } from '../helpers/crawl-corpus.js';
import { tmpDir } from '../helpers/tmp.js';

describe('which code the topicrawl command runs (bin/runtime.cjs)', () => {
  /** A checkout with src/ files and, when built, dist/.build.json recording their state. */
  function checkout(built: boolean): string {
    const root = tmpDir();
    mkdirSync(join(root, 'src', 'cli'), { recursive: true });
    writeFileSync(join(root, 'src', 'cli', 'main.ts'), 'export {};\n');
    writeFileSync(join(root, 'src', 'errors.ts'), 'export {};\n');
    utimesSync(join(root, 'src', 'errors.ts'), 1_000_000, 1_000_000);
    if (built) {
      mkdirSync(join(root, 'dist'));
      writeFileSync(join(root, 'dist', '.build.json'), JSON.stringify(sourceState(join(root, 'src'))));
    }
    return root;
  }

  it('runs dist/ only while it was built from src/ as it is: not once a file changed, was added or removed, nor without a build', () => {
    const root = checkout(true);
    expect(sourceState(join(root, 'src')).count).toBe(2);
    expect(distIsFresh(root)).toBe(true);
    // a file edited after the build
    const later = Date.now() / 1000 + 5;
    utimesSync(join(root, 'src', 'errors.ts'), later, later);
    expect(distIsFresh(root)).toBe(false);
    // a new file (with an old date)
    const added = checkout(true);
    writeFileSync(join(added, 'src', 'new.ts'), '');
    utimesSync(join(added, 'src', 'new.ts'), 1_000, 1_000);
    expect(distIsFresh(added)).toBe(false);
    expect(distIsFresh(checkout(false))).toBe(false);
  });
});

// The compiled CLI itself: built by `npm ci` (prepare: npm run build). CI must have it; a checkout
// being edited may not (then bin/topicrawl.js runs the sources, and these tests are skipped).
const fresh = distIsFresh(repoRoot);
if (!fresh && !process.env.CI) console.log('compiled-cli: dist/ is missing or older than src/ (npm run build); the compiled CLI tests are skipped');

const COMPILED_MAIN = `require(${JSON.stringify(join(repoRoot, 'bin/load-bundle.cjs'))}).loadBundle(${JSON.stringify(join(repoRoot, 'dist/cli/main.cjs'))}).exports.main(process.argv.slice(1))`;

describe.runIf(fresh || process.env.CI)('the compiled CLI (dist/)', () => {
  it('is there after npm ci, up to date with the sources', () => {
    expect(fresh).toBe(true);
  });

  // the bundle run as bin/topicrawl.js runs it, without the freshness check's fallback to tsx:
  // nothing here can load TypeScript
  const compiled = (args: string[], opts: { cwd?: string; timeout?: number } = {}) =>
    spawnSync(process.execPath, ['-e', COMPILED_MAIN, '--', ...args], { encoding: 'utf8', ...opts });

  it('runs from the code caches of this build, which V8 accepts', () => {
    // (each bundle's cache is saved by the build's training crawl: scripts/code-cache-training.ts,
    // under the process's V8 flags, bin/v8-flags.cjs, which load-bundle.cjs sets before compiling:
    // without them V8 would reject the caches)
    const probe = `const { compileBundle } = require(${JSON.stringify(join(repoRoot, 'bin/load-bundle.cjs'))});
      console.log(JSON.stringify(['cli/main.cjs', 'crawl/page-worker.cjs'].map((b) => compileBundle(${JSON.stringify(join(repoRoot, 'dist'))} + '/' + b).cached)))`;
    const r = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([true, true]);
  });

  it('prints the package version for --version, from any folder (yargs alone looked up from the working folder: "unknown")', () => {
    const want = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
    const r = compiled(['--version'], { cwd: tmpDir() });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${want}\n`);
  });

  it('answers --help, and crawls the demo corpus with its analysis threads on compiled code', () => {
    const help = compiled(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/topicrawl <command>/);
    expect(help.stdout).toMatch(/crawl <topic>/);
    // yargs runs from one bundle there (scripts/build.ts): its messages and the lazily loaded commands work
    const usage = compiled(['crawl']);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/^topicrawl: Not enough non-option arguments.*\[E_USAGE\]\n$/);
    const list = compiled(['strategies']);
    expect(list.status).toBe(0);
    expect(list.stdout).toMatch(/^best-first-fish +I\(p\)/m);
    expect(list.stdout).toMatch(/^breadth-first /m);
    const db = join(tmpDir(), 'demo.db');
    const demo = compiled(['demo', '--json', '--db', db, '--set', 'limits.max_pages=40'], { cwd: repoRoot, timeout: 120_000 });
    expect(demo.stderr).not.toMatch(/E_INTERNAL|ERR_UNKNOWN_FILE_EXTENSION|Cannot find module/);
    expect(demo.status).toBe(0);
    const summary = JSON.parse(demo.stdout) as { fetched: number; errors: number };
    expect(summary.fetched).toBe(40);
    // (a thread that could not load its code fails every page it is given)
    expect(summary.errors).toBe(0);
    const conn = openDatabase(db, { readonly: true });
    try {
      // pages analysed (relevance scored) by the analysis threads
      const scored = conn.prepare('SELECT COUNT(*) AS n FROM urls WHERE relevance IS NOT NULL').get() as { n: number };
      expect(scored.n).toBeGreaterThan(0);
    } finally {
      conn.close();
    }
  }, 150_000);
});
