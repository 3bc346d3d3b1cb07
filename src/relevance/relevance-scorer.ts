/**
 * Scores how on-topic a page is, in [0, 1]. Deterministic and pure: the same input gives the same
 * score. A score at or above the topic's threshold means "relevant" (for Fish life and reports).
 */
export interface RelevanceScorer {
  score(doc: ScorableDoc): number;
}

export interface ScorableDoc {
  url: string;
  title: string;
  headings: string;
  /** Anchor texts of links that point to this page, as far as known when it is scored. */
  anchors: string[];
  body: string;
}
