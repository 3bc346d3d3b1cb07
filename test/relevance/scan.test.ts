import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SENTENCE_BREAK, scanUnits } from '../../src/relevance/scan.js';
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
