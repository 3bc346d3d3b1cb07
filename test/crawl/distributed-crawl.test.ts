import { availableParallelism } from 'node:os';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCorpusServer, type CorpusRequestRecord, type CorpusServer } from '../../src/eval/corpus-server.js';
import { generateSynthCorpus } from '../../src/eval/synth-corpus.js';
import { RedisConnection } from '../../src/frontier/redis-connection.js';
import { openCrawl } from '../../src/store/segments.js';
import { crawlTotals } from '../../src/store/crawl-report.js';
import { labelHarvest } from '../../src/eval/label-harvest.js';
import { loadCorpus } from '../../src/eval/corpus.js';
import type { TopicInput } from '../../src/topic/topic-schema.js';
import { startCli, runCliProcess } from '../helpers/cli-process.js';
import { deleteCrawl } from '../../src/frontier/redis-crawl-keys.js';
import { redisCrawlStats } from '../../src/frontier/redis-crawl-stats.js';
import { REDIS_URL } from '../helpers/redis.js';
import { suiteTmpDir, tmpDir } from '../helpers/tmp.js';
import { defaultAnalysisThreads } from '../../src/crawl/analyzer-pool.js';

/**
 * The distributed crawl (issue 13): worker processes of `topicrawl crawl --frontier redis://…` on a
 * real Redis server and a real corpus server on loopback, with a 100 ms politeness delay.
 */
const DELAY = 100;
const BUDGET = 1200;
/** How far beyond the budget the kill test lets the crawl go: the gap the README names under Segments (seen: 1 page, in about one run in ten). */
const GAP_MAX = 16;

describe('a crawl shared by worker processes on Redis', () => {
  const dir = suiteTmpDir();
  const corpus = join(dir, 'corpus');
  let topicFile: string;
  let server: CorpusServer;
  let hits: CorpusRequestRecord[] = [];
  let conn: RedisConnection;
  const crawlIds: string[] = [];
  let resolve: string[];

  beforeAll(async () => {
    generateSynthCorpus(corpus, { seed: 13, pages: 3000, hosts: 30 });
    const meta = JSON.parse(readFileSync(join(corpus, 'corpus.json'), 'utf8')) as { seeds: string[] };
    const topic: TopicInput = {
      name: 'distributed', seeds: meta.seeds, keywords: { astronomy: 2, telescope: 1 },
      strategy: { name: 'best-first-fish' },
      politeness: { delay_ms: DELAY, concurrency: 16, per_host_concurrency: 1, robots: true },
      limits: { max_pages: BUDGET },
      evaluation: { label: 'astronomy' },
    };
    topicFile = join(dir, 'topic.yaml');
    writeFileSync(topicFile, stringify(topic));
    server = await startCorpusServer(corpus, { onRequest: (r) => void hits.push(r) });
    resolve = Object.entries(server.resolveMap()).flatMap(([h, a]) => ['--resolve', `${h}=${a}`]);
    conn = await new RedisConnection(REDIS_URL).connect();
  }, 60_000);

  afterAll(async () => {
    for (const id of crawlIds) await deleteCrawl(conn, id);
    await conn?.close();
    await server?.close();
  });

  const crawlId = (name: string) => {
    const id = `${name}-${process.pid}-${Date.now().toString(36)}`;
    crawlIds.push(id);
    return id;
  };
  const worker = (id: string, db: string, extra: string[] = []) =>
    startCli(['crawl', topicFile, '--frontier', REDIS_URL, '--crawl-id', id, '--db', db, '--json', '--mapped-only', ...resolve, ...extra], { timeoutMs: 240_000 });
  const pagesOf = (rs: CorpusRequestRecord[]) => rs.filter((r) => !r.path.endsWith('/robots.txt'));

  /** Every host's requests (robots.txt included) at least the delay apart, by the server's clock. */
  function expectPolite(rs: CorpusRequestRecord[]): void {
    const byHost = new Map<string, number[]>();
    for (const r of rs) byHost.set(r.host, [...(byHost.get(r.host) ?? []), r.receivedAt]);
    let pairs = 0;
    for (const [host, times] of byHost) {
      times.sort((a, b) => a - b);
      for (let i = 1; i < times.length; i++, pairs++) expect(times[i] - times[i - 1], `${host}: requests ${i - 1} and ${i}`).toBeGreaterThanOrEqual(DELAY - 2);
    }
    expect(pairs).toBeGreaterThan(BUDGET / 2);
  }

  function harvestOf(paths: string[]): { fetched: number; harvest: number } {
    const c = openCrawl(paths);
    try {
      const t = crawlTotals(c.db);
      const truth = labelHarvest(c.db, loadCorpus(corpus).labels, 'astronomy');
      return { fetched: t.fetched, harvest: truth.harvestRate };
    } finally {
      c.close();
    }
  }

  /**
   * One paired trial: a one-process crawl with the embedded frontier, then 3 workers on Redis, with
   * the same budget. Asserts what must hold in every trial (no URL twice, politeness across workers,
   * the budget, every worker taking part) and returns both harvests.
   */
  async function pairedTrial(): Promise<{ alone: number; shared: number }> {
    hits = [];
    const single = join(tmpDir(), 'single.db');
    const one = await runCliProcess(['crawl', topicFile, '--db', single, '--json', '--mapped-only', ...resolve], { timeoutMs: 240_000 });
    expect(one.code, one.stderr).toBe(0);
    const alone = harvestOf([single]);

    hits = [];
    const id = crawlId('three');
    const segs = tmpDir();
    // as many requests in flight in all as the one process (16): more would make the shared crawl
    // less focused than the one it is compared with (each worker's concurrency is its own)
    const workers = [1, 2, 3].map((i) => worker(id, join(segs, `w${i}.db`), ['--set', `politeness.concurrency=${i === 1 ? 6 : 5}`]));
    const ends = await Promise.all(workers.map((w) => w.done));
    for (const e of ends) expect(e.code, e.stderr).toBe(0);
    const pages = pagesOf(hits).map((r) => `${r.host}${r.path}`);
    expect(pages.length).toBe(BUDGET);
    expect(new Set(pages).size).toBe(pages.length); // none twice
    expectPolite(hits);
    // every worker took part
    for (const e of ends) expect((JSON.parse(e.stdout) as { fetchedThisRun: number }).fetchedThisRun).toBeGreaterThan(BUDGET / 10);
    const shared = harvestOf([1, 2, 3].map((i) => join(segs, `w${i}.db`)));
    expect(shared.fetched).toBe(alone.fetched);
    expect(alone.harvest).toBeGreaterThan(0.05); // a focused crawl, not an empty comparison
    return { alone: alone.harvest, shared: shared.harvest };
  }

  // The harvest of a best-first crawl depends on what is known when each URL is chosen, so on timing.
  // On a quiet machine the two crawls agreed within 2.4% in 15 trials; on a loaded one a trial drifts
  // past 5% now and then (twice in about 40 CI runs, one of them on a machine running three other
  // suites; 3 of 10 trials beside two busy loops on 2 cores). So the 5% is asked of the median of up
  // to 3 paired trials: a second runs only when the first is off, a third only when those two
  // disagree. A shared crawl more than 5% off in two trials of three fails.
  it('3 workers: no URL fetched twice, every host polite across workers, the budget and harvest of one process', async () => {
    const gaps: string[] = [];
    const offs: number[] = [];
    for (let trial = 0; trial < 3; trial++) {
      const { alone, shared } = await pairedTrial();
      const off = Math.abs(shared - alone) / alone;
      offs.push(off);
      gaps.push(`${shared.toFixed(4)} shared, ${alone.toFixed(4)} alone`);
      const ok = offs.filter((o) => o < 0.05).length;
      if ((trial === 0 && ok === 1) || ok === 2 || offs.length - ok === 2) break;
    }
    const median = [...offs].sort((a, b) => a - b)[Math.floor(offs.length / 2)];
    expect(median, `harvest per trial: ${gaps.join('; ')}`).toBeLessThan(0.05);
  }, 900_000);

  it('kill -9 of a worker mid-crawl: its leased URLs are fetched by the others after the lease, none lost, the budget kept but for the COMMIT-to-confirmation gap', async () => {
    hits = [];
    const id = crawlId('killed');
    const segs = tmpDir();
    const lease = ['--lease-ms', '3000'];
    const victim = worker(id, join(segs, 'w1.db'), lease);
    const others = [2, 3].map((i) => worker(id, join(segs, `w${i}.db`), lease));
    // kill the victim once it holds leases, a third of the way in
    await new Promise<void>((resolve, reject) => {
      const t = setInterval(() => {
        const ended = [victim, ...others].find((w) => w.child.exitCode !== null);
        if (ended || pagesOf(hits).length >= BUDGET / 3) {
          clearInterval(t);
          if (ended) reject(new Error(`a worker ended before the kill: ${ended.stderr}`));
          else resolve();
        }
      }, 20);
    });
    victim.child.kill('SIGKILL');
    const killed = await victim.done;
    expect(killed.signal).toBe('SIGKILL');
    const ends = await Promise.all(others.map((w) => w.done));
    for (const e of ends) expect(e.code, e.stderr).toBe(0);
    // exactly the budget was counted; a URL whose page the victim fetched but never recorded was fetched again
    const stats = await runCliProcess(['stats', '--frontier', REDIS_URL, '--crawl-id', id, '--json']);
    expect(stats.code, stats.stderr).toBe(0);
    const s = JSON.parse(stats.stdout) as { budgetUsed: number; leased: number };
    expect(s.leased).toBe(0);
    const recorded = harvestOf([1, 2, 3].map((i) => join(segs, `w${i}.db`)));
    const pages = pagesOf(hits).map((r) => `${r.host}${r.path}`);
    // the victim's committed pages and the others' add up to the budget, but for the gap the README
    // names under Segments: killed between a COMMIT and its confirmations reaching Redis, the victim
    // leaves pages recorded whose leases expire and give their pages back to the budget, so the crawl
    // may record a few pages beyond it (1,201 of 1,200 in 2 of 25 runs on 2026-12-04)
    expect(recorded.fetched).toBeGreaterThanOrEqual(BUDGET);
    expect(recorded.fetched).toBeLessThanOrEqual(BUDGET + GAP_MAX);
    expect(new Set(pages).size).toBeGreaterThanOrEqual(BUDGET); // every recorded page was requested
    expect(s.budgetUsed).toBeGreaterThanOrEqual(BUDGET);
  }, 300_000);

  it('--workers 2 on this machine: Ctrl-C stops both gracefully, every lease settled or released, resumable', async () => {
    hits = [];
    const id = crawlId('ctrl-c');
    const segs = join(tmpDir(), 'segments');
    const parent = startCli(['crawl', topicFile, '--frontier', REDIS_URL, '--crawl-id', id, '--workers', '2', '--db', segs, '--mapped-only', ...resolve], { timeoutMs: 240_000 });
    await parent.waitFor(/fetched=[1-9]\d{2,}/); // one progress line for both, after 100 pages
    parent.child.kill('SIGINT');
    const end = await parent.done;
    expect(end.code, end.stderr).toBe(0);
    expect(end.stdout).toMatch(/crawl stopped/);
    expect(end.stdout).toMatch(/worker 1 .*worker-1\.db/s);
    expect(end.stdout).toMatch(/worker 2 .*worker-2\.db/s);
    const stats = await runCliProcess(['stats', '--frontier', REDIS_URL, '--crawl-id', id, '--json']);
    const s = JSON.parse(stats.stdout) as { leased: number; queued: number; budgetUsed: number; workers: unknown[] };
    expect(s.leased).toBe(0);
    expect(s.queued).toBeGreaterThan(0);
    const recorded = harvestOf([segs]);
    expect(recorded.fetched).toBe(s.budgetUsed); // every page counted is recorded: none in flight was lost
    expect(pagesOf(hits).length).toBe(recorded.fetched);
    // the same command again goes on to the budget, fetching nothing twice
    const again = await runCliProcess(['crawl', topicFile, '--frontier', REDIS_URL, '--crawl-id', id, '--workers', '2', '--db', segs, '--mapped-only', '--json', ...resolve], { timeoutMs: 240_000 });
    expect(again.code, again.stderr).toBe(0);
    expect(harvestOf([segs]).fetched).toBe(BUDGET);
    // each worker process analyses with its share of the machine's cores (all of them together here)
    const summary = JSON.parse(again.stdout) as { resumed: boolean; analysisThreads: number; pipeline: { concurrency: number; meanInFlight: number } };
    expect(summary.resumed).toBe(true);
    expect(summary.analysisThreads).toBe(2 * defaultAnalysisThreads(availableParallelism(), 2));
    // the pipelines of the two processes as one: both limits (the topic's 16 each), both processes' pages in flight
    expect(summary.pipeline.concurrency).toBe(2 * 16);
    expect(summary.pipeline.meanInFlight).toBeGreaterThan(0);
    expect(summary.pipeline.meanInFlight).toBeLessThanOrEqual(2 * 16);
    const pages = pagesOf(hits).map((r) => `${r.host}${r.path}`);
    expect(new Set(pages).size).toBe(pages.length);
    expect(pages.length).toBe(BUDGET);
  }, 300_000);
  it('--workers 2 --corpus: the summary has the label harvest of the merged segments, and the shared queue as it is once all have ended', async () => {
    const id = crawlId('corpus');
    const segs = tmpDir();
    const r = await runCliProcess(['crawl', topicFile, '--frontier', REDIS_URL, '--crawl-id', id, '--workers', '2', '--db', segs, '--corpus', corpus, '--max-pages', '200', '--json'], { timeoutMs: 240_000 });
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { fetched: number; resumed: boolean; frontier: number; discoveryRate: number; labels: { harvestRate: number; relevant: number; fetched: number; targetRecall: number } | null; workers: { fetchedThisRun: number; discoveryRate: number }[] };
    expect(summary.fetched).toBe(200);
    expect(summary.resumed).toBe(false); // a new crawl, though all but one worker joined it
    const c = openCrawl([segs]);
    try {
      const truth = labelHarvest(c.db, loadCorpus(corpus).labels, 'astronomy');
      expect(truth.fetched).toBe(200);
      expect(summary.labels).toEqual(truth);
    } finally {
      c.close();
    }
    expect(summary.frontier).toBe((await redisCrawlStats(conn, id)).queued);
    // the discovery rate of both workers' pages, not of the first worker alone
    const w = summary.workers;
    const pages = w[0].fetchedThisRun + w[1].fetchedThisRun;
    expect(summary.discoveryRate).toBeCloseTo((w[0].discoveryRate * w[0].fetchedThisRun + w[1].discoveryRate * w[1].fetchedThisRun) / pages, 12);
  }, 300_000);
});
