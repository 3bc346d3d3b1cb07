/**
 * Side-by-side benchmark of an old commit against the working tree (issue 13): the same benchmark
 * script run alternately at the base commit and here, in one run on one machine, reported as ratios.
 *
 *   npx tsx scripts/bench-versus.ts --base e1da9d3 --script scripts/bench-crawl.ts [--rounds 3]
 *       [--fields a.b,c] [--base-args "..."] [--keep-worktree] -- <args for the script>
 *
 * The base commit is checked out in a temporary git worktree (`git worktree add --detach`, with
 * node_modules linked from this checkout), removed at the end, also on Ctrl-C or an error. "new"
 * is this checkout's working tree as it is (uncommitted changes included). Each round runs
 * `npx tsx <script> <args>` once at each side, with the tree as working directory; the order
 * alternates (base first in odd rounds, new first in even ones) so that a drift of the machine's
 * load does not favour one side. `--base-args` gives the base other arguments (flags it lacks).
 * Every run must exit 0 and print a JSON object on stdout holding every chosen field as a number;
 * otherwise the comparison stops with an error naming the side and round (no figure is made up).
 *
 * Prints, per field: the median at base, the median at new, the ratio new/base, which direction is
 * better, and every round's figure; then the commands. Default fields: see bench-compare.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_FIELDS, compare, extractJson, renderTable, splitArgs } from './bench-compare.js';
import { addBaseWorktree, baseTreeFolder, resolveBase, type BaseWorktree } from './bench-worktree.js';

function fail(msg: string): never {
  process.stderr.write(`bench-versus: ${msg}\n`);
  process.exit(1);
}

const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const own = dash < 0 ? argv : argv.slice(0, dash);
// `--base-args "--urls 10"`: a value that starts with a dash is still the value
const bi = own.indexOf('--base-args');
if (bi >= 0 && bi + 1 < own.length) own.splice(bi, 2, `--base-args=${own[bi + 1]}`);
let parsed;
try {
  parsed = parseArgs({
    args: own,
    options: {
      base: { type: 'string' },
      script: { type: 'string' },
      rounds: { type: 'string', default: '3' },
      fields: { type: 'string' },
      'base-args': { type: 'string' },
      'keep-worktree': { type: 'boolean', default: false },
    },
  });
} catch (err) {
  fail((err as Error).message);
}
const a = parsed.values;
const scriptArgs = dash < 0 ? [] : argv.slice(dash + 1);
const baseArgs = a['base-args'] === undefined ? scriptArgs : splitArgs(a['base-args']);

if (!a.base || !a.script) fail('usage: bench-versus.ts --base <commit> --script <scripts/x.ts> [--rounds 3] [--fields a.b,c] [--base-args "..."] -- <args>');
const rounds = Number(a.rounds);
if (!Number.isInteger(rounds) || rounds < 1) fail(`--rounds must be a positive integer, not ${a.rounds}`);
const fields = a.fields ? a.fields.split(',').map((f) => f.trim()).filter(Boolean) : DEFAULT_FIELDS[basename(a.script)];
if (!fields?.length) fail(`no default fields for ${basename(a.script)}: give --fields`);

let root: string;
let baseSha: string;
let headSha: string;
let dirty: boolean;
try {
  ({ root, baseSha, headSha, dirty } = resolveBase(a.base!));
} catch (err) {
  fail((err as Error).message);
}
if (!existsSync(join(root, a.script))) fail(`${a.script} does not exist in ${root}`);
if (!existsSync(join(root, 'node_modules'))) fail(`${root}/node_modules is missing`);

// the base's tree; removed whatever happens
const tree = baseTreeFolder('bench-versus');
let child: ChildProcess | null = null;
let worktree: BaseWorktree | null = null;
function removeWorktree(): void {
  if (worktree) worktree.remove();
  else if (!a['keep-worktree']) rmSync(tree, { recursive: true, force: true });
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    process.stderr.write(`bench-versus: ${sig}, stopping\n`);
    if (child?.pid) {
      try {
        process.kill(-child.pid, 'SIGTERM'); // the benchmark and what it started (its server)
      } catch {
        // already gone
      }
    }
    removeWorktree();
    process.exit(130);
  });
}

interface Side {
  name: 'base' | 'new';
  cwd: string;
  args: string[];
  results: Record<string, unknown>[];
}

/** One run of the script in a tree; resolves to its JSON, rejects with the reason it gave none. */
function runOnce(side: Side): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    // its own process group, so that a stop reaches the script's children too
    const c = spawn('npx', ['tsx', a.script!, ...side.args], { cwd: side.cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child = c;
    let out = '';
    let err = '';
    c.stdout!.on('data', (d) => (out += d));
    c.stderr!.on('data', (d) => (err += d));
    c.on('error', reject);
    c.on('close', (code, signal) => {
      child = null;
      const tail = err.trim().split('\n').slice(-15).join('\n');
      if (code !== 0) return reject(new Error(`exited ${signal ?? code}${tail ? `; stderr ends:\n${tail}` : ''}`));
      try {
        resolve(extractJson(out));
      } catch (e) {
        reject(new Error(`${(e as Error).message}${tail ? `; stderr ends:\n${tail}` : ''}`));
      }
    });
  });
}

try {
  worktree = addBaseWorktree(root, baseSha, tree, a['keep-worktree']);
  if (!existsSync(join(tree, a.script))) throw new Error(`${a.script} does not exist at ${a.base}`);
  const base: Side = { name: 'base', cwd: tree, args: baseArgs, results: [] };
  const next: Side = { name: 'new', cwd: root, args: scriptArgs, results: [] };
  for (let r = 1; r <= rounds; r++) {
    for (const side of r % 2 ? [base, next] : [next, base]) {
      const t0 = performance.now();
      let json: Record<string, unknown>;
      try {
        json = await runOnce(side);
        compare(fields, [json], [json]); // every field present and numeric, or fail now
      } catch (e) {
        throw new Error(`${side.name} (${side.name === 'base' ? a.base : 'working tree'}) round ${r}: ${(e as Error).message}`);
      }
      side.results.push(json);
      process.stderr.write(`round ${r}/${rounds} ${side.name.padEnd(4)} ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    }
  }
  const cmd = (args: string[]) => ['npx', 'tsx', a.script!, ...args].join(' ');
  process.stdout.write(
    [
      `bench-versus: ${a.script}, ${rounds} round(s) per side, alternating; figures are medians`,
      `base: ${baseSha.slice(0, 10)} (${a.base})  $ ${cmd(base.args)}`,
      `new:  ${headSha.slice(0, 10)}${dirty ? ' + uncommitted changes' : ''} (working tree)  $ ${cmd(next.args)}`,
      '',
      renderTable(compare(fields, base.results, next.results)),
      '',
    ].join('\n'),
  );
} catch (err) {
  process.stderr.write(`bench-versus: ${(err as Error).message}\n`);
  process.exitCode = 1;
} finally {
  removeWorktree();
}
