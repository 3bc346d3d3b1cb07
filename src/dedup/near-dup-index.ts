import type { Fingerprint } from './simhash.js';

/** A page an index found within the distance: its id and how many bits its fingerprint differs. */
export interface NearDupMatch {
  id: number;
  distance: number;
}

/**
 * The SimHash fingerprints of the pages a crawl fetched, for near-duplicate lookups.
 *
 * Contract:
 * - {@link NearDupIndex.find} returns a page added before whose fingerprint is within
 *   `maxDistance` bits (Hamming distance) of the one given, or null when there is none: never a
 *   page further away, and never null while one within the distance was added (exact, no
 *   sampling). Of several, the nearest; of equally near ones, the one added first.
 * - `self` leaves out the page's own entry (a page fetched again: a lease that expired, a resume).
 * - {@link NearDupIndex.add} makes a page findable at once; adding the same id again adds a second
 *   entry (harmless: the first one is found first).
 * - In memory only: the crawl rebuilds it from the crawl file when it starts (`urls.simhash` of the
 *   fetched pages, in fetch order), so a resume after `kill -9` finds what the file holds.
 */
export interface NearDupIndex {
  readonly maxDistance: number;
  /** Entries added. */
  readonly size: number;
  find(f: Fingerprint, self?: number): NearDupMatch | null;
  add(id: number, f: Fingerprint): void;
}
