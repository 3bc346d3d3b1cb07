import { decompressBody } from '../store/body-codec.js';
import type { CheckOutcome, RevisitRow, RevisitStore } from '../store/revisit-store.js';
import type { Config } from '../topic/config.js';
import { fingerprintBytes, fingerprintHtml } from './text-fingerprint.js';
import { classConfigFor, classifyPage } from './url-class.js';
import { nextIntervalMs, pageChangeRate, pageFrequencyBounds, solveBudget, type BudgetLevel, type FrequencyBounds, type RevisitClassConfig } from './revisit-policy.js';
import { nextAges } from './last-modified.js';
import { HTML_TYPES } from '../fetch/html-types.js';

const DAY_MS = 86_400_000;

/** The topic's revisit settings. */
export type RevisitSettings = Config['revisit'];

/** The configuration of a class name under the topic's classes (see classConfigFor). */
export function classOf(name: string, settings: RevisitSettings): RevisitClassConfig {
  return classConfigFor(name, settings.classes as readonly RevisitClassConfig[]);
}

/**
 * Puts every fetched page that has no revisit row yet into revisit scheduling (lazily, so the crawl
 * loop needs no change): its class from its URL and shape (links, words), the fingerprint of its
 * stored body as the copy the first check compares against, the validators (ETag, Last-Modified)
 * of its stored response, and next_at = fetched_at + the class's initial interval. Returns how many
 * pages it added. Call inside no transaction; it opens its own per batch.
 */
export function enrolFetchedPages(rs: RevisitStore, settings: RevisitSettings, transaction: <T>(fn: () => T) => T): number {
  let added = 0;
  let after = 0;
  for (;;) {
    const batch = rs.candidates(after, 200);
    if (batch.length === 0) return added;
    after = batch[batch.length - 1].urlId;
    const rows = batch.map((c) => {
      const body = c.body ? decompressBody(c.body, c.bodyCodec) : null;
      let cls: string;
      let textHash: string | null = null;
      if (c.contentType !== null && HTML_TYPES.has(c.contentType)) {
        const fp = body ? fingerprintHtml(body, c.headers['content-type'] ?? c.contentType, c.url) : null;
        cls = classifyPage(c.url, fp ? { links: fp.links, textWords: fp.textWords } : null, settings.classes as readonly RevisitClassConfig[]);
        textHash = fp?.hash ?? null;
      } else {
        cls = classifyPage(c.url, null, settings.classes as readonly RevisitClassConfig[]);
        textHash = body ? fingerprintBytes(body) : null;
      }
      return {
        urlId: c.urlId, cls, at: c.fetchedAt, nextAt: c.fetchedAt + classOf(cls, settings).initial_ms, textHash,
        etag: c.headers.etag ?? null, lastModified: c.headers['last-modified'] ?? null,
      };
    });
    transaction(() => {
      for (const r of rows) rs.enrol(r);
    });
    added += rows.length;
  }
}

/**
 * The budget level for the pages in scheduling (revisit-policy.ts solveBudget): pages with their
 * own estimate (≥ min_checks checks) share the budget left after the pages still on their class's
 * initial interval and after `spentPerDay` (checks the schedule does not plan: those sitemap
 * signals cause), each frequency clamped to its own bounds (pageFrequencyBounds).
 */
export function budgetLevel(rows: RevisitRow[], settings: RevisitSettings, spentPerDay = 0): BudgetLevel | null {
  const rates: number[] = [];
  const bounds: FrequencyBounds[] = [];
  let budget = settings.budget_per_day - Math.max(0, spentPerDay);
  for (const r of rows) {
    const cls = classOf(r.cls, settings);
    if (r.checks < settings.min_checks) {
      budget -= DAY_MS / cls.initial_ms;
      continue;
    }
    const state = { cls: r.cls, checks: r.checks, changes: r.changes, firstCheckAt: r.firstCheckAt, lastCheckAt: r.lastCheckAt, ages: r.ages };
    const rate = pageChangeRate(state);
    if (rate === null) continue;
    rates.push(rate);
    // the page's own bounds: its class's, with the growth cap nextIntervalMs applies
    bounds.push(pageFrequencyBounds(state, cls));
  }
  if (rates.length === 0) return null;
  return solveBudget(rates, Math.max(budget, 0), bounds);
}

/**
 * A page's row after a check with `outcome`: an answer (changed, unchanged, not modified) updates the
 * ages, counts and next visit from its change rate; a failure comes back after the class's min_ms;
 * a deletion is marked.
 */
export function scheduleAfterCheck(
  row: RevisitRow,
  outcome: CheckOutcome,
  o: { at: number; previousAt: number; previousLastModified: string | null; lastModified: string | null; cls: RevisitClassConfig; minChecks: number; budget: BudgetLevel | null },
): void {
  if (outcome === 'changed' || outcome === 'unchanged' || outcome === 'not_modified') {
    row.ages = nextAges(row.ages, { outcome, at: o.at, previousAt: o.previousAt, previousLastModified: o.previousLastModified, lastModified: o.lastModified });
    row.checks++;
    if (outcome === 'changed') row.changes++;
    row.failures = 0;
    row.lastCheckAt = o.at;
    row.nextAt = o.at + nextIntervalMs(row, o.cls, { minChecks: o.minChecks, budget: o.budget });
  } else if (outcome === 'failed') {
    row.nextAt = o.at + o.cls.min_ms;
  } else {
    row.deletedAt = o.at;
  }
}
