import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Crawler } from '../../src/crawl/crawler.js';
import { startCorpusServer } from '../../src/eval/corpus-server.js';
import { loadConfig } from '../../src/topic/config.js';
import { readRows, repoRoot } from '../helpers/crawl-corpus.js';
import { tmpDir } from '../helpers/tmp.js';

const ROUNDS = 100;
const PAGES = 4;

/**
 * The fault behind `tune`'s "fetched 0" trials: crawls run back to back into one path (as tune's
 * trials did), each starting the file over. A background checkpoint thread of the crawl before that
 * closed its connection late deleted the next crawl's WAL by name: a crawl that reported its pages
 * left a file without them (or without its tables). Every crawl's pages must be in its file.
 */
describe('crawls back to back into the same path', () => {
  it(`${ROUNDS} short crawls, each starting the file over: every one's pages are in the file`, async () => {
    const db = join(tmpDir(), 'same.db');
    const server = await startCorpusServer(join(repoRoot, 'corpora/tobacco-demo'));
    const config = loadConfig(join(repoRoot, 'topics/tobacco.yaml'), { set: ['politeness.delay_ms=0', 'politeness.concurrency=2', `limits.max_pages=${PAGES}`] });
    const bad: string[] = [];
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        const crawler = new Crawler({ config, dbPath: db, resolve: server.resolveMap(), mappedOnly: true, workers: 0, fresh: true, progressEveryMs: 60_000 });
        let fetched: number;
        try {
          ({ fetched } = await crawler.run());
        } finally {
          await crawler.close();
        }
        let rows: number;
        try {
          rows = readRows(db).length; // E_STORE if the file lost its tables
        } catch (err) {
          rows = -1;
          bad.push(`round ${round}: ${(err as Error).message}`);
        }
        if (fetched !== PAGES || rows !== PAGES) bad.push(`round ${round}: crawl reported ${fetched} pages, file holds ${rows}`);
      }
    } finally {
      await server.close();
    }
    expect(bad).toEqual([]);
  }, 300_000);
});
