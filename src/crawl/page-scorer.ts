import type { PrepareFn } from '../relevance/keyword-matcher.js';
import { ClassifierScorer } from '../relevance/classifier-scorer.js';
import { KeywordScorer } from '../relevance/keyword-scorer.js';
import type { RelevanceScorer } from '../relevance/relevance-scorer.js';
import type { AnalysisConfig } from './page-analysis.js';
import { detached } from '../url/detached.js';

// (apart from page-analysis.ts: the crawl's own thread scores anchor texts with these, and need not
// load the HTML parser and the charset decoders that page analysis brings)

/** The page scorer of an analysis configuration: keywords, or the classifier blended with them. */
export function createPageScorer(cfg: Pick<AnalysisConfig, 'keywords' | 'fields' | 'model' | 'classifier'>): TextScorer {
  const keywords = new KeywordScorer({ keywords: cfg.keywords, fields: cfg.fields, model: cfg.model });
  return cfg.classifier ? new ClassifierScorer(cfg.classifier.model, keywords, cfg.classifier.weight) : keywords;
}

/** A page scorer that also scores short texts (anchor text, link context). */
export interface TextScorer extends RelevanceScorer {
  /** The page's score; `prepare` (a memoPrepare) lets the caller reuse the prepared texts afterwards. */
  score(doc: Parameters<RelevanceScorer['score']>[0], prepare?: PrepareFn): number;
  scoreText(text: string): number;
}

/** Texts remembered by {@link memoScoreText}; the memo starts over when full. */
const MEMO_SIZE = 4096;

/**
 * The scorer's scoreText (keywords) with a small memo: navigation links repeat the same anchors and contexts
 * on every page of a site, so most link texts are scored once per worker.
 */
export function memoScoreText(scorer: TextScorer): (text: string) => number {
  const memo = new Map<string, number>();
  return (text) => {
    if (text.length === 0) return 0;
    let v = memo.get(text);
    if (v === undefined) {
      if (memo.size >= MEMO_SIZE) memo.clear();
      v = scorer.scoreText(text);
      memo.set(detached(text), v); // (kept: not a view on a page's string)
    }
    return v;
  };
}
