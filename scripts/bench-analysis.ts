/**
 * Page analysis alone (issue 16, "workers do each byte once"): the crawl's `createAnalyzer` with the
 * topic's configuration, in this one thread, over a corpus's HTML pages read into memory first.
 *
 *   npx tsx scripts/bench-analysis.ts [--corpus corpora/synth] [--topic topics/synth-astronomy.yaml]
 *                                     [--pages 3000] [--rounds 3] [--inline-kb 0]
 *
 * Each round analyses every page once (a warm-up pass first); prints the best round's µs per page
 * of the whole analysis, and, for scale, of parse5's `parse` alone and of the crawl's parser (parse5
 * plus the walk to text and links), with the command, as JSON. `parts_us_per_page`: the analysis's
 * steps timed one by one the same way, each on the previous steps' results (decoding in pieces as
 * the analysis does, and `decode_whole` into one string for scale; parsing, body compression,
 * preparing the body's text, the page's score, the SimHash, the language, the content hash, the
 * links' normalisation, scope and hashes, their texts' scores; the sum is a little above the
 * whole, which shares its caches). Run it under `node --cpu-prof --import tsx` to see more.
 *
 * `--inline-kb N`: about N KB of inline script and style sheet (generated, the same on every page)
 * put before each page's </head>, as pages on today's web carry them (the generated corpus has none).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { createHash } from 'node:crypto';
import { parse } from 'parse5';
import { analysisConfig } from '../src/crawl/crawl-settings.js';
import { createAnalyzer, type AnalysisInput } from '../src/crawl/page-analysis.js';
import { createPageScorer, memoScoreText } from '../src/crawl/page-scorer.js';
import { DEFAULT_SHINGLES, textSimHash } from '../src/dedup/shingles.js';
import { decodeHtml, decodeHtmlChunks } from '../src/fetch/charset.js';
import { CldDetector } from '../src/lang/cld-detector.js';
import { prepareText } from '../src/relevance/keyword-matcher.js';
import { compressBody } from '../src/store/body-codec.js';
import { hostKey } from '../src/url/host.js';
import { tryNormalizeUrl } from '../src/url/normalize.js';
import { createScope } from '../src/url/scope.js';
import { urlHash } from '../src/url/url-hash.js';
import { Parse5Parser } from '../src/parse/html-parser.js';
import { loadConfig } from '../src/topic/config.js';

const { values: a } = parseArgs({
  options: {
    corpus: { type: 'string', default: 'corpora/synth' },
    topic: { type: 'string', default: 'topics/synth-astronomy.yaml' },
    pages: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '3' },
    'inline-kb': { type: 'string', default: '0' },
  },
});
const max = Number(a.pages);
const rounds = Math.max(1, Number(a.rounds));

/** `--inline-kb`: a script of small functions (four fifths) and a style sheet (one fifth). */
const inlineKb = Number(a['inline-kb']);
const inline = inlineKb > 0 ? inlineBlock(inlineKb * 1024) : '';

function inlineBlock(bytes: number): string {
  let js = '';
  for (let i = 0; js.length < bytes * 0.8; i++) js += `function f${i}(a, b) {\n  var x = a + b * ${i};\n  if (x > 10) { return "s" + x; }\n  return null;\n}\n`;
  let css = '';
  for (let i = 0; css.length < bytes * 0.2; i++) css += `.c${i} { margin: 0 ${i}px; color: #${(i * 4567 % 0xffffff).toString(16).padStart(6, '0')}; }\n`;
  return `<style>${css}</style><script>${js}</script>`;
}

function withInline(body: Buffer): Buffer {
  if (!inline) return body;
  const html = body.toString('utf8');
  const at = html.indexOf('</head>');
  return Buffer.from(at < 0 ? inline + html : html.slice(0, at) + inline + html.slice(at));
}

/** The corpus's HTML files as pages of their hosts (site/<host>/<path>). */
function readPages(root: string): AnalysisInput[] {
  const site = join(root, 'site');
  const out: AnalysisInput[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((x, y) => x.name.localeCompare(y.name))) {
      if (out.length >= max) return;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.html')) {
        const [host, ...path] = relative(site, p).split('/');
        const body = withInline(readFileSync(p));
        out.push({ url: `http://${host}/${path.join('/')}`, host, body, contentType: 'text/html; charset=utf-8', html: true, anchors: [] });
      }
    }
  };
  walk(site);
  return out;
}

const pages = readPages(a.corpus!);
if (pages.length === 0) throw new Error(`no .html page under ${a.corpus}/site`);
const cfg = analysisConfig(loadConfig(a.topic!));
const analyse = createAnalyzer(cfg);
const parser = new Parse5Parser();
const texts = pages.map((p) => Buffer.from(p.body).toString('utf8'));

/** The best round's µs per page of `fn` over every page. */
function time(fn: (i: number) => unknown): number {
  for (let i = 0; i < pages.length; i++) fn(i);
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let i = 0; i < pages.length; i++) fn(i);
    best = Math.min(best, performance.now() - t0);
  }
  return +((best * 1000) / pages.length).toFixed(1);
}

/** The analysis's steps one by one (see the header), each timed over every page on the last ones' results. */
function parts(): Record<string, number> {
  const scorer = createPageScorer(cfg);
  const scope = createScope(cfg.scope, cfg.scopeOptions);
  const cld = new CldDetector();
  const bodies = pages.map((p) => Buffer.from(p.body));
  const decoded = bodies.map((b) => decodeHtmlChunks(b, 'text/html; charset=utf-8').chunks); // (in pieces, as the analysis decodes)
  const parsed = decoded.map((t, i) => parser.parse(t, pages[i].url, {}));
  const prepared = parsed.map((p) => prepareText(p.text));
  const normalised = parsed.map((p) => p.links.map((l) => tryNormalizeUrl(l.url, cfg.normalize)).filter((u): u is string => u !== null));
  return {
    decode: time((i) => decodeHtmlChunks(bodies[i], 'text/html; charset=utf-8')),
    decode_whole: time((i) => decodeHtml(bodies[i], 'text/html; charset=utf-8')), // (for scale: one string a page)
    parse: time((i) => parser.parse(decoded[i], pages[i].url, {})),
    compress: time((i) => compressBody(bodies[i])),
    prepare_text: time((i) => prepareText(parsed[i].text)),
    page_score: time((i) => scorer.score({ url: pages[i].url, title: parsed[i].title, headings: parsed[i].headings, anchors: [], body: parsed[i].text }, () => prepared[i])),
    simhash: time((i) => textSimHash(prepared[i], DEFAULT_SHINGLES)),
    language: time((i) => cld.detect(parsed[i].text)),
    content_hash: time((i) => createHash('sha256').update(parsed[i].title).update('\n').update(parsed[i].text).digest()),
    links: time((i) => {
      for (const l of parsed[i].links) tryNormalizeUrl(l.url, cfg.normalize);
      for (const u of normalised[i]) if (scope(u).ok) (urlHash(u), hostKey(u));
    }),
    link_text_scores: time((i) => {
      const score = memoScoreText(scorer); // (a page's own memo: the crawl's lasts the thread)
      for (const l of parsed[i].links) (score(l.context), score(l.text));
    }),
  };
}

let links = 0;
const out = {
  command: `npx tsx scripts/bench-analysis.ts ${process.argv.slice(2).join(' ')}`.trim(),
  pages: pages.length,
  bytes_per_page: Math.round(pages.reduce((s, p) => s + p.body.byteLength, 0) / pages.length),
  parse5_us_per_page: time((i) => parse(texts[i])),
  parser_us_per_page: time((i) => parser.parse(texts[i], pages[i].url, {})),
  analysis_us_per_page: time((i) => (links += analyse(pages[i]).links.length)),
  links_per_page: 0,
  parts_us_per_page: parts(),
};
out.links_per_page = Math.round(links / (pages.length * (rounds + 1)));
console.log(JSON.stringify(out, null, 2));
