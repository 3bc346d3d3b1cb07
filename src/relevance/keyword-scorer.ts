/**
 * KeywordScorer: a page's relevance in [0, 1] from the topic's weighted keywords.
 *
 * For each field f (title, headings, anchor texts joined, body) with weight w_f and each keyword k
 * with weight v_k (may be negative), tf_{k,f} occurrences (matching rules: keyword-matcher.ts):
 * English keywords match on stems; a Chinese keyword matches where its characters (script-folded, so
 * 煙草 = 烟草) occur in a run of CJK text AND Intl.Segmenter('zh') puts word boundaries at both ends
 * of the occurrence, or none inside it: whole words (卷烟 in 卷烟|厂), runs of whole words (中国烟草
 * in 中国|烟草|总公司) and parts of one word (研究 in 研究生) count; an occurrence straddling a
 * boundary does not (草原 in 烟草|原料, 茶叶 in 喝茶|叶子). The segmenter runs only on a window
 * around each occurrence (cjk-boundaries.ts), never on the whole page.
 *
 *   s = Σ_f w_f · n_f · Σ_k (v_k / v_max) · ln(1 + tf_{k,f}),   n_f = 1 / √max(1, len_f / L_f)
 *   score = 1 − e^(−max(0, s) / τ),   τ = 3
 *
 * - v_max is the largest positive keyword weight, so only relative keyword weights matter.
 * - len_f is the field's length in words (scan.ts: English words + CJK characters / 1.6); L_f is a
 *   typical length (title 12, headings 30, anchor 12 per anchor text, body 400). Fields no longer
 *   than typical are not boosted; longer ones are damped by the square root, so one mention in a
 *   very long page weighs less than in a short one.
 * - τ = 3 calibrates the scale with the default field weights (3, 2, 2, 1) and one keyword of weight 1:
 *   title mention + 3 body mentions (400 words): s = 3·ln 2 + ln 4 ≈ 3.47 → 0.69;
 *   one mention in a 400-word body: s = ln 2 ≈ 0.69 → 0.21 (in a 2,000-word body: 0.10);
 *   no mention: 0. Negative keywords subtract; a negative total scores 0.
 *
 * Model `bm25` (topic `relevance.model: bm25`): BM25F with the keyword weights as query-term weights.
 * Per keyword k, with b = 0.75 and k1 = 1.2 and the same fields, weights, lengths and L_f as above:
 *
 *   tf̃_k = Σ_f w_f · tf_{k,f} / (1 − b + b · len_f / L_f)
 *   term_k = tf̃_k · (k1 + 1) / (tf̃_k + k1)
 *   s = Σ_k (v_k / v_max) · term_k,   score = 1 − e^(−max(0, s) / τ),   τ = 4
 *
 * - One keyword's term saturates at k1 + 1 = 2.2, so evidence comes from several keywords rather
 *   than from repeating one; short fields count more than typical ones, long ones less.
 * - τ = 4 (default field weights, one keyword of weight 1): one mention in a 400-word body:
 *   tf̃ = 1, term = 1 → 0.22; two / three body mentions: 1.38 → 0.29 / 1.57 → 0.33 (the `keywords`
 *   model: 0.31 / 0.37); title mention (12-word title) + 3 body mentions: tf̃ = 6, term = 1.83 → 0.37,
 *   and with a second keyword of equal weight mentioned the same way → 0.60. The brief's target of
 *   ~0.7 for title + 3 body mentions of ONE keyword cannot be met together with ~0.2 for one body
 *   mention under 1 − e^(−s/τ): term_k ≤ 2.2 caps the ratio of the two s values at 2.2 where 5.4 is
 *   needed; τ = 4 keeps a single passing mention below the default threshold 0.3.
 * - Stop words count in no field length (scan.ts drops them, as it does for the `keywords` model).
 * - Negative keywords subtract their term, exactly as in the `keywords` model; a negative s scores 0.
 *
 * {@link KeywordScorer.scoreText} scores a short text (anchor text, link context) on its own:
 * the same sum for a single field with w = 1 and L = 12, and τ = 1 (one mention → 0.5).
 *
 * Speed: the score path runs neither opencc's phrase converter (see script-fold.ts) nor Intl.Segmenter
 * on the whole text (see scan.ts); the segmenter sees only the windows around Chinese keyword
 * occurrences. Measured on a loaded 2-core machine, 10 KB pages (scripts/bench-throughput.ts prints it):
 * on-topic Chinese news with ~30 keyword matches, every window segmented: ~1,700–4,400 pages/s
 * (~7,000–11,000 with the decision memo warm; plain substrings without the segmenter: ~8,000–11,000);
 * mixed English / traditional Chinese with a keyword in every clause: ~1,700–4,500 (before: ~3,300–7,000).
 * The segmenter-based tokenize() alone manages ~400.
 */
import type { RelevanceScorer, ScorableDoc } from './relevance-scorer.js';
import { KeywordMatcher, prepareText, type PrepareFn } from './keyword-matcher.js';
import type { Topic } from '../topic/topic-schema.js';

export const FIELDS = ['title', 'headings', 'anchor', 'body'] as const;
export type Field = (typeof FIELDS)[number];

/** The keyword scoring models (topic `relevance.model`). */
export const KEYWORD_MODELS = ['keywords', 'bm25'] as const;
export type KeywordModel = (typeof KEYWORD_MODELS)[number];

/** Options: the topic's `keywords`, `relevance.fields` and `relevance.model` (default `keywords`). */
export interface KeywordScorerOptions {
  keywords: Record<string, number>;
  fields: Record<Field, number>;
  model?: KeywordModel;
}

export const TAU = 3;
/** BM25F constants of the `bm25` model (see the file header). */
export const BM25 = { k1: 1.2, b: 0.75, tau: 4 } as const;
export const TEXT_TAU = 1;
export const TYPICAL_LENGTH: Readonly<Record<Field, number>> = { title: 12, headings: 30, anchor: 12, body: 400 };

/** Where one keyword matched, for `explain`. */
export interface KeywordMatch {
  keyword: string;
  weight: number;
  counts: Record<Field, number>;
}

/** The whole computation behind a score, for `explain`. */
export interface ScoreExplanation {
  score: number;
  /** s before saturation (may be negative). */
  raw: number;
  /** Per field: length in words; norm (keywords: 1/√max(1, len/L); bm25: 1/(1 − b + b·len/L)); share of s. */
  fields: Record<Field, { words: number; norm: number; contribution: number }>;
  /** Keywords with at least one occurrence, in topic order. */
  matches: KeywordMatch[];
}

export class KeywordScorer implements RelevanceScorer {
  private readonly matcher: KeywordMatcher;
  private readonly fieldWeights: Record<Field, number>;
  /** Keyword weights divided by v_max (all zero if no positive weight). */
  private readonly relWeights: number[];
  readonly model: KeywordModel;

  constructor(options: KeywordScorerOptions) {
    this.model = options.model ?? 'keywords';
    this.matcher = new KeywordMatcher(options.keywords);
    this.fieldWeights = { ...options.fields };
    const vmax = Math.max(0, ...this.matcher.keywords.map((k) => k.weight));
    this.relWeights = this.matcher.keywords.map((k) => (vmax > 0 ? k.weight / vmax : 0));
  }

  /** The scorer of a topic (its `keywords`, `relevance.fields` and `relevance.model`). */
  static fromTopic(topic: { keywords: Topic['keywords']; relevance: Pick<Topic['relevance'], 'fields'> & { model?: KeywordModel } }): KeywordScorer {
    return new KeywordScorer({ keywords: topic.keywords, fields: topic.relevance.fields, model: topic.relevance.model });
  }

  /** The page's score; `prepare` lets a caller that also prepares the page's texts share that work. */
  score(doc: ScorableDoc, prepare: PrepareFn = prepareText): number {
    return this.explain(doc, false, prepare).score;
  }

  /** Score with its parts; `withMatches` false skips building the match list. */
  explain(doc: ScorableDoc, withMatches = true, prepare: PrepareFn = prepareText): ScoreExplanation {
    const texts: Record<Field, string> = {
      title: doc.title,
      headings: doc.headings,
      anchor: doc.anchors.join('\n'),
      body: doc.body,
    };
    const typical: Record<Field, number> = { ...TYPICAL_LENGTH, anchor: TYPICAL_LENGTH.anchor * Math.max(1, doc.anchors.length) };
    const fields = {} as ScoreExplanation['fields'];
    const perField = {} as Record<Field, number[] | null>;
    let raw = 0;
    for (const f of FIELDS) {
      const w = this.fieldWeights[f];
      if (w <= 0 || texts[f].length === 0) {
        fields[f] = { words: 0, norm: 0, contribution: 0 };
        perField[f] = null;
        continue;
      }
      const prepared = prepare(texts[f]);
      const counts = this.matcher.count(prepared);
      if (this.model === 'bm25') {
        fields[f] = { words: prepared.words, norm: 1 / (1 - BM25.b + (BM25.b * prepared.words) / typical[f]), contribution: 0 };
      } else {
        const norm = 1 / Math.sqrt(Math.max(1, prepared.words / typical[f]));
        const contribution = w * norm * this.weightedSum(counts);
        raw += contribution;
        fields[f] = { words: prepared.words, norm, contribution };
      }
      perField[f] = counts;
    }
    if (this.model === 'bm25') raw = this.bm25(perField, fields);
    const score = saturate(raw, this.model === 'bm25' ? BM25.tau : TAU);
    const matches: KeywordMatch[] = [];
    if (withMatches) {
      this.matcher.keywords.forEach((k, i) => {
        const counts = { title: 0, headings: 0, anchor: 0, body: 0 };
        let any = false;
        for (const f of FIELDS) {
          const c = perField[f]?.[i] ?? 0;
          counts[f] = c;
          if (c > 0) any = true;
        }
        if (any) matches.push({ keyword: k.term, weight: k.weight, counts });
      });
    }
    return { score, raw, fields, matches };
  }

  /** Which keywords matched in which field (keywords with no match are left out). */
  keywordMatchCounts(doc: ScorableDoc): KeywordMatch[] {
    return this.explain(doc, true).matches;
  }

  /** Cheap relevance of a short text (anchor text, link context) in [0, 1]; see the file header. */
  scoreText(text: string): number {
    if (text.length === 0) return 0;
    const prepared = prepareText(text);
    const norm = 1 / Math.sqrt(Math.max(1, prepared.words / TYPICAL_LENGTH.anchor));
    return saturate(norm * this.weightedSum(this.matcher.count(prepared)), TEXT_TAU);
  }

  /**
   * BM25F s (file header) from the per-field counts; `fields[f].norm` holds 1 / (1 − b + b·len_f/L_f).
   * Sets each field's `contribution` to its share of s: term_k split in proportion to the field's
   * part of tf̃_k, so the contributions add up to s.
   */
  private bm25(perField: Record<Field, number[] | null>, fields: ScoreExplanation['fields']): number {
    const { k1 } = BM25;
    let s = 0;
    for (let i = 0; i < this.relWeights.length; i++) {
      const rel = this.relWeights[i];
      if (rel === 0) continue;
      let tf = 0;
      for (const f of FIELDS) {
        const c = perField[f]?.[i] ?? 0;
        if (c > 0) tf += this.fieldWeights[f] * c * fields[f].norm;
      }
      if (tf === 0) continue;
      const term = rel * ((tf * (k1 + 1)) / (tf + k1));
      s += term;
      for (const f of FIELDS) {
        const c = perField[f]?.[i] ?? 0;
        if (c > 0) fields[f].contribution += (term * this.fieldWeights[f] * c * fields[f].norm) / tf;
      }
    }
    return s;
  }

  private weightedSum(counts: number[]): number {
    let s = 0;
    for (let i = 0; i < counts.length; i++) if (counts[i] > 0) s += this.relWeights[i] * Math.log1p(counts[i]);
    return s;
  }
}

function saturate(s: number, tau: number): number {
  return s > 0 ? 1 - Math.exp(-s / tau) : 0;
}
