import { describe, expect, it } from 'vitest';
import { segmentCommitMs } from '../../src/crawl/shared-backend.js';
import { DEFAULT_LEASE_MS } from '../../src/frontier/redis-frontier-options.js';
import { COMMIT_EVERY_MS } from '../../src/store/sqlite-store.js';

/**
 * A worker of a shared crawl confirms a page's lease only once the page's commit group is in its
 * segment: its groups must be well within the lease, or held leases expire and others fetch the
 * pages again.
 */
describe('a segment commit group', () => {
  it("is one process's group under the default lease, and at most a quarter of a shorter lease", () => {
    expect(segmentCommitMs()).toBe(Math.min(COMMIT_EVERY_MS, DEFAULT_LEASE_MS / 4));
    expect(segmentCommitMs()).toBe(COMMIT_EVERY_MS);
    expect(segmentCommitMs(3000)).toBe(750);
    expect(segmentCommitMs(3000)).toBeLessThan(3000 / 2);
    expect(segmentCommitMs(4 * COMMIT_EVERY_MS + 4)).toBe(COMMIT_EVERY_MS);
    expect(segmentCommitMs(2)).toBeGreaterThanOrEqual(1);
  });
});
