import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BM25, KeywordScorer, TAU, type KeywordModel } from '../../src/relevance/keyword-scorer.js';
import { body, doc, FIELDS, filler } from '../helpers/scorer-docs.js';


// the BM25F formula of keyword-scorer.ts, written out independently
const { k1, b, tau } = BM25;
const lengthNorm = (len: number, typical: number) => 1 - b + (b * len) / typical;
const term = (tf: number) => (tf * (k1 + 1)) / (tf + k1);
const saturate = (s: number) => (s > 0 ? 1 - Math.exp(-s / tau) : 0);

describe('KeywordScorer bm25: the formula on hand-computed cases', () => {
  const scorer = new KeywordScorer({ keywords: { tobacco: 2, cigar: 1 }, fields: FIELDS, model: 'bm25' });

  it('one body mention in a typical 400-word body: tf̃ = 1, term = 1', () => {
    const e = scorer.explain(doc({ body: body('tobacco', 1) }));
    expect(e.raw).toBeCloseTo(1, 12);
    expect(e.score).toBeCloseTo(1 - Math.exp(-1 / tau), 12);
    expect(e.score).toBeGreaterThan(0.15);
    expect(e.score).toBeLessThan(0.3);
  });

  it('title, headings, anchor and body together, two keywords of different weight', () => {
    const d = doc({ title: 'tobacco news today', headings: 'cigar shop', anchors: ['tobacco'], body: body('tobacco', 3) });
    // title 3 words (L 12), headings 2 (L 30), anchor 1 (L 12 × 1 anchor), body 400 (L 400)
    const tfTobacco = (3 * 1) / lengthNorm(3, 12) + (2 * 1) / lengthNorm(1, 12) + (1 * 3) / lengthNorm(400, 400);
    const tfCigar = (2 * 1) / lengthNorm(2, 30);
    const s = 1 * term(tfTobacco) + 0.5 * term(tfCigar);
    const e = scorer.explain(d);
    expect(e.raw).toBeCloseTo(s, 12);
    expect(e.score).toBeCloseTo(saturate(s), 12);
    // the per-field contributions add up to s
    expect(e.fields.title.contribution + e.fields.headings.contribution + e.fields.anchor.contribution + e.fields.body.contribution).toBeCloseTo(s, 12);
  });

  it('long bodies are damped: one mention in 2,000 words', () => {
    const tf = 1 / lengthNorm(2000, 400);
    expect(scorer.explain(doc({ body: body('cigar', 1, 2000) })).raw).toBeCloseTo(0.5 * term(tf), 12);
  });

  it('is calibrated like the header says: title + 3 body mentions vs one passing mention', () => {
    const strong = scorer.score(doc({ title: filler(11) + ' tobacco', body: body('tobacco', 3) }));
    expect(strong).toBeCloseTo(saturate(term(3 + 3)), 12);
    const passing = scorer.score(doc({ body: body('tobacco', 1) }));
    expect(strong).toBeGreaterThan(0.3);
    expect(passing).toBeLessThan(0.3);
    expect(scorer.score(doc({ body: filler(400) }))).toBe(0);
  });

  it('saturates: one keyword alone never passes 1 − e^(−(k1+1)/τ)', () => {
    const cap = 1 - Math.exp(-(k1 + 1) / tau);
    const s = scorer.score(doc({ title: 'tobacco tobacco', headings: 'tobacco', body: body('tobacco', 200) }));
    expect(s).toBeLessThan(cap);
    expect(s).toBeGreaterThan(cap - 0.05);
  });

  it('stop words count in no field length', () => {
    const plain = scorer.explain(doc({ title: 'tobacco', body: 'tobacco leaf' }));
    const stops = scorer.explain(doc({ title: 'the tobacco of the', body: 'and the tobacco was with their leaf' }));
    expect(stops.fields.title.words).toBe(1);
    expect(stops.fields.body.words).toBe(2);
    expect(stops.raw).toBe(plain.raw);
  });
});

describe.each<KeywordModel>(['keywords', 'bm25'])('KeywordScorer %s: properties', (model) => {
  const scorer = new KeywordScorer({ keywords: { tobacco: 2, cigar: 1, travel: -1 }, fields: FIELDS, model });

  it('more mentions never lower the score; a longer body with the same mentions never raises it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 40, max: 3000 }), fc.integer({ min: 1, max: 2000 }), fc.boolean(), (m, words, extra, inTitle) => {
        const title = inTitle ? 'tobacco report' : 'report';
        const base = scorer.score(doc({ title, body: body('tobacco', m, words) }));
        expect(scorer.score(doc({ title, body: body('tobacco', m + 1, words) }))).toBeGreaterThanOrEqual(base);
        expect(scorer.score(doc({ title, body: body('tobacco', m, words + extra) }))).toBeLessThanOrEqual(base);
      }),
      { numRuns: 60 },
    );
  });

  it('negative keywords subtract; a negative total scores 0; equal and opposite weights cancel', () => {
    const pos = scorer.explain(doc({ body: body('tobacco', 2) }));
    const both = scorer.explain(doc({ body: body('tobacco', 2).replace('lorem', 'travel') }));
    expect(both.raw).toBeLessThan(pos.raw);
    expect(both.score).toBeLessThan(pos.score);
    const neg = scorer.explain(doc({ title: 'travel', body: body('travel', 3) }));
    expect(neg.raw).toBeLessThan(0);
    expect(neg.score).toBe(0);
    // travel (−1) mentioned exactly like cigar (+1): the two terms cancel in either model
    const cancel = scorer.explain(doc({ body: `${body('cigar', 2, 200)} ${body('travel', 2, 200)}` }));
    expect(cancel.raw).toBeCloseTo(0, 12);
    expect(cancel.score).toBe(0);
  });

  it('uses its own saturation constant', () => {
    const e = scorer.explain(doc({ body: body('tobacco', 1) }));
    expect(e.score).toBeCloseTo(1 - Math.exp(-e.raw / (model === 'bm25' ? BM25.tau : TAU)), 12);
  });
});

describe('KeywordScorer: model selection', () => {
  it('defaults to keywords; fromTopic reads relevance.model', () => {
    const d = doc({ title: 'tobacco', body: body('tobacco', 2) });
    const kw = new KeywordScorer({ keywords: { tobacco: 1 }, fields: FIELDS });
    const bm = KeywordScorer.fromTopic({ keywords: { tobacco: 1 }, relevance: { fields: FIELDS, model: 'bm25' } });
    expect(kw.model).toBe('keywords');
    expect(bm.model).toBe('bm25');
    expect(bm.score(d)).not.toBe(kw.score(d));
  });
});
