/**
 * Start-up benchmark (issue 16, point 3): the time from spawning `topicrawl crawl` (the compiled CLI,
 * as users run it) to the first request a loopback server receives, for a one-page crawl of a topic
 * written to a temporary folder (robots off, delay 0). Median, min and max over --runs; no figure if
 * a run made no request.
 *
 *   npx tsx scripts/bench-first-request.ts [--runs 9] [--base DIR] [-- extra crawl flags]
 *
 * --base DIR: also time `DIR/bin/topicrawl.js` (a checkout of an older commit, built: git worktree
 * add DIR COMMIT, node_modules linked, npx tsx scripts/build.ts there), alternating run by run with
 * this checkout's, the before of a change measured in the same minutes.
 *
 * Build first (`npx tsx scripts/build.ts`): a stale dist/ makes bin/topicrawl.js run the sources.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: a, positionals: extra } = parseArgs({ options: { runs: { type: 'string', default: '9' }, base: { type: 'string' } }, allowPositionals: true });
const runs = Number(a.runs);
const bins: Record<string, string> = { first_request_ms: new URL('../bin/topicrawl.js', import.meta.url).pathname };
if (a.base) bins.base_first_request_ms = join(a.base, 'bin', 'topicrawl.js');
let first: number | null = null;
const srv = createServer((_q, r) => {
  first ??= performance.now();
  r.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>telescope</body></html>');
});
await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
const port = (srv.address() as AddressInfo).port;
const dir = mkdtempSync(join(tmpdir(), 'bench-first-'));
const topic = join(dir, 'first.yaml');
writeFileSync(topic, "name: first\nseeds: ['http://first.test/']\nkeywords: {telescope: 1}\nlimits: {max_pages: 1}\npoliteness: {robots: false, delay_ms: 0}\n");
const times: Record<string, number[]> = Object.fromEntries(Object.keys(bins).map((k) => [k, []]));
try {
  for (let i = 0; i < runs; i++) for (const [name, bin] of Object.entries(bins)) {
    first = null;
    const t0 = performance.now();
    const child = spawn(process.execPath, [bin, 'crawl', topic, '--db', join(dir, `${name}-${i}.db`), '--resolve', `first.test=127.0.0.1:${port}`, '--mapped-only', ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    if (first === null) throw new Error(`${bin}: run ${i + 1} made no request (exit ${code}): ${err.trim().split('\n').pop()}`);
    times[name]!.push(first - t0);
  }
} finally {
  srv.close();
  rmSync(dir, { recursive: true, force: true });
}
const ms = (x: number) => Math.round(x);
const summary = (t: number[]) => {
  t.sort((x, y) => x - y);
  return { median: ms(t[t.length >> 1]!), min: ms(t[0]!), max: ms(t[t.length - 1]!) };
};
console.log(JSON.stringify({
  command: `npx tsx scripts/bench-first-request.ts ${process.argv.slice(2).join(' ')}`.trim(),
  runs,
  ...Object.fromEntries(Object.entries(times).map(([k, t]) => [k, summary(t)])),
}));
