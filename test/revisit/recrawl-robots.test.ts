import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/sqlite-store.js';
import { suiteTmpDir } from '../helpers/tmp.js';
import { DAY, HOUR, revisitWorld } from './recrawl-helpers.js';

/** recrawl decides robots.txt through the crawler's own RFC 9309 matcher and fetch rules. */
describe('recrawl and robots.txt', () => {
  const dir = suiteTmpDir();

  it('normalises percent-encoding as the crawl does, and an unreachable robots.txt postpones pages without failing them', async () => {
    const world = await revisitWorld(dir, [{ path: '/private', ratePerDay: 1 }, { path: '/open', ratePerDay: 1 }], {
      revisit: {
        classes: [{ name: 'content', patterns: ['^http://poisson\\.test/[a-z]+$'], initial_ms: 6 * HOUR, min_ms: 6 * HOUR, max_ms: 2 * DAY }],
        budget_per_day: 40, min_checks: 3, max_failures: 2,
      },
    });
    const crawlEnd = world.clock.t;
    // %70 is "p": an encoded unreserved character, decoded before matching (RFC 9309 §2.2.2)
    world.server.setRobots('User-agent: *\nDisallow: /%70rivate\n');
    const first = world.recrawler();
    const s1 = await first.runDue(world.clock.t + 2 * DAY).finally(() => first.close());
    expect(s1.robotsSkipped).toBeGreaterThan(0);
    expect(world.server.requests.filter((r) => r.path === '/private' && r.at >= crawlEnd)).toHaveLength(0);
    expect(world.server.requests.filter((r) => r.path === '/open' && r.at >= crawlEnd).length).toBeGreaterThan(0);

    // the host goes away: its robots.txt cannot be fetched; pages are postponed, not failed or deleted
    await world.server.close();
    const db = openDatabase(world.db, { readonly: true });
    const checksBefore = (db.prepare('SELECT COUNT(*) AS n FROM checks').get() as { n: number }).n;
    db.close();
    const second = world.recrawler();
    const s2 = await second.runDue(world.clock.t + 2 * DAY).finally(() => second.close());
    expect(s2).toMatchObject({ checked: 0, failed: 0, deleted: 0 });
    expect(s2.robotsUnavailable).toBeGreaterThan(0);
    const after = openDatabase(world.db, { readonly: true });
    try {
      expect((after.prepare('SELECT COUNT(*) AS n FROM checks').get() as { n: number }).n).toBe(checksBefore);
      expect((after.prepare('SELECT COUNT(*) AS n FROM revisits WHERE deleted_at IS NOT NULL').get() as { n: number }).n).toBe(0);
    } finally {
      after.close();
    }
  });
});
