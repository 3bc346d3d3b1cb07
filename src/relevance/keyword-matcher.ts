/**
 * Compiles a topic's keywords once and counts their occurrences in a piece of text.
 *
 * Matching rule (keywords and text both go through lower-casing, Chinese script folding and the
 * scanner of scan.ts, so they are normalised the same way):
 * - A keyword made only of CJK characters (烟草, 中国烟草) counts each non-overlapping occurrence of
 *   its folded characters as a substring of the folded text. Since it contains no other characters,
 *   an occurrence always lies inside one run of CJK characters: it matches whether the segmenter
 *   would keep it as one token (烟草), a part of a token (烟草局) or a run of tokens (中国|烟草|总公司),
 *   and never across whitespace, punctuation or a sentence break (烟草。公司 does not match 草公).
 * - Any other keyword is a sequence of units (English stems, CJK runs): it matches at each position
 *   where the text has the same units consecutively with no sentence break in between ("nicotine
 *   patch" matches "Nicotine patches" but not "nicotine. Patch"). Inside such a sequence, a CJK unit
 *   of the keyword must end the text's CJK run when it is first, start it when it is last, and equal
 *   it in between.
 * - A keyword that normalises to nothing (only stop words, digits or punctuation) never matches.
 */
import { foldChinese } from './script-fold.js';
import { SENTENCE_BREAK, isCjkUnit, scanUnits } from './scan.js';
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

/** Text prepared once for matching: folded string and scanned units. */
export interface PreparedText extends ScannedText {
  folded: string;
}

export function prepareText(text: string): PreparedText {
  const folded = foldChinese(text.toLowerCase());
  const scanned = scanUnits(folded);
  return { folded, units: scanned.units, words: scanned.words };
}

/** Keywords compiled for counting; {@link count} is linear in the number of units of the text. */
export class KeywordMatcher {
  readonly keywords: CompiledKeyword[];
  /** Sequence keywords indexed by their first unit (English stems). */
  private readonly byFirst = new Map<string, number[]>();
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
        const list = this.byFirst.get(k.units[0]);
        if (list) list.push(i);
        else this.byFirst.set(k.units[0], [i]);
      }
    });
  }

  /** Occurrences of each keyword (same order as {@link keywords}) in prepared text. */
  count(text: PreparedText): number[] {
    const counts = new Array<number>(this.keywords.length).fill(0);
    const { folded, units } = text;
    for (const i of this.substrings) {
      const needle = this.keywords[i].units[0];
      let n = 0;
      for (let at = folded.indexOf(needle); at >= 0; at = folded.indexOf(needle, at + needle.length)) n++;
      counts[i] = n;
    }
    if (this.byFirst.size === 0 && this.cjkFirst.length === 0) return counts;
    for (let p = 0; p < units.length; p++) {
      const u = units[p];
      if (u === SENTENCE_BREAK) continue;
      const list = this.byFirst.get(u);
      if (list) for (const i of list) if (this.matchesAt(this.keywords[i].units, units, p)) counts[i]++;
      if (this.cjkFirst.length > 0 && isCjkUnit(u)) {
        for (const i of this.cjkFirst) if (this.matchesAt(this.keywords[i].units, units, p)) counts[i]++;
      }
    }
    return counts;
  }

  private matchesAt(kw: string[], units: string[], p: number): boolean {
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
    return true;
  }
}
