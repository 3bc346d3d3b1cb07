/**
 * Distributed crawl benchmark, end to end (issue 13): the same corpus crawled by one process on the
 * embedded SQLite frontier and by 1, 2 and 3 worker processes on the shared Redis frontier, in one
 * run, with no politeness delay; pages/s of each and the cost of going through Redis as a ratio.
 *
 *   npx tsx scripts/bench-distributed-crawl.ts [--corpus DIR] [--pages 3000] [--workers 1,2,3]
 *                                              [--rounds 1] [--redis redis://127.0.0.1:6379/0]
 *
 * The corpus (synthetic, seed 1, 6,000 pages on 60 hosts) is generated in a temporary folder unless
 * --corpus names one. It is served by a child process (`topicrawl serve`), so the server does not
 * share an event loop with any crawl. Each crawl is the real `topicrawl crawl` command (start-up
 * included in `wall_pages_per_s`; `crawl_pages_per_s` is the crawl's own figure from its summary,
 * summed over workers). Robots on, best-first-fish, concurrency 16, per-host concurrency 2.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { loadCorpus } from '../src/eval/corpus.js';
import { generateSynthCorpus } from '../src/eval/synth-corpus.js';
import { RedisConnection } from '../src/frontier/redis-connection.js';
import { deleteCrawl } from '../src/frontier/redis-crawl-keys.js';

const root = new URL('../', import.meta.url).pathname;
const bin = join(root, 'bin/topicrawl.js');
const { values: a } = parseArgs({
  options: {
    corpus: { type: 'string' },
    pages: { type: 'string', default: '3000' },
    workers: { type: 'string', default: '1,2,3' },
    rounds: { type: 'string', default: '1' },
    redis: { type: 'string', default: process.env.TOPICRAWL_REDIS_URL ?? 'redis://127.0.0.1:6379/0' },
  },
});
const dir = mkdtempSync(join(tmpdir(), 'bench-dist-'));
const corpusDir = a.corpus ?? join(dir, 'corpus');
if (!existsSync(join(corpusDir, 'corpus.json'))) generateSynthCorpus(corpusDir, { seed: 1, pages: 6000, hosts: 60 });
const corpus = loadCorpus(corpusDir);
const topic = join(dir, 'topic.yaml');
writeFileSync(topic, stringify({
  name: 'bench-distributed', seeds: corpus.meta.seeds, keywords: { astronomy: 1, telescope: 1, galaxy: 1 },
  strategy: { name: 'best-first-fish' }, politeness: { delay_ms: 0, concurrency: 16, per_host_concurrency: 2, robots: true },
  limits: { max_pages: Number(a.pages) },
}));

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; wallS: number }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    c.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    c.on('close', (code) => resolve({ code, stdout, stderr, wallS: (performance.now() - t0) / 1000 }));
  });
}

const server = spawn(process.execPath, [bin, 'serve', corpusDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise<number>((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    const m = /127\.0\.0\.1:(\d+)/.exec(out);
    if (m) resolve(Number(m[1]));
  });
  server.on('exit', (c) => reject(new Error(`the corpus server exited (${c})`)));
});
const resolveArgs = corpus.hosts.flatMap((h) => ['--resolve', `${h}=127.0.0.1:${port}`]);
const conn = await new RedisConnection(a.redis!).connect();
const results: Record<string, { wall_pages_per_s: number[]; crawl_pages_per_s: number[] }> = {};
const note = (name: string, wall: number, crawl: number) => {
  const r = (results[name] ??= { wall_pages_per_s: [], crawl_pages_per_s: [] });
  r.wall_pages_per_s.push(Math.round(wall));
  r.crawl_pages_per_s.push(Math.round(crawl));
};
try {
  for (let round = 0; round < Number(a.rounds); round++) {
    const emb = await run(['crawl', topic, '--db', join(dir, `embedded-${round}.db`), '--json', '--mapped-only', ...resolveArgs]);
    if (emb.code !== 0) throw new Error(`embedded crawl failed: ${emb.stderr.trim().split('\n').pop()}`);
    const s = JSON.parse(emb.stdout) as { fetched: number; pagesPerSec: number };
    if (s.fetched === 0) throw new Error('the embedded crawl fetched nothing');
    note('embedded', s.fetched / emb.wallS, s.pagesPerSec);
    for (const n of a.workers!.split(',').map(Number)) {
      const id = `bench-${process.pid}-${round}-${n}`;
      // one worker: one process joining the crawl (as the embedded crawl is one process); more: --workers N
      const how = n === 1 ? ['--db', join(dir, `redis-${round}-1.db`)] : ['--workers', String(n), '--db', join(dir, `redis-${round}-${n}`)];
      const r = await run(['crawl', topic, '--frontier', a.redis!, '--crawl-id', id, ...how, '--json', '--mapped-only', ...resolveArgs]);
      await deleteCrawl(conn, id);
      if (r.code !== 0) throw new Error(`${n} Redis workers failed: ${r.stderr.trim().split('\n').pop()}`);
      const w = JSON.parse(r.stdout) as { fetched: number; pagesPerSec: number };
      if (w.fetched === 0) throw new Error(`${n} Redis workers fetched nothing`);
      note(`redis_${n}_workers`, w.fetched / r.wallS, w.pagesPerSec);
    }
  }
} finally {
  server.kill();
  await conn.close();
  rmSync(dir, { recursive: true, force: true });
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const base = results.embedded;
const out = {
  command: `npx tsx scripts/bench-distributed-crawl.ts --pages ${a.pages} --workers ${a.workers} --rounds ${a.rounds}`,
  corpus: { dir: a.corpus ?? 'synthetic seed 1, 6000 pages, 60 hosts', pages: Number(a.pages) },
  results: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, {
    wall_pages_per_s: median(v.wall_pages_per_s), crawl_pages_per_s: median(v.crawl_pages_per_s),
    vs_embedded_wall: +(median(v.wall_pages_per_s) / median(base.wall_pages_per_s)).toFixed(2),
    vs_embedded_crawl: +(median(v.crawl_pages_per_s) / median(base.crawl_pages_per_s)).toFixed(2),
  }])),
};
process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
