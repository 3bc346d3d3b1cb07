import { describe, expect, it } from 'vitest';
import { KeywordMatcher, memoPrepare, prepareText } from '../../src/relevance/keyword-matcher.js';
import { SENTENCE_BREAK } from '../../src/relevance/scan.js';

/** Occurrences of each English keyword, counted by trying every position (no index, no filter). */
function reference(m: KeywordMatcher, text: string): number[] {
  const { units } = prepareText(text);
  return m.keywords.map((k) => {
    if (k.units.length === 0 || k.weight === 0) return 0;
    let n = 0;
    for (let p = 0; p + k.units.length <= units.length; p++) {
      if (k.units.every((u, j) => units[p + j] !== SENTENCE_BREAK && units[p + j] === u)) n++;
    }
    return n;
  });
}

describe('KeywordMatcher', () => {
  it('counts keywords whose first units share a first letter, differ in length, are long or start with a non-ASCII letter', () => {
    const long = 'pneumonoultramicroscopicsilicovolcanoconiosis'; // (46 letters: past the filter's length bits)
    const m = new KeywordMatcher({
      astronomy: 1, astro: 1, 'astral projection': 1, star: 1, 'star cluster': 2, éclair: 1, [long]: 1,
      [`${long} disease`]: 1, 'ökologie heute': 1, zeta: 0, nothing: -1,
    });
    const words = ['astronomy', 'astro', 'astral', 'projection', 'star', 'stars', 'cluster', 'clusters', 'éclair', 'éclairs',
      long, 'disease', 'ökologie', 'heute', 'zeta', 'nothing', 'astronomer', 'asteroid', 'the', 'of', 'a', '.', '\n'];
    let seed = 7;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    for (let t = 0; t < 40; t++) {
      const text = Array.from({ length: 300 }, () => words[Math.floor(rand() * words.length)]).join(' ');
      const got = m.count(prepareText(text));
      expect(got).toEqual(reference(m, text));
    }
    const text = `Star clusters. ${long} disease; Éclair! Ökologie heute, astral projection`;
    const c = m.count(prepareText(text));
    const at = (term: string) => c[m.keywords.findIndex((k) => k.term === term)];
    expect([at('star'), at('star cluster'), at(long), at(`${long} disease`), at('éclair'), at('ökologie heute'), at('astral projection')])
      .toEqual([1, 1, 1, 1, 1, 1, 1]);
    // a unit whose first character shares a filter entry with a keyword's (U+5061 and 'a', modulo
    // the table), of the same length: looked up, not counted
    expect(m.count(prepareText('\u5061\u5061\u5061\u5061\u5061 astro')).reduce((a, b) => a + b, 0)).toBe(1);
  });
});

describe('memoPrepare', () => {
  it('prepares each text once, found by its content (not only the same string), for a page\'s few texts and for many', () => {
    const prepare = memoPrepare();
    const texts = Array.from({ length: 20 }, (_, i) => `Text ${i}: stars and galaxies, ${'nebula '.repeat(i)}`);
    const first = texts.map((t) => prepare(t));
    texts.forEach((t, i) => {
      expect(first[i]).toEqual(prepareText(t));
      // the same content built anew (another string object) finds the same preparation
      const copy = [...t].join('');
      expect(prepare(copy)).toBe(first[i]);
      expect(prepare(t)).toBe(first[i]);
    });
    // texts of equal length and different content are told apart
    expect(prepare('abc def')).not.toBe(prepare('abd def'));
    expect(prepare('abd def').units).toEqual(prepareText('abd def').units);
  });
});

