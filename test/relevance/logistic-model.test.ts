import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TopicrawlError } from '../../src/errors.js';
import { ClassifierScorer } from '../../src/relevance/classifier-scorer.js';
import { memoPrepare, prepareText } from '../../src/relevance/keyword-matcher.js';
import { KeywordScorer } from '../../src/relevance/keyword-scorer.js';
import {
  loadModelFile, modelFromJson, modelToJson, predict, saveModelFile, trainLogistic, type LabelledVector,
} from '../../src/relevance/logistic-model.js';
import { hashTerms, pageFeatures, pageTerms, textTerms, urlTerms, type FeatureDoc } from '../../src/relevance/text-features.js';
import { mulberry32 } from '../../src/eval/prng.js';
import { tmpDir } from '../helpers/tmp.js';

const ON = ['telescope', 'galaxy', 'nebula', 'orbit', 'comet', 'star'];
const OFF = ['recipe', 'oven', 'flour', 'butter', 'sauce', 'bake'];
const SHARED = ['page', 'news', 'today', 'read', 'more', 'site'];

/** A toy page: words drawn from its class's vocabulary plus shared noise words. */
function toyDoc(rng: ReturnType<typeof mulberry32>, relevant: boolean): FeatureDoc {
  const own = relevant ? ON : OFF;
  const words = Array.from({ length: 30 }, () => (rng.chance(0.4) ? rng.pick(own) : rng.pick(SHARED)));
  return { url: `http://site.example/${rng.pick(SHARED)}.html`, title: `${rng.pick(own)} ${rng.pick(SHARED)}`, headings: '', body: words.join(' ') };
}

function toySet(n: number, seed: number, bits?: number): { docs: FeatureDoc[]; data: LabelledVector[] } {
  const rng = mulberry32(seed);
  const docs: FeatureDoc[] = [];
  const data: LabelledVector[] = [];
  for (let i = 0; i < n; i++) {
    const relevant = i % 3 === 0; // unbalanced: a third relevant
    const d = toyDoc(rng, relevant);
    docs.push(d);
    data.push({ x: pageFeatures(d, bits), relevant });
  }
  return { docs, data };
}

describe('text features', () => {
  it('stems English, drops stop words, makes CJK bigrams, prefixes fields', () => {
    expect(textTerms('The Telescopes of the observatory')).toEqual(['telescop', 'observatori']);
    expect(textTerms('中国煙草')).toEqual(['中国', '国烟', '烟草']);
    expect(textTerms('茶')).toEqual(['茶']);
    expect(urlTerms('http://www.Yancao.example/news/2024-yanye.html?x=1')).toEqual(['www', 'yancao', 'example', 'news', '2024', 'yanye', 'html']);
    expect(pageTerms({ url: 'http://a.example/', title: 'Stars', headings: 'Comet', body: '烟草' })).toEqual(['t:star', 'h:comet', 'b:烟草', 'u:a', 'u:example']);
  });

  it('gives log(1+tf) values, L2-normalised, sorted distinct indices', () => {
    const v = hashTerms(['a', 'b', 'a', 'a']);
    expect(v.indices.length).toBe(2);
    expect(v.indices[0]).toBeLessThan(v.indices[1]);
    const norm = Math.hypot(Math.log1p(3), Math.log1p(1));
    const byTerm = [...v.values].sort((x, y) => y - x);
    expect(byTerm[0]).toBeCloseTo(Math.log1p(3) / norm, 6);
    expect(byTerm[1]).toBeCloseTo(Math.log1p(1) / norm, 6);
    expect(hashTerms([]).indices.length).toBe(0);
  });
});

describe('logistic model', () => {
  it('learns a separable toy set and generalises to fresh pages of it', () => {
    const train = toySet(150, 1);
    const model = trainLogistic(train.data);
    expect(model.training).toMatchObject({ examples: 150, positives: 50, negatives: 100 });
    for (const e of train.data) expect(predict(model, e.x) >= 0.5).toBe(e.relevant);
    const test = toySet(90, 2);
    const right = test.data.filter((e) => predict(model, e.x) >= 0.5 === e.relevant).length;
    expect(right / test.data.length).toBeGreaterThan(0.95);
    expect(predict(model, pageFeatures({ url: '', title: 'galaxy nebula', headings: '', body: 'telescope orbit comet' }))).toBeGreaterThan(0.9);
    expect(predict(model, pageFeatures({ url: '', title: 'butter sauce', headings: '', body: 'recipe oven flour' }))).toBeLessThan(0.1);
  });

  it('is deterministic: the same examples give the same weights, bit for bit', () => {
    const { data } = toySet(120, 3);
    const a = trainLogistic(data);
    const b = trainLogistic(data);
    expect(b.bias).toBe(a.bias);
    expect(Buffer.from(b.weights.buffer).equals(Buffer.from(a.weights.buffer))).toBe(true);
    const other = trainLogistic(data, { seed: 2 });
    expect(Buffer.from(other.weights.buffer).equals(Buffer.from(a.weights.buffer))).toBe(false);
  });

  it('refuses a training set with one class only', () => {
    const { data } = toySet(30, 4);
    expect(() => trainLogistic(data.filter((e) => e.relevant))).toThrow(/relevant and non-relevant/);
  });

  it('saves and loads: identical scores', () => {
    const dir = tmpDir();
    const { docs, data } = toySet(100, 5, 12);
    expect(() => trainLogistic(toySet(10, 5).data, { bits: 12 })).toThrow(RangeError);
    const model = trainLogistic(data, { bits: 12 });
    const file = join(dir, 'm.json');
    saveModelFile(file, model);
    const loaded = loadModelFile(file);
    expect(loaded.bits).toBe(12);
    expect(loaded.bias).toBe(model.bias);
    expect(loaded.training).toEqual(model.training);
    const kw = new KeywordScorer({ keywords: { star: 1 }, fields: { title: 3, headings: 2, anchor: 2, body: 1 } });
    const s1 = new ClassifierScorer(model, kw, 0.8);
    const s2 = new ClassifierScorer(loaded, kw, 0.8);
    for (const d of docs) {
      expect(predict(loaded, pageFeatures(d, 12))).toBe(predict(model, pageFeatures(d, 12)));
      const page = { ...d, anchors: [] };
      expect(s2.score(page)).toBe(s1.score(page));
    }
  });

  it('a missing or broken model file is one E_CONFIG line naming the file', () => {
    const dir = tmpDir();
    const codeAndMessage = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        expect(err).toBeInstanceOf(TopicrawlError);
        return `${(err as TopicrawlError).code} ${(err as Error).message}`;
      }
      throw new Error('expected an error');
    };
    const missing = join(dir, 'none.json');
    expect(codeAndMessage(() => loadModelFile(missing))).toBe(`E_CONFIG ${missing}: cannot read the classifier model (no such file)`);
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"format": "topicrawl-logistic", ');
    expect(codeAndMessage(() => loadModelFile(broken))).toMatch(new RegExp(`^E_CONFIG ${broken}: not a usable topicrawl model: invalid JSON`));
    const model = trainLogistic(toySet(30, 6, 8).data, { bits: 8 });
    const json = JSON.parse(modelToJson(model)) as Record<string, unknown>;
    const truncated = JSON.stringify({ ...json, weights: Buffer.alloc(12).toString('base64') });
    expect(codeAndMessage(() => modelFromJson(truncated, 'x.json'))).toBe('E_CONFIG x.json: not a usable topicrawl model: weights hold 12 bytes, expected 1024');
    expect(codeAndMessage(() => modelFromJson('[1]', 'y.json'))).toMatch(/^E_CONFIG y\.json: not a usable topicrawl model: "format"/);
    for (const m of [codeAndMessage(() => loadModelFile(broken)), codeAndMessage(() => loadModelFile(missing))]) expect(m).not.toContain('\n');
  });
});

describe('ClassifierScorer', () => {
  it('blends: weight·p + (1 − weight)·keyword score; weight 1 is p alone', () => {
    const model = trainLogistic(toySet(90, 7).data);
    const kw = new KeywordScorer({ keywords: { galaxy: 1, recipe: -1 }, fields: { title: 3, headings: 2, anchor: 2, body: 1 } });
    const page = { url: 'http://x.example/', title: 'galaxy news', headings: '', anchors: [], body: 'telescope orbit page read' };
    const p = new ClassifierScorer(model, kw, 1).probability(page);
    expect(new ClassifierScorer(model, kw, 1).score(page)).toBe(p);
    expect(new ClassifierScorer(model, kw, 0).score(page)).toBe(kw.score(page));
    expect(new ClassifierScorer(model, kw, 0.25).score(page)).toBeCloseTo(0.25 * p + 0.75 * kw.score(page), 12);
    expect(new ClassifierScorer(model, kw, 0.25).scoreText('galaxy')).toBe(kw.scoreText('galaxy'));
    expect(() => new ClassifierScorer(model, kw, 1.5)).toThrow(RangeError);
  });

  it('a blend prepares each text once: the memo hands back the same preparation, equal to a fresh one', () => {
    const prepare = memoPrepare();
    const body = 'Telescopes and galaxies; 烟草 新聞 and more';
    const first = prepare(body);
    expect(prepare(body)).toBe(first);
    expect(first).toEqual(prepareText(body));
    expect(prepare('other text')).not.toBe(first);
    // the same score and features with the memo as without
    const model = trainLogistic(toySet(90, 7).data);
    const kw = new KeywordScorer({ keywords: { galaxy: 1, 烟草: 1 }, fields: { title: 3, headings: 2, anchor: 2, body: 1 } });
    const page = { url: 'http://x.example/', title: 'galaxy news', headings: 'Galaxies', anchors: [], body };
    expect(kw.score(page, memoPrepare())).toBe(kw.score(page));
    expect(pageFeatures(page, 10, memoPrepare())).toEqual(pageFeatures(page, 10));
  });
});
