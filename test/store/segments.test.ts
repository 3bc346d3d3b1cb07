import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runExplain } from '../../src/cli/explain-command.js';
import { runExport, runStats } from '../../src/cli/report-commands.js';
import { labelHarvest } from '../../src/eval/label-harvest.js';
import { fetchOrderRelevance } from '../../src/eval/eval-runner.js';
import { UrlState } from '../../src/frontier/url-state.js';
import { crawlTotals, pagesByLanguage, exportRows, statusByHost } from '../../src/store/crawl-report.js';
import { openDatabase } from '../../src/store/open-database.js';
import { crawlFilePaths, openCrawl } from '../../src/store/segments.js';
import { errorOf } from '../helpers/error-of.js';
import { writeSegment, type SegmentSpec } from '../helpers/segment-files.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * A distributed crawl's segments, written by hand with global ids, read merged by stats, export,
 * explain and evaluation: every figure is the crawl's, nothing lost, nothing counted twice.
 *
 * The crawl: hosts 1 a.example, 2 b.example, 3 c.example; URLs
 *   1 a/ (seed)       fetched by w1 at 1000, links to 2, 3, 4
 *   2 a/x.html        fetched by w1 at 1100 AND by w2 at 1050 (a lease expired): w2's fetch counts
 *   3 b/              queued placeholder in w1, fetched by w2 at 1200 (relevant), links to 5
 *   4 c/              queued placeholder in w1 and w3, failed in w3 at 1300 (E_CONNECT)
 *   5 b/y.html        queued placeholder in w2 and w3 (never fetched)
 *   6 c/z.html (seed) fetched by w3 at 900, links to 5
 *   7 a/private.html  skipped in w1 (robots), linked from 2 (by both fetches of 2)
 */
const A = 'http://a.example/';
const B = 'http://b.example/';
const C = 'http://c.example/';
const hosts = [{ id: 1, name: 'a.example' }, { id: 2, name: 'b.example' }, { id: 3, name: 'c.example' }];
const page = (title: string) => ({ title, body: `<html><title>${title}</title>${'x'.repeat(100)}</html>` });
const { FETCHED, FAILED, QUEUED, SKIPPED } = UrlState;

function segments(crawlId: string | null = 'crawl-7'): SegmentSpec[] {
  const w1: SegmentSpec = {
    crawlId, worker: 'w1', hosts,
    urls: [
      { id: 1, url: A, hostId: 1, state: FETCHED, depth: 0, fetchSeq: 1, fetchedAt: 1000, status: 200, relevance: 0.9, relevant: true, response: page('a home') },
      { id: 2, url: `${A}x.html`, hostId: 1, state: FETCHED, parentId: 1, fetchSeq: 2, fetchedAt: 1100, status: 200, relevance: 0.1, relevant: false, response: page('x late') },
      { id: 3, url: B, hostId: 2, state: QUEUED, parentId: 1, priority: 0.7, inlinks: 1, inlinkScore: 0.4 },
      { id: 4, url: C, hostId: 3, state: QUEUED, parentId: 1, priority: 0.6, inlinks: 1, inlinkScore: 0.4 },
      { id: 7, url: `${A}private.html`, hostId: 1, state: SKIPPED, depth: 2, parentId: 2, error: 'E_ROBOTS' },
    ],
    links: [{ from: 1, to: 2, anchor: 'x' }, { from: 1, to: 3, anchor: 'b' }, { from: 1, to: 4, anchor: 'c' }, { from: 2, to: 7, anchor: 'private' }],
    meta: { created_at: '2026-12-01T10:00:02.000Z', suspended_hosts: '["c.example"]' },
  };
  const w2: SegmentSpec = {
    crawlId, worker: 'w2', hosts,
    urls: [
      { id: 2, url: `${A}x.html`, hostId: 1, state: FETCHED, parentId: 1, fetchSeq: 1, fetchedAt: 1050, status: 200, relevance: 0.8, relevant: true, response: page('x first') },
      { id: 3, url: B, hostId: 2, state: FETCHED, parentId: 1, fetchSeq: 2, fetchedAt: 1200, status: 200, relevance: 0.7, relevant: true, response: page('b home') },
      { id: 5, url: `${B}y.html`, hostId: 2, state: QUEUED, depth: 2, parentId: 3, priority: 0.3, inlinks: 1, inlinkScore: 0.5 },
      { id: 7, url: `${A}private.html`, hostId: 1, state: QUEUED, depth: 2, parentId: 2 },
    ],
    links: [{ from: 2, to: 7, anchor: 'private' }, { from: 3, to: 5, anchor: 'y from b' }],
    meta: { created_at: '2026-12-01T10:00:01.000Z', robots_unreachable: '1' },
  };
  const w3: SegmentSpec = {
    crawlId, worker: 'w3', hosts: [hosts[1], hosts[2]],
    urls: [
      { id: 4, url: C, hostId: 3, state: FAILED, parentId: 1, fetchSeq: 2, fetchedAt: 1300, status: 0, error: 'E_CONNECT' },
      { id: 5, url: `${B}y.html`, hostId: 2, state: QUEUED, depth: 1, parentId: 6, priority: 0.4, inlinks: 1, inlinkScore: 0.2 },
      { id: 6, url: `${C}z.html`, hostId: 3, state: FETCHED, depth: 0, fetchSeq: 1, fetchedAt: 900, status: 200, relevance: 0.2, relevant: false, response: page('z') },
    ],
    links: [{ from: 6, to: 5, anchor: 'y from z' }],
    meta: { created_at: '2026-12-01T10:00:03.000Z', robots_unreachable: '2' },
  };
  return [w1, w2, w3];
}

/** The three segments as files w1.db, w2.db, w3.db in a fresh folder. */
function writeAll(specs = segments()): { dir: string; files: string[] } {
  const dir = tmpDir();
  const files = specs.map((s) => join(dir, `${s.worker}.db`));
  specs.forEach((s, i) => writeSegment(files[i], s));
  return { dir, files };
}

const BODY_BYTES = page('x first').body.length + page('a home').body.length + page('b home').body.length + page('z').body.length;

function logged(run: (out: { log: (s: string) => void }) => void): string {
  const lines: string[] = [];
  run({ log: (s) => lines.push(s) });
  return lines.join('\n');
}

describe('a crawl read from its segments', () => {
  it('stats: the totals of the whole crawl, each page once, the earliest of two fetches counted', () => {
    const { files } = writeAll();
    const c = openCrawl(files);
    try {
      const t = crawlTotals(c.db);
      // naive sums over the segments would say 6 fetched, 3 + 3 + 3 known (with duplicates), 7 links
      expect(t).toMatchObject({
        known: 7, fetched: 5, failed: 1, errors: 1 + 3, queued: 1, skipped: 1, relevant: 3, scored: 4,
        hosts: 3, links: 6, firstFetchAt: 900, lastFetchAt: 1300, createdAt: '2026-12-01T10:00:01.000Z',
        suspendedHosts: ['c.example'], topic: 'tobacco',
      });
      expect(t.harvest).toBeCloseTo(3 / 5, 12);
      expect(t.discoveryRate).toBeCloseTo((7 - 2) / 5, 12);
      expect(t.bytes).toBe(BODY_BYTES);
      expect(t.storedBytes).toBe(BODY_BYTES); // identity codec: stored as fetched
      const byHost = Object.fromEntries(statusByHost(c.db).map((h) => [h.host, h]));
      expect(byHost['a.example']).toMatchObject({ fetched: 2, queued: 0, statuses: { '200': 2, E_ROBOTS: 1 } });
      expect(byHost['b.example']).toMatchObject({ fetched: 1, queued: 1, statuses: { '200': 1 } });
      expect(byHost['c.example']).toMatchObject({ fetched: 2, queued: 0, errors: 1, statuses: { '200': 1, E_CONNECT: 1 } });
      expect(c).toMatchObject({ crawlId: 'crawl-7', workers: ['w1', 'w2', 'w3'], paths: files });
    } finally {
      c.close();
    }
  });

  it('export: every recorded page once, in order of fetch time over all workers, with the counted fetch\'s response', () => {
    const { files } = writeAll();
    let text = '';
    const n = runExport({ db: files, format: 'jsonl' }, (s) => (text += s));
    const rows = text.trim().split('\n').map((l) => JSON.parse(l) as { url: string; fetch_seq: number; title: string | null; relevant: boolean | null; error: string | null });
    expect(n).toBe(5);
    expect(rows.map((r) => r.url)).toEqual([`${C}z.html`, A, `${A}x.html`, B, C]);
    expect(rows.map((r) => r.fetch_seq)).toEqual([1, 2, 3, 4, 5]);
    expect(rows[2]).toMatchObject({ title: 'x first', relevant: true });
    expect(rows[4]).toMatchObject({ title: null, error: 'E_CONNECT' });
  });

  it('a folder of segments, segments in any order, and a segment named twice give the same crawl', () => {
    const { dir, files } = writeAll();
    const json = (db: string | string[]) => JSON.parse(logged((out) => runStats({ db, json: true }, out))) as { totals: unknown; hosts: unknown; crawl: unknown };
    const base = json(files);
    expect(json(dir)).toEqual(base);
    const reversed = json([...files].reverse());
    expect(reversed.totals).toEqual(base.totals);
    expect(reversed.hosts).toEqual(base.hosts);
    expect(json([dir, files[1]])).toEqual(base);
    expect(crawlFilePaths([dir, files[1]])).toEqual(files);
    const text = logged((out) => runStats({ db: dir }, out));
    expect(text).toMatch(/^crawl +3 segments of crawl crawl-7 /m);
    expect(text).toMatch(/^workers +w1, w2, w3$/m);
    expect(text).toMatch(/^pages fetched +5 \(1 without a response\)/m);
  });

  it('explain: the URL from all segments, its links from every worker, backlinks counted once per page', () => {
    const { dir } = writeAll();
    const e = JSON.parse(logged((out) => runExplain({ db: dir, url: `${B}y.html`, json: true }, out))) as Record<string, unknown>;
    expect(e).toMatchObject({ id: 5, state: 'queued', depth: 1, inlinks: 2, inlinkScore: 0.5, priority: 0.4 });
    expect((e.anchors as { fromId: number }[]).map((a) => a.fromId)).toEqual([6, 3]); // in fetch order: 6 at 900, 3 at 1200
    const twice = JSON.parse(logged((out) => runExplain({ db: dir, url: `${A}x.html`, json: true }, out))) as Record<string, unknown>;
    expect(twice).toMatchObject({ id: 2, state: 'fetched', fetchSeq: 3, relevance: 0.8, relevant: true });
    expect((twice.strategy as { replayedPages: number }).replayedPages).toBe(5);
  });

  it('evaluation: harvest and fetch order over the merged crawl', () => {
    const { dir, files } = writeAll();
    const labels = new Map<string, string[]>([[A, ['t']], [`${A}x.html`, ['t']], [`${B}y.html`, ['t']], [`${C}z.html`, []]]);
    const c = openCrawl([dir]);
    try {
      expect(labelHarvest(c.db, labels, 't')).toMatchObject({ fetched: 5, relevant: 2, relevantInCorpus: 3 });
    } finally {
      c.close();
    }
    expect(fetchOrderRelevance(files, new Set([A, `${A}x.html`]))).toEqual([false, true, true, false, false]);
  });

  it('a failure that came first counts over a later fetch with a response, whichever segment is merged first', () => {
    const dir = tmpDir();
    const files = [join(dir, 's1.db'), join(dir, 's2.db')];
    const url = `${A}twice.html`;
    writeSegment(files[0], { crawlId: 'c', worker: 's1', hosts: [hosts[0]], links: [], urls: [{ id: 8, url, hostId: 1, state: FETCHED, fetchSeq: 1, fetchedAt: 1400, status: 200, response: page('late') }] });
    writeSegment(files[1], { crawlId: 'c', worker: 's2', hosts: [hosts[0]], links: [], urls: [{ id: 8, url, hostId: 1, state: FAILED, fetchSeq: 1, fetchedAt: 1350, status: 0, error: 'E_TIMEOUT' }] });
    for (const order of [files, [...files].reverse()]) {
      const c = openCrawl(order);
      try {
        expect(crawlTotals(c.db)).toMatchObject({ fetched: 1, failed: 1, errors: 1, bytes: 0, storedBytes: 0, firstFetchAt: 1350 });
        expect([...exportRows(c.db)]).toMatchObject([{ url, error: 'E_TIMEOUT', title: null, fetch_seq: 1 }]);
      } finally {
        c.close();
      }
    }
  });

  it('more segments than SQLite attaches at once (10): merged one after another', () => {
    const dir = tmpDir();
    const n = 14;
    const files: string[] = [];
    for (let w = 0; w < n; w++) {
      const id = w + 1;
      files.push(join(dir, `w${String(w).padStart(2, '0')}.db`));
      writeSegment(files[w], {
        crawlId: 'big', worker: `w${w}`, hosts: [{ id: 1, name: 'a.example' }],
        urls: [
          { id, url: `${A}p${id}.html`, hostId: 1, state: FETCHED, fetchSeq: 1, fetchedAt: 2000 - id, status: 200, response: page(`p${id}`) },
          { id: 100, url: `${A}common.html`, hostId: 1, state: QUEUED },
        ],
        links: [{ from: id, to: 100, anchor: 'common' }],
      });
    }
    const c = openCrawl([dir]);
    try {
      expect(crawlTotals(c.db)).toMatchObject({ known: n + 1, fetched: n, queued: 1, links: n, hosts: 1 });
      expect([...exportRows(c.db)].map((r) => r.url)).toEqual(Array.from({ length: n }, (_, i) => `${A}p${n - i}.html`));
    } finally {
      c.close();
    }
  });

  it('one crawl file reads as it always did; the segment files are left unchanged', () => {
    const { files } = writeAll();
    const direct = openDatabase(files[1], { readonly: true });
    let expected: unknown;
    try {
      expected = { totals: crawlTotals(direct), languages: pagesByLanguage(direct), hosts: statusByHost(direct) };
    } finally {
      direct.close();
    }
    const single = JSON.parse(logged((out) => runStats({ db: files[1], json: true }, out))) as Record<string, unknown>;
    expect(single).toEqual(expected);
    expect(logged((out) => runStats({ db: [files[1]] }, out))).toMatch(new RegExp(`^crawl file +${files[1].replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    const copy = join(tmpDir(), 'copy.db');
    copyFileSync(files[0], copy);
    openCrawl(files).close();
    const again = openDatabase(files[0], { readonly: true });
    const before = openDatabase(copy, { readonly: true });
    try {
      expect(again.prepare('SELECT * FROM urls ORDER BY id').all()).toEqual(before.prepare('SELECT * FROM urls ORDER BY id').all());
    } finally {
      again.close();
      before.close();
    }
  });

  it('reads a segment a live worker is still writing (its WAL) without writing to it', () => {
    const { files } = writeAll();
    const live = openDatabase(files[1]); // the worker's connection, WAL mode
    try {
      live.prepare(
        `INSERT INTO urls (id, hash, url, host_id, state, depth, priority, life, seq, discovered_at, fetch_seq, fetched_at, status)
         VALUES (9, x'00', ?, 2, ${FETCHED}, 2, 0.1, 1, 9, 600, 3, 1500, 200)`,
      ).run(`${B}new.html`);
      const bytes = (f: string) => readFileSync(f);
      const before = { db: bytes(files[1]), wal: bytes(`${files[1]}-wal`) };
      expect(before.wal.length).toBeGreaterThan(0);
      const c = openCrawl(files);
      try {
        expect(crawlTotals(c.db)).toMatchObject({ known: 8, fetched: 6, lastFetchAt: 1500 });
      } finally {
        c.close();
      }
      expect(bytes(files[1]).equals(before.db)).toBe(true);
      expect(bytes(`${files[1]}-wal`).equals(before.wal)).toBe(true);
    } finally {
      live.close();
    }
  });

  it('refuses files that are not segments of one crawl, and folders without crawl files', () => {
    const { files } = writeAll();
    const other = writeAll(segments('crawl-8')).files;
    expect(errorOf(() => openCrawl([files[0], other[1]]))).toMatchObject({ code: 'E_USAGE', message: expect.stringContaining('a segment of crawl "crawl-8", not of "crawl-7"') });
    const plain = writeAll(segments(null)).files;
    expect(errorOf(() => openCrawl([files[0], plain[1]]))).toMatchObject({ code: 'E_USAGE', message: expect.stringContaining('not a segment of a distributed crawl') });
    const clash = join(tmpDir(), 'clash.db');
    writeSegment(clash, { crawlId: 'crawl-7', worker: 'w9', hosts: [{ id: 9, name: 'a.example' }], urls: [], links: [] });
    expect(errorOf(() => openCrawl([files[0], clash]))).toMatchObject({ code: 'E_STORE', message: expect.stringContaining('cannot merge these segments') });
    const empty = join(tmpDir(), 'nothing');
    mkdirSync(empty);
    expect(errorOf(() => openCrawl([empty]))).toMatchObject({ code: 'E_USAGE', message: expect.stringContaining('a folder without crawl files') });
    expect(errorOf(() => openCrawl([join(empty, 'missing.db')]))).toMatchObject({ code: 'E_USAGE', message: expect.stringContaining('no such crawl file') });
  });
});
