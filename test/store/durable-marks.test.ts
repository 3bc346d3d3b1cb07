import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UrlState } from '../../src/frontier/url-state.js';
import { CrawlFileStore } from '../../src/store/crawl-file-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import type { PageRecord } from '../../src/store/store.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * A page's durability on its own (a shared crawl confirms a page done in Redis once its record is
 * committed): not held back by the records of a later group, so that a worker killed after that
 * page's commit has not left it recorded but unconfirmed.
 */

/** Whether `p` has settled (resolved or rejected) once the microtasks and I/O now pending have run. */
async function settled(p: Promise<unknown>): Promise<'resolved' | 'rejected' | 'pending'> {
  let state: 'resolved' | 'rejected' | 'pending' = 'pending';
  p.then(() => (state = 'resolved'), () => (state = 'rejected'));
  await new Promise((r) => setImmediate(r));
  return state;
}

function page(id: number): PageRecord {
  const url = `http://a.test/${id}`;
  return {
    url: { id, url, host: { id: 1, name: 'a.test' }, depth: 0, priority: 1, life: 3, hops: 0, parentId: null, anchor: null },
    state: UrlState.FETCHED, status: 200, error: null, note: null, relevance: 1, relevant: true, contentHash: null, fetchedAt: id,
    response: null, links: [], hostCounts: null,
  };
}

describe('durability of one page in a group commit', () => {
  it('a mark waits for its own group only; without one, for the open group; a lost group rejects its mark', async () => {
    // groups end only when committed by hand here (timer 60 s, 1,000 pages)
    const file = new SqliteStore(join(tmpDir(), 'marks.db'), { commitEveryMs: 60_000, commitEveryPages: 1000 });
    const write = (k: string) => file.transaction(() => file.setMeta(k, '1'));
    write('a');
    const a = file.commitMark();
    const aDurable = file.whenCommitted(a);
    expect(await settled(aDurable)).toBe('pending'); // its group is open
    file.commit();
    expect(await settled(aDurable)).toBe('resolved');
    write('b'); // a second group opens
    const b = file.commitMark();
    expect(b).toBeGreaterThan(a);
    expect(await settled(file.whenCommitted(a))).toBe('resolved'); // a's group is committed
    const bDurable = file.whenCommitted(b);
    const all = file.whenCommitted();
    expect(await settled(bDurable)).toBe('pending');
    expect(await settled(all)).toBe('pending');
    file.commit();
    expect(await settled(bDurable)).toBe('resolved');
    expect(await settled(all)).toBe('resolved');
    // a group that SQLite rolled back: its mark is refused, not taken as committed
    write('c');
    const c = file.commitMark();
    file.db.exec('ROLLBACK');
    expect(() => file.commit()).not.toThrow();
    await expect(file.whenCommitted(c)).rejects.toMatchObject({ code: 'E_STORE' });
    file.close();
    // without group commit every write is its own transaction: its mark is committed at once
    const plain = new SqliteStore(join(tmpDir(), 'plain.db'), { commitEveryMs: 0 });
    plain.transaction(() => plain.setMeta('a', '1'));
    expect(await settled(plain.whenCommitted(plain.commitMark()))).toBe('resolved');
    plain.close();
  });

  it("a segment's page is durable once its own group is committed, whatever was recorded after it", async () => {
    const file = new SqliteStore(join(tmpDir(), 'segment.db'), { commitEveryMs: 60_000, commitEveryPages: 1000 });
    const store = new CrawlFileStore(file, { segment: true, hostId: async () => 1 });
    await store.recordPage(page(1));
    const first = store.durable(1);
    expect(await settled(first)).toBe('pending');
    file.commit();
    expect(await settled(first)).toBe('resolved');
    await store.recordPage(page(2)); // recorded in the group after it
    await store.recordPage(page(3));
    file.commit();
    await store.recordPage(page(4)); // the open group
    expect(await settled(store.durable(2))).toBe('resolved');
    const fourth = store.durable(4);
    const unknown = store.durable(99); // a page this store did not record: every record so far
    const all = store.durable();
    expect(await settled(fourth)).toBe('pending');
    expect(await settled(unknown)).toBe('pending');
    expect(await settled(all)).toBe('pending');
    expect(await settled(store.durable(3))).toBe('resolved');
    file.commit();
    for (const p of [fourth, unknown, all]) expect(await settled(p)).toBe('resolved');
    await store.close();
  });
});
