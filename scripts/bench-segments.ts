/**
 * Segments benchmark (issue 13, Part B point 7): the time `stats` and `export` take on a
 * distributed crawl's segments (merged by src/store/segment-merge.ts) against the same crawl in one
 * crawl file.
 *
 *   npx tsx scripts/bench-segments.ts [--workers 3] [--pages 20000] [--links 10] [--hosts 300] [--single]
 *
 * Writes `--workers` segment files of `--pages` fetched pages each (4 KB bodies, `--links` links per
 * page to URLs spread over 3× the pages, the targets another worker fetched or nobody did as queued
 * placeholders, as a worker records them), global ids; then times opening them merged (openCrawl),
 * crawlTotals + statusByHost (stats), and exportRows (export). `--single` writes the same crawl as
 * one crawl file instead (the baseline). Prints one JSON object; the files are deleted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { UrlState } from '../src/frontier/url-state.js';
import { crawlTotals, exportRows, statusByHost } from '../src/store/crawl-report.js';
import { openDatabase } from '../src/store/open-database.js';
import { openCrawl, SEGMENT_OF_KEY, WORKER_KEY } from '../src/store/segments.js';
import { urlHash } from '../src/url/url-hash.js';

const { values: a } = parseArgs({
  options: {
    workers: { type: 'string', default: '3' }, pages: { type: 'string', default: '20000' }, links: { type: 'string', default: '10' },
    hosts: { type: 'string', default: '300' }, single: { type: 'boolean', default: false },
  },
});
const W = Number(a.workers);
const PAGES = Number(a.pages);
const LINKS = Number(a.links);
const HOSTS = Number(a.hosts);
const total = W * PAGES;
const dir = mkdtempSync(join(tmpdir(), 'bench-segments-'));
const body = Buffer.alloc(4000, 'x');
const urlOf = (id: number) => `http://h${id % HOSTS}.bench.test/p${id}`;

/** Writes the pages [from, to) (ids from+1 … to) and their links into a new crawl file. */
function write(path: string, from: number, to: number, worker: string | null): void {
  const db = openDatabase(path);
  try {
    const meta = db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
    const host = db.prepare('INSERT OR IGNORE INTO hosts (id, name) VALUES (?, ?)');
    const url = db.prepare(
      `INSERT OR IGNORE INTO urls (id, hash, url, host_id, state, depth, priority, life, seq, discovered_at, fetch_seq, fetched_at, status, relevance, relevant)
       VALUES (?, ?, ?, ?, ?, 1, 0.5, 3, ?, 0, ?, ?, ?, ?, ?)`,
    );
    const response = db.prepare(
      `INSERT INTO responses (url_id, status, headers, body, body_codec, body_bytes, wire_bytes, fetched_at, elapsed_ms) VALUES (?, 200, '{}', ?, 'identity', ?, ?, ?, 1)`,
    );
    const link = db.prepare('INSERT OR IGNORE INTO links (from_id, to_id, anchor) VALUES (?, ?, ?)');
    db.transaction(() => {
      meta.run('topic', 'bench');
      if (worker !== null) {
        meta.run(SEGMENT_OF_KEY, 'bench');
        meta.run(WORKER_KEY, worker);
      }
      for (let k = 0; k < HOSTS; k++) host.run(k + 1, `h${k}.bench.test`);
      for (let id = from + 1; id <= to; id++) {
        url.run(id, urlHash(urlOf(id)), urlOf(id), (id % HOSTS) + 1, UrlState.FETCHED, id, id - from, 1000 + id, 200, 0.5, id % 3 === 0 ? 1 : 0);
        response.run(id, body, body.length, body.length + 100, 1000 + id);
        for (let j = 1; j <= LINKS; j++) {
          const target = ((id * 7919 + j * 104729) % (total * 3)) + 1;
          // a target fetched in this file is written when its turn comes; any other is a placeholder
          if (target <= from || target > to) url.run(target, urlHash(urlOf(target)), urlOf(target), (target % HOSTS) + 1, UrlState.QUEUED, target, null, null, null, null, null);
          link.run(id, target, 'a');
        }
      }
    })();
  } finally {
    db.close();
  }
}

const started = performance.now();
const files = a.single ? [join(dir, 'crawl.db')] : Array.from({ length: W }, (_, w) => join(dir, `w${w}.db`));
if (a.single) write(files[0], 0, total, null);
else files.forEach((f, w) => write(f, w * PAGES, (w + 1) * PAGES, `w${w}`));
const written = performance.now();
try {
  const c = openCrawl(files);
  const opened = performance.now();
  const t = crawlTotals(c.db);
  statusByHost(c.db);
  const stats = performance.now();
  let exported = 0;
  for (const _ of exportRows(c.db)) exported++;
  const done = performance.now();
  c.close();
  const s = (ms: number) => Math.round(ms) / 1000;
  console.log(JSON.stringify({
    files: files.length, pages: t.fetched, known: t.known, links: t.links, exported,
    write_s: s(written - started), open_s: s(opened - written), stats_s: s(stats - opened), export_s: s(done - stats),
    rss_mb: Math.round(process.memoryUsage().rss / 1e6),
  }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
