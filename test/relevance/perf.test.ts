import { describe, expect, it } from 'vitest';
import * as OpenCC from 'opencc-js';
import { KeywordScorer } from '../../src/relevance/keyword-scorer.js';
import { foldChinese } from '../../src/relevance/script-fold.js';
import { tokenize } from '../../src/relevance/tokenize.js';

/** ~10 KB of page text (UTF-8), half English, half traditional Chinese. */
function pageText(): string {
  const en = 'The tobacco industry marketed cigarettes and nicotine patches to smokers around the world for decades. ';
  const zh = '中國煙草總公司是國家菸草專賣局的下屬機構，負責捲煙的生產與銷售。吸菸有害健康，請勿在公共場所吸菸。';
  let s = '';
  while (Buffer.byteLength(s) < 10_000) s += en + zh;
  return s;
}

function rate(n: number, fn: () => void): number {
  for (let i = 0; i < Math.min(50, n); i++) fn();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn();
  return n / ((performance.now() - t0) / 1000);
}

describe('relevance throughput (logged, not asserted)', () => {
  it('scores 10 KB pages', () => {
    const scorer = new KeywordScorer({
      keywords: { tobacco: 1, cigarette: 0.8, 'nicotine patch': 0.6, smoking: 0.5, 烟草: 1, 卷烟: 0.8, 吸烟: 0.5, 專賣局: 0.3, travel: -1, 旅游: -1 },
      fields: { title: 3, headings: 2, anchor: 2, body: 1 },
    });
    const body = pageText();
    const doc = { url: 'http://example.com/', title: '煙草 news', headings: 'Tobacco 捲煙', anchors: ['tobacco'], body };
    expect(scorer.score(doc)).toBeGreaterThan(0.6);
    const scorerRate = rate(500, () => scorer.score(doc));
    const foldRate = rate(500, () => foldChinese(body));
    const convert = OpenCC.Converter({ from: 'tw', to: 'cn' });
    const openccRate = rate(100, () => convert(body));
    const tokenizeRate = rate(50, () => tokenize(body));
    console.log(
      `10 KB page (${body.length} chars): KeywordScorer.score ${scorerRate.toFixed(0)} pages/s; ` +
        `char-table fold ${foldRate.toFixed(0)} pages/s vs opencc Converter(tw→cn) ${openccRate.toFixed(0)} pages/s; ` +
        `tokenize (Intl.Segmenter) ${tokenizeRate.toFixed(0)} pages/s`,
    );
  });
});
