import { afterEach, describe, expect, it } from 'vitest';
import { formatRecrawlSummary } from '../../src/cli/recrawl-command.js';
import { openDatabase } from '../../src/store/sqlite-store.js';
import { MIN_WRONG } from '../../src/revisit/sitemap-signals.js';
import type { PoissonPage } from '../helpers/poisson-server.js';
import { tmpDir } from '../helpers/tmp.js';
import { DAY, HOUR, revisitWorld, type RevisitWorld } from './recrawl-helpers.js';

/**
 * Sitemap <lastmod> as a change signal: pages whose own schedule would not bring them back for
 * 10 days are revisited within one sitemap interval of each change; a sitemap that stamps every
 * URL with the time of the request stops being listened to after it was wrong MIN_WRONG times.
 */
const INTERVAL = 2 * HOUR;
const topic = (sitemapInterval: number) => ({
  politeness: { delay_ms: 0, concurrency: 1, robots: true },
  revisit: {
    // the schedule alone: a revisit every 10 days (min_checks so high that no estimate changes that)
    classes: [{ name: 'content', patterns: ['/p\\d+$'], initial_ms: 10 * DAY, min_ms: HOUR, max_ms: 20 * DAY }],
    budget_per_day: 100, min_checks: 1000, max_failures: 3, sitemap_interval_ms: sitemapInterval,
  },
});

type Check = { url: string; at: number; outcome: string };

function checksOf(world: RevisitWorld): Check[] {
  const db = openDatabase(world.db, { readonly: true });
  try {
    return db.prepare("SELECT u.url, c.at, c.outcome FROM checks c JOIN urls u ON u.id = c.url_id WHERE u.url GLOB 'http://poisson.test/p[0-9]*' ORDER BY c.at").all() as Check[];
  } finally {
    db.close();
  }
}

describe('recrawl: sitemap lastmod brings revisits forward', () => {
  let world: RevisitWorld | undefined;
  afterEach(async () => world?.server.close());

  it('revisits a page within one sitemap interval of each change, and each such check finds the change', async () => {
    const pages: PoissonPage[] = [{ path: '/p1', ratePerDay: 2 }, { path: '/p2', ratePerDay: 0.7 }, { path: '/p3', ratePerDay: 0 }];
    world = await revisitWorld(tmpDir(), pages, topic(INTERVAL), { seed: 9, sitemap: 'version' });
    world.server.setRobots('User-agent: *\nAllow: /\nSitemap: http://poisson.test/sitemap.xml\n');
    const from = world.clock.t;
    const rc = world.recrawler();
    let summary;
    try {
      summary = await rc.runDue(from + 5 * DAY);
    } finally {
      await rc.close();
    }
    const checks = checksOf(world);
    // every check came from a signal (the schedule had none due) and found the page changed
    expect(checks.length).toBeGreaterThan(3);
    expect(checks.every((c) => c.outcome === 'changed')).toBe(true);
    expect(summary.sitemapSignals).toBe(checks.length);
    expect(summary.sitemapConfirmed).toBe(checks.length);
    expect(summary.sitemapsRead).toBeGreaterThanOrEqual(Math.floor((5 * DAY) / INTERVAL));
    expect(formatRecrawlSummary(summary)).toContain(
      `sitemaps           ${summary.sitemapsRead} read; ${checks.length} pages brought forward by their lastmod, ${checks.length} found changed`,
    );
    expect(checks.some((c) => c.url.endsWith('/p3'))).toBe(false); // it never changes
    for (const p of ['/p1', '/p2']) {
      const at = checks.filter((c) => c.url.endsWith(p)).map((c) => c.at);
      // each change (but the last interval's) is followed by a check within the interval
      for (const t of world.server.changeTimes(p).filter((x) => x > from && x < from + 5 * DAY - INTERVAL)) {
        expect(at.some((a) => a > t && a <= t + INTERVAL + 60_000), `${p} changed at +${((t - from) / HOUR).toFixed(1)} h`).toBe(true);
      }
    }
  }, 60_000);

  it('stops listening to a sitemap whose lastmod is always now, after a few checks, and remembers it in the next run', async () => {
    const pages: PoissonPage[] = Array.from({ length: 8 }, (_, i) => ({ path: `/p${i + 1}`, ratePerDay: 0 }));
    world = await revisitWorld(tmpDir(), pages, topic(HOUR), { seed: 3, sitemap: 'now' });
    world.server.setRobots('User-agent: *\nAllow: /\nSitemap: http://poisson.test/sitemap.xml\n');
    const run = async (until: number) => {
      const rc = world!.recrawler();
      try {
        return await rc.runDue(until);
      } finally {
        await rc.close();
      }
    };
    const first = await run(world.clock.t + 2 * DAY);
    // an unproven host gets MIN_WRONG pages brought forward per read; their checks find nothing new
    // (304s), the host is not believed any more, and the 47 later reads bring nothing forward
    expect(first.sitemapsRead).toBeGreaterThanOrEqual(48);
    expect(first.sitemapSignals).toBe(MIN_WRONG);
    expect(first.sitemapConfirmed).toBe(0);
    expect(checksOf(world).every((c) => c.outcome === 'not_modified')).toBe(true);
    expect(checksOf(world)).toHaveLength(MIN_WRONG);
    // a new run (a new process) still does not believe it
    const second = await run(world.clock.t + DAY);
    expect(second.sitemapsRead).toBeGreaterThanOrEqual(24);
    expect(second.sitemapSignals).toBe(0);
    expect(checksOf(world)).toHaveLength(MIN_WRONG);
  }, 60_000);

  it('keeps the interval across runs: a recrawl started again soon does not read the sitemaps again', async () => {
    world = await revisitWorld(tmpDir(), [{ path: '/p1', ratePerDay: 1 }], topic(INTERVAL), { seed: 6, sitemap: 'version' });
    world.server.setRobots('User-agent: *\nAllow: /\nSitemap: http://poisson.test/sitemap.xml\n');
    const run = async () => {
      const rc = world!.recrawler();
      try {
        return await rc.runDue();
      } finally {
        await rc.close();
      }
    };
    expect((await run()).sitemapsRead).toBe(1);
    world.clock.t += INTERVAL / 2;
    expect((await run()).sitemapsRead).toBe(0);
    world.clock.t += INTERVAL / 2;
    expect((await run()).sitemapsRead).toBe(1);
    expect(world.server.requests.filter((r) => r.path === '/sitemap.xml')).toHaveLength(2);
  }, 60_000);

  it('reads no sitemap when sitemap_interval_ms is 0', async () => {
    world = await revisitWorld(tmpDir(), [{ path: '/p1', ratePerDay: 5 }], topic(0), { seed: 4, sitemap: 'version' });
    world.server.setRobots('User-agent: *\nAllow: /\nSitemap: http://poisson.test/sitemap.xml\n');
    const rc = world.recrawler();
    let summary;
    try {
      summary = await rc.runDue(world.clock.t + DAY);
    } finally {
      await rc.close();
    }
    expect(summary.sitemapsRead).toBe(0);
    expect(world.server.requests.some((r) => r.path === '/sitemap.xml')).toBe(false);
    expect(checksOf(world)).toHaveLength(0);
  }, 60_000);
});
