import { describe, expect, it } from 'vitest';
import { KeywordScorer } from '../../src/relevance/keyword-scorer.js';
import { wordSegmenter } from '../../src/relevance/cjk-boundaries.js';
import { body, doc, FIELDS, filler } from '../helpers/scorer-docs.js';


describe('KeywordScorer: Chinese scripts', () => {
  const scorer = new KeywordScorer({ keywords: { 烟草: 1, 捲煙: 1 }, fields: FIELDS });
  const count = (kw: string, text: string) => scorer.keywordMatchCounts(doc({ body: text })).find((m) => m.keyword === kw)?.counts.body ?? 0;

  it('a simplified keyword matches traditional text and the other way round', () => {
    expect(count('烟草', '國家煙草專賣局')).toBe(1);
    expect(count('烟草', '台灣菸草')).toBe(1);
    expect(count('捲煙', '卷烟厂生产卷烟')).toBe(2);
    expect(count('捲煙', '捲煙')).toBe(1);
    const trad = new KeywordScorer({ keywords: { 煙草: 1, 卷烟: 1 }, fields: FIELDS });
    const m = trad.keywordMatchCounts(doc({ body: '中国烟草总公司的捲煙' }));
    expect(m.map((x) => [x.keyword, x.counts.body])).toEqual([['煙草', 1], ['卷烟', 1]]);
  });

  it('matches inside a longer word or across segmenter tokens, but not across punctuation or spaces', () => {
    expect(count('烟草', '烟草局')).toBe(1);
    expect(count('烟草', '中国烟草总公司')).toBe(1);
    expect(count('烟草', '烟。草')).toBe(0);
    expect(count('烟草', '烟 草')).toBe(0);
    expect(count('烟草', '烟，草；烟\n草')).toBe(0);
    expect(count('烟草', '烟草烟草，烟草')).toBe(3);
  });

  it('finds every mention in 100k characters of Chinese', () => {
    const sentence = '国家烟草专卖局发布卷烟管理规定'; // one 烟草 and one 卷烟 each
    const reps = Math.ceil(100_000 / sentence.length);
    const m = scorer.keywordMatchCounts(doc({ body: sentence.repeat(reps) }));
    expect(m.map((x) => x.counts.body)).toEqual([reps, reps]);
  });
});

describe('KeywordScorer: Chinese word boundaries', () => {
  const words = (t: string) => [...wordSegmenter().segment(t)].map((s) => s.segment);
  const scorer = new KeywordScorer({
    keywords: { 草原: 1, 茶叶: 1, 卷烟: 1, 蒙古: 1, 研究: 1, 中国烟草: 1, '草原 tour': 1, 'tea 喝茶叶': 1 },
    fields: FIELDS,
  });
  const count = (kw: string, text: string) => scorer.keywordMatchCounts(doc({ body: text })).find((m) => m.keyword === kw)?.counts.body ?? 0;

  it('rejects a match that straddles a word boundary, in both scripts', () => {
    expect(words('这批烟草原料来自云南')).toEqual(['这', '批', '烟草', '原料', '来自', '云南']);
    expect(words('這批煙草原料來自雲南')).toEqual(['這', '批', '煙草', '原料', '來自', '雲南']);
    expect(count('草原', '这批烟草原料来自云南')).toBe(0);
    expect(count('草原', '這批煙草原料來自雲南')).toBe(0);
    expect(words('他们喝茶叶子都掉了')).toEqual(['他们', '喝茶', '叶子', '都', '掉了']);
    expect(words('他們喝茶葉子都掉了')).toEqual(['他們', '喝茶', '葉子', '都', '掉了']);
    expect(count('茶叶', '他们喝茶叶子都掉了')).toBe(0);
    expect(count('茶叶', '他們喝茶葉子都掉了')).toBe(0);
  });

  it('accepts whole words, runs of whole words and parts of one word, in both scripts', () => {
    expect(words('内蒙古草原')).toEqual(['内', '蒙古', '草原']);
    expect(words('內蒙古草原')).toEqual(['內蒙古', '草原']);
    expect(count('草原', '内蒙古草原')).toBe(1);
    expect(count('草原', '內蒙古草原')).toBe(1);
    expect(count('蒙古', '内蒙古草原')).toBe(1); // a whole word
    expect(count('蒙古', '內蒙古草原')).toBe(1); // inside the word 內蒙古
    expect(count('茶叶', '买茶叶')).toBe(1);
    expect(count('茶叶', '買茶葉')).toBe(1);
    expect(count('卷烟', '卷烟厂')).toBe(1); // 卷烟|厂
    expect(count('卷烟', '捲煙廠')).toBe(1);
    expect(count('中国烟草', '中国烟草总公司')).toBe(1); // 中国|烟草|总公司
    expect(count('中国烟草', '中國煙草總公司')).toBe(1);
    expect(count('研究', '他是研究生')).toBe(1); // inside 研究生
  });

  it('applies the rule to the CJK ends of mixed keywords', () => {
    expect(words('烟草原')).toEqual(['烟草', '原']);
    expect(count('草原 tour', '内蒙古草原 tour')).toBe(1);
    expect(count('草原 tour', '烟草原 tour')).toBe(0);
    expect(count('tea 喝茶叶', 'tea 喝茶叶')).toBe(1);
    expect(count('tea 喝茶叶', 'tea 喝茶叶子')).toBe(0); // 喝茶|叶子
  });

  it('keeps score, explain and keywordMatchCounts consistent', () => {
    const straddle = doc({ title: '烟草原料', body: '这批烟草原料来自云南' });
    expect(scorer.score(straddle)).toBe(0);
    expect(scorer.explain(straddle).raw).toBe(0);
    expect(scorer.keywordMatchCounts(straddle)).toEqual([]);
    expect(scorer.scoreText('烟草原料')).toBe(0);
    const real = doc({ title: '草原', body: '内蒙古草原' });
    expect(scorer.score(real)).toBeGreaterThan(0);
    expect(scorer.explain(real).score).toBe(scorer.score(real));
    expect(scorer.keywordMatchCounts(real)).toEqual([
      { keyword: '草原', weight: 1, counts: { title: 1, headings: 0, anchor: 0, body: 1 } },
      { keyword: '蒙古', weight: 1, counts: { title: 0, headings: 0, anchor: 0, body: 1 } },
    ]);
    expect(scorer.scoreText('内蒙古草原')).toBeGreaterThan(0);
  });
});

describe('KeywordScorer: English', () => {
  const scorer = new KeywordScorer({ keywords: { tobacco: 1, smoking: 1, 'nicotine patch': 1 }, fields: FIELDS });
  const counts = (text: string) => Object.fromEntries(scorer.keywordMatchCounts(doc({ body: text })).map((m) => [m.keyword, m.counts.body]));

  it('matches on stems', () => {
    expect(counts('Tobaccos and TOBACCO')).toEqual({ tobacco: 2 });
    expect(counts('He smoked; she smokes; smoke everywhere')).toEqual({ smoking: 3 });
    expect(counts('tobacconist')).toEqual({});
  });

  it('matches phrases on consecutive stems within a sentence, across stop words', () => {
    expect(counts('Nicotine patches help. A nicotine-free patch')).toEqual({ 'nicotine patch': 1 });
    expect(counts('The nicotine. Patch it')).toEqual({});
    expect(counts('nicotine\npatch')).toEqual({});
    expect(counts('nicotine  the  patch')).toEqual({ 'nicotine patch': 1 });
  });
});

describe('KeywordScorer: scores', () => {
  const scorer = new KeywordScorer({ keywords: { tobacco: 1, 烟草: 1, travel: -1 }, fields: FIELDS });

  it('stays in [0,1] and is deterministic', () => {
    const docs = [
      doc({}),
      doc({ title: 'tobacco '.repeat(1000), headings: 'tobacco', anchors: Array(500).fill('tobacco'), body: 'tobacco '.repeat(50_000) }),
      doc({ title: 'travel', body: 'travel '.repeat(1000) }),
      doc({ body: body('烟草', 5) }),
    ];
    for (const d of docs) {
      const s = scorer.score(d);
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(1);
      expect(scorer.score(d)).toBe(s);
    }
    expect(scorer.score(docs[0])).toBe(0);
    expect(scorer.score(docs[2])).toBe(0);
  });

  it('is calibrated: on-topic ≥ 0.6, a passing mention 0.1–0.3, off-topic 0', () => {
    const onTopic = scorer.score(doc({ title: 'Tobacco control in 2024', body: body('tobacco', 3) }));
    const passing = scorer.score(doc({ title: 'Weekend weather', body: body('tobacco', 1) }));
    const offTopic = scorer.score(doc({ title: 'Weekend weather', headings: 'Rain', anchors: ['weather'], body: filler(400) }));
    expect(onTopic).toBeGreaterThanOrEqual(0.6);
    expect(passing).toBeGreaterThanOrEqual(0.1);
    expect(passing).toBeLessThanOrEqual(0.3);
    expect(offTopic).toBe(0);
    const zhOnTopic = scorer.score(doc({ title: '中國煙草新聞', body: body('烟草', 3) }));
    expect(zhOnTopic).toBeGreaterThanOrEqual(0.6);
  });

  it('is monotonic in the number of mentions', () => {
    let last = -1;
    for (let m = 0; m <= 40; m += 2) {
      const s = scorer.score(doc({ body: body('tobacco', m) }));
      expect(s).toBeGreaterThan(last);
      last = s;
    }
  });

  it('weighs the title more than the body, and headings/anchors by their field weight', () => {
    const inTitle = scorer.score(doc({ title: 'tobacco', body: filler(400) }));
    const inBody = scorer.score(doc({ title: 'news', body: body('tobacco', 1) }));
    const inHeading = scorer.score(doc({ headings: 'tobacco', body: filler(400) }));
    expect(inTitle).toBeGreaterThan(inHeading);
    expect(inHeading).toBeGreaterThan(inBody);
    const noTitle = new KeywordScorer({ keywords: { tobacco: 1 }, fields: { ...FIELDS, title: 0 } });
    expect(noTitle.score(doc({ title: 'tobacco', body: filler(400) }))).toBe(0);
    const viaAnchor = scorer.score(doc({ anchors: ['tobacco news'], body: filler(400) }));
    expect(viaAnchor).toBeGreaterThan(inBody);
  });

  it('damps one mention in a long body compared with a short one', () => {
    expect(scorer.score(doc({ body: body('tobacco', 1, 4000) }))).toBeLessThan(scorer.score(doc({ body: body('tobacco', 1, 400) })));
  });

  it('lets negative keywords push the score down, clamped at 0', () => {
    const base = doc({ title: 'Tobacco', body: body('tobacco', 3) });
    const withTravel = doc({ title: 'Tobacco travel', body: body('tobacco', 3) });
    expect(scorer.score(withTravel)).toBeLessThan(scorer.score(base));
    expect(scorer.score(doc({ title: 'travel travel', body: body('tobacco', 1) }))).toBe(0);
  });

  it('depends on relative keyword weights only', () => {
    const d = doc({ title: 'tobacco', body: body('cigarette', 2) });
    const a = new KeywordScorer({ keywords: { tobacco: 1, cigarette: 0.5 }, fields: FIELDS });
    const b = new KeywordScorer({ keywords: { tobacco: 10, cigarette: 5 }, fields: FIELDS });
    expect(b.score(d)).toBeCloseTo(a.score(d), 12);
  });

  it('scores nothing without positive keywords, and ignores keywords that normalise to nothing', () => {
    expect(new KeywordScorer({ keywords: {}, fields: FIELDS }).score(doc({ title: 'tobacco' }))).toBe(0);
    expect(new KeywordScorer({ keywords: { the: 1, '2024': 1 }, fields: FIELDS }).score(doc({ title: 'the 2024 report' }))).toBe(0);
  });
});

describe('KeywordScorer: explain and scoreText', () => {
  const scorer = new KeywordScorer({ keywords: { tobacco: 1, 烟草: 0.5, travel: -1 }, fields: FIELDS });

  it('reports which keywords matched where', () => {
    const m = scorer.keywordMatchCounts(doc({ title: 'Tobacco', headings: '煙草', anchors: ['tobacco', 'tobaccos'], body: 'travel and tobacco' }));
    expect(m).toEqual([
      { keyword: 'tobacco', weight: 1, counts: { title: 1, headings: 0, anchor: 2, body: 1 } },
      { keyword: '烟草', weight: 0.5, counts: { title: 0, headings: 1, anchor: 0, body: 0 } },
      { keyword: 'travel', weight: -1, counts: { title: 0, headings: 0, anchor: 0, body: 1 } },
    ]);
    const e = scorer.explain(doc({ title: 'Tobacco', body: 'travel' }));
    expect(e.raw).toBeCloseTo(e.fields.title.contribution + e.fields.body.contribution, 12);
    expect(e.fields.body.contribution).toBeLessThan(0);
    expect(e.score).toBe(scorer.score(doc({ title: 'Tobacco', body: 'travel' })));
  });

  it('scoreText is in [0,1], grows with mentions, and is 0 off-topic or negative', () => {
    const one = scorer.scoreText('Tobacco news');
    const two = scorer.scoreText('Tobacco news and 煙草 policy');
    expect(one).toBeGreaterThan(0.3);
    expect(two).toBeGreaterThan(one);
    expect(two).toBeLessThanOrEqual(1);
    expect(scorer.scoreText('Weather today')).toBe(0);
    expect(scorer.scoreText('travel deals')).toBe(0);
    expect(scorer.scoreText('')).toBe(0);
  });
});

describe('KeywordScorer.fromTopic', () => {
  it('uses the topic keywords and field weights (schema defaults applied)', async () => {
    const { TopicSchema } = await import('../../src/topic/topic-schema.js');
    const topic = TopicSchema.parse({ name: 't', seeds: ['http://example.com/'], keywords: { tobacco: 1 } });
    const fromTopic = KeywordScorer.fromTopic(topic);
    const direct = new KeywordScorer({ keywords: { tobacco: 1 }, fields: FIELDS });
    const d = doc({ title: 'Tobacco', body: body('tobacco', 2) });
    expect(fromTopic.score(d)).toBe(direct.score(d));
    expect(fromTopic.score(d)).toBeGreaterThan(0);
  });
});
