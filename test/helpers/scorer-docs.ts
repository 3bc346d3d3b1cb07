import type { ScorableDoc } from '../../src/relevance/relevance-scorer.js';

/** The default field weights of a topic. */
export const FIELDS = { title: 3, headings: 2, anchor: 2, body: 1 };
const FILLER = 'lorem ipsum dolor amet consectetur adipiscing elit sed eiusmod tempor'.split(' ');
/** n filler words (none is a stop word or a keyword). */
export const filler = (n: number) => Array.from({ length: n }, (_, i) => FILLER[i % FILLER.length]).join(' ');
/** A page with only the given fields set. */
export const doc = (p: Partial<ScorableDoc>): ScorableDoc => ({ url: 'http://example.com/', title: '', headings: '', anchors: [], body: '', ...p });
/** A body of `words` filler words with `mentions` occurrences of `term` spread over it (same length for any mentions). */
export function body(term: string, mentions: number, words = 400): string {
  const out = filler(words).split(' ');
  for (let m = 0; m < mentions; m++) out[Math.floor(((m + 0.5) * words) / mentions)] = term;
  return out.join(' ');
}
