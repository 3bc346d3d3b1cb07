import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { UrlState } from '../../src/frontier/url-state.js';
import { crawlTotals, exportRows, statusByHost } from '../../src/store/crawl-report.js';
import { openDatabase } from '../../src/store/open-database.js';
import { openCrawl } from '../../src/store/segments.js';
import type { TopicInput } from '../../src/topic/topic-schema.js';
import { crawlCorpus, repoRoot } from '../helpers/crawl-corpus.js';
import { suiteTmpDir } from '../helpers/tmp.js';

/**
 * A real crawl (the crawl loop on corpora/tobacco-demo) cut into 3 segments as 3 workers would have
 * written it: each holds the pages it fetched (a contiguous run of the crawl), their links, and the
 * targets of those links as queued placeholders; one page was fetched by two workers (the second
 * time later, after its lease expired). Read merged, the segments are the crawl: the same totals,
 * hosts, export and URL rows as the single file.
 */
const tobacco = parse(readFileSync(join(repoRoot, 'topics/tobacco.yaml'), 'utf8')) as TopicInput;
const topic: TopicInput = {
  ...tobacco,
  strategy: { ...tobacco.strategy, name: 'best-first' },
  politeness: { ...tobacco.politeness, delay_ms: 0, concurrency: 1 },
  limits: { ...tobacco.limits, max_pages: 45 },
};
const { QUEUED, FETCHED, FAILED } = UrlState;
const RECORDED = `state IN (${FETCHED}, ${FAILED})`;

/** Cuts segment `k` (pages fetched with fetch_seq in [lo, hi], plus page `dup` fetched again later) out of a copy of the crawl. */
function cutSegment(db: Database.Database, k: number, lo: number, hi: number, dup: number | null): void {
  const mine = `(fetch_seq BETWEEN ${lo} AND ${hi}${dup === null ? '' : ` OR id = ${dup}`})`;
  db.exec(`
    CREATE TEMP TABLE mine AS SELECT id FROM urls WHERE ${mine};
    DELETE FROM links WHERE from_id NOT IN (SELECT id FROM mine);
    DELETE FROM responses WHERE url_id NOT IN (SELECT id FROM mine);
    -- URLs neither fetched here nor linked from here: not in this segment (unlinked ones stay in the first)
    DELETE FROM urls WHERE id NOT IN (SELECT id FROM mine) AND id NOT IN (SELECT to_id FROM links)
      AND (${k} > 1 OR ${RECORDED} OR id IN (SELECT to_id FROM links_all));
    -- a worker counts the backlinks it saw: its own pages fetched before the URL (a skipped URL keeps its count)
    UPDATE urls SET inlinks = (SELECT COUNT(*) FROM links l JOIN urls f ON f.id = l.from_id
                                WHERE l.to_id = urls.id AND f.id <> urls.id AND (urls.fetch_seq IS NULL OR f.fetch_seq < urls.fetch_seq))
     WHERE id NOT IN (SELECT id FROM mine) AND state <> ${UrlState.SKIPPED};
    -- the targets fetched elsewhere are queued placeholders here
    UPDATE urls SET state = ${QUEUED}, fetch_seq = NULL, fetched_at = NULL, fetch_priority = NULL, status = NULL, error = NULL,
                    relevance = NULL, relevant = NULL, content_hash = NULL, note = NULL
     WHERE id NOT IN (SELECT id FROM mine) AND ${RECORDED};
    DELETE FROM hosts WHERE id NOT IN (SELECT host_id FROM urls);
    DELETE FROM metrics;
    UPDATE urls SET fetch_seq = -fetch_seq WHERE fetch_seq IS NOT NULL;
    UPDATE urls SET fetch_seq = -fetch_seq - ${lo - 1} WHERE fetch_seq IS NOT NULL;
    INSERT OR REPLACE INTO meta (key, value) VALUES ('segment_of', 'split'), ('worker', 'w${k}');
  `);
  if (dup !== null) {
    // fetched here a second time, after the other worker's lease on it expired
    db.prepare('UPDATE urls SET fetched_at = fetched_at + 60000, fetch_seq = ? WHERE id = ?').run(hi - lo + 2, dup);
    db.prepare('UPDATE responses SET fetched_at = fetched_at + 60000 WHERE url_id = ?').run(dup);
  }
}

const read = <T>(path: string | string[], f: (db: Database.Database) => T): T => {
  const c = openCrawl(typeof path === 'string' ? [path] : path);
  try {
    return f(c.db);
  } finally {
    c.close();
  }
};

const URL_COLUMNS = 'id, hash, url, host_id, state, depth, priority, life, parent_id, anchor, inlink_score, hops, fetch_seq, fetched_at, fetch_priority, status, error, relevance, relevant, note';

describe('a real crawl cut into segments', () => {
  const dir = suiteTmpDir();
  const original = join(dir, 'crawl.db');
  const segments = [1, 2, 3].map((k) => join(dir, `w${k}.db`));
  let n = 0;

  beforeAll(async () => {
    await crawlCorpus(join(repoRoot, 'corpora/tobacco-demo'), topic, original);
    n = read(original, (db) => crawlTotals(db).fetched);
    const cuts = [[1, 15], [16, 30], [31, n]];
    segments.forEach((path, i) => {
      copyFileSync(original, path);
      const db = openDatabase(path);
      try {
        db.exec(`CREATE TEMP TABLE links_all AS SELECT to_id FROM links WHERE from_id IN (SELECT id FROM urls WHERE ${RECORDED})`);
        // worker 1 fetched the first page of worker 2's run again
        const dup = i === 0 ? (db.prepare('SELECT id FROM urls WHERE fetch_seq = 16').get() as { id: number }).id : null;
        cutSegment(db, i + 1, cuts[i][0], cuts[i][1], dup);
      } finally {
        db.close();
      }
    });
  }, 120_000);

  it('the segments are what three workers would write: each a part, one page twice', () => {
    const parts = segments.map((p) => read(p, (db) => crawlTotals(db)));
    expect(n).toBeGreaterThanOrEqual(40);
    expect(parts.map((t) => t.fetched)).toEqual([16, 15, n - 30]);
    // summed, the parts count the twice-fetched page twice and the shared link targets several times
    expect(parts.reduce((s, t) => s + t.fetched, 0)).toBe(n + 1);
    expect(parts.reduce((s, t) => s + t.known, 0)).toBeGreaterThan(read(original, (db) => crawlTotals(db).known));
  });

  it('merged, they have the totals, hosts and export of the single crawl file', () => {
    const [whole, merged] = [original, segments].map((p) => read(p, (db) => ({ totals: crawlTotals(db), hosts: statusByHost(db), rows: [...exportRows(db)] })));
    expect(merged.totals).toEqual(whole.totals);
    expect(merged.hosts).toEqual(whole.hosts);
    expect(merged.rows).toEqual(whole.rows);
  });

  it('merged, every URL row is the crawl\'s, backlink counts included', () => {
    const rows = (p: string | string[]) => read(p, (db) => db.prepare(`SELECT ${URL_COLUMNS}, inlinks FROM urls ORDER BY id`).all());
    expect(rows(segments)).toEqual(rows(original));
  });
});
