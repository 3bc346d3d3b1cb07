import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { labelHarvest } from '../../src/eval/label-harvest.js';
import { crawlTotals, exportRows, pagesByLanguage } from '../../src/store/crawl-report.js';
import { openCrawl } from '../../src/store/segments.js';
import { openDatabase, urlsHasDedupColumns } from '../../src/store/open-database.js';
import { URL_DEDUP_COLUMNS } from '../../src/store/schema.js';
import { tmpDir } from '../helpers/tmp.js';

/** A crawl file written before near-duplicates and languages: readable as it was, brought up to date when written. */
describe('crawl files without the near-duplicate and language columns', () => {
  function oldFile(): string {
    const path = join(tmpDir(), 'old.db');
    openDatabase(path).close();
    const raw = new Database(path);
    for (const [name] of URL_DEDUP_COLUMNS) raw.exec(`ALTER TABLE urls DROP COLUMN ${name}`);
    raw.exec(`INSERT INTO hosts (id, name) VALUES (1, 'a.example');
      INSERT INTO urls (id, hash, url, host_id, state, depth, priority, life, seq, discovered_at, fetch_seq, fetched_at, status, relevance, relevant)
      VALUES (1, x'00', 'http://a.example/', 1, 2, 0, 1, 3, 1, 1, 1, 1000, 200, 0.9, 1),
             (2, x'01', 'http://a.example/b', 1, 2, 1, 1, 3, 2, 1, 2, 1001, 200, 0.1, 0);`);
    raw.close();
    return path;
  }

  it('reports read them read-only: no duplicates, no languages, the harvest as before', () => {
    const path = oldFile();
    const db = openDatabase(path, { readonly: true });
    try {
      expect(urlsHasDedupColumns(db)).toBe(false);
      expect(crawlTotals(db)).toMatchObject({ fetched: 2, relevant: 1, duplicates: { exact: 0, near: 0, relevant: 0 } });
      expect(pagesByLanguage(db)).toEqual({});
      expect([...exportRows(db)].map((r) => [r.url, r.lang, r.simhash, r.duplicate_of, r.duplicate])).toEqual([
        ['http://a.example/', null, null, null, null],
        ['http://a.example/b', null, null, null, null],
      ]);
      expect(labelHarvest(db, new Map([['http://a.example/b', ['x']]]), 'x')).toMatchObject({ fetched: 2, relevant: 1 });
    } finally {
      db.close();
    }
    // and merged with a segment that has them
    const c = openCrawl([path]);
    try {
      expect(crawlTotals(c.db)).toMatchObject({ fetched: 2, relevant: 1 });
    } finally {
      c.close();
    }
  });

  it('a writable open adds them; the rows keep their values', () => {
    const path = oldFile();
    openDatabase(path).close();
    const db = openDatabase(path, { readonly: true });
    try {
      expect(urlsHasDedupColumns(db)).toBe(true);
      expect(db.prepare('SELECT id, relevant, simhash, lang, dup_of, dup_distance FROM urls ORDER BY id').all()).toEqual([
        { id: 1, relevant: 1, simhash: null, lang: null, dup_of: null, dup_distance: null },
        { id: 2, relevant: 0, simhash: null, lang: null, dup_of: null, dup_distance: null },
      ]);
      expect(pagesByLanguage(db)).toEqual({ und: 2 });
    } finally {
      db.close();
    }
  });
});
