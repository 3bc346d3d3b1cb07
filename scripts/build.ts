/**
 * Builds the compiled CLI: `npm run build` (and `npm ci`, through `prepare`).
 *
 *   npx tsx scripts/build.ts
 *
 * Compiles src/ to dist/ with tsc (tsconfig.build.json: ES2022 modules, source maps), copies the
 * files tsc does not (the Redis frontier's Lua scripts, the plain-JavaScript worker threads), and
 * records in dist/.build.json the state of src/ it was built from, read before compiling (so that
 * a file changed during the build leaves dist/ stale). bin/topicrawl.js runs dist/ only while that
 * record matches src/ (bin/runtime.js), the sources through tsx otherwise.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceState } from '../bin/runtime.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');
const dist = join(root, 'dist');
const state = sourceState(src);
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
let copied = 0;
for (const e of readdirSync(src, { withFileTypes: true, recursive: true })) {
  if (!e.isFile() || e.name.endsWith('.ts')) continue;
  const from = join(e.parentPath ?? e.path, e.name);
  const to = join(dist, relative(src, from));
  mkdirSync(dirname(to), { recursive: true });
  cpSync(from, to);
  copied++;
}
writeFileSync(join(dist, '.build.json'), `${JSON.stringify({ ...state, builtAt: new Date().toISOString() })}\n`);
process.stdout.write(`built dist/ from ${state.count} files of src/ (${copied} copied as they are)\n`);
