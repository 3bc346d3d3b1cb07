import type { CrawlState } from '../crawl/crawl-state.js';
import { intakeLinks, type IntakeAnswer, type IntakeResult } from '../crawl/link-intake.js';
import type { PageAnalysis } from '../crawl/page-analysis.js';
import type { FetchResult } from '../fetch/fetcher.js';
import { compressBody } from '../store/body-codec.js';
import type { RevisitStore } from '../store/revisit-store.js';
import type { PageInfo } from '../strategy/strategy.js';
import type { Config } from '../topic/config.js';
import type { DueWork } from './due-source.js';

/** A changed page's new links as the frontier took them (see {@link takeNewLinks}). */
export interface NewLinks {
  page: PageInfo;
  out: IntakeResult;
  answer: IntakeAnswer;
}

/** Whether a page's language is in `scope.languages` (any language when the list is empty, or when it cannot be told). */
export function inLanguages(cfg: Config, analysis: PageAnalysis): boolean {
  const langs = cfg.scope.languages;
  return langs.length === 0 || analysis.lang === null || langs.includes(analysis.lang);
}

/** The links a changed page has that it did not have before, through the frontier (the others were counted when it was first fetched). */
export async function takeNewLinks(state: CrawlState, rs: RevisitStore, cfg: Config, p: DueWork, analysis: PageAnalysis): Promise<NewLinks | null> {
  if (analysis.nofollow || !inLanguages(cfg, analysis)) return null;
  const had = rs.linkedHashes(p.urlId);
  const fresh = analysis.links.filter((l) => !had.has(Buffer.from(l.hash).toString('hex')));
  if (fresh.length === 0) return null;
  const u = rs.pageInfo(p.urlId);
  const relevant = analysis.relevance !== null && analysis.relevance >= cfg.relevance.threshold && inLanguages(cfg, analysis);
  const page = { id: p.urlId, url: p.url, depth: u.depth, life: u.life, priority: u.priority, relevance: analysis.relevance, relevant };
  const out = await intakeLinks({ frontier: state.frontier, strategy: state.strategy, maxDepth: cfg.limits.max_depth }, page, fresh);
  // (a recrawl runs on the crawl file's own frontier: the answer, and the links' ids, are final)
  return { page, out, answer: await out.answer };
}

/** Stores a changed page's new version and its new links (taken by takeNewLinks). Returns the URLs added. */
export function storeChangedPage(
  file: CrawlState['file'], rs: RevisitStore, cfg: Config, p: DueWork, res: FetchResult, analysis: PageAnalysis | null, at: number, links: NewLinks | null,
): number {
  file.recordResponse({
    urlId: p.urlId, status: res.status, headers: res.headers, contentType: res.contentType, charset: analysis?.charset ?? null,
    title: analysis?.title ?? null, stored: analysis?.stored ?? compressBody(res.body), bodyBytes: res.body.length,
    wireBytes: res.wireBytes, fetchedAt: at, elapsedMs: res.elapsedMs,
  });
  if (!analysis) return 0;
  const relevant = analysis.relevance === null ? null : analysis.relevance >= cfg.relevance.threshold && inLanguages(cfg, analysis);
  rs.updateContent(p.urlId, analysis.contentHash ? Buffer.from(analysis.contentHash) : null, analysis.relevance, relevant, analysis.simhash, analysis.lang);
  if (!links) return 0;
  file.recordLinks(p.urlId, links.out.links.filter(Boolean));
  return links.answer.added - links.answer.pruned;
}
