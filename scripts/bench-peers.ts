/**
 * topicrawl against other crawlers on one corpus, one server, one run (issue 16, point 4).
 *
 *   npx tsx scripts/bench-peers.ts [--corpus corpora/synth] [--topic topics/synth-astronomy.yaml]
 *       [--pages 6000] [--concurrency 16] [--crawlee-dir /tmp/crawlee-bench] [--python /usr/bin/python3] [--only topicrawl,scrapy,crawlee,bare]
 *
 * - the server: nginx (scripts/bench-server.ts); the peers reach the corpus hosts through it as an
 *   HTTP proxy (nginx serves an absolute-form request `GET http://host/path` by that host), so no
 *   peer needs a DNS or host-file change. Without nginx the peers are skipped (topicrawl's corpus
 *   server answers only origin-form requests); topicrawl and the bare loop still run.
 * - topicrawl: the compiled command as bench-crawl.ts runs it (scripts/bench-cli-crawl.ts): the
 *   topic's strategy and per-host concurrency, delay 0, --concurrency in flight, robots.txt off.
 * - Scrapy (Debian's python3-scrapy; scripts/bench-peer-scrapy.py): a CrawlSpider over the corpus
 *   hosts, CONCURRENT_REQUESTS = --concurrency, no delay, robots.txt off, nothing stored.
 * - Crawlee (npm, installed outside the project: `npm install --prefix /tmp/crawlee-bench crawlee@3`;
 *   scripts/bench-peer-crawlee.mjs): a CheerioCrawler, exactly --concurrency in flight, storage in memory.
 * - the bare loop (scripts/bench-bare-loop.ts), as the yardstick, in a fresh process as the others.
 *
 * Every crawler starts from the topic's seeds with the same page budget (--pages; Scrapy may pass it
 * by the requests in flight when it stops). Pages/s = requests the server answered ÷ the time from
 * its first request to its last, the same measure for all; the process's own time, CPU and peak RSS
 * (/usr/bin/time, when installed) come beside it. A peer that is not installed is skipped with a
 * message saying how to install it. Prints one JSON object with topicrawl's ratio to each.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCorpus } from '../src/eval/corpus.js';
import { loadConfig } from '../src/topic/config.js';
import { coldBareLoop } from './bench-bare-loop.js';
import { benchSets, runCliCrawl, sharedBenchOptions } from './bench-cli-crawl.js';
import { startBenchServer, type BenchServer } from './bench-server.js';

const root = new URL('../', import.meta.url).pathname;
const { values: a } = parseArgs({
  options: {
    ...sharedBenchOptions(root),
    'crawlee-dir': { type: 'string', default: '/tmp/crawlee-bench' },
    python: { type: 'string', default: '/usr/bin/python3' },
    only: { type: 'string', default: 'topicrawl,scrapy,crawlee,bare' },
  },
});
const pages = Number(a.pages);
const inFlight = Number(a.concurrency);
const only = new Set(a.only!.split(','));
const say = (s: string): void => void process.stderr.write(`bench-peers: ${s}\n`);
process.once('SIGINT', () => process.exit(130));

const corpus = loadCorpus(a.corpus!);
const sets = benchSets(inFlight);
const config = loadConfig(a.topic!, { maxPages: pages, set: sets });
const seeds = [...config.seeds];

interface Figures {
  pages: number;
  pages_per_s: number;
  crawl_s: number;
  process_s: number;
  cpu_ms_per_page?: number;
  peak_rss_mb?: number;
}

/** Runs a peer's command wrapped in /usr/bin/time (when present), and measures it by the server's window. */
async function runPeer(server: BenchServer, cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<Figures> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-peer-'));
  try {
    const timeFile = join(dir, 'time.txt');
    const timed = existsSync('/usr/bin/time');
    await server.window();
    const p0 = performance.now();
    const child = spawn(timed ? '/usr/bin/time' : cmd, timed ? ['-f', '%U %S %M', '-o', timeFile, cmd, ...args] : args, { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((ok) => child.on('close', ok));
    const processS = (performance.now() - p0) / 1000;
    if (code !== 0) throw new Error(`${cmd} exited ${code}: ${(err || out).trim().split('\n').slice(-3).join(' | ')}`);
    const w = await server.window();
    if (w.count === 0) throw new Error(`${cmd} fetched no page: no figure`);
    const crawlS = (w.last - w.first) / 1000;
    const f: Figures = { pages: w.count, pages_per_s: +(w.count / crawlS).toFixed(0), crawl_s: +crawlS.toFixed(2), process_s: +processS.toFixed(2) };
    if (timed) {
      const [u, s, m] = readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
      f.cpu_ms_per_page = +(((u + s) * 1000) / w.count).toFixed(2);
      f.peak_rss_mb = +(m / 1024).toFixed(0);
    }
    return f;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function canRun(cmd: string, args: string[]): Promise<boolean> {
  return new Promise((ok) => {
    const c = spawn(cmd, args, { stdio: 'ignore' });
    c.on('error', () => ok(false));
    c.on('close', (code) => ok(code === 0));
  });
}

const server = await startBenchServer(a.corpus!);
say(`serving ${corpus.hosts.length} hosts with ${server.label} on 127.0.0.1:${server.port}`);
const results: Record<string, Figures | { skipped: string }> = {};
try {
  if (only.has('topicrawl')) {
    const c = await runCliCrawl({ topic: a.topic!, hosts: corpus.hosts, server, maxPages: pages, sets });
    results.topicrawl = {
      pages: c.fetched, pages_per_s: +(c.fetched / c.crawlS).toFixed(0), crawl_s: +c.crawlS.toFixed(2), process_s: +c.processS.toFixed(2),
      cpu_ms_per_page: +(c.cpuMs / c.fetched).toFixed(2), peak_rss_mb: +c.peakRssMb.toFixed(0),
    };
    say(`topicrawl: ${JSON.stringify(results.topicrawl)}`);
  }
  const proxy = `http://127.0.0.1:${server.port}`;
  const noProxyServer = server.kind !== 'nginx' ? `skipped: the peers reach the corpus hosts through nginx as a proxy, and the server is ${server.label} (${process.env.BENCH_SERVER === 'corpus' ? 'BENCH_SERVER=corpus' : 'apt-get install nginx'})` : null;
  if (only.has('scrapy')) {
    if (noProxyServer) results.scrapy = { skipped: noProxyServer };
    else if (!(await canRun(a.python!, ['-c', 'import scrapy']))) results.scrapy = { skipped: `skipped: ${a.python} cannot import scrapy (apt-get install python3-scrapy)` };
    else {
      const env = { http_proxy: proxy, HTTP_PROXY: proxy, no_proxy: '', NO_PROXY: '' };
      results.scrapy = await runPeer(server, a.python!, [join(root, 'scripts/bench-peer-scrapy.py'), String(pages), String(inFlight), seeds.join(','), corpus.hosts.join(',')], env);
    }
    say(`scrapy: ${JSON.stringify(results.scrapy)}`);
  }
  if (only.has('crawlee')) {
    if (noProxyServer) results.crawlee = { skipped: noProxyServer };
    else if (!existsSync(join(a['crawlee-dir']!, 'node_modules/crawlee/package.json'))) {
      results.crawlee = { skipped: `skipped: no crawlee in ${a['crawlee-dir']} (npm install --prefix ${a['crawlee-dir']} crawlee@3)` };
    } else {
      results.crawlee = await runPeer(server, process.execPath, [join(root, 'scripts/bench-peer-crawlee.mjs'), proxy, String(pages), String(inFlight), seeds.join(','), corpus.hosts.join(',')], { CRAWLEE_DIR: a['crawlee-dir']! });
    }
    say(`crawlee: ${JSON.stringify(results.crawlee)}`);
  }
  if (only.has('bare')) {
    const b = await coldBareLoop({ seeds, hosts: new Set(corpus.hosts), port: server.port, inFlight, maxPages: pages });
    if (b.pages === 0) throw new Error('the bare loop fetched no page: no figure');
    // (its CPU while the loop ran: its start-up through tsx is left out)
    results.bare_loop = { pages: b.pages, pages_per_s: +b.pagesPerSec.toFixed(0), crawl_s: +b.seconds.toFixed(2), process_s: +b.seconds.toFixed(2), cpu_ms_per_page: +(b.cpuMs / b.pages).toFixed(2) };
    await server.window();
  }
  const t = results.topicrawl as Figures | undefined;
  const ratios: Record<string, number> = {};
  for (const [name, r] of Object.entries(results)) {
    if (t && name !== 'topicrawl' && 'pages_per_s' in r) ratios[`topicrawl_to_${name}`] = +(t.pages_per_s / r.pages_per_s).toFixed(2);
  }
  const out = {
    command: `npx tsx scripts/bench-peers.ts --pages ${pages} --concurrency ${inFlight}${a.only !== 'topicrawl,scrapy,crawlee,bare' ? ` --only ${a.only}` : ''}`,
    server: server.label,
    topic: config.name,
    in_flight: inFlight,
    page_budget: pages,
    ...results,
    ratios,
  };
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
} catch (err) {
  say((err as Error).message);
  process.exitCode = 1;
} finally {
  await server.stop();
}
