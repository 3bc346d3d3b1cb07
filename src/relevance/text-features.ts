/**
 * Hashed text features of a page for the trained classifier (logistic-model.ts).
 *
 * Terms, each prefixed by its field (`t:` title, `h:` headings, `b:` body, `u:` URL):
 * - title, headings, body: the units of the keyword matcher's preparation (keyword-matcher.ts,
 *   scan.ts): lower-cased, Chinese folded to simplified, English words stemmed with stop words and
 *   letterless words dropped; a run of CJK characters becomes its character bigrams (a one-character
 *   run: that character). Bigrams instead of Intl.Segmenter words: the segmenter costs ~10× more per
 *   page and bigrams classify Chinese text about as well;
 * - URL: the lower-cased letter/digit tokens of host and path (no scheme, no query), e.g.
 *   `u:yancao`, `u:news`.
 * Value of a term: log(1 + tf); the vector is L2-normalised over all fields together. A term's
 * bucket is FNV-1a (32-bit, over UTF-16 code units) of the prefixed term modulo 2^bits; terms that
 * share a bucket add up. Empty pages give the empty vector.
 */
import { prepareText, type PrepareFn } from './keyword-matcher.js';
import { SENTENCE_BREAK, isCjkUnit } from './scan.js';
import { urlWords } from '../url/url-words.js';

/** Default number of hash bits: 2^18 = 262,144 buckets. */
export const DEFAULT_HASH_BITS = 18;

/** A page as the classifier sees it (a ScorableDoc without anchors works). */
export interface FeatureDoc {
  url: string;
  title: string;
  headings: string;
  body: string;
}

/** A sparse vector: parallel arrays, indices ascending and distinct. */
export interface SparseVector {
  indices: Uint32Array;
  values: Float32Array;
}

/** The terms of a text (see the file header), without field prefix, in text order. */
export function textTerms(text: string, prepare: PrepareFn = prepareText): string[] {
  if (text.length === 0) return [];
  const out: string[] = [];
  for (const u of prepare(text).units) {
    if (u === SENTENCE_BREAK) continue;
    if (!isCjkUnit(u)) {
      out.push(u);
      continue;
    }
    const chars = Array.from(u);
    if (chars.length === 1) out.push(chars[0]);
    else for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
  }
  return out;
}

/** Letter/digit tokens of a URL's host and path, lower-cased; [] for an invalid URL. */
export function urlTerms(url: string): string[] {
  try {
    return urlWords(new URL(url));
  } catch {
    return [];
  }
}

/** Field-prefixed terms of a page (see the file header). */
export function pageTerms(doc: FeatureDoc, prepare: PrepareFn = prepareText): string[] {
  const out: string[] = [];
  for (const t of textTerms(doc.title, prepare)) out.push(`t:${t}`);
  for (const t of textTerms(doc.headings, prepare)) out.push(`h:${t}`);
  for (const t of textTerms(doc.body, prepare)) out.push(`b:${t}`);
  for (const t of urlTerms(doc.url)) out.push(`u:${t}`);
  return out;
}

/** 32-bit FNV-1a of a string's UTF-16 code units. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The hashed, log(1+tf), L2-normalised vector of a list of terms. */
export function hashTerms(terms: readonly string[], bits = DEFAULT_HASH_BITS): SparseVector {
  const mask = bits >= 32 ? 0xffffffff : (1 << bits) - 1;
  const tf = new Map<number, number>();
  for (const t of terms) {
    const b = (fnv1a(t) & mask) >>> 0;
    tf.set(b, (tf.get(b) ?? 0) + 1);
  }
  const indices = Uint32Array.from(tf.keys()).sort();
  const values = new Float32Array(indices.length);
  let sq = 0;
  for (let i = 0; i < indices.length; i++) {
    const v = Math.log1p(tf.get(indices[i])!);
    values[i] = v;
    sq += v * v;
  }
  if (sq > 0) {
    const n = 1 / Math.sqrt(sq);
    for (let i = 0; i < values.length; i++) values[i] *= n;
  }
  return { indices, values };
}

/** The feature vector of a page: {@link hashTerms} of {@link pageTerms}. */
export function pageFeatures(doc: FeatureDoc, bits = DEFAULT_HASH_BITS, prepare: PrepareFn = prepareText): SparseVector {
  return hashTerms(pageTerms(doc, prepare), bits);
}
