import { describe, expect, it } from 'vitest';
import { feedbackTerms, GAMMA, type FeedbackDoc } from '../../src/relevance/feedback-terms.js';
import { buildConfig } from '../../src/topic/config.js';
import { errorOf } from '../helpers/error-of.js';

const doc = (score: number, body: string, title = ''): FeedbackDoc => ({ score, title, headings: '', body });
const opts = { keywords: { telescope: 1, star: 0.5 }, threshold: 0.3, top: 10, maxTerms: 10, weight: 0.5 };

describe('feedbackTerms (Rocchio over the pages scored so far)', () => {
  it('adds the words the top pages share in their written form, never keywords, stop words, numbers or short tokens', () => {
    const docs = [
      doc(0.8, 'The telescope saw galaxies and more galaxies, 1999 ab ab, stars.'),
      doc(0.7, 'A telescope pointed at the galaxies; ab 1999 stars.'),
      doc(0.6, 'Galaxies seen through a telescope, ab, 1999.'),
      doc(0.0, 'Cooking bread with butter.'),
      doc(0.0, 'Gardening in spring.'),
    ];
    const r = feedbackTerms(docs, opts);
    expect(r).toMatchObject({ pages: 5, top: 3, low: 2 });
    expect(r.terms.map((t) => t.term)).toEqual(['galaxies']);
    expect(r.terms[0].weight).toBe(0.5);
  });

  it('keeps a term only if it occurs in two top pages, ranks by q and scales weights to the best', () => {
    const docs = [
      doc(0.9, 'nebula nebula nebula quasar comet'),
      doc(0.8, 'nebula quasar orbit'),
      doc(0.7, 'nebula quasar'),
      doc(0.1, 'quasar soup'),
      doc(0.1, 'bread soup'),
    ];
    const r = feedbackTerms(docs, { ...opts, keywords: { telescope: 2 } });
    const names = r.terms.map((t) => t.term);
    expect(names).toEqual(['nebula', 'quasar']); // comet and orbit: one top page each
    expect(r.terms[0].weight).toBe(1); // 0.5 × v_max (2)
    expect(r.terms[1].weight).toBeLessThan(1);
    expect(r.terms[1].weight).toBeCloseTo((1 * r.terms[1].q) / r.terms[0].q, 2);
  });

  it('subtracts γ times the centroid of the pages below the threshold', () => {
    const top = [doc(0.9, 'alpha beta'), doc(0.8, 'alpha beta'), doc(0.8, 'alpha beta')];
    // beta is frequent below the threshold: its q is cut by γ · its centroid there, alpha's is not
    const low = [doc(0, 'beta gamma'), doc(0, 'beta gamma'), doc(0, 'delta epsilon'), doc(0, 'delta epsilon')];
    const r = feedbackTerms([...top, ...low], opts);
    const q = Object.fromEntries(r.terms.map((t) => [t.term, t.q]));
    expect(GAMMA).toBeGreaterThan(0);
    expect(q.alpha).toBeGreaterThan(q.beta ?? 0);
  });

  it('a term must be in 30% of the top pages (and 2 at least)', () => {
    const top = Array.from({ length: 10 }, (_, i) => doc(0.9, `common${'x'.repeat(i)} ${i < 3 ? 'shared' : ''} ${i < 2 ? 'pair' : ''}`));
    const names = feedbackTerms([...top, doc(0, 'bread'), doc(0, 'soup')], opts).terms.map((t) => t.term);
    expect(names).toContain('shared'); // 3 of 10
    expect(names).not.toContain('pair'); // 2 of 10
  });

  it('respects max_terms and adds nothing without relevant pages', () => {
    const docs = [doc(0.9, 'one1 alpha beta gamma delta'), doc(0.9, 'alpha beta gamma delta'), doc(0, 'other words here')];
    expect(feedbackTerms(docs, { ...opts, maxTerms: 2 }).terms).toHaveLength(2);
    expect(feedbackTerms(docs.map((d) => ({ ...d, score: 0.1 })), opts).terms).toEqual([]);
  });

  it('Chinese: segmenter words of two characters or more, not the keyword nor part of it', () => {
    const docs = [
      doc(0.9, '烟草公司发布卷烟新品。烟草专卖局。'),
      doc(0.8, '卷烟销售与烟草专卖。'),
      doc(0.0, '今天天气很好。'),
      doc(0.0, '足球比赛结果。'),
    ];
    const r = feedbackTerms(docs, { ...opts, keywords: { 烟草: 1 } });
    const names = r.terms.map((t) => t.term);
    expect(names).toContain('卷烟');
    expect(names).not.toContain('烟草');
    for (const t of names) expect(Array.from(t).length).toBeGreaterThanOrEqual(2);
  });
});

describe('relevance.feedback in the topic', () => {
  const input = { name: 't', seeds: ['http://a.test/'], keywords: { a: 1 } };
  it('is off unless given; given, its defaults apply', () => {
    expect(buildConfig(input, {}).relevance.feedback).toBeUndefined();
    expect(buildConfig(input, { set: ['relevance.feedback={}'] }).relevance.feedback).toEqual({ after: 100, top: 10, max_terms: 5, weight: 0.25 });
    expect(buildConfig(input, { set: ['relevance.feedback.max_terms=3'] }).relevance.feedback?.max_terms).toBe(3);
  });

  it('says what is wrong in one line', () => {
    expect(errorOf(() => buildConfig(input, { set: ['relevance.feedback.weight=1'] })).message).toBe('command line: --set relevance.feedback.weight=1: expected a number < 1, got 1');
    expect(errorOf(() => buildConfig(input, { set: ['relevance.feedback.weight=0'] })).message).toBe('command line: --set relevance.feedback.weight=0: expected a number > 0, got 0');
    expect(errorOf(() => buildConfig(input, { set: ['relevance.feedback.after=1'] })).message).toBe('command line: --set relevance.feedback.after=1: expected an integer >= 2, got 1');
    expect(errorOf(() => buildConfig(input, { set: ['relevance.feedback.terms=3'] })).message).toMatch(/relevance\.feedback: unknown key "terms"/);
  });
});
