import fc from 'fast-check';
import * as OpenCC from 'opencc-js';
import { describe, expect, it } from 'vitest';
import { MIN_SHINGLES, textSimHash } from '../../src/dedup/shingles.js';
import { fingerprintBytes, fingerprintHex, fingerprintOf, hamming, popcount32, SimHashBuilder } from '../../src/dedup/simhash.js';
import { mulberry32 } from '../../src/eval/prng.js';
import { sentence } from '../../src/eval/synth-text.js';
import { THEMES } from '../../src/eval/synth-vocab.js';
import { prepareText } from '../../src/relevance/keyword-matcher.js';
import { scanUnits, wordTableGeneration } from '../../src/relevance/scan.js';

const theme = (lang: 'en' | 'zh') => THEMES.find((t) => t.lang === lang && t.label !== null)!;
/** Paragraphs of five generated sentences (long lines: an article's text). */
function paragraphs(seed: number, lang: 'en' | 'zh', n = 6): string[] {
  const rng = mulberry32(seed);
  return Array.from({ length: n }, () => Array.from({ length: 5 }, () => sentence(rng, theme(lang), 0.6)).join(lang === 'en' ? ' ' : ''));
}
const sim = (text: string) => textSimHash(prepareText(text));

describe('SimHashBuilder', () => {
  it('sets bit i when more than half of the hashes added have it (fast-check against counting)', () => {
    // random words, and a few fixed ones so that counts land on and around exactly half
    const word = fc.oneof(fc.integer({ min: 0, max: 0xffffffff }), fc.constantFrom(0, 0xffffffff, 0x0f0f0f0f, 0x80000001));
    fc.assert(
      fc.property(fc.array(fc.tuple(word, word), { minLength: 1, maxLength: 600 }), (hashes) => {
        const b = new SimHashBuilder();
        for (const [hi, lo] of hashes) b.add(hi, lo);
        const want = { hi: 0, lo: 0 };
        for (let bit = 0; bit < 32; bit++) {
          const ones = (k: 0 | 1) => hashes.filter((h) => (h[k] >>> bit) & 1).length;
          if (ones(0) * 2 > hashes.length) want.hi |= 1 << bit;
          if (ones(1) * 2 > hashes.length) want.lo |= 1 << bit;
        }
        expect(b.digest()).toEqual({ hi: want.hi >>> 0, lo: want.lo >>> 0 });
        expect(b.count).toBe(hashes.length);
      }),
    );
  });

  it('counts long runs exactly: no count overflows its lane, ties at exactly half stay 0', () => {
    // 100,001 hashes: every bit of hi set in all but one, bit 31 of lo set in exactly half plus one,
    // bit 0 of lo in exactly half (of 100,000, then one more without it)
    const b = new SimHashBuilder();
    for (let i = 0; i < 100_000; i++) b.add(i === 7 ? 0 : 0xffffffff, (i % 2 === 0 ? 0x80000000 : 0) | (i % 2));
    b.add(0xffffffff, 0x80000000);
    expect(b.count).toBe(100_001);
    expect(b.digest()).toEqual({ hi: 0xffffffff, lo: 0x80000000 });
    const tie = new SimHashBuilder();
    for (let i = 0; i < 30; i++) tie.add(i < 15 ? 0xffffffff : 0, i < 16 ? 1 : 0);
    expect(tie.digest()).toEqual({ hi: 0, lo: 1 });
  });

  it('counts bits, and stores a fingerprint as 8 bytes and 16 hex digits', () => {
    expect(popcount32(0)).toBe(0);
    expect(popcount32(0xffffffff)).toBe(32);
    expect(popcount32(0x80000001)).toBe(2);
    const f = { hi: 0xdeadbeef, lo: 0x00c0ffee };
    expect(fingerprintOf(fingerprintBytes(f))).toEqual(f);
    expect(fingerprintHex(f)).toBe('deadbeef00c0ffee');
    expect(hamming(f, { hi: 0xdeadbeee, lo: 0x00c0ffef })).toBe(2);
  });
});

describe('textSimHash', () => {
  it('gives one text the same fingerprint, and its paragraphs in another order too', () => {
    const p = paragraphs(1, 'en');
    const a = sim(p.join('\n'));
    expect(a.shingles).toBeGreaterThan(MIN_SHINGLES);
    expect(sim(p.join('\n'))).toEqual(a);
    expect(sim([p[3], p[1], p[5], p[0], p[4], p[2]].join('\n')).fingerprint).toEqual(a.fingerprint);
  });

  it('leaves out short lines (menus, bylines, footers) when the long ones say enough', () => {
    const p = paragraphs(2, 'en');
    const plain = sim(p.join('\n'));
    const templated = sim(['Home', 'World News | Science | About us', 'By Sam Lee, 2024-03-01', ...p, '© 2024 Daily News. All rights reserved.'].join('\n'));
    expect(templated.fingerprint).toEqual(plain.fingerprint);
    // a page of short lines only (a list) is fingerprinted on all of them
    const list = sim(Array.from({ length: 30 }, (_, i) => `Item number ${i} about a distant galaxy`).join('\n'));
    expect(list.shingles).toBeGreaterThanOrEqual(MIN_SHINGLES);
  });

  it('shingles Chinese by characters: traditional and simplified copies agree; another article is far', () => {
    const p = paragraphs(3, 'zh');
    const simplified = sim(p.join('\n'));
    expect(simplified.shingles).toBeGreaterThan(MIN_SHINGLES);
    const traditional = OpenCC.Converter({ from: 'cn', to: 'tw' })(p.join('\n'));
    expect(traditional).not.toBe(p.join('\n'));
    expect(hamming(sim(traditional).fingerprint, simplified.fingerprint)).toBeLessThanOrEqual(3); // folded character by character
    expect(hamming(sim(paragraphs(4, 'zh').join('\n')).fingerprint, simplified.fingerprint)).toBeGreaterThan(10);
  });

  it('moves a few bits for a small edit and many for another text', () => {
    const p = paragraphs(5, 'en', 12);
    const a = sim(p.join('\n')).fingerprint;
    const edited = [...p];
    edited[4] = edited[4].replace(/\.\s[^.]+\./, '.'); // one sentence of 60 dropped
    const d = hamming(a, sim(edited.join('\n')).fingerprint);
    expect(d).toBeGreaterThan(0);
    expect(d).toBeLessThan(10);
    expect(hamming(a, sim(paragraphs(6, 'en', 12).join('\n')).fingerprint)).toBeGreaterThan(15);
  });
});

describe('textSimHash: word hashes by the scanner\'s slots', () => {
  it('gives the fingerprint it gives without the slots, on English and Chinese pages, across a new generation of the table', () => {
    const pages = [1, 2, 3, 4].flatMap((seed) => [paragraphs(seed, 'en').join('\n'), paragraphs(seed, 'zh').join('\n'), `${paragraphs(seed, 'en', 2).join('\n')}\n${paragraphs(seed, 'zh', 2).join('\n')}`]);
    const check = () => {
      for (const page of pages) {
        const p = prepareText(page);
        expect(p.slots).not.toBeNull();
        const withSlots = textSimHash(p);
        const without = textSimHash({ units: p.units, lineEnds: p.lineEnds, lineWords: p.lineWords });
        expect(withSlots.shingles).toBeGreaterThan(0);
        expect(withSlots).toEqual(without);
      }
    };
    check();
    const gen = wordTableGeneration();
    // the table is emptied and its slots given to other words: the hashes kept by slot must not be used
    scanUnits(Array.from({ length: 40_000 }, (_, i) => `g${i.toString(36)}q`).join(' '));
    expect(wordTableGeneration()).toBeGreaterThan(gen);
    check();
  });

  it('does not take a slot\'s hash from another generation', () => {
    const a = prepareText(paragraphs(9, 'en').join('\n'));
    const ofA = textSimHash(a); // the hashes of a's words are now kept by a's slots
    // other words in the same places, claiming a's slots in a generation those hashes are not of
    const units = a.units.map((u) => (u === '' ? u : `${u}x`));
    const want = textSimHash({ units, lineEnds: a.lineEnds, lineWords: a.lineWords });
    expect(want).not.toEqual(ofA);
    expect(textSimHash({ units, lineEnds: a.lineEnds, lineWords: a.lineWords, slots: a.slots, gen: a.gen + 1_000_000 })).toEqual(want);
  });
});

