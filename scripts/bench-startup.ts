/**
 * Start-up of the `topicrawl` command: wall time of `topicrawl --help` from the compiled CLI (dist/)
 * and from the TypeScript sources (through tsx), alternated in one run, against a bare `node -e 0`.
 *
 *   npx tsx scripts/bench-startup.ts [--runs 10] [--args "--help"] [--base DIR]
 *
 * --base DIR: also time `DIR/bin/topicrawl.js` (a checkout of an older commit: git worktree add DIR
 * COMMIT, with node_modules), the before of a change.
 * Needs a fresh build (`npm run build`; npm ci makes one): refuses to measure a stale dist/, which
 * bin/topicrawl.js would not run. Prints one JSON object: the median and range of each, in ms.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { distIsFresh } from '../bin/runtime.cjs';

const { values: a } = parseArgs({ options: { runs: { type: 'string', default: '10' }, args: { type: 'string', default: '--help' }, base: { type: 'string' } } });
const root = fileURLToPath(new URL('..', import.meta.url));
if (!distIsFresh(root)) {
  process.stderr.write('bench-startup: dist/ is missing or older than src/: run npm run build first\n');
  process.exit(2);
}
const bin = join(root, 'bin/topicrawl.js');
const args = a.args!.split(' ').filter(Boolean);
const kinds: Record<string, { argv: string[]; env: NodeJS.ProcessEnv }> = {
  node_bare: { argv: ['-e', '0'], env: process.env },
  compiled: { argv: [bin, ...args], env: { ...process.env, TOPICRAWL_FROM_SOURCE: '' } },
  source: { argv: [bin, ...args], env: { ...process.env, TOPICRAWL_FROM_SOURCE: '1' } },
  ...(a.base ? { base: { argv: [join(a.base, 'bin/topicrawl.js'), ...args], env: process.env } } : {}),
};
const times: Record<string, number[]> = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
for (let i = 0; i < Number(a.runs); i++) {
  for (const [name, k] of Object.entries(kinds)) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, k.argv, { env: k.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new Error(`${name}: exit ${r.status}: ${r.stderr}`);
    if (name !== 'node_bare' && r.stdout.length === 0) throw new Error(`${name}: printed nothing`);
    times[name].push(ms);
  }
}
const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const out: Record<string, unknown> = { command: `npx tsx scripts/bench-startup.ts ${process.argv.slice(2).join(' ')}`.trim(), runs: Number(a.runs), args: args.join(' ') };
for (const [name, xs] of Object.entries(times)) {
  out[name] = { median_ms: Math.round(median(xs)), min_ms: Math.round(Math.min(...xs)), max_ms: Math.round(Math.max(...xs)) };
}
out.source_over_compiled = +(median(times.source) / median(times.compiled)).toFixed(2);
if (a.base) out.base_over_compiled = +(median(times.base) / median(times.compiled)).toFixed(2);
console.log(JSON.stringify(out, null, 2));
