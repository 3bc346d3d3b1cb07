import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { intakeLinks } from '../../src/crawl/link-intake.js';
import type { AnalyzedLink } from '../../src/crawl/page-analysis.js';
import { queueAsSeeds } from '../../src/crawl/seeds.js';
import { EmbeddedFrontier } from '../../src/frontier/embedded-frontier.js';
import { SqliteFrontier } from '../../src/frontier/sqlite-frontier.js';
import { UrlState } from '../../src/frontier/url-state.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { createStrategy } from '../../src/strategy/registry.js';
import { inlinkContribution, type PageInfo } from '../../src/strategy/strategy.js';
import { hostKey } from '../../src/url/host.js';
import { urlHash } from '../../src/url/url-hash.js';
import { strategyConfig } from '../helpers/strategy-config.js';
import { suiteTmpDir } from '../helpers/tmp.js';

const tmp = suiteTmpDir('inlink-evidence');

function link(url: string, anchorScore = 0, contextScore = 0): AnalyzedLink {
  return { url, hash: new Uint8Array(urlHash(url)), host: hostKey(url), anchor: url.slice(-1), anchorScore, contextScore, location: Number.NaN };
}

describe('backlink evidence (IB of best-first)', () => {
  it('one link gives the best of parent relevance, anchor relevance and half the context relevance', () => {
    expect(inlinkContribution(0.7, { anchorScore: 0.2, contextScore: 0.9 })).toBeCloseTo(0.7);
    expect(inlinkContribution(0.1, { anchorScore: 0.6, contextScore: 0.9 })).toBeCloseTo(0.6);
    expect(inlinkContribution(0.1, { anchorScore: 0, contextScore: 0.9 })).toBeCloseTo(0.45);
    expect(inlinkContribution(null)).toBe(0);
  });

  it('through the real intake path: the best backlink counts, not the number of backlinks', async () => {
    const store = new SqliteStore(join(tmp, 'evidence.db'));
    try {
      const local = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 8 });
      const frontier = new EmbeddedFrontier(local, { maxPages: Infinity, maxPagesPerHost: Infinity, counted: 0, hostCounted: new Map() });
      const strategy = createStrategy('best-first', strategyConfig({ x: 1, y: 0, z: 0 }));
      const hub = 'http://nav.test/';
      const nav = 'http://nav.test/about'; // linked from every off-topic page
      const good = 'http://a.test/on-topic'; // linked once, from an on-topic page
      const anchored = 'http://b.test/anchored'; // linked once, from an off-topic page, with an on-topic anchor
      await queueAsSeeds(frontier, strategy, [{ url: hub, depth: 0, note: null }]);
      const offTopic = (i: number): PageInfo => ({ id: 1000 + i, url: `${hub}p${i}`, depth: 1, life: 3, priority: 0, relevance: 0.1, relevant: false });
      for (let i = 0; i < 6; i++) await intakeLinks({ frontier, strategy, maxDepth: 9 }, offTopic(i), [link(nav)]);
      await intakeLinks({ frontier, strategy, maxDepth: 9 }, { ...offTopic(7), relevance: 0.8, relevant: true }, [link(good)]);
      await intakeLinks({ frontier, strategy, maxDepth: 9 }, offTopic(8), [link(anchored, 0.6, 0.2)]);
      const row = (url: string) => store.db.prepare('SELECT inlinks, inlink_score, priority, state FROM urls WHERE url = ?').get(url) as {
        inlinks: number; inlink_score: number; priority: number; state: number;
      };
      expect(row(nav)).toMatchObject({ inlinks: 6, state: UrlState.QUEUED });
      expect(row(nav).inlink_score).toBeCloseTo(0.1);
      expect(row(good).inlink_score).toBeCloseTo(0.8);
      expect(row(anchored).inlink_score).toBeCloseTo(0.6);
      // with x = 1 the priority is IB itself: the on-topic parent and the on-topic anchor outrank six off-topic parents
      expect(row(good).priority).toBeGreaterThan(row(anchored).priority);
      expect(row(anchored).priority).toBeGreaterThan(row(nav).priority);
      await frontier.close();
    } finally {
      store.close();
    }
  });
});
