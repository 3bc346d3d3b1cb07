import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CJK_CHARS_PER_WORD, SENTENCE_BREAK, WORD_SLOTS, scanUnits, wordTableGeneration } from '../../src/relevance/scan.js';
import { normaliseWord } from '../../src/relevance/tokenize.js';

/** The word units of a plain lower-case ASCII text, each normalised from its own slice (no table). */
function wordsOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/[a-z0-9]+(?:'[a-z0-9]+)*/g)) {
    const w = normaliseWord(m[0]);
    if (w !== null) out.push(w);
  }
  return out;
}

describe('scanUnits: the table of words seen', () => {
  it('gives each word what normaliseWord gives its text, met once or many times', () => {
    const word = fc.stringMatching(/^[a-z]{1,9}('s|'t)?$/);
    fc.assert(
      fc.property(fc.array(fc.oneof(word, fc.constantFrom('running', 'runs', 'the', 'stars', "star's", '42', 'galaxy')), { maxLength: 60 }), (words) => {
        const text = words.join(' ');
        const { units, starts } = scanUnits(text);
        expect(units.filter((u) => u !== SENTENCE_BREAK)).toEqual(wordsOf(text));
        expect(starts).toHaveLength(units.length);
      }),
      { numRuns: 3000 },
    );
  });

  it('stays right past its size, when it is emptied and filled again', () => {
    // 70,000 different words: the table (65,536 slots, emptied when half full) is emptied twice
    const words = Array.from({ length: 70_000 }, (_, i) => `w${i.toString(36)}x`);
    const text = words.join(' ');
    const first = scanUnits(text).units;
    expect(first).toEqual(wordsOf(text));
    expect(scanUnits(text).units).toEqual(first);
    expect(scanUnits('galaxies galaxy').units).toEqual([normaliseWord('galaxies'), normaliseWord('galaxy')]);
  });

  it('does not confuse words of one length and hash slot: a long word is not kept, and still right', () => {
    const long = 'x'.repeat(40);
    expect(scanUnits(`${long} ${long}y ${long}`).units).toEqual([normaliseWord(long), normaliseWord(`${long}y`), normaliseWord(long)]);
  });
});

describe('scanUnits: the slots of the words (ScannedText.slots)', () => {
  it('gives each word unit its slot, the same unit the same slot while the table lasts, and -1 to CJK runs and breaks', () => {
    const text = 'Stars and galaxies, 星系 stars! running runs the star\ngalaxy 银河系.';
    const a = scanUnits(text);
    expect(a.slots).not.toBeNull();
    expect(a.slots).toHaveLength(a.units.length);
    expect(a.gen).toBe(wordTableGeneration());
    const slotOf = new Map<string, number>();
    a.units.forEach((u, i) => {
      const s = a.slots![i];
      if (u === SENTENCE_BREAK || /^[\u3400-\u9fff]/.test(u)) return expect(s).toBe(-1);
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThan(WORD_SLOTS);
      // one slot per raw word: a unit may have several slots (stars, star), a slot one unit
      for (const [unit, slot] of slotOf) if (slot === s) expect(unit).toBe(u);
      slotOf.set(u, s);
    });
    const b = scanUnits(text);
    expect(b.gen).toBe(a.gen);
    expect(b.slots).toEqual(a.slots);
  });

  it('gives no slot to a word too long to keep', () => {
    const long = 'q'.repeat(40);
    const { units, slots } = scanUnits(`${long} quasar`);
    expect(units).toHaveLength(2);
    expect(slots![0]).toBe(-1);
    expect(slots![1]).toBeGreaterThanOrEqual(0);
  });

  it('gives slots for a text longer than its scratch keeps (its own array), and for the next text as before', () => {
    const words = ['galaxy', 'stars', 'nebula', 'comet', 'orbit'];
    const huge = Array.from({ length: 200_000 }, (_, i) => words[i % 5]).join(' '); // 1.2M characters
    const big = scanUnits(huge);
    expect(big.slots).toHaveLength(big.units.length);
    expect(big.units).toHaveLength(200_000);
    // the same word, the same slot, from the first to the last
    expect(big.slots![0]).toBe(big.slots![199_995]);
    expect(big.slots![4]).toBe(big.slots![199_999]);
    const small = scanUnits('orbit galaxy');
    expect([...small.slots!]).toEqual([big.slots![4], big.slots![0]]);
  });

  it('has no slots when the table was emptied during the scan, and slots of the new generation after', () => {
    const before = wordTableGeneration();
    // 40,000 new words: more than the half of the table it holds before it is emptied
    const text = Array.from({ length: 40_000 }, (_, i) => `v${i.toString(36)}z`).join(' ');
    const r = scanUnits(text);
    expect(wordTableGeneration()).toBeGreaterThan(before);
    expect(r.slots).toBeNull();
    const after = scanUnits('nebula nebula');
    expect(after.gen).toBe(wordTableGeneration());
    expect(after.slots![0]).toBe(after.slots![1]);
  });
});

/**
 * The lines of a scanned text found by a second pass over it, as the SimHash found them before the
 * scanner took them in its own pass: a break unit whose gap to the next unit holds a line feed
 * ends a line; words of the units before it (a CJK run: its length / 1.6), added in order.
 */
function linesByAnotherPass(text: string): { lineEnds: number[]; lineWords: number[] } {
  const { units, starts } = scanUnits(text);
  const lineEnds: number[] = [];
  const lineWords: number[] = [];
  let words = 0;
  for (let i = 0; i < units.length; i++) {
    const u = units[i];
    if (u !== SENTENCE_BREAK) {
      words += /^[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\ud840-\ud87f]/.test(u) ? u.length / CJK_CHARS_PER_WORD : 1;
      continue;
    }
    const end = i + 1 < units.length ? starts[i + 1] : text.length;
    if (text.slice(starts[i], end).includes('\n')) {
      lineEnds.push(i);
      lineWords.push(words);
      words = 0;
    }
  }
  lineEnds.push(units.length);
  lineWords.push(words);
  return { lineEnds, lineWords };
}

describe('scanUnits: the lines of the text', () => {
  it('ends a line at each break that holds a line feed, with the words before it (one pass)', () => {
    const text = 'Home | About\nthe galaxy and its stars, seen.\r\n\n\n望远镜观测星系\n42\n';
    const s = scanUnits(text);
    // lines: "home about", "galaxy star seen" (blank lines end none), the CJK run, "42" (no unit)
    expect(s.lineEnds).toEqual(linesByAnotherPass(text).lineEnds);
    expect(s.lineEnds.length).toBe(4);
    expect(s.lineWords[0]).toBe(2);
    expect(s.lineWords[2]).toBeCloseTo(7 / CJK_CHARS_PER_WORD, 12);
    expect(s.lineEnds[s.lineEnds.length - 1]).toBe(s.units.length);
    // no line feed: one line of every word; no unit: one empty line
    expect(scanUnits('a telescope, a star').lineEnds).toEqual([scanUnits('a telescope, a star').units.length]);
    expect(scanUnits('\n\n').lineEnds).toEqual([0]);
    expect(scanUnits('\n\n').lineWords).toEqual([0]);
  });

  it('finds the lines a second pass over the text finds, on any mix of words, CJK, breaks and line feeds', () => {
    const piece = fc.constantFrom('galaxy', 'the', 'stars', "star's", '42', '望远镜', '觀測', '星', 'かな', ' ', '  ', '\n', '\r\n', '\n\n', ',', '.', ' | ', '- ', '…', '\t', '1999', 'x');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 80 }), (pieces) => {
        const text = pieces.join('');
        const s = scanUnits(text);
        const want = linesByAnotherPass(text);
        expect(s.lineEnds).toEqual(want.lineEnds);
        // the same additions in the same order: equal, not just close
        expect(s.lineWords).toEqual(want.lineWords);
      }),
      { numRuns: 3000 },
    );
  });
});
