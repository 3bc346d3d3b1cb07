/**
 * Per-page costs of the pipeline's pure stages, each against a yardstick measured in the same run:
 *
 * - URL normalisation (`normalizeUrl`) vs parsing the same URLs with WHATWG `new URL()`;
 * - HTML parsing (`Parse5Parser.parse`: title, headings, text, links) vs parse5's bare `parse()`
 *   of the same ~10 KB page;
 * - keyword relevance (`KeywordScorer.score`) on ~10 KB mixed English/Chinese and Chinese news
 *   pages, warm memo and memo cleared per page, vs `tokenize` of the same text; the character-table
 *   script fold vs opencc's Converter (tw→cn).
 *
 *   npx tsx scripts/bench-throughput.ts
 *
 * These figures were logged or asserted by tests (test/url/normalize.test.ts asserted ≥ 50,000
 * URLs/s, test/parse/html-parser-perf.test.ts and test/relevance/perf.test.ts logged them); timing
 * belongs here. Compare the ratios, not the absolute rates, between runs on a shared machine.
 */
import * as OpenCC from 'opencc-js';
import { parse } from 'parse5';
import { Parse5Parser } from '../src/parse/html-parser.js';
import { clearCjkMemo } from '../src/relevance/cjk-boundaries.js';
import { KeywordScorer } from '../src/relevance/keyword-scorer.js';
import { foldChinese } from '../src/relevance/script-fold.js';
import { tokenize } from '../src/relevance/tokenize.js';
import { normalizeUrl } from '../src/url/normalize.js';
import { chinesePage, mixedPage, samplePage } from '../test/helpers/sample-pages.js';

/** Calls per second of fn, after a warm-up. */
function rate(n: number, fn: () => void): number {
  for (let i = 0; i < Math.min(50, n); i++) fn();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn();
  return n / ((performance.now() - t0) / 1000);
}

const f0 = (x: number) => x.toFixed(0);
console.log('npx tsx scripts/bench-throughput.ts');

// ---- URL normalisation ----
{
  const urls = Array.from({ length: 20_000 }, (_, i) => `http://www.site${i % 100}.com/dir/page${i}.html`);
  let k = 0;
  const norm = rate(100_000, () => normalizeUrl(urls[k++ % urls.length]));
  const whatwg = rate(100_000, () => new URL(urls[k++ % urls.length]));
  console.log(`normalizeUrl         ${f0(norm)} URLs/s; new URL() ${f0(whatwg)} URLs/s; ratio ${(norm / whatwg).toFixed(2)}`);
}

// ---- HTML parsing ----
{
  const parser = new Parse5Parser();
  const html = samplePage();
  const ours = rate(500, () => parser.parse(html, 'http://example.com/news/1'));
  const bare = rate(500, () => parse(html));
  console.log(
    `Parse5Parser.parse   ${f0(ours)} pages/s (${((ours * html.length) / 1e6).toFixed(1)} M chars/s, page ${html.length} chars); ` +
      `parse5 parse() ${f0(bare)} pages/s; ratio ${(ours / bare).toFixed(2)}`,
  );
}

// ---- keyword relevance ----
{
  const scorer = new KeywordScorer({
    keywords: { tobacco: 1, cigarette: 0.8, 'nicotine patch': 0.6, smoking: 0.5, 烟草: 1, 卷烟: 0.8, 吸烟: 0.5, 專賣局: 0.3, travel: -1, 旅游: -1 },
    fields: { title: 3, headings: 2, anchor: 2, body: 1 },
  });
  const pages = { 'mixed en/zh-Hant, keyword in every clause': mixedPage(), 'on-topic zh news': chinesePage() };
  for (const [name, body] of Object.entries(pages)) {
    const doc = { url: 'http://example.com/', title: '国家烟草专卖局：加强卷烟市场监管', headings: '卷烟 市场', anchors: ['烟草新闻'], body };
    const warm = rate(500, () => scorer.score(doc));
    const cold = rate(500, () => {
      clearCjkMemo();
      scorer.score(doc);
    });
    const tok = rate(50, () => tokenize(body));
    console.log(
      `KeywordScorer.score  ${name} (${body.length} chars): ${f0(warm)} pages/s (memo warm), ${f0(cold)} (memo cleared per page); ` +
        `tokenize (Intl.Segmenter on everything) ${f0(tok)} pages/s; cold score ÷ tokenize ${(cold / tok).toFixed(1)}`,
    );
  }
  const body = mixedPage();
  const fold = rate(500, () => foldChinese(body));
  const convert = OpenCC.Converter({ from: 'tw', to: 'cn' });
  const opencc = rate(100, () => convert(body));
  console.log(`foldChinese          ${f0(fold)} pages/s; opencc Converter(tw→cn) ${f0(opencc)} pages/s; ratio ${(fold / opencc).toFixed(1)}`);
}
