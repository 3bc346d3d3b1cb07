import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UrlState } from '../../src/frontier/url-state.js';
import { runCli } from '../helpers/run-cli.js';
import { writeSegment, type SegmentSpec } from '../helpers/segment-files.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * The command lines of stats, export and explain over a distributed crawl's segments: several
 * files, a folder, and one file as before (test/store/segments.test.ts checks the merge itself).
 */
const A = 'http://a.example/';
const hosts = [{ id: 1, name: 'a.example' }];

/** Two workers: each fetched one page; page 2 was fetched by both (a lease expired), w2's first. */
function twoSegments(): { dir: string; files: string[] } {
  const dir = tmpDir();
  const specs: SegmentSpec[] = [
    {
      crawlId: 'cli-crawl', worker: 'w1', hosts,
      urls: [
        { id: 1, url: A, hostId: 1, state: UrlState.FETCHED, depth: 0, fetchSeq: 1, fetchedAt: 1000, status: 200 },
        { id: 2, url: `${A}b.html`, hostId: 1, state: UrlState.FETCHED, parentId: 1, fetchSeq: 2, fetchedAt: 3000, status: 200 },
        { id: 3, url: `${A}c.html`, hostId: 1, state: UrlState.QUEUED, parentId: 1 },
      ],
      links: [{ from: 1, to: 2, anchor: 'b' }, { from: 1, to: 3, anchor: 'see c' }],
    },
    {
      crawlId: 'cli-crawl', worker: 'w2', hosts,
      urls: [
        { id: 2, url: `${A}b.html`, hostId: 1, state: UrlState.FETCHED, parentId: 1, fetchSeq: 1, fetchedAt: 2000, status: 200 },
        { id: 3, url: `${A}c.html`, hostId: 1, state: UrlState.QUEUED, parentId: 1 },
      ],
      links: [{ from: 2, to: 3, anchor: 'c again' }],
    },
  ];
  const files = specs.map((s) => join(dir, `${s.worker}.db`));
  specs.forEach((s, i) => writeSegment(files[i], s));
  return { dir, files };
}

describe('stats, export and explain take a crawl\'s segments', () => {
  it('stats: several files or a folder, the whole crawl once', async () => {
    const { dir, files } = twoSegments();
    for (const args of [files, [dir]]) {
      const r = await runCli(['stats', ...args, '--json']);
      expect(r.code, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout) as { totals: Record<string, unknown>; crawl: Record<string, unknown> };
      expect(j.totals).toMatchObject({ known: 3, fetched: 2, queued: 1, links: 3, hosts: 1 });
      expect(j.crawl).toEqual({ id: 'cli-crawl', segments: files, workers: ['w1', 'w2'] });
    }
    const one = await runCli(['stats', files[0]]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/^crawl file +\S+w1\.db$/m);
    expect(one.stdout).toMatch(/^pages fetched +2 /m);
  });

  it('export: each page once, in fetch-time order', async () => {
    const { files } = twoSegments();
    const r = await runCli(['export', ...files]);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { url: string; fetch_seq: number; fetched_at: string });
    expect(rows.map((x) => [x.url, x.fetch_seq, x.fetched_at])).toEqual([
      [A, 1, new Date(1000).toISOString()],
      [`${A}b.html`, 2, new Date(2000).toISOString()],
    ]);
  });

  it('explain: the segments first, the URL last', async () => {
    const { dir, files } = twoSegments();
    for (const args of [files, [dir]]) {
      const r = await runCli(['explain', ...args, `${A}c.html`, '--json']);
      expect(r.code, r.stderr).toBe(0);
      const e = JSON.parse(r.stdout) as { id: number; inlinks: number; anchors: { anchor: string }[] };
      expect(e.id).toBe(3);
      expect(e.inlinks).toBe(2);
      expect(e.anchors.map((a) => a.anchor)).toEqual(['see c', 'c again']);
    }
    const unknown = await runCli(['explain', ...files, `${A}nowhere.html`]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('not known to the crawl in 2 segments of crawl cli-crawl');
  });
});
