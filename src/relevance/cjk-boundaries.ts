/**
 * Word-boundary check for candidate matches of Chinese keywords, with `Intl.Segmenter('zh')` run only
 * around the candidates (segmenting whole pages costs ~0.4 µs a character, far over the scorer's budget).
 *
 * Rule: a candidate [s, e) inside a run of CJK characters is accepted iff
 *   (a) s and e are both word boundaries (the keyword is one word or a sequence of whole words:
 *       卷烟 in 卷烟|厂, 中国烟草 in 中国|烟草|总公司), or
 *   (b) [s, e) lies inside a single word (a part of a longer word: 研究 in 他是|研究生);
 * it is rejected when it straddles a boundary partially (草原 in 烟草|原料, 茶叶 in 喝茶|叶子).
 *
 * Windows: the text segmented is a window of the candidate's CJK run (a maximal run of CJK characters,
 * so its edges are punctuation, whitespace, Latin text or the ends of the text, which are boundaries for
 * the segmenter too):
 * - the whole run when it is at most {@link SHORT_RUN} characters long;
 * - otherwise the candidate plus up to {@link CONTEXT} characters on each side, clipped at the run's
 *   edges. Cutting a run in the middle of a word changes the segmentation only near the cut: with
 *   ICU 78 (Node 20) and 100,000 characters of running text, simplified and traditional, a window with
 *   4 characters on each side of a position already agreed with whole-run segmentation at every
 *   position tested (2 characters: 0.2–0.4 % disagree). CONTEXT = 16 leaves a wide margin.
 * Windows of candidates that overlap (several keywords, or dense mentions) are merged up to
 * {@link MAX_WINDOW} characters and segmented once (Intl.Segmenter slows down quadratically on long
 * strings; see tokenize.ts). Two cases follow from the rule without segmenting: a one-character
 * candidate (always inside one word) and a candidate that is its whole run (its edges are boundaries).
 * Decisions are memoised by (window text, offsets) in a bounded map: navigation, boilerplate and
 * repeated phrases recur across pages and fields, and the result depends on nothing else.
 *
 * The text segmented is lower-cased but not script-folded (same length and offsets as the folded text):
 * ICU's dictionary knows traditional words that character folding would break (煙葉 is one word,
 * its folding 烟叶 is segmented 烟|叶).
 */
import { isCjk } from './chars.js';

/** The one word segmenter of the relevance code (tokenize.ts uses it too). */
export const wordSegmenter = new Intl.Segmenter('zh', { granularity: 'word' });

/** Characters of context on each side of a candidate in a long run. */
export const CONTEXT = 16;
/** Runs up to this length are segmented whole. */
export const SHORT_RUN = 64;
/** Longest merged window handed to the segmenter. */
export const MAX_WINDOW = 256;

const MEMO_MAX = 20_000;
/** Decisions seen so far, keyed by "a,b,window": a pure function's results (boilerplate and repeated phrases recur). */
let memo = new Map<string, boolean>();

/** Forgets memoised decisions (benchmarks use it to measure the segmenter's cost). */
export function clearCjkMemo(): void {
  memo = new Map();
}

function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** True if the code unit at i belongs to a CJK run (a CJK code unit, or the low half of a plane-2 ideograph). */
function inRun(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return isCjk(c) || (isLow(c) && i > 0 && isCjk(text.charCodeAt(i - 1)));
}

/**
 * The window segmented for candidate [s, e) (see the file header), as [start, end) packed into `out`.
 * Never splits a surrogate pair.
 */
function windowOf(text: string, s: number, e: number, out: [number, number]): void {
  let ws = s;
  const minStart = Math.max(0, s - SHORT_RUN);
  while (ws > minStart && inRun(text, ws - 1)) ws--;
  const runStartFound = ws === 0 || !inRun(text, ws - 1);
  let we = e;
  const maxEnd = Math.min(text.length, e + SHORT_RUN);
  while (we < maxEnd && inRun(text, we)) we++;
  const runEndFound = we === text.length || !inRun(text, we);
  if (runStartFound && runEndFound && we - ws <= SHORT_RUN) {
    out[0] = ws;
    out[1] = we;
    return;
  }
  if (ws < s - CONTEXT) {
    ws = s - CONTEXT;
    if (isLow(text.charCodeAt(ws))) ws--;
  }
  if (we > e + CONTEXT) {
    we = e + CONTEXT;
    if (isHigh(text.charCodeAt(we - 1))) we++;
  }
  out[0] = ws;
  out[1] = we;
}

/** Decides candidate [a, b) (offsets in the window) against the window's segmentation. */
function decide(segments: Intl.Segments, a: number, b: number): boolean {
  const first = segments.containing(a);
  if (first === undefined) return false;
  const fs = first.index;
  const fe = fs + first.segment.length;
  if (fs <= a && fe >= b) return true; // one word, or inside one word
  if (fs !== a) return false; // starts inside a word and goes beyond it
  const last = segments.containing(b - 1);
  return last !== undefined && last.index + last.segment.length === b;
}

/**
 * True if the rule decides [s, e) without segmenting: a single character always lies inside one word,
 * and a candidate that is its whole run starts and ends at the run's edges, which are boundaries.
 */
function trivial(text: string, s: number, e: number): boolean {
  if (e - s === 1 || (e - s === 2 && isHigh(text.charCodeAt(s)))) return true;
  return (s === 0 || !inRun(text, s - 1)) && (e === text.length || !inRun(text, e));
}

/**
 * Decides candidates [starts[k], ends[k]) of CJK keywords in `text` (lower-cased, not folded), sorted by
 * start; each must lie inside one CJK run. Returns 1 (accepted) or 0 (rejected) for each candidate.
 */
export function acceptCjkMatches(text: string, starts: ArrayLike<number>, ends: ArrayLike<number>): Uint8Array {
  const accepted = new Uint8Array(starts.length);
  const todo: number[] = [];
  for (let k = 0; k < starts.length; k++) {
    if (trivial(text, starts[k], ends[k])) accepted[k] = 1;
    else todo.push(k);
  }
  const n = todo.length;
  const win: [number, number] = [0, 0];
  let i = 0;
  let pending = false; // win already holds the window of candidate todo[i]
  while (i < n) {
    if (!pending) windowOf(text, starts[todo[i]], ends[todo[i]], win);
    pending = false;
    const ws = win[0];
    let we = win[1];
    let j = i + 1;
    for (; j < n; j++) {
      windowOf(text, starts[todo[j]], ends[todo[j]], win);
      if (win[0] > we || Math.max(we, win[1]) - ws > MAX_WINDOW) {
        pending = true;
        break;
      }
      if (win[1] > we) we = win[1];
    }
    const windowText = text.slice(ws, we);
    let segments: Intl.Segments | null = null;
    for (let t = i; t < j; t++) {
      const k = todo[t];
      const a = starts[k] - ws;
      const b = ends[k] - ws;
      const key = `${a},${b},${windowText}`;
      let ok = memo.get(key);
      if (ok === undefined) {
        segments ??= wordSegmenter.segment(windowText);
        ok = decide(segments, a, b);
        if (memo.size >= MEMO_MAX) memo = new Map();
        memo.set(key, ok);
      }
      accepted[k] = ok ? 1 : 0;
    }
    i = j;
  }
  return accepted;
}

/** {@link acceptCjkMatches} for a single candidate. */
export function acceptsCjkMatch(text: string, s: number, e: number): boolean {
  return acceptCjkMatches(text, [s], [e])[0] === 1;
}
