import { yieldFactor } from './directory-yield.js';

/**
 * The places the `learning` strategy counts outcomes in: hosts (`h` + host), directories (`d` +
 * host and path up to the last "/") and linking pages (`p` + the page's URL: the pages found
 * through the same page are siblings). Each place has a dense index (0: none) with
 *
 * - its recorded pages, its relevant ones, and its successes as directory-yield.ts counts them (1
 *   for a relevant page, else its relevance, 0 for a page without content);
 * - the URLs waiting there (directories and linking pages only), so that their priorities can
 *   follow the place's counts as soon as they move ({@link LinkPlaces.takeDirty}).
 *
 * Deterministic: the same calls in the same order give the same indexes and counts (a resumed crawl
 * replays them).
 */
export class LinkPlaces {
  private readonly index = new Map<string, number>();
  private readonly relevantAt: number[] = [0];
  private readonly recordedAt: number[] = [0];
  private readonly softAt: number[] = [0];
  private readonly members: number[][] = [[]];
  private readonly dirty = new Set<number>();

  /** The index of a place, made if new. */
  place(key: string): number {
    let i = this.index.get(key);
    if (i === undefined) {
      i = this.relevantAt.length;
      this.index.set(key, i);
      this.relevantAt.push(0);
      this.recordedAt.push(0);
      this.softAt.push(0);
      this.members.push([]);
    }
    return i;
  }

  /** The index of a place, 0 if it was never made. */
  find(key: string): number {
    return this.index.get(key) ?? 0;
  }

  /** (relevant + 1)/(recorded + 2) − 0.5 of place i: 0 while nothing is known, within ±0.5. */
  yieldOf(i: number): number {
    return i > 0 ? (this.relevantAt[i] + 1) / (this.recordedAt[i] + 2) - 0.5 : 0;
  }

  /** best-first's directory yield factor (S + k)/(n + k) of place i (1 for none, or k = 0). */
  factorOf(i: number, k: number): number {
    return k > 0 && i > 0 ? yieldFactor(this.softAt[i], this.recordedAt[i], k) : 1;
  }

  /** URL `id` waits in place i (a URL may be listed twice: readers check it still belongs there). */
  join(i: number, id: number): void {
    if (i > 0) this.members[i].push(id);
  }

  /**
   * A page was recorded in place i (relevant or not, with its relevance: null for no content); a
   * place that has waiting URLs (`follow`) is marked for {@link LinkPlaces.takeDirty}.
   */
  count(i: number, relevant: boolean, relevance: number | null, follow: boolean): void {
    if (i <= 0) return;
    this.recordedAt[i]++;
    if (relevant) this.relevantAt[i]++;
    this.softAt[i] += relevant ? 1 : (relevance ?? 0);
    if (follow) this.dirty.add(i);
  }

  /**
   * The URLs waiting in the places whose counts moved since the last call, each list first
   * trimmed to the URLs `belongs(id, place)` still accepts; clears the marks.
   */
  takeDirty(belongs: (id: number, place: number) => boolean): number[] {
    const out: number[] = [];
    for (const i of this.dirty) {
      const list = this.members[i];
      let w = 0;
      for (const id of list) if (belongs(id, i)) list[w++] = id;
      list.length = w;
      for (const id of list) out.push(id);
    }
    this.dirty.clear();
    return out;
  }

  /** Forgets the marks (after a resume's replay: the crawl had already followed them). */
  clearDirty(): void {
    this.dirty.clear();
  }
}
