import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Crawler } from '../../src/crawl/crawler.js';
import { startCorpusServer } from '../../src/eval/corpus-server.js';
import { exportRows } from '../../src/store/crawl-report.js';
import { openDatabase } from '../../src/store/sqlite-store.js';
import { buildConfig } from '../../src/topic/config.js';
import { fixturePath } from '../helpers/fixtures.js';
import { suiteTmpDir, tmpDir } from '../helpers/tmp.js';

/**
 * Seed 004's five-page table of Nutch 0.9's OPIC (test/fixtures/opic-nutch-table.json),
 * reproduced through the real crawl loop: corpus server on loopback, undici, parse5, the SQLite
 * frontier, one request at a time and no politeness delay, so the order is the strategy's alone.
 * After every fetched page (row k), every known page's score must equal the table's row.
 */
interface NutchTable {
  links: Record<string, string[]>;
  seed: string;
  injected_score: number;
  fetch_order: string[];
  table: { row: number; fetched: string | null; scores: Record<string, number> }[];
}

const fx = JSON.parse(readFileSync(fixturePath('opic-nutch-table.json'), 'utf8')) as NutchTable;
const HOST = 'opic.test';
const urlOf = (name: string) => `http://${HOST}/${name.toLowerCase()}.html`;

/** One host; page X at /x.html links to its fixture outlinks in the fixture's order. */
function writeTableCorpus(dir: string): void {
  mkdirSync(join(dir, 'site', HOST), { recursive: true });
  for (const [name, outs] of Object.entries(fx.links)) {
    const links = outs.map((o) => `<li><a href="${urlOf(o)}">page ${o}</a></li>`).join('\n');
    writeFileSync(
      join(dir, 'site', HOST, `${name.toLowerCase()}.html`),
      `<!doctype html><html><head><meta charset="utf-8"><title>page ${name}</title></head><body><h1>page ${name}</h1><p>opic scoring</p><ul>${links}</ul></body></html>`,
    );
  }
  writeFileSync(
    join(dir, 'corpus.json'),
    JSON.stringify({ name: 'opic-table', description: 'seed 004 table', license: 'CC0-1.0', seeds: [urlOf(fx.seed)], labels: {} }),
  );
  writeFileSync(join(dir, 'labels.tsv'), `url\tlabels\n${Object.keys(fx.links).map((n) => `${urlOf(n)}\t`).join('\n')}\n`);
}

/** Scores by id as the strategy explains them, for every id it knows. */
function snapshot(crawler: Crawler, maxId: number): Map<number, number> {
  const out = new Map<number, number>();
  for (let id = 1; id <= maxId; id++) {
    const e = crawler.strategyInstance.explain?.(id);
    if (e) out.set(id, e.score as number);
  }
  return out;
}

describe('nutch-opic reproduces seed 004 table through the crawl loop', () => {
  const corpus = suiteTmpDir();
  writeTableCorpus(corpus);

  it('fetches in the table order and every score matches the table after every page', async () => {
    const dbPath = join(tmpDir(), 'crawl.db');
    const server = await startCorpusServer(corpus);
    const snaps: Map<number, number>[] = [];
    const fetched: string[] = [];
    try {
      const config = buildConfig({
        name: 'opic-golden', seeds: [urlOf(fx.seed)], keywords: { opic: 1 },
        strategy: { name: 'nutch-opic' },
        politeness: { delay_ms: 0, concurrency: 1, per_host_concurrency: 1, robots: false },
        limits: { max_pages: 100 },
      });
      const crawler = new Crawler({ config, dbPath, resolve: server.resolveMap(), mappedOnly: true, workers: 0 });
      expect(crawler.strategyInstance.name).toBe('nutch-opic');
      const maxId = 4 * Object.keys(fx.links).length;
      crawler.on('start', () => snaps.push(snapshot(crawler, maxId))); // row 0: the seed only (queued when the run starts)
      crawler.on('page', (ev) => {
        fetched.push(ev.url);
        snaps.push(snapshot(crawler, maxId));
      });
      try {
        const summary = await crawler.run();
        expect(summary.reason).toBe('done');
      } finally {
        await crawler.close();
      }
    } finally {
      await server.close();
    }

    const db = openDatabase(dbPath, { readonly: true });
    let idOf: Map<string, number>;
    let rows;
    try {
      idOf = new Map((db.prepare('SELECT id, url FROM urls').all() as { id: number; url: string }[]).map((r) => [r.url, r.id]));
      rows = [...exportRows(db)];
    } finally {
      db.close();
    }
    const nameOf = new Map(Object.keys(fx.links).map((n) => [idOf.get(urlOf(n)), n]));

    expect(rows.map((r) => r.url)).toEqual(fx.fetch_order.map(urlOf));
    expect(fetched).toEqual(fx.fetch_order.map(urlOf));
    expect(snaps).toHaveLength(fx.table.length);
    fx.table.forEach((row, k) => {
      if (row.fetched !== null) expect(fetched[k - 1]).toBe(urlOf(row.fetched));
      const got: Record<string, number> = {};
      for (const [id, score] of snaps[k]) got[nameOf.get(id) ?? `#${id}`] = score;
      expect(Object.keys(got).sort(), `pages known after row ${k}`).toEqual(Object.keys(row.scores).sort());
      for (const [name, score] of Object.entries(row.scores)) expect(got[name], `score of ${name} after row ${k}`).toBeCloseTo(score, 12);
    });
    // the frontier fetched each page at the score it had when it was handed out
    rows.forEach((r, k) => expect(r.priority).toBeCloseTo(fx.table[k].scores[fx.fetch_order[k]], 12));
  });
});
