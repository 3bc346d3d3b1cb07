import type { FeedbackTerm } from '../relevance/feedback-terms.js';

/** Meta key of the crawl file that holds the {@link FeedbackRecord}. */
export const FEEDBACK_META_KEY = 'relevance_feedback';

/**
 * The terms relevance feedback added to a crawl's keywords (feedback-terms.ts), as the crawl file
 * keeps them: chosen once, from the first `pages` scored pages (fetch_seq ≤ `seq`), and never
 * chosen again; a resumed crawl, `explain` and recrawl read them from here.
 */
export interface FeedbackRecord {
  terms: FeedbackTerm[];
  /** Pages they were chosen from (`relevance.feedback.after`), the highest fetch_seq among them, and the sizes of T and R. */
  pages: number;
  seq: number;
  top: number;
  low: number;
  /** Pages recorded in the crawl file (any outcome) when the terms took effect: pages fetched after them are scored with them. */
  fetched: number;
  at: string;
}

/** The record in a crawl file's meta value, or null (none, or not readable). */
export function parseFeedback(value: string | null | undefined): FeedbackRecord | null {
  if (!value) return null;
  try {
    const r = JSON.parse(value) as FeedbackRecord;
    return Array.isArray(r.terms) ? r : null;
  } catch {
    return null;
  }
}
