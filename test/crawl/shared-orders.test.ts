import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Crawler } from '../../src/crawl/crawler.js';
import { NOT_SHARED, openSharedBackend } from '../../src/crawl/shared-backend.js';
import { startCorpusServer } from '../../src/eval/corpus-server.js';
import { openCrawl } from '../../src/store/segments.js';
import { exportRows } from '../../src/store/crawl-report.js';
import { buildConfig } from '../../src/topic/config.js';
import { generateSynthCorpus } from '../../src/eval/synth-corpus.js';
import { readFileSync } from 'node:fs';
import { REDIS_URL, testCrawl } from '../helpers/redis.js';
import { suiteTmpDir, tmpDir } from '../helpers/tmp.js';

/** One worker on the shared Redis frontier fetches in the embedded frontier's order (issue 13). */
describe('one worker on Redis, one process on SQLite: the same order', () => {
  const corpus = join(suiteTmpDir(), 'corpus');
  generateSynthCorpus(corpus, { seed: 21, pages: 400, hosts: 12 });
  const seeds = (JSON.parse(readFileSync(join(corpus, 'corpus.json'), 'utf8')) as { seeds: string[] }).seeds;

  async function order(strategy: string, shared: string | null): Promise<string[]> {
    const server = await startCorpusServer(corpus);
    const dbPath = join(tmpDir(), `${strategy}.db`);
    const config = buildConfig({
      name: 'orders', seeds, keywords: { astronomy: 1 }, strategy: { name: strategy },
      politeness: { delay_ms: 0, concurrency: 1, per_host_concurrency: 1, robots: false }, limits: { max_pages: 150 },
    });
    try {
      const crawler = new Crawler({
        config, dbPath, resolve: server.resolveMap(), mappedOnly: true, workers: 0,
        backend: shared ? (s) => openSharedBackend(config, dbPath, { frontier: REDIS_URL, crawlId: shared }, s) : undefined,
      });
      try {
        expect((await crawler.run()).fetched).toBe(150);
      } finally {
        await crawler.close();
      }
    } finally {
      await server.close();
    }
    const c = openCrawl([dbPath]);
    try {
      return [...exportRows(c.db)].map((r) => r.url);
    } finally {
      c.close();
    }
  }

  for (const strategy of ['breadth-first', 'depth-first', 'best-first', 'fish', 'best-first-fish', 'shark']) {
    it(`${strategy}`, async () => {
      const embedded = await order(strategy, null);
      const redis = await order(strategy, testCrawl(strategy).crawlId);
      expect(redis).toEqual(embedded);
    }, 120_000);
  }

  for (const strategy of Object.keys(NOT_SHARED)) {
    it(`${strategy} is refused by name`, async () => {
      const config = buildConfig({ name: 'orders', seeds, keywords: { astronomy: 1 }, strategy: { name: strategy } });
      const p = openSharedBackend(config, join(tmpDir(), 'x.db'), { frontier: REDIS_URL, crawlId: testCrawl('refused').crawlId });
      await expect(p).rejects.toMatchObject({ code: 'E_CONFIG', message: expect.stringContaining(`strategy '${strategy}'`) });
    });
  }
});
