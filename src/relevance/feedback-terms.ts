/**
 * Pseudo-relevance feedback (Rocchio) for the page scorer: from the pages a crawl has scored so far,
 * the terms the best pages share that the topic's keywords do not name.
 *
 * Input: D, the pages scored so far (each with its score), split into T, the `top` highest-scoring
 * pages that are relevant (score ≥ threshold; ties: earlier page first) and R, the pages below the
 * threshold. Terms of a page (title, headings and body together), as the keyword matcher sees text
 * (keyword-matcher.ts, scan.ts):
 * - English (space-delimited) words: the matcher's units, i.e. lower-cased Porter stems with stop
 *   words and letterless words dropped; a candidate must also be at least 3 letters long, contain no
 *   digit, and its most frequent written form in T must normalise back to exactly that stem (the form
 *   is what is added, so the matcher finds it as it found the stem);
 * - Chinese / Japanese runs: the words Intl.Segmenter('zh') cuts them into (2 characters or more).
 * Terms that are a unit of a topic keyword (or, for CJK words, contain one or are part of one) are
 * never candidates: the user already wrote them.
 *
 * Weights (tf-idf over D, Rocchio with β = 1, γ = {@link GAMMA}):
 *
 *   w_d(t) = (1 + ln tf_{t,d}) · ln(|D| / df_t),   normalised so that ‖w_d‖₂ = 1
 *   q(t) = (1/|T|) Σ_{d∈T} w_d(t) − γ · (1/|R|) Σ_{d∈R} w_d(t)
 *
 * A term is kept when q(t) > 0 and it occurs in at least max(2, ⌈0.3·|T|⌉) pages of T (all of
 * them when |T| < 2; {@link minTopDocs}): a term of one page or one site is that page's, not the topic's. The `maxTerms` best by q (ties: alphabetical) are added
 * to the keywords with weight
 *
 *   v_t = weight · v_max · q(t) / q_max
 *
 * (v_max: the largest positive keyword weight; q_max: the best term's q), rounded to 3 decimals:
 * the best added term weighs `weight` times the user's strongest keyword, the others in proportion.
 * Deterministic: the same pages in the same order give the same terms.
 */
import { isCjk, isDigit } from './chars.js';
import { wordSegmenter } from './cjk-boundaries.js';
import { prepareText } from './keyword-matcher.js';
import { SENTENCE_BREAK, isCjkUnit } from './scan.js';

/** Weight γ of the centroid of the pages below the threshold (Rocchio's negative feedback). */
export const GAMMA = 0.5;
/** Shortest English term (letters of its stem) and shortest CJK word (characters) that may be added. */
export const MIN_TERM_LENGTH = 3;
export const MIN_CJK_LENGTH = 2;

/**
 * Share of the top pages a term must occur in (and in 2 at least; all of them when there are fewer).
 * Measured (README, "Relevance feedback"): 0.3 and 0.5 give the same harvest within a point.
 */
export const MIN_TOP_SHARE = 0.3;

/** How many of `top` top pages a term must occur in. */
export function minTopDocs(top: number): number {
  return Math.min(top, Math.max(2, Math.ceil(MIN_TOP_SHARE * top)));
}

/** One scored page's text. */
export interface FeedbackDoc {
  score: number;
  title: string;
  headings: string;
  body: string;
}

export interface FeedbackOptions {
  /** The topic's keywords (term → weight). */
  keywords: Readonly<Record<string, number>>;
  /** `relevance.threshold`: T holds pages at or above it, R those below. */
  threshold: number;
  top: number;
  maxTerms: number;
  /** Weight of the best added term relative to v_max, in (0, 1). */
  weight: number;
}

/** An added term: as written in the keywords, its weight, and its Rocchio score q. */
export interface FeedbackTerm {
  term: string;
  weight: number;
  q: number;
}

export interface FeedbackResult {
  terms: FeedbackTerm[];
  /** Pages in D, T, R. */
  pages: number;
  top: number;
  low: number;
}

interface DocTerms {
  tf: Map<string, number>;
  /** written forms of English stems, with counts */
  forms: Map<string, Map<string, number>>;
}

const WORD_AT = /^[\p{L}\p{N}'\u2019]+/u;

/** The candidate terms of a text with their counts (see the file header). */
function docTerms(text: string, out: DocTerms): void {
  const p = prepareText(text);
  for (let i = 0; i < p.units.length; i++) {
    const u = p.units[i];
    if (u === SENTENCE_BREAK) continue;
    if (isCjkUnit(u)) {
      for (const seg of wordSegmenter().segment(u)) {
        const w = seg.segment;
        if (!seg.isWordLike || Array.from(w).length < MIN_CJK_LENGTH || !isCjk(w.charCodeAt(0))) continue;
        out.tf.set(w, (out.tf.get(w) ?? 0) + 1);
      }
      continue;
    }
    if (u.length < MIN_TERM_LENGTH) continue;
    const form = WORD_AT.exec(p.folded.slice(p.starts[i], p.starts[i] + 80))?.[0] ?? u;
    let digit = false;
    for (let k = 0; k < form.length && !digit; k++) digit = isDigit(form.charCodeAt(k));
    if (digit) continue;
    out.tf.set(u, (out.tf.get(u) ?? 0) + 1);
    let f = out.forms.get(u);
    if (!f) out.forms.set(u, (f = new Map()));
    f.set(form, (f.get(form) ?? 0) + 1);
  }
}

/** Units of the topic's keywords (English stems; CJK keywords folded), which are never added. */
function keywordUnits(keywords: Readonly<Record<string, number>>): { units: Set<string>; cjk: string[] } {
  const units = new Set<string>();
  const cjk: string[] = [];
  for (const k of Object.keys(keywords)) {
    for (const u of prepareText(k).units) {
      if (u === SENTENCE_BREAK) continue;
      units.add(u);
      if (isCjkUnit(u)) cjk.push(u);
    }
  }
  return { units, cjk };
}

/** The feedback terms of a set of scored pages, given in the order they were recorded (see the file header). */
export function feedbackTerms(docs: readonly FeedbackDoc[], o: FeedbackOptions): FeedbackResult {
  const order = docs.map((d, i) => ({ d, i }));
  const top = order
    .filter((x) => x.d.score >= o.threshold)
    .sort((a, b) => b.d.score - a.d.score || a.i - b.i)
    .slice(0, o.top)
    .map((x) => x.i);
  const topSet = new Set(top);
  const low = order.filter((x) => x.d.score < o.threshold).map((x) => x.i);
  const result: FeedbackResult = { terms: [], pages: docs.length, top: top.length, low: low.length };
  const need = minTopDocs(top.length);
  if (top.length === 0) return result;
  const parsed: DocTerms[] = docs.map((d) => {
    const t: DocTerms = { tf: new Map(), forms: new Map() };
    docTerms(`${d.title}\n${d.headings}\n${d.body}`, t);
    return t;
  });
  const df = new Map<string, number>();
  for (const t of parsed) for (const k of t.tf.keys()) df.set(k, (df.get(k) ?? 0) + 1);
  const n = docs.length;
  const vector = (t: DocTerms): Map<string, number> => {
    const v = new Map<string, number>();
    let sq = 0;
    for (const [k, tf] of t.tf) {
      const w = (1 + Math.log(tf)) * Math.log(n / df.get(k)!);
      if (w <= 0) continue;
      v.set(k, w);
      sq += w * w;
    }
    const norm = sq > 0 ? 1 / Math.sqrt(sq) : 0;
    for (const [k, w] of v) v.set(k, w * norm);
    return v;
  };
  const q = new Map<string, number>();
  const inTop = new Map<string, number>();
  for (const i of top) {
    for (const [k, w] of vector(parsed[i])) {
      q.set(k, (q.get(k) ?? 0) + w / top.length);
      inTop.set(k, (inTop.get(k) ?? 0) + 1);
    }
  }
  for (const i of low) {
    if (topSet.has(i)) continue;
    for (const [k, w] of vector(parsed[i])) if (q.has(k)) q.set(k, q.get(k)! - (GAMMA * w) / low.length);
  }
  const { units, cjk } = keywordUnits(o.keywords);
  const forms = new Map<string, Map<string, number>>();
  for (const i of top) {
    for (const [stem, f] of parsed[i].forms) {
      let all = forms.get(stem);
      if (!all) forms.set(stem, (all = new Map()));
      for (const [form, c] of f) all.set(form, (all.get(form) ?? 0) + c);
    }
  }
  const candidates: { term: string; q: number }[] = [];
  for (const [k, score] of q) {
    if (score <= 0 || (inTop.get(k) ?? 0) < need || units.has(k)) continue;
    if (isCjk(k.charCodeAt(0))) {
      if (cjk.some((c) => c.includes(k) || k.includes(c))) continue;
      candidates.push({ term: k, q: score });
      continue;
    }
    const written = writtenForm(k, forms.get(k));
    if (written !== null) candidates.push({ term: written, q: score });
  }
  candidates.sort((a, b) => b.q - a.q || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
  const chosen = candidates.filter((c) => !Object.hasOwn(o.keywords, c.term)).slice(0, o.maxTerms);
  const vmax = Math.max(0, ...Object.values(o.keywords));
  if (chosen.length === 0 || vmax <= 0) return result;
  const qmax = chosen[0].q;
  result.terms = chosen.map((c) => ({ term: c.term, weight: round3((o.weight * vmax * c.q) / qmax), q: round3(c.q) }));
  result.terms = result.terms.filter((t) => t.weight > 0);
  return result;
}

/** The most frequent written form of a stem (ties: alphabetical) if it normalises back to the stem alone; else null. */
function writtenForm(stem: string, forms: Map<string, number> | undefined): string | null {
  if (!forms) return null;
  const best = [...forms].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))[0][0];
  const units = prepareText(best).units.filter((u) => u !== SENTENCE_BREAK);
  return units.length === 1 && units[0] === stem ? best : null;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
