import { Float64ById, Int32ById, Uint8ById } from './id-arrays.js';
import type { PageInfo, PriorityUpdate, ResumeState } from './strategy.js';
import { detached } from '../url/detached.js';

/**
 * Directory yield: what the crawl has learnt about the places URLs live in, as a factor on their
 * priority. A directory is a URL's host and path up to its last "/" (`a.edu/courses/`). Each page
 * recorded there scores a success: 1 when it was relevant, its relevance when not, 0 when it had
 * no content (an error, a 404, not HTML). With S successes out of n recorded pages,
 *
 *   factor = (S + k) / (n + k)        (k = strategy.feedback, pseudo-counts of a neutral prior)
 *
 * so an unseen directory has factor 1, one that keeps answering 404 or off-topic pages sinks
 * (5 dead links of 5 with k = 3: 0.375), and one that keeps giving relevant pages stays at 1. A
 * URL's priority is its strategy's score (its base) × the factor of its directory, so a cluster of
 * dead links or an off-topic section found through one good parent stops eating the budget after
 * a few fetches instead of all of it. Redirects count neither way.
 *
 * Queued URLs follow their directory: the factor in force moves only when the live one has moved
 * by more than 10% since (hysteresis), and then every URL waiting in that directory is re-ranked
 * through takeUpdates() (base × new factor). Bases are kept per URL id; a directory's waiting URLs
 * are a linked list in typed arrays (recorded URLs are unlinked).
 *
 * Resume: replaying the history (fetch order) rebuilds the counts and the factors in force exactly
 * as they were live; the waiting URLs' bases are their stored priorities divided by their factor.
 */
export const REFACTOR = 0.1;

/** The yield factor (S + k) / (n + k) of a place with `success` successes in `seen` recorded pages. */
export function yieldFactor(success: number, seen: number, k: number): number {
  return (success + k) / (seen + k);
}

export class DirectoryYield {
  private readonly dirIndex = new Map<string, number>();
  private success: number[] = [0];
  private seen: number[] = [0];
  private applied: number[] = [1];
  private head: number[] = [0];
  private readonly base = new Float64ById();
  /** directory of each URL id ever tracked (kept after it is recorded, for explain) */
  private readonly dirOf = new Int32ById();
  /** 1 while the id waits in its directory's list */
  private readonly linked = new Uint8ById();
  private readonly prev = new Int32ById();
  private readonly next = new Int32ById();
  private readonly dirty = new Set<number>();

  constructor(private readonly k: number) {}

  get enabled(): boolean {
    return this.k > 0;
  }

  /**
   * The factor in force for a URL's directory (1 when disabled or unseen). `id`: the URL's id when
   * it is known, so that a URL tracked before is not cut into its directory and looked up again (a
   * site's navigation links come back on every page).
   */
  factorFor(url: string, id = 0): number {
    if (!this.enabled) return 1;
    const known = this.dirOf.get(id);
    const d = known > 0 ? known : this.dirIndex.get(directoryOf(url));
    return d === undefined ? 1 : this.applied[d];
  }

  /** A URL now waits with priority `base` × its directory's factor (replaces what was known of it). */
  track(id: number, url: string, base: number): void {
    if (!this.enabled) return;
    this.untrack(id);
    const known = this.dirOf.get(id); // (an id's URL never changes: nor does its directory)
    const d = known > 0 ? known : this.dir(url);
    this.base.set(id, base);
    this.dirOf.set(id, d);
    this.linked.set(id, 1);
    this.prev.set(id, 0);
    this.next.set(id, this.head[d]);
    if (this.head[d]) this.prev.set(this.head[d], id);
    this.head[d] = id;
  }

  /**
   * A page's outcome was recorded (`ids` as `Strategy.onLinksStored` gets them): it stops waiting,
   * and its directory's counts take its success, unless it was a redirect.
   */
  recorded(page: PageInfo, ids: readonly number[]): void {
    if (!this.enabled) return;
    this.untrack(page.id);
    if (isRedirect(page, ids)) return;
    const known = this.dirOf.get(page.id);
    const d = known > 0 ? known : this.dir(page.url);
    this.dirOf.set(page.id, d);
    this.seen[d]++;
    this.success[d] += page.relevant ? 1 : (page.relevance ?? 0);
    const live = yieldFactor(this.success[d], this.seen[d], this.k);
    if (Math.abs(live - this.applied[d]) > REFACTOR * this.applied[d]) {
      this.applied[d] = live;
      if (this.head[d]) this.dirty.add(d);
    }
  }

  /** New priorities of waiting URLs whose directory's factor moved. */
  takeUpdates(): PriorityUpdate[] {
    if (this.dirty.size === 0) return [];
    const out: PriorityUpdate[] = [];
    for (const d of this.dirty) {
      const f = this.applied[d];
      for (let id = this.head[d]; id; id = this.next.get(id)) {
        // a priority that is not a number is never handed on: the shared frontier refuses it (seen once
        // there under load, cause not found); the URL keeps the priority it has
        const priority = this.base.get(id) * f;
        if (Number.isFinite(priority)) out.push({ id, priority });
      }
    }
    this.dirty.clear();
    return out;
  }

  /**
   * Rebuilds the counts from the history, then the waiting URLs from their stored priorities. Only
   * the URLs a live crawl tracks are: seeds (and sitemap URLs) and links of pages; a redirect's
   * target inherits the redirecting URL's priority and is not re-ranked live, so not here either.
   */
  resume(state: ResumeState): void {
    if (!this.enabled) return;
    const linked = new Uint8ById();
    for (const s of state.seeds()) linked.set(s.id, 1);
    for (const h of state.history()) {
      this.recorded(h.page, h.outlinks);
      if (!isRedirect(h.page, h.outlinks)) for (const id of h.outlinks) linked.set(id, 1);
    }
    this.dirty.clear();
    for (const q of state.queued()) {
      if (!linked.get(q.id)) continue;
      const f = this.factorFor(q.url);
      this.track(q.id, q.url, f > 0 ? q.priority / f : q.priority);
    }
  }

  explain(id: number): Record<string, number | string> | null {
    const d = this.dirOf.get(id);
    if (!this.enabled || d <= 0) return null;
    const name = [...this.dirIndex].find(([, i]) => i === d)?.[0] ?? '';
    return {
      directory: name, directory_pages: this.seen[d], directory_successes: +this.success[d].toFixed(6), directory_factor: this.applied[d],
      ...(this.linked.get(id) ? { base_priority: this.base.get(id), waiting: 'yes' } : { waiting: 'no (recorded)' }),
    };
  }

  private dir(url: string): number {
    const key = directoryOf(url);
    let d = this.dirIndex.get(key);
    if (d === undefined) {
      d = this.success.length;
      this.dirIndex.set(detached(key), d); // (kept for the run: not a view on a page's string)
      this.success.push(0);
      this.seen.push(0);
      this.applied.push(1);
      this.head.push(0);
    }
    return d;
  }

  private untrack(id: number): void {
    const d = this.dirOf.get(id);
    if (d <= 0 || !this.linked.get(id)) return;
    const p = this.prev.get(id);
    const n = this.next.get(id);
    if (p) this.next.set(p, n);
    else this.head[d] = n;
    if (n) this.prev.set(n, p);
    this.linked.set(id, 0);
  }
}

/** A recorded redirect: no relevance (not HTML) and its target's id as its one link. */
function isRedirect(page: PageInfo, ids: readonly number[]): boolean {
  return page.relevance === null && ids.length > 0;
}

/** host + path up to the last "/" of a URL (scheme, query and fragment dropped). */
export function directoryOf(url: string): string {
  const start = url.indexOf('//');
  const from = start < 0 ? 0 : start + 2;
  let end = url.length;
  const q = url.indexOf('?', from);
  if (q >= 0) end = q;
  const h = url.indexOf('#', from);
  if (h >= 0 && h < end) end = h;
  const slash = url.lastIndexOf('/', end - 1);
  return slash < from ? `${url.slice(from, end)}/` : url.slice(from, slash + 1);
}
