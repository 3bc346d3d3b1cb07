/**
 * Start-up benchmark (issue 16, point 3): the time from spawning `topicrawl crawl` (the compiled CLI,
 * as users run it) to the first request a loopback server receives, for a one-page crawl of a topic
 * written to a temporary folder (robots off, delay 0). Median, min and max over --runs; no figure if
 * a run made no request.
 *
 *   npx tsx scripts/bench-first-request.ts [--runs 9] [-- extra crawl flags]
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

const { values: a, positionals: extra } = parseArgs({ options: { runs: { type: 'string', default: '9' } }, allowPositionals: true });
const runs = Number(a.runs);
const bin = new URL('../bin/topicrawl.js', import.meta.url).pathname;
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
const times: number[] = [];
try {
  for (let i = 0; i < runs; i++) {
    first = null;
    const t0 = performance.now();
    const child = spawn(process.execPath, [bin, 'crawl', topic, '--db', join(dir, `c${i}.db`), '--resolve', `first.test=127.0.0.1:${port}`, '--mapped-only', ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    if (first === null) throw new Error(`run ${i + 1} made no request (exit ${code}): ${err.trim().split('\n').pop()}`);
    times.push(first - t0);
  }
} finally {
  srv.close();
  rmSync(dir, { recursive: true, force: true });
}
times.sort((x, y) => x - y);
const ms = (x: number) => Math.round(x);
console.log(JSON.stringify({
  command: `npx tsx scripts/bench-first-request.ts ${process.argv.slice(2).join(' ')}`.trim(),
  runs, first_request_ms: { median: ms(times[runs >> 1]), min: ms(times[0]), max: ms(times[runs - 1]) },
}));
