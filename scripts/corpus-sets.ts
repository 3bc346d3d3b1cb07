import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The evaluation sets of the figure scripts: a corpus folder and the topic files (topics/<prefix>*.yaml) measured on it. */
const SETS: Record<string, { corpus: string; prefix: string }> = {
  synth: { corpus: 'corpora/synth', prefix: 'synth-' },
  webkb: { corpus: 'corpora/webkb', prefix: 'webkb-' },
  rustdoc: { corpus: 'corpora/rustdoc', prefix: 'rustdoc-' },
};

/**
 * The corpus folder and topic files of set `name` under the repository `root`, or null (with a line
 * on stderr) when its corpus has not been built. An unknown name throws.
 */
export function corpusSet(root: string, name: string): { corpusDir: string; topics: string[] } | null {
  const s = SETS[name];
  if (!s) throw new Error(`unknown set ${name} (known: ${Object.keys(SETS).join(', ')})`);
  const corpusDir = join(root, s.corpus);
  if (!existsSync(join(corpusDir, 'corpus.json'))) {
    process.stderr.write(`${name}: ${s.corpus} is missing, skipped\n`);
    return null;
  }
  const topics = readdirSync(join(root, 'topics')).filter((f) => f.startsWith(s.prefix) && f.endsWith('.yaml')).sort();
  return { corpusDir, topics: topics.map((t) => join(root, 'topics', t)) };
}

/**
 * Seeds far from a topic: `n` pages of the corpus that carry labels but not `label` (pages about
 * something else) and link on (at least `minLinks` links in their HTML), picked in the order of the
 * SHA-256 of label + URL: deterministic, and no choice of ours. A crawl from them must first find its
 * way to the topic.
 */
export function farSeeds(corpusDir: string, label: string, n = 3, minLinks = 10): string[] {
  const rows = readFileSync(join(corpusDir, 'labels.tsv'), 'utf8').split('\n').slice(1).filter(Boolean);
  const candidates: { url: string; key: string }[] = [];
  for (const row of rows) {
    const [url, labels = ''] = row.split('\t');
    const ls = labels.split(',').filter(Boolean);
    if (ls.length === 0 || ls.includes(label)) continue;
    candidates.push({ url, key: createHash('sha256').update(`${label} ${url}`).digest('hex') });
  }
  candidates.sort((a, b) => (a.key < b.key ? -1 : 1));
  const out: string[] = [];
  for (const c of candidates) {
    if (out.length >= n) break;
    const u = new URL(c.url);
    let file = join(corpusDir, 'site', u.hostname, decodeURIComponent(u.pathname));
    if (u.pathname.endsWith('/')) file = join(file, 'index.html');
    if (!existsSync(file)) continue;
    const links = (readFileSync(file, 'latin1').match(/<a\s[^>]*href=/gi) ?? []).length;
    if (links >= minLinks) out.push(c.url);
  }
  return out;
}
