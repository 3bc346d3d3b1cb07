import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EmbeddedFrontier } from '../../src/frontier/embedded-frontier.js';
import type { Frontier, Lease, NewUrl } from '../../src/frontier/frontier.js';
import { SqliteFrontier } from '../../src/frontier/sqlite-frontier.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { urlHash } from '../../src/url/url-hash.js';
import { testCrawl } from '../helpers/redis.js';
import { tmpDir } from '../helpers/tmp.js';

const DELAY = 60_000; // long: a host put to sleep stays asleep however slow the machine

function url(u: string, priority: number): NewUrl {
  return { hash: urlHash(u), url: u, host: new URL(u).host, depth: 0, priority, life: 3, parentId: null, anchor: null };
}

/**
 * The same story on both frontiers: a (2 URLs) and c (1) are handed out, b, d, e wait; then a's
 * and c's pages are done (a sleeps its delay with one URL left, c has none), and d is suspended.
 */
async function story(f: Frontier): Promise<unknown[]> {
  const seen: unknown[] = [];
  await f.intake({ adds: [url('http://a.test/1', 9), url('http://a.test/2', 9), url('http://c.test/1', 8), url('http://b.test/1', 1), url('http://b.test/2', 1), url('http://d.test/1', 1), url('http://d.test/2', 1), url('http://e.test/1', 1)] });
  seen.push(await f.hostStates(Date.now()));
  const claim = await f.claim(2, Date.now());
  expect(claim.kind).toBe('urls');
  const leases = (claim as { leases: Lease[] }).leases;
  expect(leases.map((l) => l.url).sort()).toEqual(['http://a.test/1', 'http://c.test/1']);
  seen.push(await f.hostStates(Date.now())); // a and c in flight: neither waits nor sleeps
  for (const l of leases) await f.settle(l, { state: 'done' }, Date.now());
  seen.push(await f.hostStates(Date.now()));
  await f.suspendHost(await f.hostId('d.test'));
  seen.push(await f.hostStates(Date.now()));
  return seen;
}

const EXPECTED = [
  { waiting: 5, sleeping: 0, suspended: 0 },
  { waiting: 3, sleeping: 0, suspended: 0 },
  { waiting: 3, sleeping: 1, suspended: 0 },
  { waiting: 2, sleeping: 1, suspended: 1 },
];

describe('Frontier.hostStates', () => {
  it('embedded (SQLite): hosts waiting, sleeping and suspended', async () => {
    const store = new SqliteStore(join(tmpDir(), 'h.db'));
    try {
      const local = new SqliteFrontier(store.db, { delayMs: DELAY, perHostConcurrency: 1 });
      const f = new EmbeddedFrontier(local, { maxPages: Infinity, maxPagesPerHost: Infinity, counted: 0, hostCounted: new Map() });
      expect(await story(f)).toEqual(EXPECTED);
      // the server's clock is not the embedded frontier's: `now` decides who sleeps
      expect(await f.hostStates(Date.now() + 2 * DELAY)).toEqual({ waiting: 3, sleeping: 0, suspended: 1 });
      await f.close();
    } finally {
      store.close();
    }
  });

  it('shared (Redis): the same, from the server, whichever worker asks', async () => {
    const crawl = testCrawl('hoststates');
    const f = await crawl.open({ delayMs: DELAY, perHostConcurrency: 1 });
    expect(await story(f)).toEqual(EXPECTED);
    const other = await crawl.open({ delayMs: DELAY, perHostConcurrency: 1 });
    expect(await other.hostStates(0)).toEqual(EXPECTED[3]);
    // suspending a host twice counts it once
    await other.suspendHost(await other.hostId('d.test'));
    expect(await f.hostStates(0)).toEqual(EXPECTED[3]);
  });
});
