import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { startCorpusServer, type CorpusRequestRecord } from '../../src/eval/corpus-server.js';
import { generateSynthCorpus } from '../../src/eval/synth-corpus.js';
import type { TopicInput } from '../../src/topic/topic-schema.js';
import { crawlCorpus, readRows } from '../helpers/crawl-corpus.js';
import { crawlKilledAfter } from '../helpers/cli-process.js';
import { resolveArgs, startSlowProxy } from '../helpers/slow-proxy.js';
import { runCli } from '../helpers/run-cli.js';
import { COMMIT_EVERY_MS, COMMIT_EVERY_PAGES } from '../../src/store/sqlite-store.js';
import { suiteTmpDir, tmpDir } from '../helpers/tmp.js';

/**
 * Resume: a crawl stopped (gracefully, or by kill -9) and started again on the same file ends
 * with exactly the pages an uninterrupted crawl fetches, none recorded twice.
 */
const corpus = suiteTmpDir();
generateSynthCorpus(corpus, { seed: 7, pages: 600, hosts: 12 });
const meta = JSON.parse(readFileSync(join(corpus, 'corpus.json'), 'utf8')) as { seeds: string[] };

const topic: TopicInput = {
  name: 'resume-test',
  seeds: meta.seeds,
  keywords: { astronomy: 1, telescope: 1, galaxy: 1, star: 0.5, planet: 0.5 },
  strategy: { name: 'best-first-fish', x: 0.3, y: 0.3, z: 0.4, max_life: 3 },
  politeness: { delay_ms: 0, concurrency: 1, per_host_concurrency: 1, robots: true },
  limits: { max_pages: 400 },
};

function fetchedUrls(dbPath: string): string[] {
  return readRows(dbPath).map((r) => r.url);
}

describe('resume', () => {
  it('graceful stop after N pages, then resume: same pages as an uninterrupted crawl, none twice', async () => {
    const dir = tmpDir();
    const whole = await crawlCorpus(corpus, topic, join(dir, 'whole.db'));
    expect(whole.summary.fetched).toBe(400);

    const db = join(dir, 'resumed.db');
    const first = await crawlCorpus(corpus, topic, db, { stopAfter: 57 });
    expect(first.summary.reason).toBe('signal');
    expect(first.summary.fetched).toBeGreaterThanOrEqual(57);
    expect(first.summary.fetched).toBeLessThan(400);
    const second = await crawlCorpus(corpus, topic, db);
    expect(second.summary.resumed).toBe(true);

    const urls = fetchedUrls(db);
    expect(new Set(urls).size).toBe(urls.length);
    expect(urls).toEqual(fetchedUrls(join(dir, 'whole.db')));
    // and on the wire: every page requested once in all (graceful stop lets requests finish)
    const pages = [...first.requests, ...second.requests].filter((r) => r.path !== '/robots.txt').map((r) => `http://${r.host}${r.path}`);
    expect(new Set(pages).size).toBe(pages.length);
  });

  it('kill -9 mid-crawl, then the same command again: nothing lost, nothing recorded twice', async () => {
    const dir = tmpDir();
    const topicFile = join(dir, 'topic.yaml');
    writeFileSync(topicFile, stringify(topic));
    const requests: CorpusRequestRecord[] = [];
    const server = await startCorpusServer(corpus, { onRequest: (r) => requests.push(r) });
    // the 400 pages take twice as long as a commit group (COMMIT_EVERY_MS), so the kill comes
    // mid-crawl however fast the machine (one request at a time: the order is the same)
    const msPerResponse = Math.ceil((2 * COMMIT_EVERY_MS) / 400);
    const proxy = await startSlowProxy(server.port, msPerResponse);
    try {
      const db = join(dir, 'killed.db');
      const args = ['crawl', topicFile, '--db', db, ...resolveArgs(server.resolveMap()), '--json'];
      const killArgs = ['crawl', topicFile, '--db', db, ...resolveArgs(server.resolveMap(), proxy.address), '--json'];
      const killedAt = await crawlKilledAfter(killArgs, db, 40);
      expect(killedAt).toBeLessThan(400);
      const before = fetchedUrls(db).length;
      expect(before).toBeLessThan(400);

      const again = await runCli(args);
      expect(again.code).toBe(0);
      const summary = JSON.parse(again.stdout) as { resumed: boolean; fetched: number };
      expect(summary.resumed).toBe(true);
      expect(summary.fetched).toBe(400);

      const urls = fetchedUrls(db);
      expect(new Set(urls).size).toBe(urls.length);
      const whole = await crawlCorpus(corpus, topic, join(dir, 'whole.db'));
      expect(new Set(urls)).toEqual(new Set(whole.rows.map((r) => r.url)));
      // on the wire, only pages of the last commit group (fetched one at a time within COMMIT_EVERY_MS,
      // each at least msPerResponse) and the request in flight at the kill can have been requested again
      const pages = requests.filter((r) => r.path !== '/robots.txt').map((r) => `http://${r.host}${r.path}`);
      expect(pages.length - new Set(pages).size).toBeLessThanOrEqual(Math.min(COMMIT_EVERY_PAGES, Math.ceil(COMMIT_EVERY_MS / msPerResponse)) + 1);
    } finally {
      await proxy.close();
      await server.close();
    }
  });
});
