import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Crawler, type CrawlSummary } from '../../src/crawl/crawler.js';
import type { PageHook } from '../../src/crawl/crawl-types.js';
import { startCorpusServer } from '../../src/eval/corpus-server.js';
import { CrawlMetrics } from '../../src/metrics/crawl-metrics.js';
import { MetricsServer } from '../../src/metrics/metrics-server.js';
import type { StatusJson } from '../../src/metrics/status-json.js';
import { buildConfig } from '../../src/topic/config.js';
import { parseExposition, samples, scrapeMetrics, sumOf, valueOf, type Scrape } from '../helpers/exposition.js';
import { startPoissonServer } from '../helpers/poisson-server.js';
import { Recrawler } from '../../src/revisit/recrawl.js';
import type { RecrawlSummary } from '../../src/revisit/recrawl-types.js';
import { writeMetricsCorpus } from '../helpers/metrics-corpus.js';
import { tmpDir } from '../helpers/tmp.js';

const HOSTS = 3;
const PAGES = 12;
const MISSING = 2;
const DELAY_MS = 120;

/** The topicrawl families, their types and label names (README: Metrics and the live page). */
const FAMILIES: Record<string, { type: string; labels: string[] }> = {
  topicrawl_pages_total: { type: 'counter', labels: ['outcome', 'status_class'] },
  topicrawl_relevant_pages_total: { type: 'counter', labels: [] },
  topicrawl_bytes_total: { type: 'counter', labels: [] },
  topicrawl_discovered_urls_total: { type: 'counter', labels: [] },
  topicrawl_warnings_total: { type: 'counter', labels: ['code'] },
  topicrawl_revisit_checks_total: { type: 'counter', labels: ['outcome'] },
  topicrawl_fetch_duration_seconds: { type: 'histogram', labels: ['status_class'] },
  topicrawl_strategy_duration_seconds: { type: 'histogram', labels: ['call', 'strategy'] },
  topicrawl_crawl_pages: { type: 'gauge', labels: [] },
  topicrawl_crawl_relevant_pages: { type: 'gauge', labels: [] },
  topicrawl_harvest_ratio: { type: 'gauge', labels: [] },
  topicrawl_crawl_errors: { type: 'gauge', labels: [] },
  topicrawl_frontier_urls: { type: 'gauge', labels: [] },
  topicrawl_pruned_urls: { type: 'gauge', labels: [] },
  topicrawl_discovery_rate: { type: 'gauge', labels: [] },
  topicrawl_frontier_hosts: { type: 'gauge', labels: ['state'] },
  topicrawl_crawl_info: { type: 'gauge', labels: ['strategy', 'topic'] },
  topicrawl_pipeline_page_seconds_total: { type: 'counter', labels: ['stage'] },
  topicrawl_pipeline_empty_slot_seconds_total: { type: 'counter', labels: ['reason'] },
  topicrawl_thread_busy_seconds_total: { type: 'counter', labels: ['thread'] },
  topicrawl_analysis_wait_seconds_total: { type: 'counter', labels: ['part'] },
  topicrawl_analysed_pages_total: { type: 'counter', labels: [] },
};

function checkFormat(s: Scrape): void {
  expect(s.status).toBe(200);
  expect(s.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  expect(s.problems).toEqual([]);
  for (const [name, want] of Object.entries(FAMILIES)) {
    const f = s.families.get(name);
    expect(f, name).toBeDefined();
    expect(f!.type, name).toBe(want.type);
    expect(f!.help.length, name).toBeGreaterThan(10);
    const own = f!.samples.filter((x) => want.type !== 'histogram' || x.name === `${name}_count`);
    for (const x of own) expect(Object.keys(x.labels).sort(), name).toEqual(want.labels);
  }
  // the conventions' process metrics come along
  expect(s.families.get('process_cpu_seconds_total')?.type).toBe('counter');
  for (const name of ['topicrawl_fetch_duration_seconds', 'topicrawl_strategy_duration_seconds']) {
    for (const c of samples(s, `${name}_count`)) {
      const { le: _, ...key } = { le: '', ...c.labels };
      const buckets = samples(s, `${name}_bucket`, (l) => Object.entries(key).every(([k, v]) => l[k] === v))
        .map((b) => [Number(b.labels.le === '+Inf' ? Infinity : b.labels.le), b.value] as const)
        .sort((a, b) => a[0] - b[0]);
      expect(buckets.length, name).toBeGreaterThan(5);
      for (let i = 1; i < buckets.length; i++) expect(buckets[i][1]).toBeGreaterThanOrEqual(buckets[i - 1][1]);
      expect(buckets[buckets.length - 1]).toEqual([Infinity, c.value]);
      expect(valueOf(s, `${name}_sum`, c.labels)).toBeGreaterThanOrEqual(0);
    }
  }
  expect(samples(s, 'topicrawl_frontier_hosts').map((x) => x.labels.state).sort()).toEqual(['sleeping', 'suspended', 'waiting']);
  for (const x of samples(s, 'topicrawl_strategy_duration_seconds_count')) expect(['onPageFetched', 'onLinksStored', 'takeUpdates']).toContain(x.labels.call);
  for (const x of samples(s, 'topicrawl_pages_total')) expect(x.labels.status_class).toMatch(/^([1-5]xx|none|other)$/);
}

const histCount = (s: Scrape, name: string, where: (l: Record<string, string>) => boolean = () => true) => sumOf(s, `${name}_count`, where);

describe('crawl metrics (Prometheus, /metrics)', () => {
  it('are scraped during a real crawl in the exposition format, and end equal to the crawl summary', async () => {
    const dir = tmpDir();
    const { seed, hosts } = writeMetricsCorpus(join(dir, 'corpus'), { hosts: HOSTS, pages: PAGES, missing: MISSING, duplicates: true });
    const corpus = await startCorpusServer(join(dir, 'corpus'));
    const config = buildConfig({
      name: 'metrics', seeds: [seed], keywords: { tobacco: 2, cigarette: 1 },
      politeness: { delay_ms: DELAY_MS, concurrency: 4 }, scope: { hosts: ['*.metrics.test'] },
    });
    const metrics = new CrawlMetrics({ topic: config.name, strategy: config.strategy.name, worker: null });
    const server = new MetricsServer(metrics);
    const heard: string[] = [];
    server.on('listening', (a) => heard.push(a.url));
    const addr = await server.listen('127.0.0.1', 0);
    expect(addr.port).toBeGreaterThan(0);
    expect(heard).toEqual([`http://127.0.0.1:${addr.port}/`]);
    let fetches = 0;
    const counting: PageHook = { fetched: () => void fetches++ };
    const crawler = new Crawler({ config, dbPath: join(dir, 'm.db'), resolve: corpus.resolveMap(), mappedOnly: true, hooks: [metrics, counting], timing: metrics });
    const unwatch = metrics.watch(crawler);
    let pages = 0;
    let mid: Promise<[Scrape, StatusJson]> | null = null;
    crawler.on('page', () => {
      if (++pages === 8) mid = Promise.all([scrapeMetrics(addr.url), fetch(`${addr.url}status.json`).then((r) => r.json() as Promise<StatusJson>)]);
    });
    let summary: CrawlSummary;
    let end: Scrape;
    let status: StatusJson;
    try {
      summary = await crawler.run();
      end = await scrapeMetrics(addr.url);
      status = (await (await fetch(`${addr.url}status.json`)).json()) as StatusJson;
    } finally {
      unwatch();
      await crawler.close();
      await server.close();
      await corpus.close();
    }

    // during the crawl: the format, and counts between the 8th page and the end
    expect(mid).not.toBeNull();
    const [during, midStatus] = await mid!;
    checkFormat(during);
    expect(midStatus.state).toBe('running');
    const midPages = sumOf(during, 'topicrawl_pages_total');
    expect(midPages).toBeGreaterThanOrEqual(8);
    expect(midPages).toBeLessThan(summary.fetched); // politeness: the rest takes seconds

    // at the end: the same figures as the crawl's own summary
    checkFormat(end);
    const perHost = 1 + PAGES + 2 + MISSING + 1; // home, pages, /folder (301) and /folder/, missing (404), /copy.html (a duplicate of /p0.html)
    expect(summary.reason).toBe('done');
    expect(summary.fetched).toBe(HOSTS * perHost);
    expect(sumOf(end, 'topicrawl_pages_total')).toBe(summary.fetchedThisRun);
    expect(sumOf(end, 'topicrawl_pages_total')).toBe(summary.fetched);
    expect(valueOf(end, 'topicrawl_pages_total', { status_class: '2xx', outcome: 'ok' })).toBe(HOSTS * (1 + PAGES + 1 + 1));
    expect(valueOf(end, 'topicrawl_pages_total', { status_class: '3xx', outcome: 'ok' })).toBe(HOSTS);
    expect(valueOf(end, 'topicrawl_pages_total', { status_class: '4xx', outcome: 'E_HTTP' })).toBe(HOSTS * MISSING);
    expect(sumOf(end, 'topicrawl_pages_total', (l) => l.outcome !== 'ok')).toBe(summary.errors);
    expect(valueOf(end, 'topicrawl_relevant_pages_total')).toBe(summary.relevant);
    expect(summary.relevant).toBeGreaterThan(0);
    expect(summary.relevant).toBeLessThan(summary.fetched);
    expect(valueOf(end, 'topicrawl_bytes_total')).toBe(summary.bytes);
    expect(valueOf(end, 'topicrawl_discovered_urls_total')).toBe(summary.known - 1); // all but the seed
    expect(valueOf(end, 'topicrawl_crawl_pages')).toBe(summary.fetched);
    expect(valueOf(end, 'topicrawl_crawl_relevant_pages')).toBe(summary.relevant);
    expect(valueOf(end, 'topicrawl_harvest_ratio')).toBeCloseTo(summary.harvest, 12);
    expect(valueOf(end, 'topicrawl_crawl_errors')).toBe(summary.errors);
    expect(valueOf(end, 'topicrawl_frontier_urls')).toBe(summary.frontier);
    expect(valueOf(end, 'topicrawl_pruned_urls')).toBe(summary.pruned);
    expect(valueOf(end, 'topicrawl_discovery_rate')).toBeCloseTo(summary.discoveryRate, 12);
    expect(valueOf(end, 'topicrawl_crawl_info', { topic: 'metrics', strategy: summary.strategy })).toBe(1);
    expect(valueOf(end, 'topicrawl_frontier_hosts', { state: 'suspended' })).toBe(0);
    // the pipeline's totals: the same areas as the summary's means (their ratios are equal), growing
    // from the scrape during the crawl to the end
    // (a missing sample reads NaN, which every comparison below fails)
    const value = (x: Scrape, name: string, labels: Record<string, string>) => valueOf(x, name, labels) ?? NaN;
    const stage = (x: Scrape, k: string) => value(x, 'topicrawl_pipeline_page_seconds_total', { stage: k });
    const empty = (x: Scrape, k: string) => value(x, 'topicrawl_pipeline_empty_slot_seconds_total', { reason: k });
    const busy = (x: Scrape, k: string) => value(x, 'topicrawl_thread_busy_seconds_total', { thread: k });
    const p = summary.pipeline!;
    const inFlight = stage(end, 'in_flight');
    expect(inFlight).toBeGreaterThan(0);
    expect(stage(end, 'fetching') + stage(end, 'analysing')).toBeLessThanOrEqual(inFlight + 1e-9);
    expect(stage(end, 'fetching') / inFlight).toBeCloseTo(p.meanFetching / p.meanInFlight, 9);
    expect(stage(end, 'analysing') / inFlight).toBeCloseTo(p.meanAnalysing / p.meanInFlight, 9);
    for (const [reason, mean] of [['order', p.idleSlots.order], ['politeness', p.idleSlots.politeness], ['other', p.idleSlots.other]] as const) {
      expect(empty(end, reason) / inFlight).toBeCloseTo(mean / p.meanInFlight, 9);
    }
    // 3 hosts, 4 slots, 120 ms between two requests to a host: slots wait for politeness
    expect(empty(end, 'politeness')).toBeGreaterThan(0);
    expect(busy(end, 'crawl')).toBeGreaterThan(0);
    expect(busy(end, 'analysis')).toBeGreaterThan(0);
    // where the analysed pages' time went: the summary's means times the pages analysed on the threads
    const analysed = valueOf(end, 'topicrawl_analysed_pages_total') ?? NaN;
    expect(analysed).toBeGreaterThan(0);
    expect(analysed).toBeLessThanOrEqual(summary.fetched);
    const waits = p.analysisWaits!;
    for (const [part, mean] of [['queued', waits.queuedMs], ['analysed', waits.analysingMs], ['returning', waits.returningMs]] as const) {
      expect(value(end, 'topicrawl_analysis_wait_seconds_total', { part }) * 1000 / analysed).toBeCloseTo(mean, 6);
    }
    expect(value(end, 'topicrawl_analysis_wait_seconds_total', { part: 'analysed' })).toBeGreaterThan(0);
    for (const [name, key, k] of [['topicrawl_pipeline_page_seconds_total', 'stage', 'in_flight'], ['topicrawl_thread_busy_seconds_total', 'thread', 'crawl']] as const) {
      expect(value(during, name, { [key]: k })).toBeGreaterThan(0);
      expect(value(during, name, { [key]: k })).toBeLessThanOrEqual(value(end, name, { [key]: k }));
    }

    // every fetch is timed (no retries here: one per page); the strategy's calls as the crawl made them
    expect(fetches).toBe(summary.fetched);
    expect(histCount(end, 'topicrawl_fetch_duration_seconds')).toBe(fetches);
    expect(histCount(end, 'topicrawl_fetch_duration_seconds', (l) => l.status_class === '4xx')).toBe(HOSTS * MISSING);
    const strategy = crawler.strategyInstance;
    const calls = (call: string) => histCount(end, 'topicrawl_strategy_duration_seconds', (l) => l.call === call && l.strategy === strategy.name);
    expect(calls('onPageFetched')).toBe(HOSTS * (1 + PAGES)); // the pages with links (not /folder/, not the errors, not the duplicates)
    expect(calls('onLinksStored')).toBe(strategy.onLinksStored ? summary.fetched : 0);
    expect(calls('takeUpdates')).toBe(strategy.takeUpdates ? summary.fetched : 0);

    // the live status says the same
    expect(status.state).toBe('ended');
    expect(status.reason).toBe('done');
    expect(status.pagesThisRun).toBe(summary.fetched);
    expect(status.pages).toBe(summary.fetched);
    expect(status.relevant).toBe(summary.relevant);
    expect(status.errors).toBe(summary.errors);
    expect(status.harvestCurve[status.harvestCurve.length - 1]).toEqual([summary.fetched, summary.relevant / summary.fetched]);
    expect(status.topHosts.map((h) => h.host).sort()).toEqual([...hosts].sort());
    for (const h of status.topHosts) expect(h).toMatchObject({ pages: perHost, errors: MISSING });
    expect(status.topHosts.reduce((a, h) => a + h.relevant, 0)).toBe(summary.relevant);
    expect(status.errorsByKind).toEqual([{ kind: 'E_HTTP 404', count: HOSTS * MISSING }]);
    expect(status.latestRelevant.length).toBe(Math.min(15, summary.relevant));
    for (const r of status.latestRelevant) expect(r.relevance).toBeGreaterThanOrEqual(config.relevance.threshold);
  });
});

describe('crawl metrics of a revisit pass (crawl --revisit)', () => {
  it('count every check by outcome, and time its fetches', async () => {
    const start = Date.now();
    let t = start;
    const server = await startPoissonServer({
      pages: [{ path: '/a', ratePerDay: 50 }, { path: '/b', ratePerDay: 0 }, { path: '/c', ratePerDay: 50 }],
      clock: () => t, start, horizonMs: 30 * 86_400_000, seed: 3,
    });
    const resolve = { 'poisson.test': `127.0.0.1:${server.port}` };
    const config = buildConfig({ name: 'revisits', seeds: ['http://poisson.test/'], keywords: { tobacco: 1 }, politeness: { delay_ms: 0 } });
    const db = join(tmpDir(), 'r.db');
    try {
      const crawler = new Crawler({ config, dbPath: db, resolve, mappedOnly: true, workers: 0 });
      await crawler.run();
      await crawler.close();
      const metrics = new CrawlMetrics({ topic: config.name, strategy: config.strategy.name, worker: null }, { defaultMetrics: false });
      t = Date.now() + 40 * 86_400_000; // every page is due
      const rc = new Recrawler({ dbPath: db, resolve, mappedOnly: true, now: () => t, sleep: async (ms) => void (t += ms), hooks: [metrics] });
      let s: RecrawlSummary;
      try {
        s = await rc.runDue();
      } finally {
        await rc.close();
      }
      const m = parseExposition(await metrics.metrics());
      expect(m.problems).toEqual([]);
      const scrape = { families: m.families } as Scrape;
      expect(s.checked).toBeGreaterThanOrEqual(4);
      expect(sumOf(scrape, 'topicrawl_revisit_checks_total')).toBe(s.checked);
      for (const [outcome, n] of [['changed', s.changed], ['unchanged', s.unchanged], ['not_modified', s.notModified], ['deleted', s.deleted], ['failed', s.failed]] as const) {
        expect(valueOf(scrape, 'topicrawl_revisit_checks_total', { outcome }) ?? 0, outcome).toBe(n);
      }
      expect(sumOf(scrape, 'topicrawl_fetch_duration_seconds_count')).toBe(s.checked);
    } finally {
      await server.close();
    }
  });
});
