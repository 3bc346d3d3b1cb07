/**
 * Loading a topic file with many keywords (issue 12 item 5): times `loadTopicFile` on a generated topic
 * of N keywords, and in the same run the YAML parse alone with the library's own duplicate-key check
 * (`uniqueKeys: true`, what loadTopicFile used before) and without it, so the figures compare as ratios.
 *
 *   npx tsx scripts/bench-topic-load.ts [--keywords 15000,30000,60000] [--runs 1] [--old DIR]
 *
 * `--old DIR`: also time the loadTopicFile of another checkout of topicrawl (e.g. a `git worktree` of an
 * older commit), on the same file in the same run. Each figure is the median of `--runs` runs. The topic is written to a temporary folder, removed after.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseDocument } from 'yaml';
import { loadTopicFile } from '../src/topic/load-topic.js';

const { values: a } = parseArgs({
  options: {
    keywords: { type: 'string', default: '15000,30000,60000' },
    runs: { type: 'string', default: '1' },
    old: { type: 'string' },
  },
});
type Load = (path: string) => { keywords: Record<string, number> };
const oldLoad: Load | null = a.old ? ((await import(join(a.old, 'src/topic/load-topic.ts'))) as { loadTopicFile: Load }).loadTopicFile : null;
const runs = Number(a.runs);

function topicText(n: number): string {
  const lines = ['name: many', 'seeds:', '  - http://example.com/', 'keywords:'];
  // distinct English-like and Chinese keywords, none a stop word
  for (let i = 0; i < n; i++) lines.push(i % 3 === 2 ? `  烟草${i}: 1` : `  keyword${i}x: ${(i % 7) / 2 - 1}`);
  return `${lines.join('\n')}\n`;
}

function median(f: () => void): number {
  const xs: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    f();
    xs.push(performance.now() - t0);
  }
  return xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)] / 1000;
}

const dir = mkdtempSync(join(tmpdir(), 'bench-topic-load-'));
try {
  process.stdout.write(
    `command: npx tsx scripts/bench-topic-load.ts --keywords ${a.keywords} --runs ${runs}${a.old ? ` --old ${a.old}` : ''}\n` +
      `keywords  file KB  loadTopicFile s  parse, uniqueKeys off s  parse, uniqueKeys on s${oldLoad ? '  old loadTopicFile s  old ÷ new' : ''}\n`,
  );
  for (const n of a.keywords!.split(',').map(Number)) {
    const file = join(dir, `many-${n}.yaml`);
    writeFileSync(file, topicText(n));
    const text = readFileSync(file, 'utf8');
    let loaded = 0;
    const load = median(() => (loaded = Object.keys(loadTopicFile(file).keywords).length));
    if (loaded !== n) throw new Error(`loaded ${loaded} keywords, expected ${n}`);
    const off = median(() => parseDocument(text, { uniqueKeys: false }));
    const on = median(() => parseDocument(text, { uniqueKeys: true }));
    const old = oldLoad ? median(() => oldLoad(file)) : null;
    process.stdout.write(
      `${String(n).padStart(8)} ${(text.length / 1024).toFixed(0).padStart(8)} ${load.toFixed(2).padStart(16)} ${off.toFixed(2).padStart(24)}` +
        ` ${on.toFixed(2).padStart(23)}${old === null ? '' : ` ${old.toFixed(2).padStart(20)} ${('×' + (old / load).toFixed(0)).padStart(10)}`}\n`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
