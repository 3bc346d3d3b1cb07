import { existsSync, readdirSync } from 'node:fs';
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
