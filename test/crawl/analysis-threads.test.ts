import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { defaultAnalysisThreads } from '../../src/crawl/analyzer-pool.js';
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
    const summary = JSON.parse(r.stdout) as { fetched: number; relevant: number; analysisThreads: number };
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
  }, 240_000);

  it('a count that is not a whole number from 0 to 64 is a usage error', async () => {
    for (const bad of ['-1', '1.5', '65', 'many']) {
      const r = await runCli(['crawl', topic, '--corpus', corpus, '--db', join(dir, 'bad.db'), '--analysis-threads', bad]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain('--analysis-threads');
    }
  });
});
