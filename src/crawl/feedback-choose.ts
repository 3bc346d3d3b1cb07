import type Database from 'better-sqlite3';
import { decodeHtml } from '../fetch/charset.js';
import { Parse5Parser } from '../parse/html-parser.js';
import { feedbackTerms, type FeedbackDoc } from '../relevance/feedback-terms.js';
import { decompressBody } from '../store/body-codec.js';
import { firstScoredPages } from '../store/feedback-pages.js';
import type { Config } from '../topic/config.js';
import type { FeedbackRecord } from '../store/feedback-record.js';

// (apart from relevance-feedback.ts, which the crawl command loads at start: this parses pages
// again, with parse5 and the charset decoders, and is imported only when the terms are chosen)
/**
 * Chooses the terms from the crawl file: the first `relevance.feedback.after` scored pages in fetch
 * order (store/feedback-pages.ts), each parsed again from its stored body; null when the file holds
 * fewer. `fetched`: pages recorded so far (the record's `fetched`).
 */
export function chooseFeedback(db: Database.Database, cfg: Config, fetched: number): FeedbackRecord | null {
  const fb = cfg.relevance.feedback;
  if (!fb) return null;
  const rows = firstScoredPages(db, fb.after);
  if (rows.length < fb.after) return null;
  const parser = new Parse5Parser();
  const docs: FeedbackDoc[] = rows.map((r) => {
    const decoded = decodeHtml(decompressBody(r.body, r.codec), r.charset ? `text/html; charset=${r.charset}` : null);
    const page = parser.parse(decoded.text, r.url, { maxLinks: 0 });
    return { score: r.relevance, title: page.title, headings: page.headings, body: page.text };
  });
  const res = feedbackTerms(docs, { keywords: cfg.keywords, threshold: cfg.relevance.threshold, top: fb.top, maxTerms: fb.max_terms, weight: fb.weight });
  return { terms: res.terms, pages: res.pages, seq: rows[rows.length - 1].seq, top: res.top, low: res.low, fetched, at: new Date().toISOString() };
}
