/**
 * The shingle sizes of near-duplicate detection, apart from the hashing itself (shingles.ts): the
 * crawl's settings need the defaults on the main thread, where nothing is shingled and loading
 * shingles.ts would load the xxHash native module and allocate its memo tables for nothing.
 */

/** Shingle sizes (see shingles.ts's header). */
export interface ShingleOptions {
  /** Word units per shingle (space-delimited scripts). */
  words: number;
  /** Characters per shingle inside a CJK run. */
  cjk: number;
  /** Lines with fewer words than this are left out (boilerplate: menus, bylines, footers); 0: none. */
  minLineWords: number;
}

/** The sizes the crawl uses: measured with scripts/bench-near-dup.ts (README, near-duplicates). */
export const DEFAULT_SHINGLES: Readonly<ShingleOptions> = Object.freeze({ words: 3, cjk: 3, minLineWords: 20 });
