import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { AnalyzerPool, defaultAnalysisThreads } from '../../src/crawl/analyzer-pool.js';
import type { AnalysisConfig } from '../../src/crawl/page-analysis.js';
import type { PipelineSummary } from '../../src/crawl/pipeline-meter.js';
import { repoRoot } from '../helpers/crawl-corpus.js';
import { runCli } from '../helpers/run-cli.js';
import { suiteTmpDir } from '../helpers/tmp.js';

/**
 * How many threads analyse the pages (`crawl --analysis-threads N`): by default one per core beyond
 * the crawl's own thread, shared among --workers processes, 1 to 4; any number from 0 (the crawl's
 * own thread) gives the same crawl.
 */
describe('analysis threads', () => {
  const dir = suiteTmpDir();
  const topic = join(repoRoot, 'topics/tobacco.yaml');
  const corpus = join(repoRoot, 'corpora/tobacco-demo');

  it('default: a core for the crawl\'s thread, the rest for analysis, shared among processes, 1 to 4', () => {
    const table: [cores: number, processes: number, threads: number][] = [
      [1, 1, 1], [2, 1, 1], [3, 1, 2], [4, 1, 3], [5, 1, 4], [16, 1, 4],
      [2, 2, 1], [4, 2, 1], [8, 2, 3], [8, 3, 1], [64, 4, 4],
    ];
    for (const [cores, processes, threads] of table) expect([cores, processes, defaultAnalysisThreads(cores, processes)]).toEqual([cores, processes, threads]);
    expect(defaultAnalysisThreads()).toBe(defaultAnalysisThreads(availableParallelism(), 1));
  });

  /** One page at a time, so the order cannot depend on which thread answers first. */
  const crawl = async (name: string, flags: string[]) => {
    const db = join(dir, `${name}.db`);
    const r = await runCli(['crawl', topic, '--corpus', corpus, '--db', db, '--json', '--max-pages', '25',
      '--set', 'politeness.delay_ms=0', '--set', 'politeness.concurrency=1', ...flags], { timeoutMs: 120_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout) as { fetched: number; relevant: number; analysisThreads: number; pipeline: PipelineSummary };
    const store = new Database(db, { readonly: true });
    try {
      const pages = store.prepare('SELECT url, urls.status, relevance, relevant, lang, hex(simhash) AS simhash, title FROM urls JOIN responses ON responses.url_id = urls.id ORDER BY fetch_seq').all();
      return { summary, pages };
    } finally {
      store.close();
    }
  };

  it('--analysis-threads 0, 1 and 3 crawl the same pages in the same order with the same analyses; the summary says how many ran', async () => {
    const inline = await crawl('inline', ['--analysis-threads', '0']);
    const one = await crawl('one', ['--analysis-threads', '1']);
    const three = await crawl('three', ['--analysis-threads', '3']);
    const byDefault = await crawl('default', []);
    expect(inline.summary.fetched).toBe(25);
    expect(inline.pages).toHaveLength(25);
    expect([inline.summary.analysisThreads, one.summary.analysisThreads, three.summary.analysisThreads]).toEqual([0, 1, 3]);
    expect(byDefault.summary.analysisThreads).toBe(defaultAnalysisThreads());
    for (const other of [one, three, byDefault]) {
      expect(other.pages).toEqual(inline.pages);
      expect(other.summary.relevant).toBe(inline.summary.relevant);
    }
    // the pipeline's figures: one page at a time, some of it fetching and some at analysis; the
    // analysis threads' busy share only where there are threads
    for (const { summary } of [inline, one, three, byDefault]) {
      const p = summary.pipeline;
      expect(p.concurrency).toBe(1);
      expect(p.meanInFlight).toBeGreaterThan(0);
      expect(p.meanInFlight).toBeLessThanOrEqual(1);
      expect(p.meanFetching).toBeGreaterThan(0);
      expect(p.meanAnalysing).toBeGreaterThan(0);
      expect(p.meanFetching + p.meanAnalysing).toBeLessThanOrEqual(p.meanInFlight + 1e-9);
      expect(p.idleSlots.order + p.idleSlots.politeness + p.idleSlots.other).toBeLessThanOrEqual(1 - p.meanInFlight + 1e-9);
      expect(p.crawlThreadBusy).toBeGreaterThan(0);
      expect(p.crawlThreadBusy).toBeLessThanOrEqual(1);
    }
    expect(inline.summary.pipeline.analysisThreadsBusy).toBeNull();
    expect(inline.summary.pipeline.analysisWaits).toBeNull();
    for (const { summary } of [one, three]) {
      expect(summary.pipeline.analysisThreadsBusy).toBeGreaterThan(0);
      expect(summary.pipeline.analysisThreadsBusy).toBeLessThanOrEqual(1);
      // where a page's time at analysis went: each part measured, the analysis itself never nothing
      const w = summary.pipeline.analysisWaits!;
      expect(w).not.toBeNull();
      for (const ms of [w.queuedMs, w.analysingMs, w.returningMs]) {
        expect(ms).toBeGreaterThanOrEqual(0);
        expect(ms).toBeLessThan(10_000);
      }
      expect(w.analysingMs).toBeGreaterThan(0);
    }
  }, 240_000);

  it('the summary for a terminal says how full the pipeline was and how busy the threads', async () => {
    const r = await runCli(['crawl', topic, '--corpus', corpus, '--db', join(dir, 'text.db'), '--max-pages', '20',
      '--set', 'politeness.delay_ms=0', '--set', 'politeness.concurrency=4', '--analysis-threads', '1'], { timeoutMs: 120_000 });
    expect(r.code).toBe(0);
    const m = /\n  pipeline +(\d+\.\d) of 4 pages in flight on average \((\d+\.\d) fetching, (\d+\.\d) at analysis\); empty slots: (\d+\.\d) held for best-first order, (\d+\.\d) for politeness, (\d+\.\d) nothing to fetch; busy: crawl thread (\d+)%, analysis threads (\d+)%; a page at analysis: (\d+\.\d) ms queued, (\d+\.\d) ms analysed, (\d+\.\d) ms back to the crawl thread\n/.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    const [inFlight, fetching, analysing, order, politeness, other] = m!.slice(1, 7).map(Number);
    expect(inFlight).toBeGreaterThan(0);
    expect(inFlight).toBeLessThanOrEqual(4);
    // (each figure rounded to a tenth)
    expect(fetching + analysing).toBeLessThanOrEqual(inFlight + 0.1);
    expect(order + politeness + other).toBeLessThanOrEqual(4 - inFlight + 0.2);
    expect(Number(m![8])).toBeGreaterThan(0);
    expect(Number(m![10])).toBeGreaterThan(0); // a page's analysis took some time (rounded to a tenth of a ms)
  }, 120_000);

  it('the pool times each page analysed on its threads: queued, analysed, back; none when it analyses inline', async () => {
    const cfg: AnalysisConfig = {
      keywords: { galaxy: 1 }, fields: { title: 3, headings: 2, anchor: 2, body: 1 }, scope: { hosts: [], include: [], exclude: [] },
      scopeOptions: { maxUrlLength: 2048, excludeTraps: true, maxRepeatedSegments: 3 }, normalize: { stripParams: [], keepDefaultStripList: true, sortQuery: true },
      followCanonical: true, simhash: { words: 3, cjk: 3, minLineWords: 20 }, language: true,
    } as AnalysisConfig;
    const body = new TextEncoder().encode(`<p>${'The telescope sees a distant galaxy tonight. '.repeat(400)}</p>`);
    const page = (i: number) => ({ url: `http://a.example/${i}`, host: 'a.example', body, contentType: 'text/html', html: true, anchors: [] });
    const pool = new AnalyzerPool(cfg, 1);
    try {
      expect(pool.waits()).toEqual({ pages: 0, queuedMs: 0, analysingMs: 0, returningMs: 0 });
      // handed over together: the later pages wait in the thread's queue while the first ones are analysed
      await Promise.all(Array.from({ length: 8 }, (_, i) => pool.analyze(page(i))));
      const w = pool.waits()!;
      expect(w.pages).toBe(8);
      expect(w.analysingMs).toBeGreaterThan(0);
      expect(w.queuedMs).toBeGreaterThan(w.analysingMs / 8); // 7 of the 8 waited for at least one analysis
      expect(w.returningMs).toBeGreaterThanOrEqual(0);
      // a copy: the caller cannot change the totals
      w.pages = 0;
      expect(pool.waits()!.pages).toBe(8);
    } finally {
      await pool.close();
    }
    const inline = new AnalyzerPool(cfg, 0);
    await inline.analyze(page(0));
    expect(inline.waits()).toBeNull();
    await inline.close();
  }, 120_000);

  it('a count that is not a whole number from 0 to 64 is a usage error', async () => {
    for (const bad of ['-1', '1.5', '65', 'many']) {
      const r = await runCli(['crawl', topic, '--corpus', corpus, '--db', join(dir, 'bad.db'), '--analysis-threads', bad]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain('--analysis-threads');
    }
  });
});
