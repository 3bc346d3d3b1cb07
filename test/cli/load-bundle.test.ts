import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/crawl-corpus.js';
import { tmpDir } from '../helpers/tmp.js';

const LOADER = join(repoRoot, 'bin/load-bundle.cjs');
const { cachePath } = createRequire(import.meta.url)(LOADER) as { cachePath: (bundle: string, id: string) => string };

/** A bundle as the build writes one: its id on the first line, then CommonJS. */
function bundleSource(id: string, answer: number): string {
  return `/* topicrawl build ${id} */
const { basename } = require('node:path');
function answer() { return ${answer}; }
function work(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }
module.exports = { answer, work, file: basename(__filename), dir: basename(__dirname) };
`;
}

/** Loads `bundle` in a new process (the cache is written at exit) and returns what it reported. */
function load(bundle: string, env: Record<string, string> = {}, thread = false): { cached: boolean; answer: number; work: number; file: string; dir: string } {
  const report = `const r = require(${JSON.stringify(LOADER)}).loadBundle(${JSON.stringify(bundle)});
    const out = JSON.stringify({ cached: r.cached, answer: r.exports.answer(), work: r.exports.work(100), file: r.exports.file, dir: r.exports.dir });`;
  const code = thread
    ? `const { Worker } = require('node:worker_threads');
       new Worker(${JSON.stringify(`${report} require('node:worker_threads').parentPort.postMessage(out);`)}, { eval: true })
         .on('message', (m) => console.log(m)).on('error', (e) => { console.error(e.message); process.exitCode = 1; });`
    : `${report} console.log(out);`;
  const r = spawnSync(process.execPath, ['-e', code], { encoding: 'utf8', env: { ...process.env, TOPICRAWL_CODE_CACHE: '', ...env } });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
}

describe('bin/load-bundle.cjs: the compiled bundles run from their V8 code cache', () => {
  it('saves the cache at exit when asked (TOPICRAWL_CODE_CACHE=write), then runs from it with the same results', () => {
    const dir = tmpDir();
    const bundle = join(dir, 'b.cjs');
    writeFileSync(bundle, bundleSource('0a1b2c', 42));
    const first = load(bundle);
    const work = Array.from({ length: 100 }, (_, i) => i % 7).reduce((a, b) => a + b, 0);
    expect(first).toEqual({ cached: false, answer: 42, work, file: 'b.cjs', dir: dir.split('/').at(-1) });
    // nothing written unless asked
    expect(existsSync(cachePath(bundle, '0a1b2c'))).toBe(false);
    expect(load(bundle, { TOPICRAWL_CODE_CACHE: 'write' }).cached).toBe(false);
    expect(existsSync(cachePath(bundle, '0a1b2c'))).toBe(true);
    // no temporary file left
    expect(readdirSync(dir).sort()).toEqual(['b.cjs', 'b.cjs.0a1b2c.v8cache']);
    expect(load(bundle)).toEqual({ ...first, cached: true });
  });

  it('saves it from a worker thread too (the page-analysis threads)', () => {
    const dir = tmpDir();
    const bundle = join(dir, 'w.cjs');
    writeFileSync(bundle, bundleSource('77ee', 7));
    expect(load(bundle, { TOPICRAWL_CODE_CACHE: 'write' }, true).cached).toBe(false);
    expect(existsSync(cachePath(bundle, '77ee'))).toBe(true);
    expect(load(bundle, {}, true)).toMatchObject({ cached: true, answer: 7 });
  });

  it('never runs the cache of another build, even one V8 would take (same length, other code)', () => {
    const dir = tmpDir();
    const bundle = join(dir, 'b.cjs');
    writeFileSync(bundle, bundleSource('aaaa', 42));
    load(bundle, { TOPICRAWL_CODE_CACHE: 'write' });
    // a rebuild: same length (V8 checks only the length of the source), another id and other code
    const rebuilt = bundleSource('bbbb', 17);
    expect(rebuilt.length).toBe(readFileSync(bundle, 'utf8').length);
    writeFileSync(bundle, rebuilt);
    expect(load(bundle)).toMatchObject({ cached: false, answer: 17 });
  });

  it('compiles the bundle as any script when its cache is damaged, or when it has no build id', () => {
    const dir = tmpDir();
    const bundle = join(dir, 'b.cjs');
    writeFileSync(bundle, bundleSource('c0ffee', 5));
    writeFileSync(cachePath(bundle, 'c0ffee'), Buffer.from('not a code cache, not at all'.repeat(40)));
    expect(load(bundle)).toMatchObject({ cached: false, answer: 5 });
    const plain = join(dir, 'plain.cjs');
    writeFileSync(plain, bundleSource('c0ffee', 6).replace(/^\/\*.*\*\/\n/, ''));
    expect(load(plain, { TOPICRAWL_CODE_CACHE: 'write' })).toMatchObject({ cached: false, answer: 6 });
    expect(readdirSync(dir).filter((f) => f.startsWith('plain'))).toEqual(['plain.cjs']);
  });
});
