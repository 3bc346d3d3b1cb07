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
 * repeated phrases recur within and across pages, and the result depends on nothing else.
 *
 * The text segmented is lower-cased but not script-folded (same length and offsets as the folded text):
 * ICU's dictionary knows traditional words that character folding would break (煙葉 is one word,
 * its folding 烟叶 is segmented 烟|叶).
 */
import { isCjk } from './chars.js';

let segmenter: Intl.Segmenter | null = null;

/**
 * The one word segmenter of the relevance code (tokenize.ts and feedback-terms.ts use it too), made
 * on first use: making it loads ICU's Chinese dictionary, 15 ms that every command and every
 * analysis thread paid at start-up, most of them never segmenting a word.
 */
export function wordSegmenter(): Intl.Segmenter {
  return (segmenter ??= new Intl.Segmenter('zh', { granularity: 'word' }));
}

/** Characters of context on each side of a candidate in a long run. */
export const CONTEXT = 16;
/** Runs up to this length are segmented whole. */
export const SHORT_RUN = 64;
/** Longest merged window handed to the segmenter. */
export const MAX_WINDOW = 256;

const MEMO_MAX = 10_000;
/**
 * Decisions seen so far: window text → (a · 2^16 + b) → accepted. A pure function's results, kept
 * because navigation, boilerplate and repeated phrases recur within and across pages.
 */
let memo = new Map<string, Map<number, boolean>>();

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

/** Finds the CJK run around candidates, remembering the last one (candidates come sorted by start). */
class RunFinder {
  start = 0;
  end = -1;
  constructor(private readonly text: string) {}

  /** Sets start/end to the run containing [s, e). */
  find(s: number, e: number): void {
    if (s >= this.start && e <= this.end) return;
    const { text } = this;
    let rs = s;
    while (rs > 0 && inRun(text, rs - 1)) rs--;
    let re = e;
    while (re < text.length && inRun(text, re)) re++;
    this.start = rs;
    this.end = re;
  }
}

/**
 * The window segmented for candidate [s, e) in run [rs, re) (see the file header), as [start, end)
 * packed into `out`. Never splits a surrogate pair.
 */
function windowOf(text: string, s: number, e: number, rs: number, re: number, out: [number, number]): void {
  if (re - rs <= SHORT_RUN) {
    out[0] = rs;
    out[1] = re;
    return;
  }
  let ws = rs;
  if (ws < s - CONTEXT) {
    ws = s - CONTEXT;
    if (isLow(text.charCodeAt(ws))) ws--;
  }
  let we = re;
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
 * Decides candidates [starts[k], ends[k]) of CJK keywords in `text` (lower-cased, not folded), sorted by
 * start; each must lie inside one CJK run. Returns 1 (accepted) or 0 (rejected) for each candidate.
 *
 * Two cases follow from the rule without segmenting: a one-character candidate (always inside one
 * word) and a candidate that is its whole run (the run's edges are boundaries).
 */
export function acceptCjkMatches(text: string, starts: ArrayLike<number>, ends: ArrayLike<number>): Uint8Array {
  const accepted = new Uint8Array(starts.length);
  const runs = new RunFinder(text);
  const todo: number[] = [];
  const winStart: number[] = [];
  const winEnd: number[] = [];
  const win: [number, number] = [0, 0];
  for (let k = 0; k < starts.length; k++) {
    const s = starts[k];
    const e = ends[k];
    if (e - s === 1 || (e - s === 2 && isHigh(text.charCodeAt(s)))) {
      accepted[k] = 1;
      continue;
    }
    runs.find(s, e);
    if (s === runs.start && e === runs.end) {
      accepted[k] = 1;
      continue;
    }
    windowOf(text, s, e, runs.start, runs.end, win);
    todo.push(k);
    winStart.push(win[0]);
    winEnd.push(win[1]);
  }
  const n = todo.length;
  let i = 0;
  while (i < n) {
    // merge the windows of the following candidates that overlap this one (same run), up to MAX_WINDOW
    const ws = winStart[i];
    let we = winEnd[i];
    let j = i + 1;
    for (; j < n && winStart[j] <= we && Math.max(we, winEnd[j]) - ws <= MAX_WINDOW; j++) if (winEnd[j] > we) we = winEnd[j];
    const windowText = text.slice(ws, we);
    let known = memo.get(windowText);
    if (known === undefined) {
      if (memo.size >= MEMO_MAX) memo = new Map();
      known = new Map();
      memo.set(windowText, known);
    }
    let segments: Intl.Segments | null = null;
    for (let t = i; t < j; t++) {
      const k = todo[t];
      const a = starts[k] - ws;
      const b = ends[k] - ws;
      const key = a * 65536 + b;
      let ok = known.get(key);
      if (ok === undefined) {
        segments ??= wordSegmenter().segment(windowText);
        ok = decide(segments, a, b);
        known.set(key, ok);
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
