import { BandIndex } from '../dedup/band-index.js';
import type { NearDupIndex } from '../dedup/near-dup-index.js';
import { fingerprintOf } from '../dedup/simhash.js';
import type { Store } from '../store/store.js';

/**
 * The near-duplicate index a crawl starts with: the fingerprints its crawl file holds, in fetch
 * order (none in a fresh file). This is what makes detection survive a resume, `kill -9` included:
 * the index lives in memory and the file is its truth. A segment of a shared crawl holds only its
 * worker's pages, so each worker finds near-duplicates among the pages it fetched itself (README).
 */
export async function nearDupIndexOf(store: Store, maxDistance: number): Promise<NearDupIndex> {
  const index = new BandIndex(maxDistance);
  for (const f of await store.fingerprints()) {
    if (f.simhash.length === 8) index.add(f.id, fingerprintOf(f.simhash));
  }
  return index;
}
