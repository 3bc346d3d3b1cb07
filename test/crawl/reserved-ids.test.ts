import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { intakeLinks } from '../../src/crawl/link-intake.js';
import type { AnalyzedLink } from '../../src/crawl/page-analysis.js';
import type { IntakeBatch, IntakeResult } from '../../src/frontier/frontier.js';
import { UrlState } from '../../src/frontier/url-state.js';
import { CrawlFileStore } from '../../src/store/crawl-file-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { createStrategy } from '../../src/strategy/registry.js';
import type { PageInfo } from '../../src/strategy/strategy.js';
import { urlHash } from '../../src/url/url-hash.js';
import { testCrawl } from '../helpers/redis.js';
import { strategyConfig } from '../helpers/strategy-config.js';
import { tmpDir } from '../helpers/tmp.js';

function link(url: string): AnalyzedLink {
  return { url, hash: urlHash(url), host: new URL(url).host, anchor: `to ${url}`, anchorScore: 0, contextScore: 0, location: Number.NaN };
}

// (an id no worker reserves in these tests: blocks start at 1)
const page: PageInfo = { id: 1_000_000, url: 'http://a.test/', depth: 0, life: 3, priority: 1, relevance: 1, relevant: true };

describe('ids reserved by a worker of a shared crawl', () => {
  it("gives a page's new links their ids before the intake answers, the ids the frontier queues them under", async () => {
    const crawl = testCrawl();
    const f = await crawl.open();
    await f.intake({ adds: [{ hash: urlHash(page.url), url: page.url, host: 'a.test', depth: 0, priority: 1, life: 3, parentId: null, anchor: null }] });
    // the frontier's answer is held back until released: intakeLinks must not wait for it
    const intake = f.intake.bind(f);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    f.intake = (b: IntakeBatch): Promise<IntakeResult> => {
      const sent = intake(b);
      return held.then(() => sent);
    };
    const found = ['http://a.test/1', 'http://b.test/1', 'http://a.test/2'].map(link);
    const out = await intakeLinks({ frontier: f, strategy: createStrategy('breadth-first', strategyConfig()), maxDepth: 5 }, page, found);
    const ids = out.links.map((l) => l.toId);
    expect(new Set(ids).size).toBe(3);
    expect([...ids].sort((x, y) => x - y)).toEqual(ids); // increasing, in the page's order
    release();
    expect(await out.answer).toEqual({ added: 3, pruned: 0, relinked: [] });
    const known = await f.known(found.map((l) => ({ hash: Buffer.from(l.hash), host: l.host })));
    expect(found.map((l) => known.get(Buffer.from(l.hash).toString('hex'))?.id)).toEqual(ids);
  });

  it('corrects a link whose URL another worker added first: the answer names both ids, the segment points to the real one', async () => {
    const crawl = testCrawl();
    const a = await crawl.open({ workerId: 'a' });
    const b = await crawl.open({ workerId: 'b' });
    const target = link('http://c.test/shared');
    const other = link('http://c.test/mine');
    // worker a looks its links up; worker b adds one of them before a's intake
    const lookup = a.known([target, other].map((l) => ({ hash: Buffer.from(l.hash), host: l.host })));
    await lookup;
    const byB = await b.intake({ adds: [{ hash: Buffer.from(target.hash), url: target.url, host: 'c.test', depth: 1, priority: 0, life: 3, parentId: null, anchor: null }] });
    const out = await intakeLinks({ frontier: a, strategy: createStrategy('breadth-first', strategyConfig()), maxDepth: 5 }, page, [target, other], lookup);
    const reserved = out.links[0].toId;
    const answer = await out.answer;
    expect(reserved).not.toBe(byB.ids[0]);
    expect(answer).toEqual({ added: 1, pruned: 0, relinked: [{ from: reserved, to: byB.ids[0] }] });
    expect(await a.size()).toBe(2);

    // the segment recorded the page with the reserved id, then corrects it
    const file = new SqliteStore(join(tmpDir(), 'segment.db'));
    const store = new CrawlFileStore(file, { segment: true, hostId: (name) => a.hostId(name) });
    await store.recordPage({
      url: { id: page.id, url: page.url, host: { id: await a.hostId('a.test'), name: 'a.test' }, depth: 0, priority: 1, life: 3, hops: 0, parentId: null, anchor: null },
      state: UrlState.FETCHED, status: 200, error: null, note: null, relevance: 1, relevant: true, contentHash: null, fetchedAt: 1,
      response: null, links: out.links, hostCounts: null,
    });
    await store.relinkTargets(page.id, answer.relinked);
    const linked = file.db.prepare('SELECT to_id AS id FROM links WHERE from_id = ? ORDER BY to_id').all(page.id) as { id: number }[];
    expect(linked.map((r) => r.id)).toEqual([byB.ids[0], out.links[1].toId].sort((x, y) => x - y));
    const rows = file.db.prepare('SELECT id, url FROM urls WHERE id IN (?, ?)').all(reserved, byB.ids[0]) as { id: number; url: string }[];
    expect(rows).toEqual([{ id: byB.ids[0], url: target.url }]);
    await store.close();
  });
});
