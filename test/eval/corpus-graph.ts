import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { loadCorpus, type Corpus } from '../../src/eval/corpus.js';
import { hrefs } from './helpers.js';

/** The link graph of a corpus read back from its files: page URL → outlinks (all, and inside <main>). */
export interface CorpusGraph {
  corpus: Corpus;
  /** URL of every file under site/ that is an HTML page. */
  pages: string[];
  out: Map<string, { all: string[]; main: string[] }>;
  sizes: Map<string, number>;
}

function walk(dir: string, acc: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, acc);
    else acc.push(p);
  }
  return acc;
}

/** URL of a file under site/<host>/ (index.html → trailing slash; segments percent-encoded like WHATWG URL). */
export function fileToUrl(siteDir: string, file: string): string {
  const parts = relative(siteDir, file).split(sep);
  const host = parts.shift()!;
  if (parts[parts.length - 1] === 'index.html') parts[parts.length - 1] = '';
  return new URL(`http://${host}/${parts.map((s) => encodeURIComponent(s)).join('/')}`).href;
}

export function readGraph(dir: string): CorpusGraph {
  const corpus = loadCorpus(dir);
  const site = join(dir, 'site');
  const pages: string[] = [];
  const out = new Map<string, { all: string[]; main: string[] }>();
  const sizes = new Map<string, number>();
  for (const f of walk(site)) {
    if (!f.endsWith('.html')) continue;
    const url = fileToUrl(site, f);
    const buf = readFileSync(f);
    const html = buf.toString('utf8');
    const resolve = (hs: string[]): string[] => hs.map((h) => new URL(h, url).href.replace(/#.*$/, ''));
    const m = /<main>([\s\S]*)<\/main>/.exec(html);
    pages.push(url);
    sizes.set(url, buf.length);
    out.set(url, { all: resolve(hrefs(html)), main: resolve(hrefs(m ? m[1] : '')) });
  }
  return { corpus, pages, out, sizes };
}

/** URLs reachable from `seeds` following links between existing pages. */
export function reachable(g: CorpusGraph, seeds: string[]): Set<string> {
  const seen = new Set<string>(seeds.filter((s) => g.out.has(s)));
  const queue = [...seen];
  while (queue.length > 0) {
    const u = queue.shift()!;
    for (const v of g.out.get(u)!.all) {
      if (!seen.has(v) && g.out.has(v)) {
        seen.add(v);
        queue.push(v);
      }
    }
  }
  return seen;
}
