import { describe, expect, it } from 'vitest';
import { CONTEXT, MAX_WINDOW, SHORT_RUN, acceptCjkMatches, acceptsCjkMatch, clearCjkMemo, wordSegmenter } from '../../src/relevance/cjk-boundaries.js';

const words = (t: string) => [...wordSegmenter().segment(t)].map((s) => s.segment);
/** The decision for `sub` at its first occurrence in `text`. */
const accepts = (text: string, sub: string) => {
  const at = text.indexOf(sub);
  expect(at).toBeGreaterThanOrEqual(0);
  return acceptsCjkMatch(text, at, at + sub.length);
};

/** The rule applied with the segmentation of the whole text (no windows): the reference. */
function reference(text: string, starts: number[], ends: number[]): number[] {
  const bounds = new Set<number>([text.length]);
  for (const s of wordSegmenter().segment(text)) bounds.add(s.index);
  return starts.map((s, k) => {
    const e = ends[k];
    let inside = 0;
    for (let p = s + 1; p < e; p++) if (bounds.has(p)) inside++;
    return (bounds.has(s) && bounds.has(e)) || inside === 0 ? 1 : 0;
  });
}

const SENTENCES = [
  '这批烟草原料来自云南', '他们喝茶叶子都掉了', '中国烟草总公司负责卷烟的生产与销售', '内蒙古草原上的牧民',
  '今年以来各地积极推进产业结构调整', '专家表示数字化转型提高了生产效率', '世界卫生组织指出吸烟有害健康',
  '這批煙草原料來自雲南', '國家菸草專賣局發布捲煙管理規定', '在物流配送环节企业进一步降低了运输成本', '他是研究生',
];

describe('segmenter assumptions (the ICU data shipped with Node 20)', () => {
  it('segments the examples the rule is tested with', () => {
    expect(words('这批烟草原料来自云南')).toEqual(['这', '批', '烟草', '原料', '来自', '云南']);
    expect(words('這批煙草原料來自雲南')).toEqual(['這', '批', '煙草', '原料', '來自', '雲南']);
    expect(words('他们喝茶叶子都掉了')).toEqual(['他们', '喝茶', '叶子', '都', '掉了']);
    expect(words('他是研究生')).toEqual(['他是', '研究生']);
    expect(words('卷烟厂')).toEqual(['卷烟', '厂']);
  });
});

describe('acceptsCjkMatch', () => {
  it('accepts whole words and runs of whole words', () => {
    expect(accepts('这批烟草原料来自云南', '烟草')).toBe(true);
    expect(accepts('这批烟草原料来自云南', '烟草原料')).toBe(true);
    expect(accepts('卷烟厂', '卷烟')).toBe(true);
  });

  it('accepts a part of one word', () => {
    expect(accepts('他是研究生', '研究')).toBe(true);
  });

  it('rejects a candidate that straddles a boundary partially', () => {
    expect(accepts('这批烟草原料来自云南', '草原')).toBe(false); // 烟草|原料
    expect(accepts('这批烟草原料来自云南', '批烟')).toBe(false); // starts at a boundary, ends inside 烟草
    expect(accepts('他们喝茶叶子都掉了', '茶叶')).toBe(false); // 喝茶|叶子
  });

  it('accepts a single character and a whole run without needing the segmentation', () => {
    expect(accepts('这批烟草原料', '草')).toBe(true);
    expect(accepts('tobacco 草原, more', '草原')).toBe(true);
    expect(accepts('𠀀烟草', '𠀀')).toBe(true); // one plane-2 character: two code units
  });
});

describe('acceptCjkMatches: windows in long runs', () => {
  /** A run with no punctuation of about `len` characters, optionally with plane-2 ideographs mixed in. */
  function longRun(len: number, rare: boolean): string {
    let s = '';
    for (let i = 0; s.length < len; i++) s += SENTENCES[(i * 7) % SENTENCES.length] + (rare && i % 3 === 0 ? '𠀀𠮷' : '');
    return s;
  }

  for (const rare of [false, true]) {
    it(`decides every 2–4 character candidate as whole-run segmentation does${rare ? ' (with plane-2 ideographs)' : ''}`, () => {
      const text = longRun(2000, rare);
      expect(text.length).toBeGreaterThan(MAX_WINDOW * 4);
      const starts: number[] = [];
      const ends: number[] = [];
      for (let s = 0; s < text.length; s++) {
        if (text.charCodeAt(s) >= 0xdc00 && text.charCodeAt(s) <= 0xdfff) continue; // not inside a pair
        for (let len = 2; len <= 4 && s + len <= text.length; len++) {
          const e = s + len;
          if (text.charCodeAt(e - 1) >= 0xd800 && text.charCodeAt(e - 1) <= 0xdbff) continue;
          starts.push(s);
          ends.push(e);
        }
      }
      clearCjkMemo();
      const expected = reference(text, starts, ends);
      const merged = Array.from(acceptCjkMatches(text, starts, ends));
      expect(merged).toEqual(expected);
      // each candidate on its own: a window of CONTEXT characters either side
      const single = starts.map((s, k) => (acceptsCjkMatch(text, s, ends[k]) ? 1 : 0));
      expect(single).toEqual(expected);
      // the test means something: both outcomes occur
      expect(expected.filter((x) => x === 1).length).toBeGreaterThan(100);
      expect(expected.filter((x) => x === 0).length).toBeGreaterThan(100);
    });
  }

  it('segments a short run whole and handles candidates at the edges of the text', () => {
    expect(SHORT_RUN).toBeGreaterThanOrEqual(2 * CONTEXT);
    const text = '烟草原料' + '今年以来各地积极推进产业结构调整'.repeat(6) + '茶叶子';
    const starts = [0, 1, text.length - 3];
    const ends = [2, 3, text.length - 1];
    expect(Array.from(acceptCjkMatches(text, starts, ends))).toEqual(reference(text, starts, ends));
    expect(Array.from(acceptCjkMatches(text, starts, ends))).toEqual([1, 0, 1]);
  });

  it('gives the same decisions with the memo warm or cleared', () => {
    const text = SENTENCES.join('，');
    const at = [...text.matchAll(/草原|烟草|茶叶|研究/g)].map((m) => m.index);
    const ends = at.map((s) => s + 2);
    clearCjkMemo();
    const cold = Array.from(acceptCjkMatches(text, at, ends));
    expect(Array.from(acceptCjkMatches(text, at, ends))).toEqual(cold);
    expect(cold).toEqual(reference(text, at, ends));
  });
});
