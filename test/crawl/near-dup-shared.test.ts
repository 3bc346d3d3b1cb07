import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Crawler } from '../../src/crawl/crawler.js';
import { openSharedBackend } from '../../src/crawl/shared-backend.js';
import { startCorpusServer } from '../../src/eval/corpus-server.js';
import { crawlTotals, exportRows, type ExportRow } from '../../src/store/crawl-report.js';
import { openCrawl } from '../../src/store/segments.js';
import { buildConfig } from '../../src/topic/config.js';
import { NEWS, writeDedupCorpus } from '../helpers/dedup-corpus.js';
import { REDIS_URL, testCrawl } from '../helpers/redis.js';
import { suiteTmpDir, tmpDir } from '../helpers/tmp.js';

/**
 * Near-duplicates in a crawl shared over Redis (README): each worker finds the copies of pages it
 * fetched itself (its index is rebuilt from its own segment); a copy of a page another worker
 * fetched is not found. Workers in this process, one at a time, on a real Redis server.
 */
describe('near-duplicates on a shared frontier', () => {
  const corpus = join(suiteTmpDir(), 'corpus');
  const url = writeDedupCorpus(corpus);
  const config = buildConfig({
    name: 'dedup-shared', seeds: [NEWS], keywords: { telescope: 1, galaxy: 1 }, strategy: { name: 'breadth-first' },
    politeness: { delay_ms: 0, concurrency: 1, per_host_concurrency: 1, robots: false }, limits: { max_pages: 100 },
  });
  const group = () => [url.a1, url.a1print, url.a1copy, url.mirrorA1];

  async function work(crawlId: string, dbPath: string, stopAfter?: number): Promise<void> {
    const server = await startCorpusServer(corpus);
    try {
      const crawler = new Crawler({
        config, dbPath, resolve: server.resolveMap(), mappedOnly: true,
        backend: (s) => openSharedBackend(config, dbPath, { frontier: REDIS_URL, crawlId }, s),
      });
      let n = 0;
      if (stopAfter !== undefined) crawler.on('page', () => void (++n === stopAfter && crawler.stop()));
      try {
        await crawler.run();
      } finally {
        await crawler.close();
      }
    } finally {
      await server.close();
    }
  }
  const rowsOf = (paths: string[]): Map<string, ExportRow> => {
    const c = openCrawl(paths);
    try {
      return new Map([...exportRows(c.db)].map((r) => [r.url, r]));
    } finally {
      c.close();
    }
  };

  it('one worker finds the copies of the pages it fetched, from its segment, as one process does', async () => {
    const db = join(tmpDir(), 'w1.db');
    await work(testCrawl('dedup1').crawlId, db);
    const r = rowsOf([db]);
    expect(r.get(url.a1)?.duplicate_of).toBeNull();
    for (const k of ['a1print', 'a1copy', 'mirrorA1']) expect(r.get(url[k])?.duplicate_of, k).toBe(url.a1);
    const c = openCrawl([db]);
    try {
      expect(crawlTotals(c.db).duplicates).toEqual({ exact: 1, near: 2, relevant: expect.any(Number) });
    } finally {
      c.close();
    }
  }, 90_000);

  it('a worker does not see the pages of another worker\'s segment', async () => {
    const { crawlId } = testCrawl('dedup2');
    const dir = tmpDir();
    const a = join(dir, 'worker-a.db');
    const b = join(dir, 'worker-b.db');
    await work(crawlId, a, 2); // the seed and article 1's first page
    const first = [...rowsOf([a]).keys()][1];
    expect(group()).toContain(first);
    await work(crawlId, b); // the rest
    const inB = rowsOf([b]);
    expect(inB.has(first)).toBe(false);
    // in b's segment, the first of article 1's pages b fetched is an original: a's page is not in b's index
    const bGroup = [...inB.values()].filter((r) => group().includes(r.url));
    expect(bGroup).toHaveLength(3);
    expect(bGroup.filter((r) => r.duplicate_of === null)).toHaveLength(1);
    for (const r of bGroup) if (r.duplicate_of !== null) expect(group()).toContain(r.duplicate_of);
    // the merged view shows what each worker recorded
    const merged = rowsOf([a, b]);
    expect([...merged.values()].filter((r) => group().includes(r.url) && r.duplicate_of === null)).toHaveLength(2);
  }, 120_000);
});
