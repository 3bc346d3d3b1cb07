import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { generateSynthCorpus } from '../../src/eval/synth-corpus.js';
import type { CrawlTotals } from '../../src/store/crawl-report.js';
import type { TopicInput } from '../../src/topic/topic-schema.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * The end-of-crawl summary and `topicrawl stats` show the same figures for the same file: pages
 * fetched, relevant, harvest, errors, bytes, queued, pruned and known URLs, after a first crawl and
 * after a resumed one.
 */
describe('crawl summary and stats', () => {
  it('agree on the same crawl file, fresh and resumed', async () => {
    const dir = tmpDir();
    const corpus = join(dir, 'corpus');
    generateSynthCorpus(corpus, { seed: 5, pages: 500, hosts: 12 });
    const meta = JSON.parse(readFileSync(join(corpus, 'corpus.json'), 'utf8')) as { seeds: string[] };
    const topic: TopicInput = {
      name: 'summary-stats',
      // a seed on a host the corpus does not have: a page without a response (E_DNS), an error
      seeds: [...meta.seeds, 'http://www.nowhere.test/'],
      keywords: { astronomy: 2 },
      // a short life prunes many links, and a relevant page revives some of them
      strategy: { name: 'best-first-fish', max_life: 2 },
      politeness: { delay_ms: 0, concurrency: 4, robots: false },
      fetch: { max_retries: 0 },
      evaluation: { label: 'astronomy' },
    };
    const topicFile = join(dir, 'topic.yaml');
    writeFileSync(topicFile, stringify(topic));
    const db = join(dir, 'c.db');

    for (const [budget, resumed] of [[60, false], [140, true]] as const) {
      const crawl = await runCli(['crawl', topicFile, '--corpus', corpus, '--db', db, '--max-pages', String(budget), '--json']);
      expect(crawl.code, crawl.stderr).toBe(0);
      const s = JSON.parse(crawl.stdout) as Record<string, number | boolean>;
      expect(s.resumed).toBe(resumed);
      const stats = await runCli(['stats', db, '--json']);
      expect(stats.code, stats.stderr).toBe(0);
      const t = (JSON.parse(stats.stdout) as { totals: CrawlTotals }).totals;
      expect({
        fetched: s.fetched, relevant: s.relevant, harvest: s.harvest, errors: s.errors, bytes: s.bytes, queued: s.frontier, pruned: s.pruned, known: s.known,
      }).toEqual({
        fetched: t.fetched, relevant: t.relevant, harvest: t.harvest, errors: t.errors, bytes: t.bytes, queued: t.queued, pruned: t.pruned, known: t.known,
      });
      expect(t.fetched).toBe(budget);
      // the figures compared are not trivially zero
      expect(t.pruned).toBeGreaterThan(0);
      expect(t.failed).toBeGreaterThan(0);
      expect(t.errors).toBeGreaterThanOrEqual(t.failed);
      expect(t.known).toBeGreaterThan(t.fetched + t.queued);
      // the text summary prints the same numbers as stats' text
      const text = await runCli(['stats', db]);
      expect(text.stdout).toMatch(new RegExp(`pages fetched\\s+${t.fetched} `));
      expect(text.stdout).toMatch(new RegExp(`${t.queued} queued, ${t.pruned} pruned by Fish life`));
    }
  });
});
