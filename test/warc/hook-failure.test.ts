import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Crawler } from '../../src/crawl/crawler.js';
import type { PageHook } from '../../src/crawl/crawl-types.js';
import { TopicrawlError } from '../../src/errors.js';
import { Recrawler } from '../../src/revisit/recrawl.js';
import { buildConfig } from '../../src/topic/config.js';
import { tmpDir } from '../helpers/tmp.js';
import { head, startRawServer, type RawServer } from './raw-http-server.js';

const HOST = 'fail.test';

/** A per-page output that fails (a WARC record that cannot be written) fails that page, never the crawl or the recrawl. */
describe('a hook that throws', () => {
  let server: RawServer;
  beforeAll(async () => {
    server = await startRawServer((path) => {
      const b = Buffer.from(path === '/' ? '<html><body>tobacco <a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a></body></html>' : `<html><body>tobacco ${path}</body></html>`);
      return { head: head('200 OK', [['Content-Type', 'text/html'], ['Content-Length', String(b.length)]]), parts: [b] };
    });
  });
  afterAll(async () => server?.close());

  it('fails the page it threw for, in a crawl and in a recrawl; the others go on', async () => {
    const failing: PageHook = {
      fetched: (item) => {
        if (item.url.endsWith('/b')) throw new TopicrawlError('E_WARC_WRITE', 'WARC record not written: no space left on device');
      },
    };
    const config = buildConfig({ name: 'fail', seeds: [`http://${HOST}/`], keywords: { tobacco: 1 }, strategy: { name: 'breadth-first' }, politeness: { delay_ms: 0, concurrency: 2, robots: false } });
    const resolve = { [HOST]: `127.0.0.1:${server.port}` };
    const db = join(tmpDir(), 'f.db');
    const crawler = new Crawler({ config, dbPath: db, resolve, mappedOnly: true, workers: 0, hooks: [failing] });
    try {
      const s = await crawler.run();
      expect(s.fetched).toBe(4);
      expect(s.errors).toBe(1);
    } finally {
      await crawler.close();
    }
    const file = new Database(db, { readonly: true });
    const rows = file.prepare('SELECT url, error FROM urls WHERE fetch_seq IS NOT NULL ORDER BY url').all() as { url: string; error: string | null }[];
    file.close();
    expect(rows.map((r) => [r.url.replace(`http://${HOST}`, ''), r.error])).toEqual([['/', null], ['/a', null], ['/b', 'E_WARC_WRITE'], ['/c', null]]);

    let t = Date.now() + 40 * 86_400_000;
    const warns: string[] = [];
    const failingA: PageHook = {
      fetched: (item) => {
        if (item.url.endsWith('/a')) throw new TopicrawlError('E_WARC_WRITE', 'WARC record not written: no space left on device');
      },
    };
    const rc = new Recrawler({ dbPath: db, resolve, mappedOnly: true, now: () => t, sleep: async (ms) => void (t += ms), hooks: [failingA] });
    rc.on('warn', (w) => warns.push(`${w.code} ${w.url}`));
    try {
      const s = await rc.runDue();
      expect(s.checked).toBe(3); // the three pages fetched OK are in revisit scheduling
      expect(s.failed).toBe(1); // /a: retried after its class's min_ms, as a failed fetch
      expect(s.unchanged).toBe(2);
    } finally {
      await rc.close();
    }
    expect(warns).toContain(`E_WARC_WRITE http://${HOST}/a`);
  });
});
