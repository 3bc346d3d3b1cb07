import { describe, expect, it } from 'vitest';
import { MAX_PIECE, MAX_STEM_LENGTH, normaliseWord, splitPieces, stemWord, tokenize } from '../../src/relevance/tokenize.js';
import { foldChinese } from '../../src/relevance/script-fold.js';

describe('tokenize', () => {
  it('lower-cases, stems English and drops stop words, digits and punctuation', () => {
    expect(tokenize('The Tobaccos, and the SMOKING of 12 cigarettes!')).toEqual(['tobacco', 'smoke', 'cigarett']);
    expect(tokenize('tobacco')).toEqual(tokenize('tobaccos'));
    expect(tokenize('smoking')).toEqual(tokenize('smoke'));
    expect(tokenize("the smoker's habit")).toEqual(['smoker', 'habit']);
    expect(tokenize('2024 — 3.5% ... !!!')).toEqual([]);
  });

  it('segments Chinese into words and folds traditional to simplified', () => {
    const simp = tokenize('中国烟草总公司负责卷烟的生产');
    const trad = tokenize('中國煙草總公司負責捲煙的生產');
    expect(simp).toEqual(trad);
    expect(simp).toContain('烟草');
    expect(simp.join('')).toBe('中国烟草总公司负责卷烟的生产');
  });

  it('handles mixed scripts', () => {
    const t = tokenize('Nicotine 尼古丁 patches 戒烟贴');
    expect(t[0]).toBe(stemWord('nicotine'));
    expect(t).toContain('尼古丁');
    expect(t).toContain(stemWord('patches'));
    expect(t.join('')).toContain('戒烟');
  });

  it('segments 100k characters of Chinese without a quadratic blow-up and loses nothing', () => {
    const sentence = '国家烟草专卖局发布了新的卷烟管理规定'; // 烟草 once per sentence, no punctuation at all
    const reps = Math.ceil(100_000 / sentence.length);
    const text = sentence.repeat(reps);
    const tokens = tokenize(text);
    expect(tokens.join('')).toBe(text);
    // pieces are cut hard every MAX_PIECE chars, which may split at most one 烟草 per cut
    const found = tokens.join(' ').split('烟草').length - 1;
    expect(found).toBeGreaterThanOrEqual(reps - Math.ceil(text.length / MAX_PIECE));
    expect(found).toBeLessThanOrEqual(reps);
  });
});

describe('normaliseWord on glued text', () => {
  it('stems words up to MAX_STEM_LENGTH letters and keeps longer ones as they are', () => {
    // "connections" → "connect"; padded to exactly the bound it is still a word the stemmer sees
    const atBound = 'x'.repeat(MAX_STEM_LENGTH - 'connections'.length) + 'connections';
    expect(atBound).toHaveLength(MAX_STEM_LENGTH);
    expect(normaliseWord(atBound)).toBe(stemWord(atBound));
    expect(normaliseWord(atBound)).not.toBe(atBound);
    const over = `y${atBound}`;
    expect(normaliseWord(over)).toBe(over);
    // the anchor texts of a page of links with no space between them: one word of 200,000 letters
    const glued = Array.from({ length: 40_000 }, (_, i) => `link${String.fromCharCode(97 + (i % 26))}`).join('');
    expect(normaliseWord(glued)).toBe(glued);
    // tokenize() cuts it into pieces for the segmenter: every piece is kept, unstemmed
    const t = tokenize(`${glued} smoking`);
    expect(t.slice(0, -1).join('')).toBe(glued);
    expect(t[t.length - 1]).toBe('smoke');
  });
});

describe('splitPieces', () => {
  it('cuts at a break where it can, never inside a surrogate pair, and keeps every character', () => {
    const words = 'alpha beta gamma delta '.repeat(100);
    const pieces = splitPieces(words, 50);
    expect(pieces.join('')).toBe(words);
    for (const p of pieces) {
      expect(p.length).toBeLessThanOrEqual(50);
      expect(p.endsWith(' ') || p === pieces[pieces.length - 1]).toBe(true);
    }
    const rare = '𠀀'.repeat(100); // plane-2 ideographs: two code units each
    const rp = splitPieces(rare, 51);
    expect(rp.join('')).toBe(rare);
    for (const p of rp) expect(p.length % 2).toBe(0);
  });
});

describe('foldChinese', () => {
  it('folds traditional and Taiwan/Hong Kong variants to simplified, idempotently', () => {
    expect(foldChinese('煙草')).toBe('烟草');
    expect(foldChinese('菸草')).toBe('烟草');
    expect(foldChinese('捲煙')).toBe('卷烟');
    expect(foldChinese('臺灣')).toBe(foldChinese('台湾'));
    const mixed = '中國煙草 tobacco 烟草。';
    expect(foldChinese(foldChinese(mixed))).toBe(foldChinese(mixed));
    expect(foldChinese('plain ascii')).toBe('plain ascii');
    expect(foldChinese('\ufeff煙')).toBe('\ufeff烟');
  });
});
