/**
 * Crawl benchmark (issue 2): end-to-end crawl of the synthetic corpus on loopback with politeness
 * delay 0, against fetch alone (undici over the same URLs) and parse alone (parse5 over the same
 * bodies), all in one run so the figures compare as ratios.
 *
 *   npx tsx scripts/bench-crawl.ts [--corpus corpora/synth] [--pages 6000] [--concurrency 32] [--strategy best-first] [--workers N] [--warc] [--set KEY=VALUE ...]
 *
 * --warc: the crawl also writes WARC files (crawl --warc, into a temporary folder): its cost.
 * --set: overrides a topic key as `topicrawl crawl --set` does (e.g. `--set dedup.enabled=false`).
 *
 * The corpus is generated (seed 1) if the folder does not exist. The server runs in a child process
 * (`topicrawl serve`) so that it does not share this process's event loop.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'parse5';
import { Agent, request } from 'undici';
import { AnalyzerPool } from '../src/crawl/analyzer-pool.js';
import { Crawler } from '../src/crawl/crawler.js';
import { loadCorpus } from '../src/eval/corpus.js';
import { generateSynthCorpus } from '../src/eval/synth-corpus.js';
import { decompressBody, openDatabase } from '../src/store/sqlite-store.js';
import { buildConfig } from '../src/topic/config.js';
import { openCrawlWarc } from '../src/warc/warc-output.js';

const root = new URL('../', import.meta.url).pathname;
const { values: a } = parseArgs({
  options: {
    corpus: { type: 'string', default: join(root, 'corpora/synth') },
    pages: { type: 'string', default: '6000' },
    concurrency: { type: 'string', default: '32' },
    strategy: { type: 'string', default: 'best-first' },
    workers: { type: 'string' },
    warc: { type: 'boolean' },
    set: { type: 'string', multiple: true, default: [] },
  },
});
const concurrency = Number(a.concurrency);

if (!existsSync(join(a.corpus!, 'corpus.json'))) {
  process.stderr.write(`generating the synthetic corpus in ${a.corpus} (seed 1)…\n`);
  generateSynthCorpus(a.corpus!, { seed: 1 });
}
const corpus = loadCorpus(a.corpus!);

async function startServer(): Promise<{ port: number; stop: () => void }> {
  const child = spawn(process.execPath, [join(root, 'bin/topicrawl.js'), 'serve', a.corpus!, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d) => {
      buf += d;
      const m = /127\.0\.0\.1:(\d+)/.exec(buf);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (c) => reject(new Error(`server exited ${c}`)));
  });
  return { port, stop: () => child.kill('SIGTERM') };
}

function peakRss(): { stop: () => number } {
  let peak = process.memoryUsage().rss;
  const t = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 25);
  return { stop: () => (clearInterval(t), Math.max(peak, process.memoryUsage().rss)) };
}

const server = await startServer();
const resolve = Object.fromEntries(corpus.hosts.map((h) => [h, `127.0.0.1:${server.port}`]));
const dir = mkdtempSync(join(tmpdir(), 'bench-crawl-'));
const dbPath = join(dir, 'bench.db');
try {
  // 1. end to end
  const config = buildConfig({
    name: 'bench',
    seeds: corpus.meta.seeds,
    keywords: { astronomy: 1, telescope: 1, galaxy: 1, recipe: 1, football: 1, 烟草: 1, 茶叶: 1 },
    strategy: { name: a.strategy },
    politeness: { delay_ms: 0, concurrency, per_host_concurrency: 8, robots: true },
    limits: { max_pages: Number(a.pages) },
  }, { set: a.set });
  const rss = peakRss();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const warc = a.warc ? await openCrawlWarc({ dir: join(dir, 'warc') }, config, 'bench', '0') : null;
  const crawler = new Crawler({ config, dbPath, resolve, workers: a.workers === undefined ? undefined : Number(a.workers), hooks: warc ? [warc.hook] : undefined });
  const summary = await crawler.run();
  await crawler.close();
  await warc?.close();
  const warcBytes = warc ? warc.writer.files.reduce((n, f) => n + statSync(join(dir, 'warc', f)).size, 0) : null;
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const peak = rss.stop();
  const e2e = summary.fetched / wall;

  // the same URLs and bodies for the baselines
  const db = openDatabase(dbPath, { readonly: true });
  const rows = db
    .prepare(`SELECT u.url, r.body, r.body_codec FROM urls u JOIN responses r ON r.url_id = u.id WHERE u.status = 200 ORDER BY u.fetch_seq`)
    .all() as { url: string; body: Buffer; body_codec: string }[];
  db.close();
  const bodies = rows.map((r) => decompressBody(r.body, r.body_codec).toString('utf8'));
  const bytes = bodies.reduce((s, b) => s + Buffer.byteLength(b), 0);

  // 2. fetch alone: undici request() over the same URLs, same concurrency, bodies read in full
  //    (median of 3 runs; the machine is noisy)
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  const agent = new Agent({ connections: 64, pipelining: 1 });
  const urls = rows.map((r) => new URL(r.url));
  const fetchRuns: number[] = [];
  for (let rep = 0; rep < 3; rep++) {
    let next = 0;
    const f0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < urls.length) {
          const u = urls[next++];
          const res = await request(`http://127.0.0.1:${server.port}${u.pathname}${u.search}`, { dispatcher: agent, headers: { host: u.host } });
          await res.body.arrayBuffer();
        }
      }),
    );
    fetchRuns.push(urls.length / ((performance.now() - f0) / 1000));
  }
  const fetchOnly = median(fetchRuns);
  await agent.close();

  // 3. parse alone: parse5 over the same bodies (median of 3 runs)
  const parseRuns: number[] = [];
  for (let rep = 0; rep < 3; rep++) {
    const p0 = performance.now();
    for (const b of bodies) parse(b);
    parseRuns.push(bodies.length / ((performance.now() - p0) / 1000));
  }
  const parseOnly = median(parseRuns);

  const floor = Math.min(fetchOnly, parseOnly);
  const out = {
    command: `npx tsx scripts/bench-crawl.ts --pages ${a.pages} --concurrency ${concurrency} --strategy ${a.strategy}${a.workers ? ` --workers ${a.workers}` : ''}${a.warc ? ' --warc' : ''}${a.set!.map((x) => ` --set ${x}`).join('')}`,
    ...(warcBytes !== null ? { warc_mb: +(warcBytes / 2 ** 20).toFixed(1) } : {}),
    analysis_workers: a.workers === undefined ? AnalyzerPool.defaultWorkers() : Number(a.workers),
    pages: summary.fetched,
    html_pages: rows.length,
    mean_page_kb: +(bytes / rows.length / 1024).toFixed(1),
    end_to_end_pages_per_s: +e2e.toFixed(0),
    cpu_s: +((cpu.user + cpu.system) / 1e6).toFixed(2),
    cpu_ms_per_page: +((cpu.user + cpu.system) / 1e3 / summary.fetched).toFixed(2),
    wall_s: +wall.toFixed(2),
    peak_rss_mb: +(peak / 2 ** 20).toFixed(0),
    fetch_only_pages_per_s: +fetchOnly.toFixed(0),
    parse_only_pages_per_s: +parseOnly.toFixed(0),
    ratio_to_min_baseline: +(e2e / floor).toFixed(2),
  };
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
} finally {
  server.stop();
  rmSync(dir, { recursive: true, force: true });
}
