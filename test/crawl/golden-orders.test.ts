import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TopicInput } from '../../src/topic/topic-schema.js';
import { crawlCorpus, repoRoot } from '../helpers/crawl-corpus.js';
import { readTobaccoFixture, writeFixtureCorpus } from '../helpers/fixture-corpus.js';
import { suiteTmpDir, tmpDir } from '../helpers/tmp.js';

/**
 * The golden orders of seed 001's tobacco graph (test/fixtures/tobacco-graph.json), reproduced
 * through the real crawl loop: corpus server on loopback, undici fetcher, parse5, SQLite frontier.
 * One request at a time and no politeness delay, so the order is the strategy's alone.
 */
const fx = readTobaccoFixture();
const idByUrl = new Map(fx.pages.map((p) => [p.url, p.id]));

function topic(strategy: string, extra: Partial<TopicInput> = {}): TopicInput {
  return {
    name: 'tobacco-golden',
    seeds: [fx.pages.find((p) => p.id === fx.seed)!.url],
    keywords: { 烟草: 1 },
    strategy: { name: strategy, x: 0.05, y: 0.15, z: 0.8, max_life: 3 },
    // the seed ranks the depth-2 sites 标准化 > 在线 > 科教 > 培训 > 新烟草; these URL tokens say so
    location: { tokens: { standards: 2, online: 1.5, science: 1, training: 0.5, leaf: 0.5, ecommerce: -1 }, tld: {}, segment_penalty: 0.1 },
    politeness: { delay_ms: 0, concurrency: 1, per_host_concurrency: 1, robots: true },
    limits: { max_pages: 100 },
    ...extra,
  };
}

async function order(corpusDir: string, strategy: string, extra: Partial<TopicInput> = {}): Promise<string[]> {
  const dir = tmpDir();
  const { rows } = await crawlCorpus(corpusDir, topic(strategy, extra), join(dir, 'crawl.db'));
  return rows.map((r) => idByUrl.get(r.url) ?? r.url);
}

describe('golden orders of the tobacco graph through the crawl loop', () => {
  const corpus = suiteTmpDir();
  writeFixtureCorpus(corpus, fx);

  for (const strategy of ['breadth-first', 'depth-first', 'best-first']) {
    it(`${strategy} fetches in the seed's order`, async () => {
      expect(await order(corpus, strategy)).toEqual(fx.expected[strategy].order);
    });
  }

  it('the bundled tobacco-demo corpus gives the same orders when the crawl keeps to home pages', async () => {
    const demo = join(repoRoot, 'corpora/tobacco-demo');
    const homeOnly = { scope: { hosts: [], include: ['^http://[^/]+/$'], exclude: [] } };
    for (const strategy of ['breadth-first', 'depth-first', 'best-first']) {
      expect(await order(demo, strategy, homeOnly)).toEqual(fx.expected[strategy].order);
    }
  });
});
