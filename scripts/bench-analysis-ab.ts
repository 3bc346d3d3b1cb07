/**
 * Page analysis at a base commit against this checkout, in ONE process (issue 16): the analysis
 * thread is the crawl's busiest, and a change to it of a few percent is lost in the noise of whole
 * crawls on a shared 2-core machine (±10–20% between identical runs). Both builds' `createAnalyzer`
 * run in this one thread over the same pages, in alternating rounds, so that the machine's drift
 * falls on both alike.
 *
 *   npx tsx scripts/bench-analysis-ab.ts --base <commit> [--corpus corpora/synth]
 *       [--topic topics/synth-astronomy.yaml] [--pages 300] [--rounds 20] [--warmup 3] [--keep-worktree]
 *
 * The base is checked out in a temporary git worktree and built there (scripts/build.ts); this
 * checkout's dist/ is built when it is not a build of src/ as it is. Pages: the corpus's hosts in
 * turn, as a crawl of many hosts meets them (scripts/analysis-ab.ts), --pages new ones each round,
 * the same for both sides, so that the analysis's memos meet each page once as in a crawl (rounds
 * over the same pages again would find every memo warm). Measured: this process's CPU (its thread
 * and V8's helpers) per page in each round after the warm-up rounds, whose outputs are compared
 * page by page: `same_output` false names the first page whose analysis differs (a change of
 * behaviour, not only of speed).
 *
 * Prints one JSON object: µs per page at base and here (median and best round), their ratios, every
 * round's figure, `same_output`, and the command.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { alternate, crawlOrderPages, median, type AbPage } from './analysis-ab.js';
import { ensureBuilt } from './bench-cli-crawl.js';
import { addBaseWorktree, baseTreeFolder, resolveBase, type BaseWorktree } from './bench-worktree.js';

const { values: a } = parseArgs({
  options: {
    base: { type: 'string' },
    corpus: { type: 'string', default: 'corpora/synth' },
    topic: { type: 'string', default: 'topics/synth-astronomy.yaml' },
    pages: { type: 'string', default: '300' },
    rounds: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '3' },
    'keep-worktree': { type: 'boolean', default: false },
  },
});
const fail = (msg: string): never => {
  process.stderr.write(`bench-analysis-ab: ${msg}\n`);
  process.exit(1);
};
if (!a.base) fail('give --base <commit>');
const pagesWanted = Number(a.pages);
const rounds = Number(a.rounds);
const warmup = Number(a.warmup);
if (!Number.isInteger(pagesWanted) || pagesWanted < 1) fail(`--pages must be a positive integer, not ${a.pages}`);
if (!Number.isInteger(rounds) || rounds < 1) fail(`--rounds must be a positive integer, not ${a.rounds}`);
if (!Number.isInteger(warmup) || warmup < 1) fail(`--warmup must be at least 1 (its first round compares the outputs), not ${a.warmup}`);
if (!existsSync(join(a.corpus!, 'site'))) fail(`${a.corpus}/site does not exist (generate it: npx tsx scripts/gen-corpus.ts --out ${a.corpus})`);

type Analyse = (p: AbPage) => unknown;
/** The analyser of a build's dist/ with the topic's configuration. */
async function analyserOf(tree: string, topic: string): Promise<Analyse> {
  const mod = async (p: string) => import(pathToFileURL(join(tree, 'dist', p)).href);
  const { loadConfig } = await mod('topic/config.js');
  const { analysisConfig } = await mod('crawl/crawl-settings.js');
  const { createAnalyzer } = await mod('crawl/page-analysis.js');
  return createAnalyzer(analysisConfig(loadConfig(topic))) as Analyse;
}

let worktree: BaseWorktree | null = null;
const tree = baseTreeFolder('bench-analysis-ab');
/** The base's worktree, or the empty folder made for it when it was never checked out. */
const cleanUp = () => (worktree ? worktree.remove() : rmSync(tree, { recursive: true, force: true }));
process.once('SIGINT', () => {
  cleanUp();
  process.exit(130);
});
try {
  const { root, baseSha, headSha, dirty } = resolveBase(a.base!);
  const topic = join(process.cwd(), a.topic!);
  const all = crawlOrderPages(a.corpus!, pagesWanted * (warmup + rounds));
  if (all.length < pagesWanted * (warmup + rounds)) throw new Error(`${a.corpus} has ${all.length} pages: fewer than --pages × (--warmup + --rounds)`);
  const chunks = Array.from({ length: warmup + rounds }, (_, i) => all.slice(i * pagesWanted, (i + 1) * pagesWanted));
  ensureBuilt();
  worktree = addBaseWorktree(root, baseSha, tree, a['keep-worktree']);
  process.stderr.write(`building ${a.base} in ${tree}…\n`);
  const b = spawnSync(process.execPath, ['--import', 'tsx', join(tree, 'scripts/build.ts')], { cwd: tree, stdio: ['ignore', 'ignore', 'inherit'] });
  if (b.status !== 0) throw new Error(`the build of ${a.base} failed`);
  const base = await analyserOf(tree, topic);
  const next = await analyserOf(root, topic);
  process.stderr.write(`${warmup} warm-up and ${rounds} measured rounds of ${pagesWanted} pages a side…\n`);
  const r = alternate(chunks, base, next, warmup);
  const mb = median(r.base);
  const mn = median(r.next);
  const round1 = (xs: number[]) => xs.map((x) => +x.toFixed(1));
  process.stdout.write(
    `${JSON.stringify(
      {
        command: `npx tsx scripts/bench-analysis-ab.ts ${process.argv.slice(2).join(' ')}`,
        base: `${baseSha.slice(0, 10)} (${a.base})`,
        new: `${headSha.slice(0, 10)}${dirty ? ' + uncommitted changes' : ''} (working tree)`,
        pages_per_round: pagesWanted,
        rounds,
        base_us_per_page: +mb.toFixed(1),
        new_us_per_page: +mn.toFixed(1),
        new_to_base: +(mn / mb).toFixed(3),
        base_best_us_per_page: +Math.min(...r.base).toFixed(1),
        new_best_us_per_page: +Math.min(...r.next).toFixed(1),
        new_to_base_best: +(Math.min(...r.next) / Math.min(...r.base)).toFixed(3),
        same_output: r.firstDifference === null,
        ...(r.firstDifference ? { first_difference: r.firstDifference.url } : {}),
        base_rounds: round1(r.base),
        new_rounds: round1(r.next),
      },
      null,
      2,
    )}\n`,
  );
} catch (err) {
  process.stderr.write(`bench-analysis-ab: ${(err as Error).message}\n`);
  process.exitCode = 1;
} finally {
  cleanUp();
}
