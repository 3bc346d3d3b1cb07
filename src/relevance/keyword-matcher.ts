/**
 * Compiles a topic's keywords once and counts their occurrences in a piece of text.
 *
 * Matching rule (keywords and text both go through lower-casing, Chinese script folding and the
 * scanner of scan.ts, so they are normalised the same way):
 * - A keyword made only of CJK characters (烟草, 中国烟草) counts the non-overlapping occurrences of
 *   its folded characters in the folded text that respect Chinese word boundaries. Candidates are
 *   found as substrings (so always inside one run of CJK characters, never across whitespace,
 *   punctuation or a sentence break: 烟草。公司 does not match 草公); each candidate [s, e) is then
 *   checked with Intl.Segmenter('zh') on a window of its run (cjk-boundaries.ts) and counts iff
 *   s and e are both word boundaries (烟草 in 烟草|局, 中国烟草 in 中国|烟草|总公司) or [s, e) lies
 *   inside one word (研究 in 研究生); a candidate straddling a boundary partially does not count
 *   (草原 in 烟草|原料). The segmenter sees the text as written (lower-cased, not folded).
 * - Any other keyword is a sequence of units (English stems, CJK runs): it matches at each position
 *   where the text has the same units consecutively with no sentence break in between ("nicotine
 *   patch" matches "Nicotine patches" but not "nicotine. Patch"). Inside such a sequence, a CJK unit
 *   of the keyword must end the text's CJK run when it is first, start it when it is last, and equal
 *   it in between; a first or last CJK unit that is only part of the text's run must pass the same
 *   word-boundary check.
 * - A keyword that normalises to nothing (only stop words, digits or punctuation) never matches.
 */
import { foldChinese } from './script-fold.js';
import { SENTENCE_BREAK, isCjkUnit, scanUnits } from './scan.js';
import { acceptCjkMatches, acceptsCjkMatch } from './cjk-boundaries.js';
import type { ScannedText } from './scan.js';

export interface CompiledKeyword {
  /** The keyword as written in the topic. */
  term: string;
  weight: number;
  /** Normalised units; empty if the keyword can never match. */
  units: string[];
  /** CJK-only keyword matched by substring (its folded text is units[0]). */
  substring: boolean;
}

/** Text prepared once for matching: lower-cased and folded strings (same length) and scanned units. */
export interface PreparedText extends ScannedText {
  /** Lower-cased text, not script-folded: what the word segmenter sees. */
  lower: string;
  folded: string;
}

export function prepareText(text: string): PreparedText {
  const lower = text.toLowerCase();
  const folded = foldChinese(lower);
  return { lower, folded, ...scanUnits(folded) };
}

/** Something that prepares texts: {@link prepareText} itself, or a {@link memoPrepare}. */
export type PrepareFn = (text: string) => PreparedText;

/** Texts a {@link memoPrepare} keeps in a list before it changes to a Map. */
const MEMO_LIST = 8;

/**
 * {@link prepareText} with memory, for one page scored twice (the classifier blend: the model's
 * features and the keyword score both need the prepared title, headings and body).
 */
export function memoPrepare(): PrepareFn {
  // a page's few texts (title, headings, anchors, body) in a list compared with ===, which is a
  // pointer compare for the same string and a length compare for most others: a Map would hash
  // each text whole, the page's body included (1–2% of the analysis thread, `perf`). Past
  // MEMO_LIST texts, a Map.
  const texts: string[] = [];
  const prepared: PreparedText[] = [];
  let memo: Map<string, PreparedText> | null = null;
  return (text) => {
    if (memo) {
      let p = memo.get(text);
      if (!p) memo.set(text, (p = prepareText(text)));
      return p;
    }
    for (let i = 0; i < texts.length; i++) if (texts[i] === text) return prepared[i];
    const p = prepareText(text);
    if (texts.length < MEMO_LIST) {
      texts.push(text);
      prepared.push(p);
    } else {
      memo = new Map(texts.map((t, i) => [t, prepared[i]]));
      memo.set(text, p);
    }
    return p;
  };
}

/** Entries of KeywordMatcher's first-unit filter (a power of two). */
const FILTER_SIZE = 4096;

/** Keywords compiled for counting; {@link count} is linear in the number of units of the text. */
export class KeywordMatcher {
  readonly keywords: CompiledKeyword[];
  /** Sequence keywords indexed by their first unit (English stems). */
  private readonly byFirst = new Map<string, number[]>();
  /**
   * A filter before {@link byFirst}: bit (length of a first unit, at most 31) of the entry at its
   * first code unit (modulo the table's size: another character there only costs a lookup) is set.
   * A text's unit whose bit is clear starts no keyword, and costs two array reads instead of a map
   * lookup (which hashes and compares strings: most of count()'s time).
   */
  private readonly firstFilter = new Int32Array(FILTER_SIZE);
  /** Sequence keywords whose first unit is a CJK run (checked against every CJK unit). */
  private readonly cjkFirst: number[] = [];
  private readonly substrings: number[] = [];

  constructor(keywords: Record<string, number>) {
    this.keywords = Object.entries(keywords).map(([term, weight]) => {
      const units = prepareText(term).units.filter((u) => u !== SENTENCE_BREAK);
      const substring = units.length === 1 && isCjkUnit(units[0]);
      return { term, weight, units, substring };
    });
    this.keywords.forEach((k, i) => {
      if (k.units.length === 0 || k.weight === 0) return;
      if (k.substring) this.substrings.push(i);
      else if (isCjkUnit(k.units[0])) this.cjkFirst.push(i);
      else {
        const first = k.units[0];
        const list = this.byFirst.get(first);
        if (list) list.push(i);
        else this.byFirst.set(first, [i]);
        this.firstFilter[first.charCodeAt(0) & (FILTER_SIZE - 1)] |= 1 << Math.min(first.length, 31);
      }
    });
  }

  /** Occurrences of each keyword (same order as {@link keywords}) in prepared text. */
  count(text: PreparedText): number[] {
    const counts = new Array<number>(this.keywords.length).fill(0);
    if (this.substrings.length > 0) this.countSubstrings(text, counts);
    if (this.byFirst.size === 0 && this.cjkFirst.length === 0) return counts;
    const { units } = text;
    const filter = this.firstFilter;
    for (let p = 0; p < units.length; p++) {
      const u = units[p];
      if (u === SENTENCE_BREAK) continue;
      if ((filter[u.charCodeAt(0) & (FILTER_SIZE - 1)] & (1 << Math.min(u.length, 31))) !== 0) {
        const list = this.byFirst.get(u);
        if (list) for (const i of list) if (this.matchesAt(this.keywords[i].units, text, p)) counts[i]++;
      }
      if (this.cjkFirst.length > 0 && isCjkUnit(u)) {
        for (const i of this.cjkFirst) if (this.matchesAt(this.keywords[i].units, text, p)) counts[i]++;
      }
    }
    return counts;
  }

  /**
   * CJK-only keywords: all substring candidates of all keywords (overlapping ones too), sorted by
   * start so that windows are shared, decided by the segmenter, then counted without overlaps.
   */
  private countSubstrings(text: PreparedText, counts: number[]): void {
    const { folded } = text;
    const nk = this.keywords.length;
    const keys: number[] = [];
    for (const i of this.substrings) {
      const needle = this.keywords[i].units[0];
      for (let at = folded.indexOf(needle); at >= 0; at = folded.indexOf(needle, at + 1)) keys.push(at * nk + i);
    }
    if (keys.length === 0) return;
    const sorted = Float64Array.from(keys).sort();
    const starts = new Int32Array(sorted.length);
    const ends = new Int32Array(sorted.length);
    const kw = new Int32Array(sorted.length);
    for (let c = 0; c < sorted.length; c++) {
      const i = sorted[c] % nk;
      kw[c] = i;
      starts[c] = (sorted[c] - i) / nk;
      ends[c] = starts[c] + this.keywords[i].units[0].length;
    }
    const accepted = acceptCjkMatches(text.lower, starts, ends);
    const lastEnd = new Int32Array(nk);
    for (let c = 0; c < sorted.length; c++) {
      const i = kw[c];
      if (accepted[c] === 1 && starts[c] >= lastEnd[i]) {
        counts[i]++;
        lastEnd[i] = ends[c];
      }
    }
  }

  private matchesAt(kw: string[], text: PreparedText, p: number): boolean {
    const { units } = text;
    const m = kw.length;
    if (p + m > units.length) return false;
    for (let j = 0; j < m; j++) {
      const k = kw[j];
      const t = units[p + j];
      if (t === SENTENCE_BREAK) return false;
      if (m > 1 && isCjkUnit(k)) {
        if (j === 0 ? !t.endsWith(k) : j === m - 1 ? !t.startsWith(k) : t !== k) return false;
      } else if (t !== k) return false;
    }
    // a first / last CJK unit that is only the end / start of the text's run: word-boundary check
    const first = kw[0];
    const run0 = units[p];
    if (m > 1 && isCjkUnit(first) && run0.length > first.length) {
      const end = text.starts[p] + run0.length;
      if (!acceptsCjkMatch(text.lower, end - first.length, end)) return false;
    }
    const last = kw[m - 1];
    const runN = units[p + m - 1];
    if (m > 1 && isCjkUnit(last) && runN.length > last.length) {
      const start = text.starts[p + m - 1];
      if (!acceptsCjkMatch(text.lower, start, start + last.length)) return false;
    }
    return true;
  }
}
