/**
 * What metrics cost (issue 14): per page, per scrape, per host-state reading, and end to end.
 *
 *   npx tsx scripts/bench-metrics.ts [--events 200000] [--hosts 100000] [--pages 3000] [--rounds 3] [--corpus corpora/synth]
 *
 * 1. Per page: `--events` synthetic pages through what a crawl with `--metrics-port` does for each
 *    (the page event to CrawlMetrics and LiveStatus, the `fetched` hook, three timed strategy calls),
 *    against the same events emitted with no listener (a crawl without `--metrics-port`).
 * 2. Per scrape: `/metrics` and `/status.json` rendered with `--hosts` hosts in the top-hosts tally.
 * 3. Host states: one `hostStates` pass of the embedded frontier over `--hosts` hosts.
 * 4. End to end: the synthetic corpus crawled (politeness delay 0, robots.txt on; server in a child
 *    process) `--rounds` times with and without metrics, alternating; medians of pages/s and CPU
 *    ms per page.
 * Prints JSON.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Crawler } from '../src/crawl/crawler.js';
import { loadCorpus } from '../src/eval/corpus.js';
import { generateSynthCorpus } from '../src/eval/synth-corpus.js';
import { TypedEmitter, type CrawlEvents, type PageEvent } from '../src/events.js';
import type { FetchResult } from '../src/fetch/fetcher.js';
import { EmbeddedFrontier } from '../src/frontier/embedded-frontier.js';
import { SqliteFrontier } from '../src/frontier/sqlite-frontier.js';
import { CrawlMetrics } from '../src/metrics/crawl-metrics.js';
import { SqliteStore } from '../src/store/sqlite-store.js';
import { buildConfig } from '../src/topic/config.js';
import { urlHash } from '../src/url/url-hash.js';

const root = new URL('../', import.meta.url).pathname;
const { values: a } = parseArgs({
  options: {
    events: { type: 'string', default: '200000' },
    hosts: { type: 'string', default: '100000' },
    pages: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '3' },
    corpus: { type: 'string', default: join(root, 'corpora/synth') },
  },
});
const N = Number(a.events);
const HOSTS = Number(a.hosts);
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const dir = mkdtempSync(join(tmpdir(), 'bench-metrics-'));

/** A subject with the crawl's events and host states, as a Crawler is to CrawlMetrics. */
class Subject extends TypedEmitter<CrawlEvents> {
  async hostStates() {
    return { waiting: 1, sleeping: 2, suspended: 0 };
  }
}

function events(n: number, hosts: number): PageEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    url: `http://h${i % hosts}.test/p${i}`, host: `h${i % hosts}.test`, status: i % 50 === 0 ? 404 : 200, depth: 2,
    relevance: (i % 7) / 7, relevant: i % 7 >= 3, priority: 0.5, error: i % 50 === 0 ? 'E_HTTP' : undefined, bytes: 20_000, seq: i + 1, newUrls: 3,
  }));
}

function perPage(withMetrics: boolean): number {
  const subject = new Subject();
  const evs = events(N, 1000);
  const res = { status: 200, elapsedMs: 12 } as FetchResult;
  const item = { id: 1, url: '', host: '', hostId: 1 };
  const m = withMetrics ? new CrawlMetrics({ topic: 'bench', strategy: 'best-first', worker: null }, { defaultMetrics: false }) : null;
  m?.watch(subject);
  const t0 = performance.now();
  for (const e of evs) {
    if (m) {
      m.fetched(item, res);
      // what the crawl does around the strategy calls when timed: two clock reads each
      for (const call of ['onPageFetched', 'onLinksStored', 'takeUpdates'] as const) {
        const s = performance.now();
        m.timed('best-first', call, (performance.now() - s) / 1000);
      }
    }
    subject.emit('page', e);
  }
  return ((performance.now() - t0) * 1000) / N;
}

async function perScrape(): Promise<{ metrics_ms: number; status_ms: number; bytes: number }> {
  const subject = new Subject();
  const m = new CrawlMetrics({ topic: 'bench', strategy: 'best-first', worker: null });
  m.watch(subject);
  for (const e of events(Math.max(HOSTS * 2, 10_000), HOSTS)) subject.emit('page', e);
  subject.emit('progress', { fetched: 1, pagesPerSec: 1, frontier: 1, relevant: 1, harvest: 1, errors: 0, bytes: 1, elapsedMs: 1, discoveryRate: 1, pruned: 0 });
  const times = { metrics: [] as number[], status: [] as number[] };
  let bytes = 0;
  for (let i = 0; i < 5; i++) {
    let t = performance.now();
    bytes = (await m.metrics()).length;
    times.metrics.push(performance.now() - t);
    t = performance.now();
    JSON.stringify(await m.status());
    times.status.push(performance.now() - t);
  }
  return { metrics_ms: +median(times.metrics).toFixed(2), status_ms: +median(times.status).toFixed(2), bytes };
}

async function hostStatesPass(): Promise<number> {
  const store = new SqliteStore(join(dir, 'hosts.db'));
  try {
    const local = new SqliteFrontier(store.db, { delayMs: 1000, perHostConcurrency: 1 });
    const f = new EmbeddedFrontier(local, { maxPages: Infinity, maxPagesPerHost: Infinity, counted: 0, hostCounted: new Map() });
    for (let h = 0; h < HOSTS; h += 10_000) {
      const adds = Array.from({ length: Math.min(10_000, HOSTS - h) }, (_, i) => {
        const url = `http://h${h + i}.test/`;
        return { hash: urlHash(url), url, host: `h${h + i}.test`, depth: 0, priority: 1, life: 3, parentId: null, anchor: null };
      });
      store.transaction(() => local.add(adds));
    }
    const runs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await f.hostStates(Date.now());
      runs.push(performance.now() - t);
    }
    local.close();
    return +median(runs).toFixed(2);
  } finally {
    store.close();
  }
}

async function endToEnd(): Promise<Record<string, unknown>> {
  if (!existsSync(join(a.corpus!, 'corpus.json'))) generateSynthCorpus(a.corpus!, { seed: 1 });
  const corpus = loadCorpus(a.corpus!);
  const child = spawn(process.execPath, [join(root, 'bin/topicrawl.js'), 'serve', a.corpus!, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => {
    let buf = '';
    child.stdout!.on('data', (d) => {
      const m = /127\.0\.0\.1:(\d+)/.exec((buf += d));
      if (m) resolve(Number(m[1]));
    });
  });
  try {
    const resolve = Object.fromEntries(corpus.hosts.map((h) => [h, `127.0.0.1:${port}`]));
    const config = buildConfig({
      name: 'bench', seeds: corpus.meta.seeds, keywords: { astronomy: 1, telescope: 1, galaxy: 1 },
      strategy: { name: 'best-first' }, politeness: { delay_ms: 0, concurrency: 32, per_host_concurrency: 8, robots: true },
      limits: { max_pages: Number(a.pages) },
    });
    const out = { off: { pps: [] as number[], cpu: [] as number[] }, on: { pps: [] as number[], cpu: [] as number[] } };
    for (let r = 0; r < Number(a.rounds); r++) {
      for (const side of r % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        const m = side === 'on' ? new CrawlMetrics({ topic: 'bench', strategy: 'best-first', worker: null }) : null;
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        const crawler = new Crawler({ config, dbPath: join(dir, `${side}-${r}.db`), resolve, ...(m ? { hooks: [m], timing: m } : {}) });
        const stop = m?.watch(crawler);
        // a scraper once a second, as Prometheus would scrape (more often than its usual 15 s)
        const scrape = m ? setInterval(() => void m.metrics().then(() => m.status()), 1000) : null;
        const s = await crawler.run();
        if (scrape) clearInterval(scrape);
        stop?.();
        await crawler.close();
        const cpu = process.cpuUsage(cpu0);
        out[side].pps.push(s.fetched / ((performance.now() - t0) / 1000));
        out[side].cpu.push((cpu.user + cpu.system) / 1e3 / s.fetched);
      }
    }
    return {
      pages: Number(a.pages), rounds: Number(a.rounds),
      off_pages_per_s: +median(out.off.pps).toFixed(0), on_pages_per_s: +median(out.on.pps).toFixed(0),
      off_cpu_ms_per_page: +median(out.off.cpu).toFixed(2), on_cpu_ms_per_page: +median(out.on.cpu).toFixed(2),
      on_over_off_pages_per_s: +(median(out.on.pps) / median(out.off.pps)).toFixed(2),
      every_round_off_on_pages_per_s: out.off.pps.map((x, i) => [+x.toFixed(0), +out.on.pps[i].toFixed(0)]),
    };
  } finally {
    child.kill('SIGTERM');
  }
}

try {
  perPage(true); // warm-up
  const off = median([perPage(false), perPage(false), perPage(false)]);
  const on = median([perPage(true), perPage(true), perPage(true)]);
  const result = {
    command: `npx tsx scripts/bench-metrics.ts --events ${N} --hosts ${HOSTS} --pages ${a.pages} --rounds ${a.rounds}`,
    per_page_us: { without_metrics: +off.toFixed(3), with_metrics: +on.toFixed(3) },
    per_scrape: { hosts: HOSTS, ...(await perScrape()) },
    host_states_ms: { hosts: HOSTS, embedded: await hostStatesPass() },
    end_to_end: Number(a.rounds) > 0 ? await endToEnd() : null,
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
