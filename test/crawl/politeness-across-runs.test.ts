import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startPoissonServer } from '../helpers/poisson-server.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpDir } from '../helpers/tmp.js';

const DAY = 86_400_000;
const DELAY = 500;

/** A topic of the one host of the Poisson server, robots.txt off, every page due for revisiting at once. */
function writeTopic(dir: string): string {
  const topic = join(dir, 'topic.yaml');
  writeFileSync(
    topic,
    [
      'name: across-runs',
      'seeds: ["http://poisson.test/"]',
      'keywords: { tobacco: 1 }',
      `politeness: { delay_ms: ${DELAY}, robots: false }`,
      'revisit:',
      '  classes:',
      '    - { name: content, patterns: [".*"], initial_ms: 1, min_ms: 1, max_ms: 1 }',
      '',
    ].join('\n'),
  );
  return topic;
}

/** Smallest gap (ms) between two consecutive arrivals at one host, over every host. */
function smallestGap(arrivals: { host: string; at: number }[]): number {
  const byHost = new Map<string, number[]>();
  for (const a of arrivals) byHost.set(a.host, [...(byHost.get(a.host) ?? []), a.at]);
  let min = Infinity;
  for (const times of byHost.values()) {
    times.sort((a, b) => a - b);
    for (let i = 1; i < times.length; i++) min = Math.min(min, times[i] - times[i - 1]);
  }
  return min;
}

/**
 * The politeness delay holds from one run to the next on the same crawl file: a run started right
 * after another (a resumed crawl, a recrawl from cron) does not ask a host again before the delay
 * after the previous run's last request to it. Shown from the servers' own arrival times.
 */
describe('politeness across runs', () => {
  it('a crawl resumed at once waits the delay after the last run\'s request to the host', async () => {
    const dir = tmpDir();
    const server = await startPoissonServer({ pages: ['/a', '/b', '/c'].map((path) => ({ path, ratePerDay: 0 })), clock: Date.now, start: Date.now(), horizonMs: DAY });
    try {
      const topic = writeTopic(dir);
      const db = join(dir, 'c.db');
      const resolve = `poisson.test=127.0.0.1:${server.port}`;
      for (const max of ['2', '4']) expect((await runCli(['crawl', topic, '--db', db, '--resolve', resolve, '--max-pages', max, '--json'])).code).toBe(0);
      expect(server.requests.map((r) => r.path).sort()).toEqual(['/', '/a', '/b', '/c']);
      expect(smallestGap(server.requests.map((r) => ({ host: 'poisson.test', at: r.at })))).toBeGreaterThanOrEqual(DELAY - 2);
    } finally {
      await server.close();
    }
  });

  it('crawl, then recrawl twice at once: every request to the host one delay after the one before', async () => {
    const dir = tmpDir();
    const server = await startPoissonServer({ pages: ['/a', '/b'].map((path) => ({ path, ratePerDay: 0 })), clock: Date.now, start: Date.now(), horizonMs: DAY });
    try {
      const topic = writeTopic(dir);
      const db = join(dir, 'r.db');
      const resolve = `poisson.test=127.0.0.1:${server.port}`;
      expect((await runCli(['crawl', topic, '--db', db, '--resolve', resolve, '--json'])).code).toBe(0);
      const afterCrawl = server.requests.length;
      for (let i = 0; i < 2; i++) expect((await runCli(['recrawl', db, '--resolve', resolve, '--json'])).code).toBe(0);
      expect(afterCrawl).toBe(3);
      expect(server.requests.length).toBe(afterCrawl + 2 * 3); // each recrawl checked the 3 pages
      expect(smallestGap(server.requests.map((r) => ({ host: 'poisson.test', at: r.at })))).toBeGreaterThanOrEqual(DELAY - 2);
    } finally {
      await server.close();
    }
  });
});
