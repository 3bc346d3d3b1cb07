import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadCorpus } from '../../src/eval/corpus.js';
import { decompressBody, openDatabase } from '../../src/store/sqlite-store.js';
import type { TopicInput } from '../../src/topic/topic-schema.js';
import { crawlCorpus, repoRoot } from '../helpers/crawl-corpus.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpDir } from '../helpers/tmp.js';

/** The bundled corpus crawled through a real loopback server into a real SQLite file. */
const corpusDir = join(repoRoot, 'corpora/tobacco-demo');
const corpus = loadCorpus(corpusDir);
const tobacco = parse(readFileSync(join(repoRoot, 'topics/tobacco.yaml'), 'utf8')) as TopicInput;
const fast = (over: Partial<TopicInput> = {}): TopicInput => ({
  ...tobacco,
  politeness: { ...tobacco.politeness, delay_ms: 0, concurrency: 4 },
  ...over,
});

describe('crawl of corpora/tobacco-demo', () => {
  it('stores responses, links with anchors, hosts and metrics, and honours robots.txt', async () => {
    const db = join(tmpDir(), 'demo.db');
    const { summary, rows, requests } = await crawlCorpus(corpusDir, fast(), db);
    expect(summary.reason).toBe('done');
    // every page of the corpus is reachable from the seed; robots.txt keeps two out
    const pages = [...corpus.labels.keys()];
    const disallowed = pages.filter((u) => /\/(cart|members)\//.test(u));
    expect(disallowed.length).toBeGreaterThan(0);
    expect(new Set(rows.map((r) => r.url))).toEqual(new Set(pages.filter((u) => !disallowed.includes(u))));
    expect(requests.filter((r) => disallowed.includes(`http://${r.host}${r.path}`))).toEqual([]);
    expect(rows.every((r) => r.status === 200 && r.relevance !== null)).toBe(true);

    const conn = openDatabase(db, { readonly: true });
    try {
      // raw bodies are stored compressed and come back byte for byte
      const r = conn.prepare(`SELECT u.url, r.body, r.body_codec, r.body_bytes FROM urls u JOIN responses r ON r.url_id = u.id WHERE u.depth = 0`).get() as {
        url: string; body: Buffer; body_codec: string; body_bytes: number;
      };
      const host = new URL(r.url).host;
      const original = readFileSync(join(corpusDir, 'site', host, 'index.html'));
      expect(decompressBody(r.body, r.body_codec).equals(original)).toBe(true);
      expect(r.body.length).toBeLessThan(r.body_bytes);
      // links keep their anchor text
      const anchors = conn.prepare(`SELECT l.anchor FROM links l JOIN urls u ON u.id = l.to_id WHERE u.url = 'http://www.tobacco-society.example/'`).all() as { anchor: string }[];
      expect(anchors.map((a) => a.anchor).join(' ')).toMatch(/烟草学会|煙草學會/);
      // /members/ is disallowed by robots.txt (recorded, never fetched); /cart/ is out of the topic's scope
      const skipped = conn.prepare(`SELECT url FROM urls WHERE state = 5 AND error = 'E_ROBOTS'`).all() as { url: string }[];
      expect(skipped.map((x) => x.url)).toEqual(disallowed.filter((u) => u.includes('/members/')));
      const hosts = conn.prepare('SELECT COUNT(*) AS n FROM hosts WHERE robots_status IS NOT NULL OR fetched > 0').get() as { n: number };
      expect(hosts.n).toBe(corpus.hosts.length);
      const metrics = conn.prepare('SELECT COUNT(*) AS n, MAX(fetched) AS f FROM metrics').get() as { n: number; f: number };
      expect(metrics.n).toBeGreaterThan(0);
      expect(metrics.f).toBe(rows.length);
      // a fixed-length hash per URL
      const lens = conn.prepare('SELECT DISTINCT LENGTH(hash) AS l FROM urls').all() as { l: number }[];
      expect(lens).toEqual([{ l: 16 }]);
    } finally {
      conn.close();
    }
  });

  it('keeps to the budgets: pages in all, pages per host, depth, bytes', async () => {
    const dir = tmpDir();
    const perHost = await crawlCorpus(corpusDir, fast({ limits: { max_pages: 1000, max_pages_per_host: 2 } }), join(dir, 'a.db'));
    const byHost = new Map<string, number>();
    for (const r of perHost.rows) byHost.set(new URL(r.url).host, (byHost.get(new URL(r.url).host) ?? 0) + 1);
    expect(Math.max(...byHost.values())).toBe(2);

    const shallow = await crawlCorpus(corpusDir, fast({ limits: { max_pages: 1000, max_depth: 1 } }), join(dir, 'b.db'));
    expect(Math.max(...shallow.rows.map((r) => r.depth))).toBe(1);

    const few = await crawlCorpus(corpusDir, fast({ limits: { max_pages: 7 } }), join(dir, 'c.db'));
    expect(few.rows).toHaveLength(7);
    expect(few.summary.reason).toBe('max-pages');

    const bytes = await crawlCorpus(corpusDir, fast({ limits: { max_pages: 1000, max_bytes: 20_000 } }), join(dir, 'd.db'));
    expect(bytes.summary.reason).toBe('max-bytes');
    expect(bytes.rows.length).toBeLessThan(few.rows.length * 3);
  });

  it('a focused crawl beats breadth-first on the labels at a small budget', async () => {
    const dir = tmpDir();
    const label = (rows: { url: string }[]) => rows.filter((r) => corpus.labels.get(r.url)?.includes('tobacco')).length;
    const one = { politeness: { ...tobacco.politeness, delay_ms: 0, concurrency: 1 } };
    const focused = await crawlCorpus(corpusDir, { ...tobacco, ...one, limits: { max_pages: 40 } }, join(dir, 'f.db'));
    const bfs = await crawlCorpus(corpusDir, { ...tobacco, ...one, limits: { max_pages: 40 }, strategy: { name: 'breadth-first' } }, join(dir, 'b.db'));
    expect(label(focused.rows)).toBeGreaterThanOrEqual(label(bfs.rows));
  });

  it('stats and export read the crawl file (CLI)', async () => {
    const db = join(tmpDir(), 'demo.db');
    const demo = await runCli(['demo', '--db', db, '--json']);
    expect(demo.code).toBe(0);
    const summary = JSON.parse(demo.stdout) as { fetched: number; labels: { harvestRate: number; label: string } };
    expect(summary.labels.label).toBe('tobacco');
    expect(summary.labels.harvestRate).toBeGreaterThan(0);

    const exp = await runCli(['export', db, '--format', 'jsonl']);
    expect(exp.code).toBe(0);
    const lines = exp.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(summary.fetched);
    expect(lines.map((l) => l.fetch_seq)).toEqual([...lines.map((l) => l.fetch_seq as number)].sort((a, b) => a - b));
    for (const k of ['url', 'status', 'depth', 'relevance', 'fetched_at', 'priority']) expect(lines[0]).toHaveProperty(k);
    expect(lines[0].depth).toBe(0);

    const stats = await runCli(['stats', db]);
    expect(stats.code).toBe(0);
    expect(stats.stdout).toMatch(new RegExp(`pages fetched\\s+${summary.fetched}`));
    expect(stats.stdout).toMatch(/estimated harvest/);
    expect(stats.stdout).toMatch(/discovery rate/);
    expect(stats.stdout).toContain('www.tobacco-info.example');
    const statsJson = JSON.parse((await runCli(['stats', db, '--json'])).stdout) as { totals: { fetched: number }; hosts: unknown[] };
    expect(statsJson.totals.fetched).toBe(summary.fetched);
    expect(statsJson.hosts.length).toBeGreaterThan(10);
  });
});
