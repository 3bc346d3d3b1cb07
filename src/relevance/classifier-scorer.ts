/**
 * A page's relevance from a trained classifier blended with the keyword score:
 *
 *   score = weight · P(relevant | page) + (1 − weight) · keyword score
 *
 * P comes from the logistic model (logistic-model.ts) on the page's hashed features
 * (text-features.ts: title, headings, body, URL; anchor texts are not used). With weight 1 the keyword
 * score is not computed for pages. Short texts (anchor text, link context) are always scored by the
 * keywords ({@link ClassifierScorer.scoreText}): the model was trained on whole pages.
 */
import { memoPrepare, prepareText, type PrepareFn } from './keyword-matcher.js';
import type { KeywordScorer } from './keyword-scorer.js';
import { predict, type LogisticModelData } from './logistic-model.js';
import type { RelevanceScorer, ScorableDoc } from './relevance-scorer.js';
import { pageFeatures, type FeatureDoc } from './text-features.js';

export class ClassifierScorer implements RelevanceScorer {
  constructor(
    private readonly model: LogisticModelData,
    private readonly keywords: KeywordScorer,
    /** Weight of the classifier's probability, in [0, 1]. */
    readonly weight: number,
  ) {
    if (!(weight >= 0 && weight <= 1)) throw new RangeError(`classifier weight must be in [0, 1], got ${weight}`);
  }

  /** P(relevant) of a page under the model. */
  probability(doc: FeatureDoc, prepare: PrepareFn = prepareText): number {
    return predict(this.model, pageFeatures(doc, this.model.bits, prepare));
  }

  /** `prepare`: the caller's own memoPrepare, to reuse the prepared texts after scoring. */
  score(doc: ScorableDoc, given?: PrepareFn): number {
    // a blend needs the page's texts prepared for both: once
    const prepare = given ?? (this.weight > 0 && this.weight < 1 ? memoPrepare() : prepareText);
    const p = this.weight > 0 ? this.probability(doc, prepare) : 0;
    const k = this.weight < 1 ? this.keywords.score(doc, prepare) : 0;
    return this.weight * p + (1 - this.weight) * k;
  }

  /** Keyword relevance of a short text (see the file header). */
  scoreText(text: string): number {
    return this.keywords.scoreText(text);
  }
}
