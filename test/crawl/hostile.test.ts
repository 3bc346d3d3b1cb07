import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Crawler, type CrawlSummary } from '../../src/crawl/crawler.js';
import type { ExportRow } from '../../src/store/crawl-report.js';
import { openDatabase } from '../../src/store/sqlite-store.js';
import { buildConfig } from '../../src/topic/config.js';
import { readRows } from '../helpers/crawl-corpus.js';
import { GBK_TITLE, HOSTILE_SIZES, HOSTILE_URLS, JUNK_LINKS, startHostileServer, type HostileServer } from '../helpers/hostile-server.js';
import { suiteTmpDir } from '../helpers/tmp.js';

/**
 * Issue 3 point 7: one real crawl (real Crawler, undici, SQLite file, worker thread) of a hostile
 * web on loopback: slow drips and endless bodies, a gzip bomb and a 50 MB page, redirect loops,
 * binary sent as HTML, a lying charset, 429 with Retry-After, a flapping 503, connection resets and
 * malformed HTML. The crawl must finish, record every outcome, lose nothing and keep its memory
 * bounded. The crawl runs once (beforeAll); each `it` checks one aspect of it.
 */
const MAX_PAGE = 3 * 1024 ** 2; // the malformed page carries a 2 MB attribute: it must fit
const MAX_RETRIES = 2;
/**
 * The body deadline. 1.5 s was too tight on a loaded machine: with three crawls at once on two
 * cores the bomb's first 3 MiB of output took up to 2 s (20 ms alone), and timed out.
 */
const BODY_TIMEOUT = 3000;
/**
 * A guard, not a measure: past it the crawl is asked to stop, so a crawl that hangs fails the first
 * test (reason 'signal') instead of the suite. How long the crawl takes is not asserted (load moves it).
 */
const HANG_GUARD = 120_000;
/** Links read per page: above the hub's, far below links.test's 20,000. */
const MAX_LINKS = 30;
/** Measured: 75–80 MB of growth (3 MiB bodies copied to the worker, brotli, parse5 on the 2 MB attribute). */
const RSS_BOUND = 150 * 1024 ** 2;

interface UrlRow {
  id: number;
  url: string;
  state: number;
  status: number | null;
  error: string | null;
  note: string | null;
}
interface ResponseRow {
  status: number;
  charset: string | null;
  title: string | null;
  body_bytes: number;
  wire_bytes: number;
}

describe('a crawl of a hostile web', () => {
  const dir = suiteTmpDir();
  const db = join(dir, 'hostile.db');
  let srv: HostileServer;
  let summary: CrawlSummary;
  let rssBase = 0;
  let rssPeak = 0;
  let rows: Map<string, ExportRow>;
  let urls: Map<string, UrlRow>;
  let responses: Map<string, ResponseRow>;
  let linksFrom: (url: string) => number;

  /** Requests the server saw for one URL (robots.txt aside), in order. */
  const requests = (url: string) => {
    const u = new URL(url);
    return srv.log.filter((r) => r.host === u.hostname && r.path === u.pathname + u.search);
  };

  beforeAll(async () => {
    srv = await startHostileServer();
    const config = buildConfig({
      name: 'hostile', seeds: ['http://hub.test/'], keywords: { 烟草: 1, tobacco: 1 },
      strategy: { name: 'breadth-first' },
      limits: { max_page_bytes: MAX_PAGE, max_links_per_page: MAX_LINKS },
      politeness: { delay_ms: 0, concurrency: 8, robots: true, host_failure_limit: 10 },
      fetch: {
        connect_timeout_ms: 1000, headers_timeout_ms: 2000, body_timeout_ms: BODY_TIMEOUT,
        max_retries: MAX_RETRIES, retry_base_ms: 50, max_redirects: 5,
      },
    });
    const crawler = new Crawler({ config, dbPath: db, resolve: srv.resolve, mappedOnly: true, workers: 1, progressEveryMs: 100 });
    // the baseline is taken once the analysis worker has started and loaded its modules
    await new Promise((r) => setTimeout(r, 500));
    rssBase = process.memoryUsage().rss;
    rssPeak = rssBase;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 50);
    // past the bound the crawl is asked to stop (its reason is then 'signal', and the first test fails)
    const bound = setTimeout(() => crawler.stop(), HANG_GUARD);
    try {
      summary = await crawler.run();
    } finally {
      clearTimeout(bound);
      clearInterval(sampler);
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      await crawler.close();
    }
    rows = new Map(readRows(db).map((r) => [r.url, r]));
    const conn = openDatabase(db, { readonly: true });
    try {
      urls = new Map((conn.prepare('SELECT id, url, state, status, error, note FROM urls').all() as UrlRow[]).map((r) => [r.url, r]));
      responses = new Map(
        (conn.prepare('SELECT u.url, r.status, r.charset, r.title, r.body_bytes, r.wire_bytes FROM responses r JOIN urls u ON u.id = r.url_id').all() as (ResponseRow & { url: string })[]).map(
          (r) => [r.url, r],
        ),
      );
      const links = new Map((conn.prepare('SELECT from_id, COUNT(*) AS n FROM links GROUP BY from_id').all() as { from_id: number; n: number }[]).map((r) => [r.from_id, r.n]));
      linksFrom = (url) => links.get(urls.get(url)?.id ?? -1) ?? 0;
    } finally {
      conn.close();
    }
  }, HANG_GUARD + 20_000);

  afterAll(async () => {
    await srv?.close();
  });

  it('finishes by itself and leaves no stream running on the server', async () => {
    expect(summary.reason).toBe('done');
    expect(summary.suspendedHosts).toEqual([]);
    // every endless response ended because the crawler went away
    await vi.waitFor(() => expect(srv.openStreams()).toBe(0), { timeout: 2000, interval: 50 });
  });

  it('records an outcome for every URL it knows: nothing left queued or in flight', () => {
    const pending = [...urls.values()].filter((u) => u.state === 0 || u.state === 1).map((u) => u.url);
    expect(pending).toEqual([]);
    for (const url of [...Object.values(HOSTILE_URLS), ...JUNK_LINKS]) expect(rows.has(url), url).toBe(true);
  });

  it('loses nothing: the URLs requested on the wire are exactly the URLs recorded', () => {
    const seen = new Set(srv.log.filter((r) => r.path !== '/robots.txt').map((r) => `http://${r.host}${r.path}`));
    expect([...seen].sort()).toEqual([...rows.keys()].sort());
    // robots.txt once per host, never again
    const robots = srv.log.filter((r) => r.path === '/robots.txt').map((r) => r.host);
    expect(robots.sort()).toEqual([...new Set(robots)].sort());
  });

  it('keeps memory bounded: the bomb and the 50 MB page are never buffered whole', () => {
    expect(rssPeak - rssBase).toBeLessThan(RSS_BOUND);
  });

  it('cuts a slow drip and a body that never ends at the body deadline', () => {
    for (const url of [HOSTILE_URLS.drip, HOSTILE_URLS.endless]) {
      expect(rows.get(url), url).toMatchObject({ status: 200, error: 'E_BODY_TIMEOUT' });
      // the body deadline is overall, not per chunk: a byte every 200 ms does not keep it alive
      expect(responses.get(url)?.body_bytes, url).toBe(0);
      expect(requests(url).length, url).toBeGreaterThanOrEqual(1);
      expect(requests(url).length, url).toBeLessThanOrEqual(1 + MAX_RETRIES);
    }
  });

  it('stops a gzip bomb and a 50 MB page at max_page_bytes', () => {
    for (const url of [HOSTILE_URLS.bomb, HOSTILE_URLS.big, HOSTILE_URLS.bigDeclared]) {
      expect(rows.get(url), url).toMatchObject({ status: 200, error: 'E_TOO_LARGE' });
      const r = responses.get(url);
      expect(r, url).toBeDefined();
      expect(r!.body_bytes, url).toBeLessThanOrEqual(MAX_PAGE);
      expect(r!.wire_bytes, url).toBeLessThan(2 * MAX_PAGE);
      expect(requests(url), url).toHaveLength(1); // too large is final: never retried
    }
    // the bomb's first max_page_bytes of zeros are kept; the declared 50 MB is refused before reading
    expect(responses.get(HOSTILE_URLS.bomb)!.body_bytes).toBe(MAX_PAGE);
    expect(responses.get(HOSTILE_URLS.bomb)!.wire_bytes).toBeLessThan(MAX_PAGE);
    expect(responses.get(HOSTILE_URLS.big)!.body_bytes).toBe(MAX_PAGE);
    expect(responses.get(HOSTILE_URLS.bigDeclared)!.body_bytes).toBe(0);
  });

  it('follows redirect loops without fetching any URL twice', () => {
    for (const url of ['http://loop.test/a', 'http://loop.test/b', HOSTILE_URLS.loopSelf]) expect(requests(url), url).toHaveLength(1);
    expect(rows.get('http://loop.test/a')).toMatchObject({ status: 302, error: null });
    expect(rows.get('http://loop.test/b')).toMatchObject({ status: 302, error: null });
    expect(urls.get('http://loop.test/b')?.note).toMatch(/known URL/);
    expect(rows.get(HOSTILE_URLS.loopSelf)).toMatchObject({ status: 301, error: 'E_REDIRECT_LOOP' });
    // an endless chain stops at the hop cap (5): /chain/6 is refused, /chain/7 never asked for
    expect(rows.get('http://loop.test/chain/6')).toMatchObject({ status: 302, error: 'E_REDIRECT_LIMIT' });
    expect(requests('http://loop.test/chain/7')).toHaveLength(0);
    for (let i = 1; i <= 6; i++) expect(requests(`http://loop.test/chain/${i}`)).toHaveLength(1);
  });

  it('records binary data sent as text/html without crashing or finding links', () => {
    const row = rows.get(HOSTILE_URLS.binary)!;
    expect(row).toMatchObject({ status: 200, error: null });
    expect(row.relevance === null || (typeof row.relevance === 'number' && row.relevance >= 0 && row.relevance <= 1)).toBe(true);
    expect(linksFrom(HOSTILE_URLS.binary)).toBe(0);
  });

  it('decodes GBK bytes sent as charset=utf-8', () => {
    expect(rows.get(HOSTILE_URLS.charset)).toMatchObject({ status: 200, error: null });
    expect(responses.get(HOSTILE_URLS.charset)).toMatchObject({ title: GBK_TITLE, charset: 'gb18030' });
    expect(rows.get(HOSTILE_URLS.charset)!.relevant).toBe(true); // 烟草 in the decoded text
  });

  it('waits for Retry-After after a 429, then gets the page', () => {
    const reqs = requests(HOSTILE_URLS.limit);
    expect(reqs.map((r) => r.status)).toEqual([429, 200]);
    expect(reqs[1].at - reqs[0].at).toBeGreaterThanOrEqual(1000);
    expect(rows.get(HOSTILE_URLS.limit)).toMatchObject({ status: 200, error: null });
  });

  it('retries a flapping 503 until it answers 200, and says after how many attempts', () => {
    expect(requests(HOSTILE_URLS.flap).map((r) => r.status)).toEqual([503, 503, 200]);
    expect(rows.get(HOSTILE_URLS.flap)).toMatchObject({ status: 200, error: null });
    expect(urls.get(HOSTILE_URLS.flap)?.note).toEqual(expect.stringMatching(/after 3 attempts/));
  });

  it('retries a connection reset before the headers, then records E_RESET', () => {
    expect(requests(HOSTILE_URLS.resetHeaders)).toHaveLength(1 + MAX_RETRIES);
    expect(rows.get(HOSTILE_URLS.resetHeaders)).toMatchObject({ status: 0, error: 'E_RESET' });
    expect(urls.get(HOSTILE_URLS.resetHeaders)).toMatchObject({ state: 3, note: expect.stringMatching(/after 3 attempts/) });
  });

  it('retries a connection reset in the middle of the body, then records E_RESET', () => {
    expect(rows.get(HOSTILE_URLS.resetBody)).toMatchObject({ error: 'E_RESET' });
    expect(requests(HOSTILE_URLS.resetBody)).toHaveLength(1 + MAX_RETRIES);
    expect(urls.get(HOSTILE_URLS.resetBody)?.note).toEqual(expect.stringMatching(/after 3 attempts/));
  });

  it('parses malformed HTML and follows its links', () => {
    expect(rows.get(HOSTILE_URLS.junk)).toMatchObject({ status: 200, error: null });
    expect(responses.get(HOSTILE_URLS.junk)!.body_bytes).toBeGreaterThan(2 * 1024 ** 2);
    for (const url of JUNK_LINKS) expect(rows.get(url), url).toMatchObject({ status: 200, error: null });
    // a link inside a comment that never closes is not a link
    expect(requests('http://junk.test/nope')).toHaveLength(0);
  });

  it('records a 60 KB response header as an HTTP outcome, once, and goes on', () => {
    expect(rows.get(HOSTILE_URLS.hugeHeaders)).toMatchObject({ status: 0, error: 'E_HTTP' });
    expect(urls.get(HOSTILE_URLS.hugeHeaders)?.note).toMatch(/UND_ERR_HEADERS_OVERFLOW/);
    expect(requests(HOSTILE_URLS.hugeHeaders)).toHaveLength(1); // not a transient failure: never retried
  });

  it('reads the first max_links_per_page links of a page of 20,000 glued links, in order, and says so', () => {
    expect(rows.get(HOSTILE_URLS.manyLinks)).toMatchObject({ status: 200, error: null });
    expect(urls.get(HOSTILE_URLS.manyLinks)?.note).toBe(`links cut: read the first ${MAX_LINKS} of ${HOSTILE_SIZES.manyLinks} (limits.max_links_per_page)`);
    expect(linksFrom(HOSTILE_URLS.manyLinks)).toBe(MAX_LINKS);
    const asked = srv.log.filter((r) => r.host === 'links.test' && r.path !== '/' && r.path !== '/robots.txt').map((r) => r.path);
    expect(asked).toEqual(Array.from({ length: MAX_LINKS }, (_, i) => `/p${i}`)); // breadth-first: document order
  });

  it('crawls the normal pages around them', () => {
    for (const url of [HOSTILE_URLS.normal1, HOSTILE_URLS.normal2, HOSTILE_URLS.normal3]) {
      expect(rows.get(url), url).toMatchObject({ status: 200, error: null, relevant: true });
      expect(requests(url), url).toHaveLength(1);
    }
  });
});
