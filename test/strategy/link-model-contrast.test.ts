import { describe, expect, it } from 'vitest';
import { CONTRAST_EXAMPLES, DEFAULT_MODEL, LinkModel } from '../../src/strategy/link-model.js';

describe('LinkModel.contrast: the learnt weights are trusted once examples on both sides were seen', () => {
  const features = (m: LinkModel, prior: number, word: string) => ({ idx: [m.bias, m.prior, m.index(word)], val: [1, prior, 1] });

  it('is 0 while every example is on one side, and reaches 1 with CONTRAST_EXAMPLES on each', () => {
    const m = new LinkModel(DEFAULT_MODEL);
    expect(m.contrast()).toBe(0);
    for (let i = 0; i < 3 * CONTRAST_EXAMPLES; i++) {
      const f = features(m, 0.5, `w${i % 3}`);
      m.learn(f.idx, f.val, 3, 1);
    }
    expect(m.contrast()).toBe(0); // all relevant: no contrast yet
    for (let i = 0; i < CONTRAST_EXAMPLES / 2; i++) m.learn(features(m, 0.2, 'x').idx, features(m, 0.2, 'x').val, 3, 0);
    expect(m.contrast()).toBeCloseTo(0.5, 10);
    for (let i = 0; i < CONTRAST_EXAMPLES; i++) m.learn(features(m, 0.2, 'x').idx, features(m, 0.2, 'x').val, 3, 0);
    expect(m.contrast()).toBe(1);
  });

  it('priorLogit is the starting weights alone, whatever was learnt', () => {
    const m = new LinkModel(DEFAULT_MODEL);
    const f = features(m, 0.75, 'telescope');
    const before = m.logit(f.idx, f.val, 3);
    expect(m.priorLogit(f.idx, f.val, 3)).toBeCloseTo(before, 12); // nothing learnt yet: the same
    for (let i = 0; i < 20; i++) m.learn(f.idx, f.val, 3, 1);
    expect(m.logit(f.idx, f.val, 3)).toBeGreaterThan(before); // learnt upwards
    expect(m.priorLogit(f.idx, f.val, 3)).toBeCloseTo(before, 12); // the prior did not move
    // the prior orders links as I(p) does
    const lo = features(m, 0.2, 'a');
    const hi = features(m, 0.9, 'b');
    expect(m.priorLogit(hi.idx, hi.val, 3)).toBeGreaterThan(m.priorLogit(lo.idx, lo.val, 3));
  });
});
