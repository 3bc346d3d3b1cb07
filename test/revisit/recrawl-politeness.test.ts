import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/sqlite-store.js';
import { tmpDir } from '../helpers/tmp.js';
import { DAY, HOUR, revisitWorld, type RevisitWorld } from './recrawl-helpers.js';

/** Politeness on the test clock: the pages of one host, all due together, go one delay apart. */
describe('recrawl politeness', () => {
  let world: RevisitWorld;
  afterAll(async () => world?.server.close());

  it('spaces requests to a host by the delay (sleeping advances the injected clock), most overdue first', async () => {
    const DELAY = 10 * 60_000;
    world = await revisitWorld(tmpDir(), ['/a', '/b', '/c', '/d'].map((path) => ({ path, ratePerDay: 0 })), {
      politeness: { delay_ms: 0, concurrency: 4, robots: false },
      revisit: { classes: [{ name: 'content', patterns: ['.'], initial_ms: HOUR, min_ms: HOUR, max_ms: DAY }], budget_per_day: 100, min_checks: 3, max_failures: 3 },
    });
    // the crawl ran without delay; its recorded configuration now asks for one
    const conn = openDatabase(world.db);
    const cfg = JSON.parse((conn.prepare("SELECT value FROM meta WHERE key = 'config'").get() as { value: string }).value);
    cfg.politeness.delay_ms = DELAY;
    conn.prepare("UPDATE meta SET value = ? WHERE key = 'config'").run(JSON.stringify(cfg));
    conn.close();
    const start = world.clock.t + HOUR; // every page is due
    world.clock.t = start;
    const rc = world.recrawler();
    let summary;
    try {
      summary = await rc.runDue();
    } finally {
      await rc.close();
    }
    // "due now" means due at the start: all 5 pages, though the run took 4 delays
    expect(summary.checked).toBe(5);
    const db = openDatabase(world.db, { readonly: true });
    try {
      const rows = db.prepare('SELECT c.at, v.first_check_at FROM checks c JOIN revisits v ON v.url_id = c.url_id ORDER BY c.at').all() as { at: number; first_check_at: number }[];
      expect(rows).toHaveLength(5);
      expect(rows[0].at).toBe(start);
      for (let i = 1; i < rows.length; i++) expect(rows[i].at - rows[i - 1].at).toBeGreaterThanOrEqual(DELAY);
      // the page fetched first by the crawl was the most overdue, and is checked first
      const firsts = rows.map((r) => r.first_check_at);
      expect(firsts).toEqual([...firsts].sort((a, b) => a - b));
    } finally {
      db.close();
    }
    expect(world.clock.t - start).toBeGreaterThanOrEqual(4 * DELAY);
    expect(world.clock.slept.length).toBeGreaterThanOrEqual(4);
  }, 30_000);
});
