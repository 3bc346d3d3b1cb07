/**
 * Near-duplicate detection measured (issue 14, part 4): precision and recall of the crawl's SimHash
 * on a generated set of templated near-duplicates with known truth (src/eval/near-dup-synth.ts:
 * the same article on other sites' templates, with small edits, with its paragraphs reordered; and
 * distinct articles on the same templates), and what it costs per page.
 *
 *   npx tsx scripts/bench-near-dup.ts [--articles 400] [--seed 1] [--max-k 10] [--variants] [--index-size 1000000] [--runs 3] [--json]
 *
 * Figures:
 * - pairs: over all pairs of pages, "found" = fingerprints at most k bits apart; true = same article.
 *   precision = true found / found, recall = true found / true pairs.
 * - crawl: the pages in the generated order through the banded index, as the crawl does: a page is
 *   flagged when an earlier one is within k; right when that one carries the same article.
 *   precision = right flags / flags, recall = flagged pages that had an earlier copy / such pages.
 *   By copy kind: the recall of each kind of copy (template, edits, reordered, template+edits).
 * - cost: page analysis (parse, score, links, compression: the crawl's createAnalyzer, one thread)
 *   over the same pages with SimHash and language detection off, each alone and both, best of
 *   --runs; the difference is their cost per page. And the banded index (k = 3) holding
 *   --index-size random fingerprints: one lookup and one insertion per page.
 * `--variants` also compares shingle sizes (words × CJK characters).
 */
import { parseArgs } from 'node:util';
import { BandIndex } from '../src/dedup/band-index.js';
import { DEFAULT_SHINGLES, MIN_SHINGLES, textSimHash, type ShingleOptions } from '../src/dedup/shingles.js';
import { hamming, type Fingerprint } from '../src/dedup/simhash.js';
import { createAnalyzer, type AnalysisConfig } from '../src/crawl/page-analysis.js';
import { generateNearDupSet, type CopyKind, type NearDupPage } from '../src/eval/near-dup-synth.js';
import { Parse5Parser } from '../src/parse/html-parser.js';
import { prepareText } from '../src/relevance/keyword-matcher.js';
import { mulberry32 } from '../src/eval/prng.js';

const { values: a } = parseArgs({
  options: {
    articles: { type: 'string', default: '400' },
    seed: { type: 'string', default: '1' },
    'max-k': { type: 'string', default: '10' },
    variants: { type: 'boolean', default: false },
    'index-size': { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '3' },
    json: { type: 'boolean', default: false },
  },
});
const maxK = Number(a['max-k']);
const runs = Number(a.runs);

const pages = generateNearDupSet({ seed: Number(a.seed), articles: Number(a.articles) });
const parser = new Parse5Parser();
const texts = pages.map((p) => parser.parse(p.html, p.url).text);

interface Row {
  k: number;
  pairs: { precision: number; recall: number; found: number; truePairs: number };
  crawl: { precision: number; recall: number; flagged: number; copies: number; byKind: Record<string, number> };
}

function measure(fps: (Fingerprint | null)[], set: readonly NearDupPage[]): Row[] {
  let truePairs = 0;
  const dist: number[][] = []; // per k: [found, trueFound]
  for (let k = 0; k <= maxK; k++) dist.push([0, 0]);
  for (let i = 0; i < set.length; i++) {
    for (let j = i + 1; j < set.length; j++) {
      const same = set[i].article === set[j].article;
      if (same) truePairs++;
      const fi = fps[i];
      const fj = fps[j];
      if (!fi || !fj) continue;
      const d = hamming(fi, fj);
      for (let k = d; k <= maxK; k++) {
        dist[k][0]++;
        if (same) dist[k][1]++;
      }
    }
  }
  const rows: Row[] = [];
  for (let k = 0; k <= maxK; k++) {
    const index = new BandIndex(k);
    const seen = new Set<number>();
    let flagged = 0;
    let right = 0;
    let copies = 0;
    let caught = 0;
    const kinds: Record<string, [number, number]> = {};
    set.forEach((p, i) => {
      const hadCopy = seen.has(p.article);
      seen.add(p.article);
      const f = fps[i];
      const m = f ? index.find(f) : null;
      if (f) index.add(i, f);
      if (hadCopy) {
        copies++;
        const kk = (kinds[p.kind] ??= [0, 0]);
        kk[1]++;
        if (m) {
          caught++;
          kk[0]++;
        }
      }
      if (m) {
        flagged++;
        if (set[m.id].article === p.article) right++;
      }
    });
    rows.push({
      k,
      pairs: { precision: dist[k][0] ? dist[k][1] / dist[k][0] : 1, recall: truePairs ? dist[k][1] / truePairs : 1, found: dist[k][0], truePairs },
      crawl: {
        precision: flagged ? right / flagged : 1, recall: copies ? caught / copies : 1, flagged, copies,
        byKind: Object.fromEntries(Object.entries(kinds).map(([kind, [c, n]]) => [kind, c / n])),
      },
    });
  }
  return rows;
}

function fingerprints(opts: ShingleOptions): (Fingerprint | null)[] {
  return texts.map((t) => {
    const sh = textSimHash(prepareText(t), opts);
    return sh.shingles >= MIN_SHINGLES ? sh.fingerprint : null;
  });
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const out: Record<string, unknown> = {
  command: `npx tsx scripts/bench-near-dup.ts --articles ${a.articles} --seed ${a.seed} --max-k ${a['max-k']}${a.variants ? ' --variants' : ''} --index-size ${a['index-size']} --runs ${a.runs}`,
  node: process.version,
};
const lines: string[] = [];
const copiesByKind: Record<string, number> = {};
for (const p of pages) copiesByKind[p.kind] = (copiesByKind[p.kind] ?? 0) + 1;
lines.push(`set: ${pages.length} pages (${Object.entries(copiesByKind).map(([k, n]) => `${k} ${n}`).join(', ')}), ${Number(a.articles)} articles, seed ${a.seed}`);

const variants: ShingleOptions[] = a.variants
  ? [
      DEFAULT_SHINGLES,
      ...[0, 10, 15, 30].map((m) => ({ ...DEFAULT_SHINGLES, minLineWords: m })),
      ...[[1, 1], [2, 2], [4, 4], [3, 2], [3, 4]].map(([w, c]) => ({ ...DEFAULT_SHINGLES, words: w, cjk: c })),
    ]
  : [DEFAULT_SHINGLES];
const kinds: CopyKind[] = ['template', 'edits', 'reordered', 'template+edits'];
const results: Record<string, Row[]> = {};
for (const v of variants) {
  const name = `shingles ${v.words} words / ${v.cjk} CJK chars, lines of ${v.minLineWords}+ words`;
  const rows = measure(fingerprints(v), pages);
  results[name] = rows;
  lines.push('', name);
  lines.push(`   k  pairs: precision  recall   found | crawl: precision  recall  flagged | recall by copy: ${kinds.join(' / ')}`);
  for (const r of rows) {
    lines.push(
      `${String(r.k).padStart(4)}  ${pct(r.pairs.precision).padStart(16)} ${pct(r.pairs.recall).padStart(7)} ${String(r.pairs.found).padStart(7)} | ${pct(r.crawl.precision).padStart(16)} ${pct(r.crawl.recall).padStart(7)} ${String(r.crawl.flagged).padStart(8)} | ${kinds.map((k) => pct(r.crawl.byKind[k] ?? 0)).join(' / ')}`,
    );
  }
}
out.results = results;

// cost per page: the crawl's analysis with and without each part
const base: AnalysisConfig = {
  keywords: { astronomy: 1, telescope: 1, galaxy: 1, recipe: 1, football: 1, 烟草: 1, 茶叶: 1 },
  fields: { title: 3, headings: 2, anchor: 2, body: 1 },
  scope: { hosts: [], include: [], exclude: [] },
  scopeOptions: { maxUrlLength: 2048, excludeTraps: true, maxRepeatedSegments: 3 },
  normalize: { stripParams: [], keepDefaultStripList: true, sortQuery: true },
  followCanonical: true,
  maxLinksPerPage: 5000,
};
const inputs = pages.map((p) => ({ url: p.url, host: new URL(p.url).host, body: new TextEncoder().encode(p.html), contentType: 'text/html; charset=utf-8', html: true, anchors: [] }));
const configs: [string, AnalysisConfig][] = [
  ['neither', { ...base, simhash: null, language: false }],
  ['simhash', { ...base, simhash: DEFAULT_SHINGLES, language: false }],
  ['language', { ...base, simhash: null, language: true }],
  ['both', { ...base, simhash: DEFAULT_SHINGLES, language: true }],
];
const analyzers = configs.map(([name, cfg]) => [name, createAnalyzer(cfg)] as const);
for (const [, an] of analyzers) for (const i of inputs.slice(0, 50)) an(i); // warm up
const best: Record<string, number> = {};
for (let r = 0; r < runs; r++) {
  for (const [name, an] of analyzers) {
    const t0 = performance.now();
    for (const i of inputs) an(i);
    const ms = (performance.now() - t0) / inputs.length;
    best[name] = Math.min(best[name] ?? Infinity, ms);
  }
}
const kb = inputs.reduce((s, i) => s + i.body.length, 0) / inputs.length / 1024;
lines.push('', `cost per page (${inputs.length} pages, mean ${kb.toFixed(1)} KB; the crawl's page analysis on one thread, best of ${runs}):`);
for (const [name] of configs) lines.push(`  ${name.padEnd(9)} ${(best[name] * 1000).toFixed(0).padStart(6)} µs${name === 'neither' ? '' : `  (+${((best[name] - best.neither) * 1000).toFixed(0)} µs, ×${(best[name] / best.neither).toFixed(3)})`}`);

// the index at scale
const n = Number(a['index-size']);
const rng = mulberry32(42);
const word = () => Math.floor(rng.next() * 2 ** 32);
const idx = new BandIndex(3);
const b0 = performance.now();
for (let i = 0; i < n; i++) idx.add(i, { hi: word(), lo: word() });
const buildMs = performance.now() - b0;
const probes = 100_000;
const p0 = performance.now();
let hits = 0;
for (let i = 0; i < probes; i++) {
  if (idx.find({ hi: word(), lo: word() })) hits++;
  idx.add(n + i, { hi: word(), lo: word() });
}
const perOp = ((performance.now() - p0) * 1000) / probes;
lines.push(`band index, k = 3, ${n.toLocaleString('en')} fingerprints: built in ${(buildMs / 1000).toFixed(2)} s (the rebuild at a resume); a lookup and an insertion ${perOp.toFixed(2)} µs per page (${hits} random hits)`);
out.cost = { pages: inputs.length, mean_kb: +kb.toFixed(1), us_per_page: Object.fromEntries(Object.entries(best).map(([k, v]) => [k, +(v * 1000).toFixed(1)])), index: { size: n, build_s: +(buildMs / 1000).toFixed(2), us_per_page: +perOp.toFixed(2) } };
lines.push('', `command: ${out.command}; node ${process.version}`);
process.stdout.write(a.json ? `${JSON.stringify(out, null, 2)}\n` : `${lines.join('\n')}\n`);
