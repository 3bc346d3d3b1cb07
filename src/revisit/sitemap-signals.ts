import { normalizeOptions, scopeOf } from '../crawl/crawl-settings.js';
import type { CrawlState } from '../crawl/crawl-state.js';
import { seedFromSitemaps, type SitemapSeedResult } from '../crawl/sitemap-seeds.js';
import type { Fetcher } from '../fetch/fetcher.js';
import type { RobotsCache } from '../fetch/robots.js';
import { parseLastmod } from '../fetch/sitemap.js';
import type { CheckOutcome, RevisitStore } from '../store/revisit-store.js';
import type { Config } from '../topic/config.js';
import { hostKey } from '../url/host.js';
import { urlHash } from '../url/url-hash.js';
import { CLOCK_SKEW_MS, HTTP_DATE_GRAIN_MS } from './last-modified.js';

/**
 * Sitemap `<lastmod>` as a change signal for revisits. A page whose sitemap entry says it was
 * modified after its last check is due at once, whatever its schedule said: one sitemap request
 * can stand for thousands of checks. Sitemaps lie too (generators that stamp every URL with the
 * time of generation), so each host's signals are scored by the checks they cause: once
 * {@link MIN_WRONG} of them found the page unchanged, and more were wrong than right, that host's
 * lastmods are ignored. Until a host has had MIN_WRONG signals checked, a read brings forward at
 * most MIN_WRONG of its pages, so a lying sitemap costs a few checks, not one per page. The scores
 * are kept in the crawl file, across runs.
 */

/** Wrong signals from a host before its lastmods may be ignored. */
export const MIN_WRONG = 3;

const DAY_MS = 86_400_000;

export interface SignalTarget {
  urlId: number;
  /** Host key of the page (whose sitemap signals are scored together). */
  host: string;
}

/** A host's sitemap signals so far: how many checks they caused found a change, and how many did not. */
export type SignalScore = { right: number; wrong: number };

export class SitemapSignals {
  /** Pages brought forward whose check has not come yet → their host. */
  private readonly pending = new Map<number, string>();
  private readonly score: Map<string, SignalScore>;

  /** When the checks signals caused were made (the last day's are kept). */
  private checkTimes: number[] = [];

  /**
   * Checks per day that signals caused: over the last day, or over the time since `since` (at
   * least an hour) if that is shorter. They come out of the budget the schedule shares out.
   */
  checksPerDay(now: number, since: number): number {
    this.checkTimes = this.checkTimes.filter((t) => t > now - DAY_MS);
    const window = Math.min(DAY_MS, Math.max(now - since, 3_600_000));
    return (this.checkTimes.length * DAY_MS) / window;
  }

  /** `saved`: the scores of earlier runs ({@link SitemapSignals.scores}). */
  constructor(saved: Record<string, SignalScore> = {}) {
    this.score = new Map(Object.entries(saved).filter(([, v]) => Number.isFinite(v?.right) && Number.isFinite(v?.wrong)));
  }

  /** The scores, to keep for the next run. */
  scores(): Record<string, SignalScore> {
    return Object.fromEntries(this.score);
  }

  /** False once a host's sitemap signals have been wrong often enough (see the module comment). */
  trusted(host: string): boolean {
    const s = this.score.get(host);
    return !s || s.wrong < MIN_WRONG || s.wrong <= s.right;
  }

  /**
   * Brings forward (next visit = `now`) every page in revisit scheduling whose lastmod is later
   * than its last check, not deleted and not already due; `find` maps a sitemap URL to its page.
   * Returns how many pages it brought forward. Call inside a store transaction.
   */
  apply(
    entries: readonly { url: string; lastmod: string | null }[],
    find: (url: string) => SignalTarget | null,
    rs: RevisitStore,
    now: number,
  ): number {
    let n = 0;
    const onProbation = new Map<string, number>();
    for (const e of entries) {
      const lastmod = parseLastmod(e.lastmod);
      if (lastmod === null || lastmod > now + CLOCK_SKEW_MS) continue;
      const target = find(e.url);
      if (!target || !this.trusted(target.host)) continue;
      const s = this.score.get(target.host);
      const unproven = !s || s.right + s.wrong < MIN_WRONG;
      if (unproven && (onProbation.get(target.host) ?? 0) >= MIN_WRONG) continue;
      const row = rs.get(target.urlId);
      if (!row || row.deletedAt !== null || row.nextAt <= now) continue;
      // dates may have whole seconds: a lastmod must pass the last check by more than that
      if (lastmod <= row.lastCheckAt + HTTP_DATE_GRAIN_MS) continue;
      rs.postpone(target.urlId, now);
      this.pending.set(target.urlId, target.host);
      if (unproven) onProbation.set(target.host, (onProbation.get(target.host) ?? 0) + 1);
      n++;
    }
    return n;
  }

  /**
   * Scores a check: whether a signal that brought the page forward was right. Returns true when
   * the check was such a signal's and found the page changed, false when it found it unchanged,
   * null when no signal was pending for the page (or the check failed).
   */
  checked(urlId: number, outcome: CheckOutcome, at: number): boolean | null {
    const host = this.pending.get(urlId);
    if (host === undefined) return null;
    this.pending.delete(urlId);
    if (outcome !== 'changed' && outcome !== 'unchanged' && outcome !== 'not_modified') return null;
    this.checkTimes.push(at);
    const s = this.score.get(host) ?? { right: 0, wrong: 0 };
    if (outcome === 'changed') s.right++;
    else s.wrong++;
    this.score.set(host, s);
    return outcome === 'changed';
  }
}

export interface SitemapReadDeps {
  fetcher: Fetcher;
  robots: RobotsCache | null;
  state: CrawlState;
  rs: RevisitStore;
  cfg: Config;
  now: () => number;
}

/**
 * Reads the sitemaps of the hosts with pages in scheduling (the `Sitemap:` lines of their
 * robots.txt) and the topic's `sitemaps:`, queues the in-scope URLs they list that the crawl does
 * not know (for the next crawl, as sitemap seeds), and brings forward the pages whose lastmod is
 * later than their last check. Returns what seedFromSitemaps returns, and how many pages it
 * brought forward.
 */
export async function readSitemapSignals(signals: SitemapSignals, d: SitemapReadDeps): Promise<SitemapSeedResult & { signalled: number }> {
  const { file, frontier, strategy } = d.state;
  const origins = [...new Set(d.rs.oneUrlPerHost().map((u) => `${new URL(u).origin}/`))];
  const r = await seedFromSitemaps({
    fetcher: d.fetcher, robots: d.robots, frontier, strategy, scope: scopeOf(d.cfg), normalize: normalizeOptions(d.cfg),
    seeds: origins, sitemaps: d.cfg.sitemaps, maxUrls: d.cfg.limits.max_sitemap_urls, maxDepth: d.cfg.limits.max_sitemap_depth,
  });
  // one lookup for all the listed URLs (up to max_sitemap_urls), not one per URL
  const hashes = new Map(r.entries.map((e) => [e.url, urlHash(e.url)]));
  const known = await frontier.known([...hashes].map(([url, hash]) => ({ hash, host: hostKey(url) })));
  const find = (url: string): SignalTarget | null => {
    const k = known.get(hashes.get(url)!.toString('hex'));
    return k ? { urlId: k.id, host: hostKey(url) } : null;
  };
  const now = d.now();
  let signalled = 0;
  file.transaction(() => {
    signalled = signals.apply(r.entries, find, d.rs, now);
  });
  return { ...r, signalled };
}
