import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatExplanation } from '../../src/cli/explain-command.js';
import { Crawler } from '../../src/crawl/crawler.js';
import type { PageEvent } from '../../src/events.js';
import { explainPriority } from '../../src/cli/explain-report.js';
import { openDatabase } from '../../src/store/sqlite-store.js';
import { buildConfig } from '../../src/topic/config.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * limits.max_links_per_page (issue 12 item 5): a page with more links than the cap gives the frontier
 * its first N links in document order, and says so in its stored note, in `explain` and in its page
 * event. Pages are served by a real server on 127.0.0.1; the crawl is the real loop into a SQLite file.
 */
const CAP = 40;
/** Links glued with no whitespace between them; /p7 is repeated after the cap (it stays one link). */
const gluedPage = (n: number) =>
  `<!doctype html><html><head><title>many</title></head><body>${Array.from({ length: n }, (_, i) => `<a href="/p${i}">p${i}</a>`).join('')}<a href="/p7">again</a></body></html>`;

describe('limits.max_links_per_page', () => {
  let port = 0;
  const server = createServer((req, res) => {
    const n = Number(/^\/page(\d+)$/.exec(req.url ?? '')?.[1] ?? NaN);
    if (Number.isNaN(n)) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(gluedPage(n));
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  /** Crawls one page of `n` links (budget 1 page) and returns what was recorded about it. */
  async function crawlPage(n: number, cap?: number) {
    const db = join(tmpDir(), 'cap.db');
    const seed = `http://many.test/page${n}`;
    const config = buildConfig({
      name: 'cap', seeds: [seed], strategy: { name: 'breadth-first' },
      politeness: { delay_ms: 0, robots: false }, limits: { max_pages: 1, ...(cap === undefined ? {} : { max_links_per_page: cap }) },
    });
    const crawler = new Crawler({ config, dbPath: db, resolve: { 'many.test': `127.0.0.1:${port}` }, mappedOnly: true, workers: 0 });
    const events: PageEvent[] = [];
    crawler.on('page', (e) => events.push(e));
    await crawler.run();
    await crawler.close();
    const conn = openDatabase(db, { readonly: true });
    try {
      const page = conn.prepare('SELECT id, note FROM urls WHERE url = ?').get(seed) as { id: number; note: string | null };
      // URLs get ids in the order they are discovered: document order
      const linked = (conn.prepare('SELECT u.url FROM links l JOIN urls u ON u.id = l.to_id WHERE l.from_id = ? ORDER BY u.id').all(page.id) as { url: string }[]).map((r) => r.url);
      const known = (conn.prepare('SELECT COUNT(*) AS n FROM urls').get() as { n: number }).n;
      const explained = formatExplanation(explainPriority(conn, seed)!);
      return { note: page.note, linked, known, events, explained };
    } finally {
      conn.close();
    }
  }

  const urls = (n: number) => Array.from({ length: n }, (_, i) => `http://many.test/p${i}`);

  it('keeps the first N links in document order and records the cut in the note, the page event and explain', async () => {
    const r = await crawlPage(100, CAP);
    expect(r.linked).toEqual(urls(CAP));
    expect(r.known).toBe(1 + CAP); // the page and its first CAP links: nothing past the cap reached the frontier
    expect(r.note).toBe(`links cut: read the first ${CAP} of 101 (limits.max_links_per_page)`);
    expect(r.events).toHaveLength(1);
    expect(r.events[0].linksCut).toEqual({ kept: CAP, found: 101 });
    expect(r.explained).toMatch(new RegExp(`^note +links cut: read the first ${CAP} of 101`, 'm'));
  });

  it('cuts nothing and says nothing at or under the cap', async () => {
    const r = await crawlPage(CAP - 1, CAP); // CAP - 1 links plus the repeat of /p7: exactly CAP link elements
    expect(r.linked).toEqual(urls(CAP - 1));
    expect(r.note).toBeNull();
    expect(r.events[0].linksCut).toBeUndefined();
  });

  it('has a default in the thousands', async () => {
    const r = await crawlPage(6000);
    expect(r.linked).toEqual(urls(5000));
    expect(r.events[0].linksCut).toEqual({ kept: 5000, found: 6001 });
  });
});
