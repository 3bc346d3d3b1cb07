import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadCorpus } from '../../src/eval/corpus.js';
import { labelHarvest } from '../../src/eval/label-harvest.js';
import { crawlTotals, pagesByLanguage, type ExportRow } from '../../src/store/crawl-report.js';
import { openDatabase } from '../../src/store/sqlite-store.js';
import type { TopicInput } from '../../src/topic/topic-schema.js';
import { crawlCorpus, readRows } from '../helpers/crawl-corpus.js';
import { crawlKilledAfter, runCliProcess } from '../helpers/cli-process.js';
import { COMMIT_EVERY_MS } from '../../src/store/sqlite-store.js';
import { runCli } from '../helpers/run-cli.js';
import { NEWS, writeDedupCorpus } from '../helpers/dedup-corpus.js';
import { suiteTmpDir, tmpDir } from '../helpers/tmp.js';

/**
 * Near-duplicates and languages in a real crawl (issue 14, parts 4 and 5): a loopback corpus with
 * planted copies (test/helpers/dedup-corpus.ts), breadth-first with one request in flight so that
 * the original of each article is fetched before its copies.
 */
describe('near-duplicates and languages in a crawl', () => {
  const corpus = join(suiteTmpDir(), 'corpus');
  const url = writeDedupCorpus(corpus);
  const topic = (extra: Partial<TopicInput> = {}): TopicInput => ({
    name: 'dedup', seeds: [NEWS], keywords: { telescope: 1, galaxy: 1, nebula: 1, comet: 1, 烟草: 1, 卷烟: 1, 烟叶: 1 },
    strategy: { name: 'breadth-first' }, relevance: { threshold: 0.2 },
    politeness: { delay_ms: 0, concurrency: 1, per_host_concurrency: 1, robots: false },
    limits: { max_pages: 100 }, evaluation: { label: 'news' }, ...extra,
  });
  const byUrl = (rows: ExportRow[]) => new Map(rows.map((r) => [r.url, r]));

  it('records each copy with the page it duplicates, follows a near-duplicate\'s links, and counts no copy in the harvest', async () => {
    const db = join(tmpDir(), 'c.db');
    const { rows, summary } = await crawlCorpus(corpus, topic(), db);
    const r = byUrl(rows);
    // originals and distinct articles: no duplicate
    for (const k of ['a1', 'a2', 'z1']) expect(r.get(url[k])?.duplicate_of, k).toBeNull();
    // the copies, each with its original and the SimHash distance
    expect(r.get(url.a1copy)).toMatchObject({ duplicate_of: url.a1, duplicate_distance: 0, duplicate: 'exact' });
    for (const k of ['a1print', 'mirrorA1']) {
      expect(r.get(url[k])?.duplicate, k).toBe('near');
      expect(r.get(url[k])?.duplicate_of, k).toBe(url.a1);
      expect(r.get(url[k])?.duplicate_distance, k).toBeLessThanOrEqual(3);
    }
    // one sentence of 30 changed moves the SimHash by more than the default 3 bits (see the next test)
    expect(r.get(url.mirrorZ1)?.duplicate_of).toBeNull();
    // the near-duplicate's own link was followed (dedup.follow_links defaults to true), the exact copy's were not
    expect(r.has(url.onlyFromCopy)).toBe(true);
    // the language of each page, stored and exported
    expect(r.get(url.a1)?.lang).toBe('en');
    expect(r.get(url.z1)?.lang).toBe('zh');
    expect(r.get(url.fr)?.lang).toBe('fr');
    expect(r.get(url.a1)?.simhash).toMatch(/^[0-9a-f]{16}$/);

    // the harvest counts relevant pages that duplicate nothing; the copies scored relevant too
    const copies = rows.filter((x) => x.duplicate_of !== null);
    expect(copies.length).toBe(3);
    expect(copies.every((x) => x.relevant)).toBe(true);
    const originals = rows.filter((x) => x.relevant && x.duplicate_of === null).length;
    const file = openDatabase(db, { readonly: true });
    try {
      const t = crawlTotals(file);
      expect(t.relevant).toBe(originals);
      expect(t.duplicates).toEqual({ exact: 1, near: 2, relevant: 3 });
      expect(summary.relevant).toBe(originals);
      expect(pagesByLanguage(file)).toMatchObject({ en: expect.any(Number), zh: 2, fr: 1 });
      // against the corpus labels: every page is labelled, only the originals count
      const labels = loadCorpus(corpus).labels;
      const labelled = (u: string) => labels.get(u)?.includes('news') ?? false;
      const h = labelHarvest(file, labels, 'news');
      expect(h.relevant).toBe(rows.filter((x) => labelled(x.url) && x.duplicate_of === null).length);
      expect(h.relevant).toBe(rows.filter((x) => labelled(x.url)).length - copies.length);
    } finally {
      file.close();
    }
  }, 60_000);

  it('dedup options: follow_links off, a larger max_distance, enabled off', async () => {
    const off = await crawlCorpus(corpus, topic({ dedup: { follow_links: false, max_distance: 8 } }), join(tmpDir(), 'c.db'));
    const r = byUrl(off.rows);
    expect(r.get(url.a1print)?.duplicate_of).toBe(url.a1);
    expect(r.has(url.onlyFromCopy)).toBe(false);
    // the Chinese copy with one sentence changed is within 8 bits of its original
    expect(r.get(url.mirrorZ1)?.duplicate_of).toBe(url.z1);
    expect(r.get(url.mirrorZ1)?.duplicate_distance).toBeGreaterThan(3);
    expect(r.get(url.mirrorZ1)?.duplicate_distance).toBeLessThanOrEqual(8);
    expect(r.get(url.a2)?.duplicate_of).toBeNull();

    const none = await crawlCorpus(corpus, topic({ dedup: { enabled: false } }), join(tmpDir(), 'd.db'));
    const n = byUrl(none.rows);
    expect(n.get(url.a1print)?.duplicate_of).toBeNull();
    expect(n.get(url.a1print)?.simhash).toBeNull();
    // exact duplicate content is still recorded as such
    expect(n.get(url.a1copy)).toMatchObject({ duplicate_of: url.a1, duplicate_distance: 0 });
  }, 60_000);

  it('keeps detecting after a restart: the index is rebuilt from the crawl file', async () => {
    const db = join(tmpDir(), 'c.db');
    const first = await crawlCorpus(corpus, topic({ limits: { max_pages: 2 } }), db); // the seed and a1
    expect(first.rows.map((x) => x.url)).toEqual([NEWS, url.a1]);
    const second = await crawlCorpus(corpus, topic(), db);
    expect(second.summary.resumed).toBe(true);
    const r = byUrl(second.rows);
    expect(r.get(url.a1print)?.duplicate_of).toBe(url.a1);
    expect(r.get(url.mirrorA1)?.duplicate_of).toBe(url.a1);
  }, 60_000);

  it('keeps detecting after kill -9 (the CLI, a real process), and stats and export show duplicates and languages', async () => {
    const dir = tmpDir();
    const db = join(dir, 'k.db');
    const topicFile = join(dir, 'topic.yaml');
    // between two requests to a host, 1 s more than a commit group (COMMIT_EVERY_MS): the crawl is
    // killed between a1 and its copies, once the first group, of 2 pages, is in the file
    const delay = COMMIT_EVERY_MS + 1000;
    writeFileSync(topicFile, stringify(topic({ politeness: { delay_ms: delay, concurrency: 1, per_host_concurrency: 1, robots: false } })));
    await crawlKilledAfter(['crawl', topicFile, '--corpus', corpus, '--db', db], db, 2);
    // article 1's four pages: the one fetched before the kill (the seed's host waits its delay, so
    // it is news.example's or mirror.example's copy) is the original of the three fetched after it
    const group = [url.a1, url.a1print, url.a1copy, url.mirrorA1];
    const before = readRows(db);
    expect(before).toHaveLength(2);
    const first = before[1].url;
    expect(group).toContain(first);
    const again = await runCliProcess(['crawl', topicFile, '--corpus', corpus, '--db', db, '--json', '--set', 'politeness.delay_ms=0']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ resumed: true });
    const r = byUrl(readRows(db));
    expect(r.get(first)?.duplicate_of).toBeNull();
    for (const u of group.filter((g) => g !== first)) expect(group, u).toContain(r.get(u)?.duplicate_of);

    const stats = await runCli(['stats', db]);
    expect(stats.code).toBe(0);
    expect(stats.stdout).toMatch(/^duplicates +3 \(1 exact, 2 near-duplicates\); 3 of them scored relevant, not counted in the harvest$/m);
    expect(stats.stdout).toMatch(/^languages +en \d+, und \d+, zh 2, fr 1 \(pages fetched with a 2xx answer; und: not told\)$/m);
    const json = JSON.parse((await runCli(['stats', db, '--json'])).stdout) as { totals: { duplicates: unknown }; languages: Record<string, number> };
    expect(json.totals.duplicates).toEqual({ exact: 1, near: 2, relevant: 3 });
    expect(json.languages).toMatchObject({ zh: 2, fr: 1 });
    const lines = (await runCli(['export', db, '--format', 'jsonl'])).stdout.trim().split('\n').map((l) => JSON.parse(l) as ExportRow);
    expect(lines.find((l) => l.url === url.a1print)).toMatchObject({ duplicate_of: r.get(url.a1print)!.duplicate_of, duplicate: 'near', lang: 'en' });
    expect(lines.find((l) => l.url === url.a1copy)?.duplicate).toBe(r.get(url.a1copy)?.duplicate_of === url.a1 ? 'exact' : 'near');
  }, 90_000);

  it('scope.languages: a page in another language counts in no harvest and its links are not followed', async () => {
    const { rows } = await crawlCorpus(corpus, topic({ scope: { languages: ['zh', 'en'] } }), join(tmpDir(), 'c.db'));
    const r = byUrl(rows);
    const fr = r.get(url.fr)!;
    expect(fr.lang).toBe('fr');
    expect(fr.relevance).toBeGreaterThanOrEqual(0.2); // its keywords scored
    expect(fr.relevant).toBe(false);
    expect(r.has(url.fromFr)).toBe(false);
    expect(r.get(url.a1)?.relevant).toBe(true);
    // without the list the same page is relevant and its link is followed
    const all = byUrl((await crawlCorpus(corpus, topic(), join(tmpDir(), 'd.db'))).rows);
    expect(all.get(url.fr)?.relevant).toBe(true);
    expect(all.has(url.fromFr)).toBe(true);
  }, 60_000);
});
