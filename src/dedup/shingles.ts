/**
 * The text shingles of a page and their SimHash, from the units the relevance scorer's scanner
 * already made of the page's text (scan.ts: English words lower-cased, stemmed, stop words dropped;
 * runs of CJK characters, script-folded to simplified; sentence breaks) and the lines it found in
 * the same pass: nothing is tokenised twice, and the text is not read again.
 *
 * - Words: every run of `words` consecutive word units inside one sentence is a shingle (w-shingling,
 *   Broder 1997); a sentence shorter than that is one shingle when it has at least 2 words (a
 *   one-word line, such as a menu item, is none).
 * - CJK: Chinese is written without spaces, so inside each run of CJK characters every `cjk`
 *   consecutive characters are a shingle (character n-grams); a shorter run of at least 2 characters
 *   is one shingle. Folding makes a traditional copy of a simplified page the same shingles.
 * - No shingle spans a sentence break, so paragraphs in another order give the same shingles.
 * - Boilerplate: lines (the page's block boundaries) of fewer than `minLineWords` words (20, not
 *   counting stop words and numbers; CJK characters / 1.6) are left out: menus, bylines, dates,
 *   share bars, "related" teasers, copyright lines, so that one article in two sites' templates
 *   gets nearly one fingerprint. A page whose long lines make fewer than MIN_SHINGLES shingles
 *   (lists, forums, short pages) is fingerprinted on all its lines instead. A long paragraph of
 *   boilerplate (a site's "about us" blurb on every page) stays in: see the README's figures.
 *
 * Each unit (word or CJK character) is hashed once with xxHash64 (@node-rs/xxhash), memoised; a
 * shingle's 64-bit hash combines its units' hashes in order (multiply-xor-rotate on each 32-bit
 * half, then murmur3's finaliser), so a page costs one native call per new word, not per shingle.
 */
import { xxh64 } from '@node-rs/xxhash';
import type { PreparedText } from '../relevance/keyword-matcher.js';
import { SENTENCE_BREAK, WORD_SLOTS } from '../relevance/scan.js';
import { isCjk } from '../relevance/chars.js';
import { SimHashBuilder, type Fingerprint } from './simhash.js';

import { DEFAULT_SHINGLES, type ShingleOptions } from './shingle-options.js';

export { DEFAULT_SHINGLES, type ShingleOptions } from './shingle-options.js';

/**
 * Pages with fewer shingles than this get no SimHash: a few lines of text say too little (one
 * edit moves the hash by many bits, and two such pages of one template look alike).
 */
export const MIN_SHINGLES = 8;

/** A page's SimHash and how many shingle occurrences made it. */
export interface TextSimHash {
  fingerprint: Fingerprint;
  shingles: number;
}

const MEMO_MAX = 200_000;
/** unit → its slot in memoHashes (hi at 2·slot, lo at 2·slot + 1) */
let memo = new Map<string, number>();
const memoHashes = new Int32Array(MEMO_MAX * 2);
const MASK32 = 0xffffffffn;

/** xxHash64 of a unit, as two 32-bit halves written to `out[at]` (hi) and `out[at + 1]` (lo), memoised. */
function unitHash(unit: string, out: Int32Array, at: number): void {
  const slot = memo.get(unit);
  if (slot !== undefined) {
    out[at] = memoHashes[slot * 2];
    out[at + 1] = memoHashes[slot * 2 + 1];
    return;
  }
  const h = xxh64(unit);
  const hi = Number(h >> 32n) | 0;
  const lo = Number(h & MASK32) | 0;
  out[at] = hi;
  out[at + 1] = lo;
  if (unit.length > 64) return; // (glued text: not worth keeping)
  if (memo.size >= MEMO_MAX) memo = new Map();
  const k = memo.size;
  memo.set(unit, k);
  memoHashes[k * 2] = hi;
  memoHashes[k * 2 + 1] = lo;
}

/**
 * Hashes of the scanner's words by their slot in its word table (scan.ts, ScannedText.slots), with
 * the table's generation they were taken in: a word the scanner met before costs two array reads
 * here, not a lookup in the Map above (a large Map's probes missed the cache: 2–3% of the analysis
 * thread in a 20,000-page crawl, `perf`).
 */
const slotHi = new Int32Array(WORD_SLOTS);
const slotLo = new Int32Array(WORD_SLOTS);
const slotGen = new Int32Array(WORD_SLOTS);

/** unitHash of `unit`, the word in `slot` of the scanner's table in generation `gen`. */
function slotHash(unit: string, slot: number, gen: number, out: Int32Array, at: number): void {
  if (slotGen[slot] !== gen) {
    unitHash(unit, out, at);
    slotHi[slot] = out[at];
    slotLo[slot] = out[at + 1];
    slotGen[slot] = gen;
    return;
  }
  out[at] = slotHi[slot];
  out[at + 1] = slotLo[slot];
}

/** Hashes of single BMP characters (CJK n-grams), filled on first use. */
const charHi = new Int32Array(65536);
const charLo = new Int32Array(65536);
const charSeen = new Uint8Array(65536);

function charHash(c: number, out: Int32Array, at: number): void {
  if (!charSeen[c]) {
    const h = xxh64(String.fromCharCode(c));
    charHi[c] = Number(h >> 32n) | 0;
    charLo[c] = Number(h & MASK32) | 0;
    charSeen[c] = 1;
  }
  out[at] = charHi[c];
  out[at + 1] = charLo[c];
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16); // (signed: a uint32 above 2^31 would be a heap number)
}

/**
 * Adds the shingle made of the unit hashes `ring[from .. from + n)` to `sh`: pairs, in a ring of
 * `mask + 1` pairs (a power of two, so that a position wraps with a mask, not a division).
 */
function addShingle(sh: SimHashBuilder, ring: Int32Array, mask: number, from: number, n: number): void {
  let a = 0x243f6a88 ^ n;
  let b = 0x85a308d3;
  for (let i = 0; i < n; i++) {
    const k = ((from + i) & mask) * 2;
    a = Math.imul(a ^ ring[k], 0x9e3779b1);
    a = (a << 15) | (a >>> 17);
    b = Math.imul(b ^ ring[k + 1], 0x85ebca77);
    b = (b << 13) | (b >>> 19);
  }
  const hi = fmix32(a ^ Math.imul(b, 0x27d4eb2f));
  const lo = fmix32(b ^ hi);
  sh.add(hi, lo);
}

/**
 * The SimHash of a prepared text (keyword-matcher.ts's PreparedText: pass the scorer's prepared
 * body). Lines (the text's line breaks: block boundaries of the page, found by the scanner in its
 * one pass) with fewer than `minLineWords` words are left out when the rest still makes
 * MIN_SHINGLES shingles (see the file header); otherwise every line counts. Returns the fingerprint
 * and the number of shingles it was made of (0: the text has none).
 */
export function textSimHash(
  text: Pick<PreparedText, 'units' | 'lineEnds' | 'lineWords'> & Partial<Pick<PreparedText, 'slots' | 'gen'>>, opts: ShingleOptions = DEFAULT_SHINGLES,
): TextSimHash {
  const { units, lineEnds, lineWords } = text;
  const slots = text.slots && text.gen !== undefined ? text.slots : null;
  const gen = text.gen ?? 0;
  if (opts.minLineWords > 0) {
    const sh = shingleLines(units, lineEnds, lineWords, slots, gen, opts.minLineWords, opts);
    if (sh.count >= MIN_SHINGLES) return { fingerprint: sh.digest(), shingles: sh.count };
  }
  const all = shingleLines(units, lineEnds, lineWords, slots, gen, 0, opts);
  return { fingerprint: all.digest(), shingles: all.count };
}

/** The mask of a ring of pairs for shingles of `n` units: the smallest power of two ≥ n, less one. */
function ringMask(n: number): number {
  let size = 1;
  while (size < n) size *= 2;
  return size - 1;
}

/**
 * Shingles of the lines with at least `minWords` words (see textSimHash), into a new builder.
 * `slots`: each unit's slot in the scanner's word table in generation `gen`, or null.
 */
function shingleLines(
  units: readonly string[], lineEnds: readonly number[], lineWords: readonly number[], slots: Int32Array | null, gen: number,
  minWords: number, opts: ShingleOptions,
): SimHashBuilder {
  const sh = new SimHashBuilder();
  const W = opts.words;
  const C = opts.cjk;
  const wordMask = ringMask(W);
  const charMask = ringMask(C);
  const wordRing = new Int32Array((wordMask + 1) * 2);
  const charRing = new Int32Array((charMask + 1) * 2);
  let run = 0; // words in the current sentence so far
  const endSentence = () => {
    if (run >= 2 && run < W) addShingle(sh, wordRing, wordMask, 0, run);
    run = 0;
  };
  let from = 0;
  for (let l = 0; l < lineEnds.length; l++) {
    const to = lineEnds[l];
    if (lineWords[l] < minWords) {
      from = to + 1;
      continue;
    }
    for (let i = from; i < to; i++) {
      const u = units[i];
      if (u === SENTENCE_BREAK) {
        endSentence();
        continue;
      }
      if (isCjk(u.charCodeAt(0))) {
        endSentence();
        const L = u.length;
        if (L < 2) continue;
        if (L < C) {
          for (let j = 0; j < L; j++) charHash(u.charCodeAt(j), charRing, j * 2);
          addShingle(sh, charRing, charMask, 0, L);
          continue;
        }
        for (let j = 0; j < L; j++) {
          charHash(u.charCodeAt(j), charRing, (j & charMask) * 2);
          if (j >= C - 1) addShingle(sh, charRing, charMask, j - C + 1, C);
        }
        continue;
      }
      const slot = slots === null ? -1 : slots[i];
      if (slot >= 0) slotHash(u, slot, gen, wordRing, (run & wordMask) * 2);
      else unitHash(u, wordRing, (run & wordMask) * 2);
      run++;
      if (run >= W) addShingle(sh, wordRing, wordMask, run - W, W);
    }
    endSentence();
    from = to + 1;
  }
  return sh;
}
