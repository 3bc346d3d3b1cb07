import type { FeedbackRecord } from '../store/feedback-record.js';

export { FEEDBACK_META_KEY, parseFeedback, type FeedbackRecord } from '../store/feedback-record.js';

/** The topic's keywords with the added terms (a term the topic names keeps the topic's weight). */
export function withFeedbackKeywords(keywords: Readonly<Record<string, number>>, rec: FeedbackRecord | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of rec?.terms ?? []) out[t.term] = t.weight;
  return { ...out, ...keywords };
}

/** The terms as one line: `term (weight), …`, or `none` when none was found. */
export function feedbackTermsLine(rec: FeedbackRecord): string {
  return rec.terms.length ? rec.terms.map((t) => `${t.term} (${t.weight})`).join(', ') : 'none';
}
