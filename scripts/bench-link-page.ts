/**
 * One page with many links (issue 12 item 5): the time and peak memory of crawling ONE page of N links
 * with no whitespace between them, at several N, each in a fresh child process so that its peak RSS is
 * its own. `--anchor glued` (default): `<a href="/p0">p0</a><a href="/p1">p1</a>…`, so the page's text
 * is one word of N·6 letters; `--anchor spaced`: `<a href="/p0">link 0</a><a href="/p1">link 1</a>…`.
 *
 *   npx tsx scripts/bench-link-page.ts [--sizes 25000,50000,100000,200000] [--anchor glued|spaced] [--max-links N]
 *                                      [--newlines] [--workers N] [--timeout-s 900]
 *
 * Each child serves the page from node:http on 127.0.0.1 (port 0, the host mapped like a corpus
 * host), runs a real Crawler (SQLite file in a temporary folder, politeness delay 0, robots.txt off,
 * budget 1 page) and prints: wall time of the crawl, CPU time, peak RSS of the child (getrusage
 * maxrss) and the links it stored. `--max-links N` sets `limits.max_links_per_page` (leave it out to
 * use the default, or to run this script at a commit that did not have the key). The "ms/1k links"
 * column is the cost per thousand links: flat when the page's processing is linear in its size. A child
 * still running after `--timeout-s` is killed and reported as such.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Crawler } from '../src/crawl/crawler.js';
import { openDatabase } from '../src/store/sqlite-store.js';
import { buildConfig } from '../src/topic/config.js';

const { values: a } = parseArgs({
  options: {
    sizes: { type: 'string', default: '25000,50000,100000,200000' },
    'max-links': { type: 'string' },
    newlines: { type: 'boolean', default: false },
    anchor: { type: 'string', default: 'glued' },
    'timeout-s': { type: 'string', default: '900' },
    workers: { type: 'string' },
    child: { type: 'string' },
    dir: { type: 'string' },
  },
});

function page(n: number, newlines: boolean): Buffer {
  const parts: string[] = ['<!doctype html><html><head><meta charset="utf-8"><title>many links</title></head><body>'];
  const sep = newlines ? '\n' : '';
  const text = a.anchor === 'spaced' ? (i: number) => `link ${i}` : (i: number) => `p${i}`;
  for (let i = 0; i < n; i++) parts.push(`<a href="/p${i}">${text(i)}</a>${sep}`);
  parts.push('</body></html>');
  return Buffer.from(parts.join(''));
}

interface Result {
  links: number;
  bytes: number;
  wallMs: number;
  cpuMs: number;
  peakRssMb: number;
  baseRssMb: number;
  stored: number;
  note: string | null;
}

async function child(n: number): Promise<Result> {
  const body = page(n, a.newlines!);
  const server = createServer((req, res) => {
    if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': String(body.length) }).end(body);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  // the folder is the parent's: it removes it even when this child is killed at the timeout
  const dbPath = join(a.dir!, 'page.db');
  try {
    const limits: Record<string, number> = { max_pages: 1, max_page_bytes: 64 * 1024 ** 2 };
    if (a['max-links'] !== undefined) limits.max_links_per_page = Number(a['max-links']);
    const config = buildConfig({
      name: 'bench-link-page', seeds: ['http://links.test/'], keywords: { link: 1 },
      strategy: { name: 'best-first-fish' },
      politeness: { delay_ms: 0, robots: false }, limits,
    });
    const baseRss = process.memoryUsage().rss;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const crawler = new Crawler({
      config, dbPath, resolve: { 'links.test': `127.0.0.1:${port}` }, mappedOnly: true,
      workers: a.workers === undefined ? undefined : Number(a.workers),
    });
    await crawler.run();
    await crawler.close();
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const db = openDatabase(dbPath, { readonly: true });
    const stored = (db.prepare('SELECT COUNT(*) AS n FROM links').get() as { n: number }).n;
    const note = (db.prepare("SELECT note FROM urls WHERE url = 'http://links.test/'").get() as { note: string | null }).note;
    db.close();
    return {
      links: n, bytes: body.length, wallMs, cpuMs: (cpu.user + cpu.system) / 1000,
      peakRssMb: process.resourceUsage().maxRSS / 1024, baseRssMb: baseRss / 2 ** 20, stored, note,
    };
  } finally {
    server.close();
  }
}

if (a.child !== undefined) {
  const r = await child(Number(a.child));
  process.stdout.write(`${JSON.stringify(r)}\n`);
  process.exit(0);
}

const sizes = a.sizes!.split(',').map(Number);
const passOn = [
  '--anchor', a.anchor!,
  ...(a['max-links'] !== undefined ? ['--max-links', a['max-links']] : []),
  ...(a.newlines ? ['--newlines'] : []),
  ...(a.workers !== undefined ? ['--workers', a.workers] : []),
];
process.stdout.write(
  `command: npx tsx scripts/bench-link-page.ts --sizes ${a.sizes} ${passOn.join(' ')} --timeout-s ${a['timeout-s']}\n` +
    `links     page MB   wall s    CPU s   ms/1k links  peak RSS MB  links stored  note\n`,
);
for (const n of sizes) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-link-page-'));
  const run = spawnSync(process.execPath, [...process.execArgv, new URL(import.meta.url).pathname, '--child', String(n), '--dir', dir, ...passOn], {
    encoding: 'utf8', maxBuffer: 1 << 20, stdio: ['ignore', 'pipe', 'inherit'], timeout: Number(a['timeout-s']) * 1000, killSignal: 'SIGKILL',
  });
  rmSync(dir, { recursive: true, force: true });
  if (run.status !== 0) {
    const why = run.signal ? `killed after ${a['timeout-s']} s (unfinished)` : `child failed (exit ${run.status})`;
    process.stdout.write(`${String(n).padStart(7)}  ${why}\n`);
    continue;
  }
  const r = JSON.parse(run.stdout.trim().split('\n').pop()!) as Result;
  process.stdout.write(
    `${String(n).padStart(7)} ${(r.bytes / 2 ** 20).toFixed(1).padStart(8)} ${(r.wallMs / 1000).toFixed(1).padStart(8)} ${(r.cpuMs / 1000).toFixed(1).padStart(8)}` +
      ` ${((r.wallMs / n) * 1000).toFixed(0).padStart(12)} ${r.peakRssMb.toFixed(0).padStart(12)} ${String(r.stored).padStart(13)}  ${r.note ?? ''}\n`,
  );
}
