import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Crawler } from '../../src/crawl/crawler.js';
import type { HookItem, PageHook } from '../../src/crawl/crawl-types.js';
import { Recrawler } from '../../src/revisit/recrawl.js';
import { buildConfig } from '../../src/topic/config.js';
import { startPoissonServer } from '../helpers/poisson-server.js';
import { tmpDir } from '../helpers/tmp.js';

/** A per-page output is one hook on the pipeline: the crawl and the recrawl call it for every fetch and every record. */
describe('pipeline hooks', () => {
  it('hear every fetch and every recorded page of a crawl, then every check of a recrawl', async () => {
    const start = Date.now();
    let t = start;
    const server = await startPoissonServer({
      pages: [{ path: '/a', ratePerDay: 50 }, { path: '/b', ratePerDay: 0 }, { path: '/c', ratePerDay: 50 }],
      clock: () => t, start, horizonMs: 30 * 86_400_000, seed: 3,
    });
    const resolve = { 'poisson.test': `127.0.0.1:${server.port}` };
    const fetched: string[] = [];
    const recorded: string[] = [];
    const hook: PageHook = {
      fetched: (item: HookItem, res) => void fetched.push(`${item.url} ${res.status}`),
      recorded: (item, what) => void recorded.push(`${item.url} ${'page' in what ? `page ${what.page.status}` : `check ${what.check.outcome}`}`),
    };
    const config = buildConfig({
      name: 'hooks', seeds: ['http://poisson.test/'], keywords: { tobacco: 1 }, strategy: { name: 'breadth-first' },
      politeness: { delay_ms: 0, concurrency: 2, robots: true },
    });
    const db = join(tmpDir(), 'h.db');
    try {
      const crawler = new Crawler({ config, dbPath: db, resolve, mappedOnly: true, workers: 0, hooks: [hook] });
      let pages = 0;
      crawler.on('page', () => pages++);
      try {
        await crawler.run();
      } finally {
        await crawler.close();
      }
      expect(pages).toBeGreaterThanOrEqual(4); // the index and its three pages
      expect(fetched).toHaveLength(pages);
      expect(recorded).toHaveLength(pages);
      expect(recorded.every((r) => r.includes(' page '))).toBe(true);
      fetched.length = recorded.length = 0;

      t = Date.now() + 40 * 86_400_000; // every page is due
      const rc = new Recrawler({ dbPath: db, resolve, mappedOnly: true, now: () => t, sleep: async (ms) => void (t += ms), hooks: [hook] });
      let checks = 0;
      rc.on('check', () => checks++);
      try {
        const s = await rc.runDue();
        expect(s.checked).toBe(checks);
      } finally {
        await rc.close();
      }
      expect(checks).toBeGreaterThanOrEqual(4);
      expect(fetched).toHaveLength(checks);
      expect(recorded.filter((r) => r.includes(' check '))).toHaveLength(checks);
    } finally {
      await server.close();
    }
  });
});
