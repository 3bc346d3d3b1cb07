import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { startCorpusServer } from '../../src/eval/corpus-server.js';
import { generateSynthCorpus } from '../../src/eval/synth-corpus.js';
import type { ExportRow } from '../../src/store/crawl-report.js';
import type { TopicInput } from '../../src/topic/topic-schema.js';
import { crawlCorpus, readRows } from '../helpers/crawl-corpus.js';
import { crawlKilledAfter } from '../helpers/cli-process.js';
import { COMMIT_EVERY_MS } from '../../src/store/sqlite-store.js';
import { resolveArgs, startSlowProxy } from '../helpers/slow-proxy.js';
import { runCli } from '../helpers/run-cli.js';
import { suiteTmpDir, tmpDir } from '../helpers/tmp.js';

/**
 * A resumed crawl prices URLs as an uninterrupted one does: the directory yield factor (learnt from
 * the pages recorded in each directory) is rebuilt from the crawl file, so every page is fetched
 * at the priority it had in one run, factor included.
 */
const corpus = suiteTmpDir();
generateSynthCorpus(corpus, { seed: 7, pages: 600, hosts: 12 });
const meta = JSON.parse(readFileSync(join(corpus, 'corpus.json'), 'utf8')) as { seeds: string[] };
const BUDGET = 240;

function topic(feedback = 3, maxPages = BUDGET): TopicInput {
  return {
    name: 'resume-priorities',
    seeds: meta.seeds,
    keywords: { astronomy: 1, telescope: 1, galaxy: 1, star: 0.5, planet: 0.5 },
    strategy: { name: 'best-first-fish', x: 0.3, y: 0.3, z: 0.4, max_life: 3, feedback },
    politeness: { delay_ms: 0, concurrency: 1, per_host_concurrency: 1, robots: true },
    limits: { max_pages: maxPages },
  };
}

const fetchPriorities = (rows: ExportRow[]) => rows.map((r) => [r.url, r.priority] as const);

describe('resume and the directory yield factor', () => {
  const base = suiteTmpDir();
  let whole: ExportRow[] = [];
  beforeAll(async () => {
    whole = (await crawlCorpus(corpus, topic(), join(base, 'whole.db'))).rows;
  });

  it('an uninterrupted crawl fetches many pages at a priority the yield factor lowered', async () => {
    const raw = new Map((await crawlCorpus(corpus, topic(0), join(tmpDir(), 'raw.db'))).rows.map((r) => [r.url, r.priority]));
    expect(whole).toHaveLength(BUDGET);
    // without the factor (feedback 0) the same URLs have their raw I(p): higher for many of them
    const lowered = whole.filter((r) => raw.has(r.url) && r.priority < raw.get(r.url)! - 1e-9);
    expect(lowered.length).toBeGreaterThan(BUDGET / 5);
  });

  it('stopped at its page budget, then resumed with a larger one: the same pages at the same priorities', async () => {
    const db = join(tmpDir(), 'resumed.db');
    const first = await crawlCorpus(corpus, topic(3, 90), db);
    expect(first.summary.reason).toBe('max-pages');
    const second = await crawlCorpus(corpus, topic(), db);
    expect(second.summary.resumed).toBe(true);
    expect(fetchPriorities(second.rows)).toEqual(fetchPriorities(whole));
  });

  it('stopped by a signal, then resumed: the same pages at the same priorities', async () => {
    const db = join(tmpDir(), 'signal.db');
    await crawlCorpus(corpus, topic(), db, { stopAfter: 133 });
    const second = await crawlCorpus(corpus, topic(), db);
    expect(fetchPriorities(second.rows)).toEqual(fetchPriorities(whole));
  });

  it('killed (kill -9), then resumed: every page at the priority an uninterrupted crawl fetched it with', async () => {
    const dir = tmpDir();
    const topicFile = join(dir, 'topic.yaml');
    writeFileSync(topicFile, stringify(topic()));
    const server = await startCorpusServer(corpus);
    // the 240 pages take twice as long as a commit group (COMMIT_EVERY_MS), so the kill comes
    // mid-crawl however fast the machine (one request at a time: the order is the same)
    const proxy = await startSlowProxy(server.port, Math.ceil((2 * COMMIT_EVERY_MS) / BUDGET));
    const db = join(dir, 'killed.db');
    try {
      const args = ['crawl', topicFile, '--db', db, ...resolveArgs(server.resolveMap()), '--json'];
      const killArgs = ['crawl', topicFile, '--db', db, ...resolveArgs(server.resolveMap(), proxy.address), '--json'];
      await crawlKilledAfter(killArgs, db, 70);
      expect(readRows(db).length).toBeLessThan(BUDGET);
      const again = await runCli(args);
      expect(again.code, again.stderr).toBe(0);
    } finally {
      await proxy.close();
      await server.close();
    }
    const byUrl = new Map(whole.map((r) => [r.url, r.priority]));
    const resumed = readRows(db);
    expect(resumed).toHaveLength(BUDGET);
    expect(resumed.map((r) => [r.url, r.priority])).toEqual(resumed.map((r) => [r.url, byUrl.get(r.url)]));
  });
});
