import { join } from 'node:path';
import { Crawler } from '../../src/crawl/crawler.js';
import { Recrawler } from '../../src/revisit/recrawl.js';
import { buildConfig, type Config } from '../../src/topic/config.js';
import type { TopicInput } from '../../src/topic/topic-schema.js';
import { startPoissonServer, type PoissonPage, type PoissonServer } from '../helpers/poisson-server.js';

export const DAY = 86_400_000;
export const HOUR = 3_600_000;

/** A test clock: sleeping advances it. */
export interface TestClock {
  t: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  slept: number[];
}

export function testClock(start: number): TestClock {
  const c: TestClock = {
    t: start,
    now: () => c.t,
    sleep: async (ms) => {
      c.slept.push(ms);
      c.t += Math.max(0, ms);
    },
    slept: [],
  };
  return c;
}

export interface RevisitWorld {
  clock: TestClock;
  server: PoissonServer;
  db: string;
  config: Config;
  resolve: Record<string, string>;
  start: number;
  /** A Recrawler on the crawl file with the test clock and the file's own recorded configuration. */
  recrawler(): Recrawler;
}

/**
 * A Poisson server on an injected clock, crawled by the real crawl loop into `dir/r.db`; the clock
 * then starts a second after the crawl (its fetch times are real time).
 */
export async function revisitWorld(
  dir: string, pages: PoissonPage[], topic: Partial<TopicInput>, opts: { seed?: number; horizonMs?: number; sitemap?: 'version' | 'now' } = {},
): Promise<RevisitWorld> {
  const start = Date.now();
  const clock = testClock(start);
  const server = await startPoissonServer({ pages, clock: clock.now, start, horizonMs: opts.horizonMs ?? 90 * DAY, seed: opts.seed ?? 1, sitemap: opts.sitemap });
  const resolve = { 'poisson.test': `127.0.0.1:${server.port}` };
  const config = buildConfig({
    name: 'revisit-test', seeds: ['http://poisson.test/'], keywords: { tobacco: 1 }, strategy: { name: 'breadth-first' },
    politeness: { delay_ms: 0, concurrency: 1, robots: true }, ...topic,
  } as TopicInput);
  const db = join(dir, 'r.db');
  const crawler = new Crawler({ config, dbPath: db, resolve, mappedOnly: true, workers: 0 });
  try {
    await crawler.run();
  } finally {
    await crawler.close();
  }
  clock.t = Date.now() + 1000;
  return {
    clock, server, db, config, resolve, start,
    recrawler: () => new Recrawler({ dbPath: db, resolve, mappedOnly: true, now: clock.now, sleep: clock.sleep }),
  };
}
