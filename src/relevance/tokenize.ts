/**
 * Tokenisation for relevance and classifiers: lower-cased, Chinese folded to simplified
 * (see script-fold.ts), words segmented with `Intl.Segmenter('zh')` (which handles both scripts and
 * English), English words stemmed with natural's Porter stemmer, English stop words, digits and
 * punctuation dropped, CJK words kept as they are.
 *
 * `Intl.Segmenter` slows down roughly quadratically with the length of the string it is given, so the
 * text is first cut at whitespace/punctuation into pieces of at most {@link MAX_PIECE} code units
 * (a piece with no such break is cut hard, never inside a surrogate pair).
 */
import PorterStemmer from 'natural/lib/natural/stemmers/porter_stemmer.js';
import { words as stopwordList } from 'natural/lib/natural/util/stopwords.js';
import { isCjk, isDigit, isLetter, isSpace } from './chars.js';
import { foldChinese } from './script-fold.js';
import { wordSegmenter } from './cjk-boundaries.js';

/** Longest string handed to Intl.Segmenter at once. */
export const MAX_PIECE = 256;

const STOP = new Set(stopwordList);
const STEM_CACHE_MAX = 100_000;

/**
 * Words longer than this are kept as they are, never stemmed nor memoised. English words are far
 * shorter; longer "words" are glued text (a page of 200,000 links with no space between them has one
 * word of a million letters), and natural's Porter stemmer is quadratic in the length of a word (its
 * regexes, `[^aeiouy]+y` and the like, rescan from every position): 10,000 links took 42 s to score,
 * 20,000 took 157 s. Keywords go through the same rule, so matching stays consistent. Not memoised:
 * the word is a slice of the page's text, and a cache entry would keep the whole text alive.
 */
export const MAX_STEM_LENGTH = 64;
let stemCache = new Map<string, string>();

/** True for an English stop word (lower-case input). */
export function isStopWord(word: string): boolean {
  return STOP.has(word);
}

/** Porter stem of a lower-case word, memoised (the stemmer costs ~5 µs a word). */
export function stemWord(word: string): string {
  let s = stemCache.get(word);
  if (s === undefined) {
    s = PorterStemmer.stem(word);
    if (stemCache.size >= STEM_CACHE_MAX) stemCache = new Map();
    stemCache.set(word, s);
  }
  return s;
}

/** Results of {@link normaliseWord} for words seen so far (null: dropped). */
let wordCache = new Map<string, string | null>();

/**
 * Normalises one lower-case word of a space-delimited script: drops a possessive "'s", removes other
 * apostrophes, returns null for stop words and words without letters, else the stem. Memoised.
 */
export function normaliseWord(word: string): string | null {
  if (word.length > MAX_STEM_LENGTH) return normaliseUncached(word);
  let r = wordCache.get(word);
  if (r === undefined) {
    r = normaliseUncached(word);
    if (wordCache.size >= STEM_CACHE_MAX) wordCache = new Map();
    wordCache.set(word, r);
  }
  return r;
}

function normaliseUncached(word: string): string | null {
  let w = word;
  if (w.length > 2) {
    const c = w.charCodeAt(w.length - 2);
    if ((c === 39 || c === 0x2019) && w.charCodeAt(w.length - 1) === 115) w = w.slice(0, -2);
  }
  let hasLetter = false;
  let hasApostrophe = false;
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    if (c === 39 || c === 0x2019) hasApostrophe = true;
    else if (!hasLetter && isLetter(c)) hasLetter = true;
  }
  if (!hasLetter) return null;
  if (hasApostrophe) w = w.replace(/['\u2019]/g, '');
  if (STOP.has(w)) return null;
  return w.length > MAX_STEM_LENGTH ? w : stemWord(w);
}

/** Cuts text into pieces of at most `max` code units at whitespace/punctuation where possible. */
export function splitPieces(text: string, max = MAX_PIECE): string[] {
  const pieces: string[] = [];
  const n = text.length;
  let start = 0;
  while (n - start > max) {
    let cut = -1;
    for (let i = start + max; i > start; i--) {
      const c = text.charCodeAt(i - 1);
      if (!isCjk(c) && !isLetter(c) && !isDigit(c)) {
        cut = i;
        break;
      }
    }
    if (cut < 0) {
      cut = start + max;
      const c = text.charCodeAt(cut - 1);
      if (c >= 0xd800 && c <= 0xdbff) cut--; // keep a surrogate pair together
    }
    pieces.push(text.slice(start, cut));
    start = cut;
  }
  if (start < n) pieces.push(start === 0 ? text : text.slice(start));
  return pieces;
}

/** Tokens of `text` (see the file header). Deterministic; linear in the length of the text. */
export function tokenize(text: string): string[] {
  const folded = foldChinese(text.toLowerCase());
  const out: string[] = [];
  for (const piece of splitPieces(folded)) {
    for (const seg of wordSegmenter().segment(piece)) {
      if (!seg.isWordLike) continue;
      const w = seg.segment;
      const c = w.charCodeAt(0);
      if (isCjk(c)) {
        out.push(w);
      } else if (!isSpace(c)) {
        const t = normaliseWord(w);
        if (t !== null) out.push(t);
      }
    }
  }
  return out;
}
