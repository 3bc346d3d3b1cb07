/**
 * The scorer's fast scanner: one pass over char codes of lower-cased, script-folded text, turning it
 * into units for keyword matching. It does not run Intl.Segmenter (which alone manages only
 * ~400–1,500 pages/s of 10 KB Chinese text here): Chinese keywords are found as substrings of runs of
 * CJK characters, and only those candidates are checked against the segmenter's word boundaries
 * (keyword-matcher.ts, cjk-boundaries.ts).
 *
 * Units, in order:
 * - an English (or other space-delimited) word: normalised like tokenize() does (stemmed; stop words
 *   and letterless words dropped);
 * - a CJK run: a maximal run of Han/kana characters, as it is;
 * - '' (SENTENCE_BREAK): any punctuation or symbol other than apostrophes/hyphens, and line breaks.
 *   Whitespace, dropped stop words and dropped numbers do not break a sentence.
 */
import { isCjk, isDigit, isJoiner, isLetter, isSpace } from './chars.js';
import { normaliseWord } from './tokenize.js';
import { detached } from '../url/detached.js';

export const SENTENCE_BREAK = '';

/** Average Chinese word length in characters in running text, used to count a CJK run's length in words. */
export const CJK_CHARS_PER_WORD = 1.6;

/** Units of a text plus its length in words (English words kept + CJK characters / {@link CJK_CHARS_PER_WORD}). */
export interface ScannedText {
  units: string[];
  /** Offset in the scanned text where each unit starts (for a SENTENCE_BREAK: its first break character). */
  starts: number[];
  words: number;
  /**
   * The text's lines (its line feeds: a page's block boundaries), for the SimHash's boilerplate
   * filter (shingles.ts), taken in the same pass: the index of each SENTENCE_BREAK unit whose
   * break holds a line feed, then `units.length` (the last line's end).
   */
  lineEnds: number[];
  /** Words of each line's units (an English word 1, a CJK run its length / {@link CJK_CHARS_PER_WORD}), added in order. */
  lineWords: number[];
  /**
   * For each unit, the slot of the scanner's word table that gave it (-1: a CJK run, a break, a
   * word too long to be kept), valid while the table is in generation {@link gen}; null when the
   * table was emptied during the scan. A (slot, generation) names one unit string for as long as
   * the generation lasts, so a consumer can keep facts about a unit by slot instead of a Map keyed
   * by the string (shingles.ts: each word's hash).
   */
  slots: Int32Array | null;
  /** The word table's generation the slots belong to (see {@link wordTableGeneration}). */
  gen: number;
}

const WORD = 1;
const SPACE = 2;
const BREAK = 3;
/** Class of each ASCII code unit: WORD (letter/digit), SPACE (whitespace or joiner), BREAK. */
const ASCII = new Uint8Array(128).map((_, c) =>
  isLetter(c) || isDigit(c) ? WORD : c !== 10 && c !== 13 && (isSpace(c) || isJoiner(c)) ? SPACE : BREAK);

function isWordChar(c: number): boolean {
  return c < 128 ? ASCII[c] === WORD : isLetter(c);
}

/** Scans lower-cased, folded text (see the file header). */
export function scanUnits(text: string): ScannedText {
  const units: string[] = [];
  const starts: number[] = [];
  // the slots go into a scratch array sized for the text (a unit is at least one character) and
  // are copied out at the end: a third growing array of pushes cost more than the slots saved
  // (kept for the next text up to SLOT_SCRATCH_MAX characters: a huge page's is its own)
  if (slotScratch.length < text.length + 1 && text.length < SLOT_SCRATCH_MAX) slotScratch = new Int32Array(Math.min(SLOT_SCRATCH_MAX, Math.max(text.length + 1, slotScratch.length * 2)));
  const slots = slotScratch.length > text.length ? slotScratch : new Int32Array(text.length + 1);
  const gen = generation;
  const lineEnds: number[] = [];
  const lineWords: number[] = [];
  const n = text.length;
  let latin = 0;
  let cjk = 0;
  // words of the current line so far, and the unit (a break) that ended the last line (-1: none)
  let lineW = 0;
  let lastLineEnd = -1;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    const cls = c < 128 ? ASCII[c] : isLetter(c) ? WORD : isCjk(c) ? 0 : isSpace(c) || isJoiner(c) ? SPACE : BREAK;
    if (cls === WORD) {
      const start = i;
      // the word's hash for the table below, taken as the word is scanned (no second pass over it)
      let h = Math.imul(0x811c9dc5 ^ c, 0x01000193);
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d < 128 ? ASCII[d] === WORD : isLetter(d)) {
          h = Math.imul(h ^ d, 0x01000193);
          i++;
        } else if ((d === 39 || d === 0x2019) && i + 1 < n && isWordChar(text.charCodeAt(i + 1))) {
          h = Math.imul(Math.imul(h ^ d, 0x01000193) ^ text.charCodeAt(i + 1), 0x01000193);
          i += 2;
        } else break;
      }
      const w = wordUnit(text, start, i, h);
      if (w !== null) {
        slots[units.length] = lastSlot;
        units.push(w);
        starts.push(start);
        latin++;
        lineW += 1;
      }
    } else if (cls === 0) {
      const start = i;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d >= 0xd840 && d <= 0xd87f) i += 2; // plane-2 ideograph: both halves
        else if (d >= 0x3040 && isCjk(d)) i++;
        else break;
      }
      if (i > n) i = n;
      slots[units.length] = -1;
      units.push(text.slice(start, i));
      starts.push(start);
      cjk += i - start;
      lineW += (i - start) / CJK_CHARS_PER_WORD;
    } else {
      i++;
      if (cls === BREAK && units.length > 0 && units[units.length - 1] !== SENTENCE_BREAK) {
        slots[units.length] = -1;
        units.push(SENTENCE_BREAK);
        starts.push(i - 1);
      }
      // a line feed after a unit is in the break just pushed or one before it (a line feed is a
      // break character, and nothing since was a unit): that break ends a line
      if (c === 10 && units.length > 0 && lastLineEnd !== units.length - 1) {
        lastLineEnd = units.length - 1;
        lineEnds.push(lastLineEnd);
        lineWords.push(lineW);
        lineW = 0;
      }
    }
  }
  lineEnds.push(units.length);
  lineWords.push(lineW);
  return { units, starts, words: latin + cjk / CJK_CHARS_PER_WORD, lineEnds, lineWords, slots: gen === generation ? slots.slice(0, units.length) : null, gen };
}

/**
 * Words seen, by the text they were scanned from: a table probed with a hash of the word's
 * characters and checked against them in place, so that a word met before costs no slice of the
 * text and no string hashing (a page's words are nearly all met before). Open addressing, linear
 * probes; emptied when half full. Words longer than WORD_MEMO_MAX are not kept.
 */
const WORD_TABLE_SIZE = 1 << 16;
const WORD_MEMO_MAX = 32;
const wordKeys: string[] = new Array<string>(WORD_TABLE_SIZE).fill('');
const wordValues: (string | null)[] = new Array<string | null>(WORD_TABLE_SIZE).fill(null);
const wordHashes = new Int32Array(WORD_TABLE_SIZE);
let wordsKept = 0;
/** The table's generation: counted up each time it is emptied (from 1, so that 0 is never one). */
let generation = 1;
/** Scratch for scanUnits' slots, grown to the longest text scanned up to SLOT_SCRATCH_MAX characters (4 MB). */
const SLOT_SCRATCH_MAX = 1 << 20;
let slotScratch = new Int32Array(1024);
/** The slot of the unit wordUnit returned last (-1: none, the word was too long to keep). */
let lastSlot = -1;

/** The word table's current generation (see {@link ScannedText.slots}). */
export function wordTableGeneration(): number {
  return generation;
}

/** The word table's size: a slot of {@link ScannedText.slots} is below it. */
export const WORD_SLOTS = WORD_TABLE_SIZE;

/**
 * normaliseWord(text.slice(start, end)), through the table above. `hash`: FNV-1a of the word's
 * code units, as the scanner took it.
 */
function wordUnit(text: string, start: number, end: number, hash: number): string | null {
  const len = end - start;
  if (len > WORD_MEMO_MAX) {
    lastSlot = -1;
    return normaliseWord(detached(text.slice(start, end))); // (normaliseWord may keep it)
  }
  let h = Math.imul(hash ^ len, 0x01000193);
  h ^= h >>> 15;
  let k = h & (WORD_TABLE_SIZE - 1);
  for (;;) {
    const key = wordKeys[k];
    if (key === '') break;
    if (wordHashes[k] === h && key.length === len) {
      let q = 0;
      while (q < len && key.charCodeAt(q) === text.charCodeAt(start + q)) q++;
      if (q === len) {
        lastSlot = k;
        return wordValues[k];
      }
    }
    k = (k + 1) & (WORD_TABLE_SIZE - 1);
  }
  const word = detached(text.slice(start, end)); // (kept: not a view on the page's text)
  const unit = normaliseWord(word);
  if (wordsKept >= WORD_TABLE_SIZE / 2) {
    wordKeys.fill('');
    wordsKept = 0;
    generation++;
    k = h & (WORD_TABLE_SIZE - 1);
  }
  lastSlot = k;
  wordKeys[k] = word;
  wordValues[k] = unit;
  wordHashes[k] = h;
  wordsKept++;
  return unit;
}

/** True if a unit is a CJK run (it starts with a CJK character). */
export function isCjkUnit(unit: string): boolean {
  return unit.length > 0 && isCjk(unit.charCodeAt(0));
}
