import { describe, expect, it } from 'vitest';
import * as OpenCC from 'opencc-js';
import { KeywordScorer } from '../../src/relevance/keyword-scorer.js';
import { clearCjkMemo } from '../../src/relevance/cjk-boundaries.js';
import { foldChinese } from '../../src/relevance/script-fold.js';
import { tokenize } from '../../src/relevance/tokenize.js';
import { chinesePage, mixedPage } from '../helpers/sample-pages.js';


// the throughput of these (pages/s; fold vs opencc) is measured by scripts/bench-throughput.ts
describe('relevance of 10 KB pages', () => {
  const scorer = new KeywordScorer({
    keywords: { tobacco: 1, cigarette: 0.8, 'nicotine patch': 0.6, smoking: 0.5, 烟草: 1, 卷烟: 0.8, 吸烟: 0.5, 專賣局: 0.3, travel: -1, 旅游: -1 },
    fields: { title: 3, headings: 2, anchor: 2, body: 1 },
  });

  it('scores on-topic 10 KB pages high, finds their keywords, and the memo does not change a score', () => {
    const pages = { 'mixed en/zh-Hant, keyword in every clause': mixedPage(), 'on-topic zh news': chinesePage() };
    for (const [name, body] of Object.entries(pages)) {
      const doc = { url: 'http://example.com/', title: '国家烟草专卖局：加强卷烟市场监管', headings: '卷烟 市场', anchors: ['烟草新闻'], body };
      clearCjkMemo();
      const cold = scorer.score(doc);
      expect(cold, name).toBeGreaterThan(0.6);
      expect(scorer.score(doc), name).toBe(cold); // warm memo, same score
      const bodyMatches = scorer.keywordMatchCounts(doc).reduce((n, m) => n + m.counts.body, 0);
      expect(bodyMatches, name).toBeGreaterThan(20);
    }
  });

  it('folds traditional to simplified Chinese as opencc (tw→cn) does on the keywords, and tokenizes the page', () => {
    const body = mixedPage();
    const folded = foldChinese(body);
    expect(folded.length).toBe(body.length); // a character table: one character for one
    const convert = OpenCC.Converter({ from: 'tw', to: 'cn' });
    for (const w of ['烟草', '卷烟', '专卖局', '吸烟']) expect(folded.includes(w) && convert(body).includes(w), w).toBe(true);
    expect(tokenize(body)).toContain('tobacco');
  });
});
