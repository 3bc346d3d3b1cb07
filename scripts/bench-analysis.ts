/**
 * Page analysis alone (issue 16, "workers do each byte once"): the crawl's `createAnalyzer` with the
 * topic's configuration, in this one thread, over a corpus's HTML pages read into memory first.
 *
 *   npx tsx scripts/bench-analysis.ts [--corpus corpora/synth] [--topic topics/synth-astronomy.yaml]
 *                                     [--pages 3000] [--rounds 3]
 *
 * Each round analyses every page once (a warm-up pass first); prints the best round's µs per page
 * of the whole analysis, and, for scale, of parse5's `parse` alone and of the crawl's parser (parse5
 * plus the walk to text and links), with the command, as JSON. Run it under `node --cpu-prof
 * --import tsx` to see where the analysis goes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'parse5';
import { analysisConfig } from '../src/crawl/crawl-settings.js';
import { createAnalyzer, type AnalysisInput } from '../src/crawl/page-analysis.js';
import { Parse5Parser } from '../src/parse/html-parser.js';
import { loadConfig } from '../src/topic/config.js';

const { values: a } = parseArgs({
  options: {
    corpus: { type: 'string', default: 'corpora/synth' },
    topic: { type: 'string', default: 'topics/synth-astronomy.yaml' },
    pages: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '3' },
  },
});
const max = Number(a.pages);
const rounds = Math.max(1, Number(a.rounds));

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
        const body = readFileSync(p);
        out.push({ url: `http://${host}/${path.join('/')}`, host, body, contentType: 'text/html; charset=utf-8', html: true, anchors: [] });
      }
    }
  };
  walk(site);
  return out;
}

const pages = readPages(a.corpus!);
if (pages.length === 0) throw new Error(`no .html page under ${a.corpus}/site`);
const analyse = createAnalyzer(analysisConfig(loadConfig(a.topic!)));
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

let links = 0;
const out = {
  command: `npx tsx scripts/bench-analysis.ts ${process.argv.slice(2).join(' ')}`.trim(),
  pages: pages.length,
  bytes_per_page: Math.round(pages.reduce((s, p) => s + p.body.byteLength, 0) / pages.length),
  parse5_us_per_page: time((i) => parse(texts[i])),
  parser_us_per_page: time((i) => parser.parse(texts[i], pages[i].url, {})),
  analysis_us_per_page: time((i) => (links += analyse(pages[i]).links.length)),
  links_per_page: 0,
};
out.links_per_page = Math.round(links / (pages.length * (rounds + 1)));
console.log(JSON.stringify(out, null, 2));
