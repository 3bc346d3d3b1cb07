import type { PrepareFn } from '../relevance/keyword-matcher.js';
import { ClassifierScorer } from '../relevance/classifier-scorer.js';
import { KeywordScorer } from '../relevance/keyword-scorer.js';
import type { RelevanceScorer } from '../relevance/relevance-scorer.js';
import type { AnalysisConfig } from './page-analysis.js';
import { detached } from '../url/detached.js';
import { MemoMap } from '../memo-map.js';

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

/**
 * Texts remembered by {@link memoScoreText} (two generations, memo-map.ts; ~2-3 MB when full). In a
 * 6,000-page crawl of the synth corpus (195,040 texts) this one scores 27,580, an unbounded one
 * 25,221, and the map of 4,096 emptied at once when full that it replaced scored 50,499.
 */
const MEMO_SIZE = 16384;

/**
 * The scorer's scoreText (keywords) with a small memo: navigation links repeat the same anchors and contexts
 * on every page of a site, so most link texts are scored once per worker.
 */
export function memoScoreText(scorer: TextScorer): (text: string) => number {
  const memo = new MemoMap<string, number>(MEMO_SIZE);
  return (text) => {
    if (text.length === 0) return 0;
    let v = memo.get(text);
    if (v === undefined) {
      v = scorer.scoreText(text);
      memo.set(detached(text), v); // (kept: not a view on a page's string)
    }
    return v;
  };
}
