import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Crawler, type CrawlSummary } from '../../src/crawl/crawler.js';
import { startCorpusServer } from '../../src/eval/corpus-server.js';
import { CrawlMetrics } from '../../src/metrics/crawl-metrics.js';
import { MetricsServer } from '../../src/metrics/metrics-server.js';
import type { StatusJson } from '../../src/metrics/status-json.js';
import { buildConfig } from '../../src/topic/config.js';
import { writeMetricsCorpus } from '../helpers/metrics-corpus.js';
import { tmpDir } from '../helpers/tmp.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && !process.env.CI) {
  console.warn(`skipped: the live page test: ${CHROMIUM} is missing (Debian: apt-get install chromium). In CI (CI=true) it fails instead.`);
}
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** How the page writes each format (README: the live page), written again here from the README's words. */
const FORMAT: Record<string, (v: number | string) => string> = {
  int: (v) => Math.round(Number(v)).toLocaleString('en-US'),
  pct: (v) => `${(Number(v) * 100).toFixed(1)}%`,
  dec1: (v) => Number(v).toFixed(1),
  dec2: (v) => Number(v).toFixed(2),
  score: (v) => Number(v).toFixed(3),
  bytes: (v) => (Number(v) >= 1048576 ? `${(Number(v) / 1048576).toFixed(1)} MB` : Number(v) >= 1024 ? `${(Number(v) / 1024).toFixed(1)} KB` : `${v} B`),
  time: (v) => new Date(Number(v)).toISOString().slice(11, 19) + ' UTC',
  text: (v) => String(v),
};

interface Shown {
  updated: string;
  polls: number;
  fields: { field: string; format: string; text: string }[];
  tables: Record<string, string[][]>;
  chartPoints: number;
}

/** What the page shows, read in one go (the page's script cannot run in between). */
function shown(page: Page): Promise<Shown> {
  return page.evaluate<Shown>(`(() => ({
    updated: document.body.dataset.updated,
    polls: Number(document.body.dataset.polls),
    fields: [...document.querySelectorAll('[data-field]')].map((el) => ({ field: el.dataset.field, format: el.dataset.format || 'text', text: el.textContent })),
    tables: Object.fromEntries(['top-hosts', 'latest-relevant', 'errors-by-kind', 'warnings-by-kind'].map((id) =>
      [id, [...document.querySelectorAll('#' + id + ' tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent))])),
    chartPoints: Math.max(0, ...[...document.querySelectorAll('#chart-box svg .series')].map((s) => (s.getAttribute('points') || 'x').split(' ').length)),
  }))()`);
}

/**
 * Waits until `expr` is true in the page: polled with page.evaluate (the DevTools protocol's, which
 * the page's Content-Security-Policy does not cover; Playwright's waitForFunction evaluates strings
 * in the page, which that policy forbids, as it should).
 */
async function until(page: Page, expr: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await page.evaluate<boolean>(expr))) {
    if (Date.now() > end) throw new Error(`not true within ${timeoutMs} ms: ${expr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const pick = (s: StatusJson, path: string): unknown => path.split('.').reduce<unknown>((o, k) => (o == null ? o : (o as Record<string, unknown>)[k]), s);

/** Checks that the page shows exactly the answer `s` (the one it says it shows). */
function expectShows(v: Shown, s: StatusJson): void {
  expect(v.updated).toBe(String(s.now));
  expect(v.fields.length).toBeGreaterThan(12);
  for (const f of v.fields) {
    const value = pick(s, f.field);
    expect(f.text, f.field).toBe(value === null || value === undefined ? '—' : FORMAT[f.format](value as number | string));
  }
  expect(v.tables['top-hosts']).toEqual(s.topHosts.map((h) => [h.host, FORMAT.int(h.pages), FORMAT.int(h.relevant), FORMAT.int(h.errors)]));
  expect(v.tables['latest-relevant']).toEqual(s.latestRelevant.map((r) => [FORMAT.score(r.relevance), r.url]));
  expect(v.tables['errors-by-kind']).toEqual(s.errorsByKind.map((e) => [e.kind, FORMAT.int(e.count)]));
  expect(v.tables['warnings-by-kind']).toEqual(s.warningsByKind.map((e) => [e.kind, FORMAT.int(e.count)]));
}

describe('the live crawl page, in headless Chromium', () => {
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (haveChromium) browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  });
  afterAll(async () => {
    await browser?.close();
  });

  const title = haveChromium ? 'loads, updates, shows what status.json says, and loads nothing else' : `loads and updates (skipped: ${CHROMIUM} is missing; in CI this fails)`;
  it.skipIf(!haveChromium && !process.env.CI)(title, async () => {
    if (!haveChromium) throw new Error(`${CHROMIUM} is missing: CI must install Debian's chromium for the live page test`);
    const dir = tmpDir();
    const { seed } = writeMetricsCorpus(join(dir, 'corpus'), { hosts: 3, pages: 14, missing: 2 });
    const corpus = await startCorpusServer(join(dir, 'corpus'));
    // politeness makes the crawl last: each host's 19 pages take at least 18 delays
    const config = buildConfig({ name: 'live', seeds: [seed], keywords: { tobacco: 2, cigarette: 1 }, politeness: { delay_ms: 350, concurrency: 4 }, scope: { hosts: ['*.metrics.test'] } });
    const metrics = new CrawlMetrics({ topic: config.name, strategy: config.strategy.name, worker: null });
    const server = new MetricsServer(metrics);
    const addr = await server.listen('127.0.0.1', 0);
    const crawler = new Crawler({ config, dbPath: join(dir, 'l.db'), resolve: corpus.resolveMap(), mappedOnly: true, hooks: [metrics], timing: metrics });
    const unwatch = metrics.watch(crawler);
    const running = crawler.run();
    running.catch(() => undefined);
    const context = await browser!.newContext({ viewport: { width: 1100, height: 1400 } });
    const page = await context.newPage();
    try {
      const origin = addr.url.replace(/\/$/, '');
      const outside: string[] = [];
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      await page.route('**/*', (route) => {
        if (route.request().url().startsWith(`${origin}/`)) return route.continue();
        outside.push(route.request().url());
        return route.abort();
      });
      // every status.json the page gets, by its `now`
      const answers = new Map<string, StatusJson>();
      page.on('response', (r) => {
        if (r.url() === `${origin}/status.json`) void r.json().then((s: StatusJson) => answers.set(String(s.now), s), () => undefined);
      });
      const res = await page.goto(addr.url, { waitUntil: 'load' });
      expect(res!.headers()['content-security-policy']).toMatch(/^default-src 'none'; script-src 'sha256-/);
      expect(await page.title()).toBe('topicrawl live: live');

      await until(page, 'Number(document.body.dataset.polls) >= 1 && document.querySelectorAll("#top-hosts tbody tr").length > 0');
      const first = await shown(page);
      await expect.poll(() => answers.has(first.updated)).toBe(true);
      expectShows(first, answers.get(first.updated)!);
      const firstAnswer = answers.get(first.updated)!;
      expect(firstAnswer.state).toBe('running');

      // a later poll changes the numbers, and the page shows the new ones
      await until(page, `Number(document.body.dataset.polls) > ${first.polls} && document.querySelector('[data-field="pagesThisRun"]').textContent !== ${JSON.stringify(first.fields.find((f) => f.field === 'pagesThisRun')!.text)}`);
      const later = await shown(page);
      await expect.poll(() => answers.has(later.updated)).toBe(true);
      const laterAnswer = answers.get(later.updated)!;
      expectShows(later, laterAnswer);
      expect(laterAnswer.pagesThisRun).toBeGreaterThan(firstAnswer.pagesThisRun);
      expect(later.chartPoints).toBeGreaterThanOrEqual(2);
      const box = await page.locator('#chart-box svg').boundingBox();
      expect(box!.width).toBeGreaterThan(400);

      // the end of the crawl shows
      const summary: CrawlSummary = await running;
      await until(page, 'document.body.dataset.state === "ended"');
      const last = await shown(page);
      await expect.poll(() => answers.has(last.updated)).toBe(true);
      expectShows(last, answers.get(last.updated)!);
      expect(last.fields.find((f) => f.field === 'pages')!.text).toBe(FORMAT.int(summary.fetched));
      expect(last.tables['errors-by-kind']).toEqual([['E_HTTP 404', '6']]);

      expect(problems).toEqual([]); // no script error, no request the page's policy refused
      expect(outside).toEqual([]);

      // and the crawl gone, the page says it gets no answer
      await server.close();
      await until(page, 'document.body.classList.contains("offline")');
      expect(await page.evaluate<string>(`getComputedStyle(document.querySelector('.state'), '::after').content`)).toContain('no answer');
    } finally {
      await context.close();
      crawler.stop();
      await running.catch(() => undefined);
      unwatch();
      await crawler.close();
      await server.close();
      await corpus.close();
    }
  });
});
