import { createRequire } from 'node:module';
import { UrlState } from '../frontier/url-state.js';
import { hostKey } from '../url/host.js';
import type { LinkDecision, LinkInfo, PageInfo, PriorityUpdate, ResumeState, Strategy, StrategyConfig } from './strategy.js';

/**
 * larger-sites-first (seed 000): the site with the most URLs waiting goes first. Parameter (topic
 * `strategy:`): site = 'domain' (default: the registrable domain by the Public Suffix List, private
 * suffixes included, so a.github.io and b.github.io are two sites; hosts that have none, IPs and
 * localhost, are their own site) or 'host' (host[:port]).
 *
 * Waiting URLs per site are counted by the strategy: +1 for each URL it queues (seed or new link),
 * −1 when one of them is recorded (onLinksStored is called for every recorded page, whatever its
 * outcome). URLs the crawl queues on its own (redirect targets) are not counted. A URL's priority is its site's level, a monotone, coarsened count:
 * level(n) = n below SMALL, SMALL + ⌊log_RATIO(n / SMALL)⌋ above, so every URL of a site has the same
 * priority and the frontier's first-in first-out tie-break keeps discovery order within a site (and
 * among sites of one level).
 *
 * Keeping queued URLs current: a site's level moves to level(count) only once its count has changed
 * by RATIO − 1 (at least 1) of what it was at the last move (so a count that wobbles on a boundary
 * does not re-rank, and a level lags the count by one ratio step at most); then every waiting URL of
 * the site (a linked list in typed arrays; fetched ones are unlinked) gets the new level through
 * takeUpdates(). A re-rank costs O(count) and follows ≥ (RATIO − 1)·count changes, so the updates
 * cost O(1) amortised per queued or fetched URL (≤ 1 + 1/(RATIO − 1) = 5); never a pass over all
 * known URLs.
 *
 * Resume: the counts and lists are rebuilt from the URLs still queued (ResumeState.queued()).
 */
export const SMALL = 8;
export const RATIO = 1.25;
const LOG_RATIO = Math.log(RATIO);

export function siteLevel(n: number): number {
  return n < SMALL ? Math.max(0, n) : SMALL + Math.floor(Math.log(n / SMALL) / LOG_RATIO + 1e-9);
}

/** The Public Suffix List (tldts), loaded on first use: it costs ~100 ms to load, and most commands never need it. */
let tldts: typeof import('tldts') | undefined;

/** The site of a host key (host[:port]) for `site`. */
export function siteOfHost(host: string, site: 'domain' | 'host'): string {
  if (site === 'host' || host.startsWith('[')) return host;
  const colon = host.lastIndexOf(':');
  const name = colon >= 0 ? host.slice(0, colon) : host;
  tldts ??= createRequire(import.meta.url)('tldts') as typeof import('tldts');
  return tldts.getDomain(name, { allowPrivateDomains: true }) ?? host;
}

export function createLargerSitesFirst(cfg: StrategyConfig): Strategy {
  const siteByHost = new Map<string, number>();
  const siteByName = new Map<string, number>();
  const siteNames: string[] = [''];
  // per site (index from 1): waiting count, current level, count when the level last moved, head of
  // its list of waiting URL ids
  let count = new Int32Array(64);
  let level = new Int32Array(64);
  let base = new Int32Array(64);
  let head = new Int32Array(64);
  // per URL id: site (0 = not counted), neighbours in its site's list
  let siteOf = new Int32Array(1024);
  let prev = new Int32Array(1024);
  let next = new Int32Array(1024);
  const dirty = new Set<number>();
  /** links of the page in hand whose ids onLinksStored will give: index in links → site */
  let pending: Int32Array = new Int32Array(0);

  const grow = (a: Int32Array, n: number) => {
    let size = a.length * 2;
    while (size <= n) size *= 2;
    const b = new Int32Array(size);
    b.set(a);
    return b;
  };
  const siteIndex = (host: string): number => {
    let s = siteByHost.get(host);
    if (s === undefined) {
      const name = siteOfHost(host, cfg.site);
      s = siteByName.get(name);
      if (s === undefined) {
        s = siteNames.push(name) - 1;
        siteByName.set(name, s);
        if (s >= count.length) [count, level, base, head] = [grow(count, s), grow(level, s), grow(base, s), grow(head, s)];
      }
      siteByHost.set(host, s);
    }
    return s;
  };
  /** the level of site `s` once its count is `n`: moved only after a change of RATIO − 1 of its count at the last move */
  const levelFor = (s: number, n: number) => {
    const want = siteLevel(n);
    return want !== level[s] && Math.abs(n - base[s]) >= Math.max(1, (RATIO - 1) * base[s]) ? want : level[s];
  };
  const touch = (s: number, delta: number) => {
    count[s] += delta;
    const l = levelFor(s, count[s]);
    if (l !== level[s]) {
      level[s] = l;
      base[s] = count[s];
      dirty.add(s);
    }
  };
  const link = (id: number, s: number) => {
    if (id >= siteOf.length) [siteOf, prev, next] = [grow(siteOf, id), grow(prev, id), grow(next, id)];
    siteOf[id] = s;
    prev[id] = 0;
    next[id] = head[s];
    if (head[s]) prev[head[s]] = id;
    head[s] = id;
  };
  const unlink = (id: number): number => {
    const s = id < siteOf.length ? siteOf[id] : 0;
    if (s <= 0) return 0;
    if (prev[id]) next[prev[id]] = next[id];
    else head[s] = next[id];
    if (next[id]) prev[next[id]] = prev[id];
    siteOf[id] = 0;
    return s;
  };

  return {
    name: 'larger-sites-first',
    seed(url) {
      const s = siteIndex(hostOf(url));
      return { priority: levelFor(s, count[s] + 1), life: cfg.max_life };
    },
    onSeeded(id, url) {
      const s = siteIndex(hostOf(url));
      touch(s, 1);
      link(id, s);
    },
    onPageFetched(_page: PageInfo, links: LinkInfo[]): (LinkDecision | null)[] {
      pending = new Int32Array(links.length);
      links.forEach((l, i) => {
        const k = l.known;
        // a known URL is counted only if it waits and is not counted yet (queued before a resume)
        if (k && (k.state !== UrlState.QUEUED || (k.id < siteOf.length && siteOf[k.id] > 0))) return;
        const s = siteIndex(l.host);
        pending[i] = s;
        touch(s, 1);
      });
      return links.map((l, i) => (pending[i] ? { priority: level[pending[i]], life: l.known?.life ?? cfg.max_life } : null));
    },
    onLinksStored(page, _links, ids) {
      const done = unlink(page.id);
      if (done) touch(done, -1);
      ids.forEach((id, i) => {
        if (pending[i]) link(id, pending[i]);
      });
      pending = new Int32Array(0);
    },
    takeUpdates(): PriorityUpdate[] {
      if (dirty.size === 0) return [];
      const out: PriorityUpdate[] = [];
      for (const s of dirty) for (let id = head[s]; id; id = next[id]) out.push({ id, priority: level[s] });
      dirty.clear();
      return out;
    },
    resume(state: ResumeState) {
      for (const { id, url } of state.queued()) {
        if (id < siteOf.length && siteOf[id] > 0) continue;
        const s = siteIndex(hostOf(url));
        touch(s, 1);
        link(id, s);
      }
      // sites whose level moved are re-ranked after the first page (one pass over the queued URLs)
    },
    explain(id) {
      const s = id < siteOf.length ? siteOf[id] : 0;
      return s > 0 ? { site: siteNames[s], waiting: count[s], level: level[s] } : null;
    },
  };
}

function hostOf(url: string): string {
  try {
    return hostKey(url);
  } catch {
    return url;
  }
}
