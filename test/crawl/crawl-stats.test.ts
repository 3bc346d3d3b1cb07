import { describe, expect, it } from 'vitest';
import { CrawlStats } from '../../src/crawl/crawl-stats.js';

const base = { fetched: 0, relevant: 0, errors: 0, bytes: 0, known: 0, queued: 0, pruned: 0 };
const page = (newUrls: number) => ({ relevant: false, error: false, bytes: 1, newUrls, pruned: 0 });

describe('CrawlStats', () => {
  it('tracks the discovery rate over the last pages', () => {
    const s = new CrawlStats(base, () => 0, 10);
    for (let i = 0; i < 10; i++) s.page(page(4));
    for (let i = 0; i < 10; i++) s.page(page(0));
    expect(s.discoveryRate()).toBe(0);
    s.page(page(10));
    expect(s.discoveryRate()).toBeCloseTo(1);
  });

  it('warns once when discovery stays high and flat (a trap), not when it declines', () => {
    const trap = new CrawlStats(base, () => 0);
    for (let i = 0; i < 3 * CrawlStats.flatWindow; i++) trap.page(page(i % 2 ? 3 : 2));
    expect(trap.flatDiscovery()).toBeCloseTo(2.5);
    expect(trap.flatDiscovery()).toBeNull();

    const healthy = new CrawlStats(base, () => 0);
    for (let w = 0; w < 3; w++) for (let i = 0; i < CrawlStats.flatWindow; i++) healthy.page(page(6 - 2 * w));
    expect(healthy.flatDiscovery()).toBeNull();
  });
});
