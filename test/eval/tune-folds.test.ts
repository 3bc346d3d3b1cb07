import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatTuneTable, tuneWarning, verdict } from '../../src/cli/tune-report.js';
import { loadCorpus } from '../../src/eval/corpus.js';
import { startCorpusServer } from '../../src/eval/corpus-server.js';
import { runStrategyOnCorpus } from '../../src/eval/eval-runner.js';
import { drawFolds, foldPool, heldShare, spread, summarizeFolds, type FoldResult } from '../../src/eval/tune-folds.js';
import { paramsOf, withParams, type TuneResult } from '../../src/eval/tune-runner.js';
import { loadConfig } from '../../src/topic/config.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { makeTree } from './helpers.js';

type Printed = TuneResult & { verdict: string; warning: string | null; file: string };

/** Pages of the test corpus: labelled "astro" or not, on hosts a/b/c.example and x.other. */
const ASTRO_A = Array.from({ length: 6 }, (_, i) => `http://a.example/star-${i + 1}.html`);
const ASTRO_B = Array.from({ length: 5 }, (_, i) => `http://b.example/galaxy-${i + 1}.html`);
const OTHER = Array.from({ length: 6 }, (_, i) => `http://b.example/recipe-${i + 1}.html`);
const DISALLOWED = 'http://c.example/private/telescope.html'; // labelled, robots.txt says no
const OUT_OF_SCOPE = 'http://x.other/astro.html'; // labelled, host outside scope.hosts
const SERVED_ASTRO = [...ASTRO_A, ...ASTRO_B, 'http://c.example/', DISALLOWED, OUT_OF_SCOPE];

const page = (title: string, body: string, links: string[]) =>
  `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><p>${body}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`;

const fileOf = (url: string) => {
  const u = new URL(url);
  return `site/${u.hostname}${u.pathname.endsWith('/') ? `${u.pathname}index.html` : u.pathname}`;
};

/**
 * A small labelled corpus: every page links to a few others across hosts, so a crawl from any of
 * them goes on. `missing` labelled URLs are in labels.tsv without a file (a 404: a crawl from them fetches nothing).
 */
function buildCorpus(missing: string[] = []): { dir: string; topic: string } {
  const all = [...SERVED_ASTRO, ...OTHER];
  const files: Record<string, string> = {
    'corpus.json': JSON.stringify({ name: 'folds-test', description: 'astronomy pages and recipes', license: 'CC0-1.0', seeds: [ASTRO_A[0]], labels: { astro: 'about astronomy' } }),
    'labels.tsv': ['url\tlabels', ...SERVED_ASTRO.map((u) => `${u}\tastro`), ...missing.map((u) => `${u}\tastro`), ...OTHER.map((u) => `${u}\t`)].join('\n') + '\n',
    'site/c.example/robots.txt': 'User-agent: *\nDisallow: /private/\n',
  };
  all.forEach((url, i) => {
    const astro = !OTHER.includes(url);
    const links = [all[(i + 1) % all.length], all[(i + 5) % all.length], all[(i + 11) % all.length]];
    files[fileOf(url)] = page(astro ? `Star ${i}` : `Recipe ${i}`, astro ? 'the star seen through a telescope, a galaxy far away' : 'a recipe for soup, cooking at home', links);
  });
  const dir = makeTree(files, 'topicrawl-folds-');
  const topic = join(dir, 'astro.yaml');
  writeFileSync(topic, [
    'name: astro', `seeds: [${ASTRO_A[0]}]`, 'scope: { hosts: ["*.example"] }',
    'keywords: { star: 3, telescope: 2, galaxy: 2, recipe: -2, soup: -1 }',
    'strategy: { name: best-first-fish, x: 0.3, y: 0.4, z: 0.3, max_life: 3 }',
    'relevance: { threshold: 0.3 }', 'evaluation: { label: astro }', '',
  ].join('\n'));
  return { dir, topic };
}

const expectUsage = (e: CliResult, code = '[E_USAGE]') => {
  expect(e.code).toBe(2);
  expect(e.stderr.trim().split('\n')).toHaveLength(1);
  expect(e.stderr).toContain(code);
};

describe('share of the tuning gain held', () => {
  it('is validation gain ÷ tuning gain; null when there was no gain to hold', () => {
    expect(heldShare(0.1, 0.062)).toBeCloseTo(0.62, 12);
    expect(heldShare(0.05, 0.05)).toBe(1);
    expect(heldShare(0.04, -0.01)).toBeCloseTo(-0.25, 12);
    expect(heldShare(0.02, 0.03)).toBeCloseTo(1.5, 12);
    expect(heldShare(0, 0.03)).toBeNull();
    expect(heldShare(-0.01, 0.03)).toBeNull();
  });

  it('summarizeFolds: spread of the validation folds only', () => {
    const f = (fold: number, role: FoldResult['role'], baseline: number, best: number): FoldResult =>
      ({ fold, seeds: [`http://s${fold}.example/`], role, baseline, best, gain: best - baseline, held: role === 'tuning' ? null : heldShare(0.2, best - baseline), fetched: 9 });
    const s = summarizeFolds([f(1, 'tuning', 0.5, 0.7), f(2, 'validation', 0.4, 0.5), f(3, 'validation', 0.6, 0.55), f(4, 'validation', 0.3, 0.45)], 1, 40);
    expect(s.tuning_gain).toBeCloseTo(0.2, 12);
    expect(s.validation_gain.mean).toBeCloseTo((0.1 - 0.05 + 0.15) / 3, 12);
    expect(s.validation_gain.min).toBeCloseTo(-0.05, 12);
    expect(s.validation_gain.max).toBeCloseTo(0.15, 12);
    expect(s.held!.mean).toBeCloseTo(((0.1 - 0.05 + 0.15) / 3) / 0.2, 12);
    expect(s.held!.min).toBeCloseTo(-0.25, 12);
    expect(s.held!.max).toBeCloseTo(0.75, 12);
    expect(spread([2])).toEqual({ mean: 2, min: 2, max: 2 });
  });

  it('the verdict says the share held; the warning comes when the tuned settings do worse on validation', () => {
    const figs = (auc: number) => ({ auc, harvest_rate: auc, target_recall: 0.1, fetched: 10, relevant: 5 });
    const p = { x: 0.3, y: 0.4, z: 0.3, max_life: 3, threshold: 0.3 };
    const base = (bestTrial: number, t0: number, t1: number, v0: number, v1: number): TuneResult => ({
      corpus: 'c', topic: 't', strategy: 'best-first-fish', label: 'l', budget: 10, trials: 4, seed: 1, objective: 'auc', seeds: ['http://a.example/'], relevant_in_corpus: 9,
      baseline: { params: p, tuning: figs(t0), validation: figs(v0) }, best: { trial: bestTrial, params: p, tuning: figs(t1), validation: figs(v1) },
      validation: { kind: 'seeds', topic: 't', label: 'l', seeds: ['http://b.example/'], relevant_in_corpus: 9 }, held: heldShare(t1 - t0, v1 - v0), history: [],
    });
    const held = base(3, 0.5, 0.6, 0.4, 0.462);
    expect(verdict(held)).toBe('gain +0.100 auc on tuning, +0.062 on validation: 62% of the tuning gain held on validation');
    expect(tuneWarning(held)).toBeNull();
    const worse = base(3, 0.5, 0.6, 0.4, 0.38);
    expect(verdict(worse)).toContain('-20% of the tuning gain held on validation');
    expect(tuneWarning(worse)).toBe('warning: the tuned settings do worse on the validation set than the file\'s (auc -0.020; +0.100 on tuning): overfitting?');
    expect(formatTuneTable(worse).split('\n').slice(-1)[0]).toBe(tuneWarning(worse));
    const none = base(1, 0.5, 0.5, 0.4, 0.4);
    expect(verdict(none)).toContain('no gain to hold on validation');
    expect(verdict(none)).not.toContain('%');
    // folds: the spread in the verdict, each fold where the tuned settings did worse in the warning
    const fold = (n: number, b: number, t: number): FoldResult =>
      ({ fold: n, seeds: [`http://f${n}.example/`], role: n === 1 ? 'tuning' : 'validation', baseline: b, best: t, gain: t - b, held: n === 1 ? null : heldShare(0.1, t - b), fetched: 10 });
    const folds = [fold(1, 0.5, 0.6), fold(2, 0.4, 0.45), fold(3, 0.5, 0.47), fold(4, 0.3, 0.38)];
    const folded: TuneResult = { ...held, validation: undefined, held: undefined, folds, fold_summary: summarizeFolds(folds, 1, 30) };
    delete folded.baseline.validation;
    expect(verdict(folded)).toBe('gain +0.100 auc on tuning (fold 1); on the 3 validation folds +0.033 on average (min -0.030, max +0.080): 33% of the tuning gain held on average (min -30%, max 80%)');
    expect(tuneWarning(folded)).toBe('warning: the tuned settings do worse than the file\'s on 1 of 3 validation folds (fold 3 auc -0.030): overfitting?');
    const table = formatTuneTable(folded);
    expect(table).toContain(tuneWarning(folded)!);
    expect(table).toMatch(/^3 +validation +0\.500 +0\.470 +-0\.030 +-30% +10$/m);
  });
});

describe('tune --folds (a corpus built here)', () => {
  let corpusDir: string;
  let topic: string;
  beforeAll(() => ({ dir: corpusDir, topic } = buildCorpus()));

  it('the pool: the labelled pages the topic may start from (scope, robots.txt)', () => {
    const corpus = loadCorpus(corpusDir);
    const config = loadConfig(topic);
    const expected = [...ASTRO_A, ...ASTRO_B, 'http://c.example/'].sort();
    expect(foldPool(corpus, 'astro', config)).toEqual(expected);
    // a topic that ignores robots.txt may start from the disallowed page
    expect(foldPool(corpus, 'astro', loadConfig(topic, { set: ['politeness.robots=false'] }))).toEqual([...expected, DISALLOWED].sort());
  });

  it('folds are disjoint, of the size asked, from the pool, and deterministic for a seed', () => {
    const pool = foldPool(loadCorpus(corpusDir), 'astro', loadConfig(topic));
    for (const [k, per] of [[2, 1], [3, 2], [4, 3]]) {
      const folds = drawFolds(pool, k, per, 7);
      expect(folds.map((f) => f.fold)).toEqual(Array.from({ length: k }, (_, i) => i + 1));
      const seeds = folds.flatMap((f) => f.seeds);
      expect(folds.every((f) => f.seeds.length === per)).toBe(true);
      expect(new Set(seeds).size).toBe(k * per);
      expect(seeds.every((s) => pool.includes(s))).toBe(true);
      expect(drawFolds(pool, k, per, 7)).toEqual(folds);
      expect(drawFolds([...pool].reverse(), k, per, 7)).toEqual(folds); // the pool's order does not matter
    }
    const draws = new Set([1, 2, 3, 4, 5].map((seed) => JSON.stringify(drawFolds(pool, 3, 2, seed))));
    expect(draws.size).toBeGreaterThan(1); // the seed chooses the draw
    expect(() => drawFolds(pool, 5, 3, 1)).toThrow(/need 15 pages labelled "the label" .* the corpus has 12/);
    expect(() => drawFolds(pool, 1, 1, 1)).toThrow(/at least 2/);
  });

  it('tunes on fold 1 and re-runs the baseline and the best on every other fold; --json reports each fold and the spread', async () => {
    const out = join(corpusDir, 'tuned.yaml');
    const r = await runCli(['tune', '--corpus', corpusDir, '--topic', topic, '--budget', '8', '--trials', '4', '--folds', '3', '--seed', '5', '--out', out, '--json']);
    if (r.code !== 0) throw new Error(`tune failed: ${r.stderr}`);
    const res = JSON.parse(r.stdout) as Printed;
    const config = loadConfig(topic);
    const corpus = loadCorpus(corpusDir);
    const expected = drawFolds(foldPool(corpus, 'astro', config), 3, config.seeds.length, 5);
    expect(res.folds!.map((f) => ({ fold: f.fold, seeds: f.seeds }))).toEqual(expected);
    expect(res.folds!.map((f) => f.role)).toEqual(['tuning', 'validation', 'validation']);
    expect(res.seeds).toEqual(expected[0].seeds); // the trials ran from fold 1
    const tuningGain = res.best.tuning.auc - res.baseline.tuning.auc;
    expect(res.folds![0]).toMatchObject({ baseline: res.history[0].score, best: Math.max(...res.history.map((t) => t.score)), held: null });
    for (const f of res.folds!) {
      expect(f.gain).toBeCloseTo(f.best - f.baseline, 12);
      expect(f.fetched).toBeGreaterThan(0);
      if (f.role === 'validation') expect(f.held).toEqual(heldShare(tuningGain, f.gain));
    }
    const val = res.folds!.slice(1);
    expect(res.fold_summary!.validation_gain.mean).toBeCloseTo((val[0].gain + val[1].gain) / 2, 12);
    expect(res.fold_summary!.validation_gain.min).toBe(Math.min(val[0].gain, val[1].gain));
    expect(res.fold_summary).toMatchObject({ per_fold: 1, pool: 12 });
    expect(res.verdict).toBe(verdict(res));
    expect(res.warning).toBe(tuneWarning(res));
    expect(r.stderr).toContain('validation fold 3: the file\'s settings');
    expect(readFileSync(out, 'utf8')).toContain(`Folds (3 × 1 seeds drawn from the pages labelled "astro", seed 5): tuned from fold 1's seeds (${expected[0].seeds[0]})`);
    // a separate crawl of fold 2 with the file's settings gives the figure reported
    const server = await startCorpusServer(corpusDir);
    try {
      const again = await runStrategyOnCorpus({
        server, corpus, config: withParams(loadConfig(topic, { set: [`seeds=[${expected[1].seeds.join(', ')}]`] }), paramsOf(config)), budget: 8, label: 'astro', dbPath: join(corpusDir, 'check.db'),
      });
      expect(again.auc).toBe(res.folds![1].baseline);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('the table shows every fold, its seeds and the verdict', async () => {
    const r = await runCli(['tune', '--corpus', corpusDir, '--topic', topic, '--budget', '6', '--trials', '2', '--folds', '4', '--out', join(corpusDir, 't2.yaml')]);
    if (r.code !== 0) throw new Error(`tune failed: ${r.stderr}`);
    expect(r.stdout).toContain('folds: 4 disjoint sets of 1 seed, drawn with seed 1 from the 12 pages labelled "astro"');
    for (const n of [1, 2, 3, 4]) expect(r.stdout).toMatch(new RegExp(`^${n} +(tuning|validation) `, 'm'));
    for (const n of [1, 2, 3, 4]) expect(r.stdout).toMatch(new RegExp(`^fold ${n} seeds: http://`, 'm'));
    expect(r.stdout).toMatch(/^(gain .* on tuning \(fold 1\); on the 3 validation folds|no trial beat)/m);
  }, 60_000);

  it('conflicting or bad --folds: one line, exit 2', async () => {
    const out = join(corpusDir, 'e.yaml');
    const a = await runCli(['tune', '--corpus', corpusDir, '--topic', topic, '--folds', '3', '--validate-seeds', ASTRO_B[0], '--out', out]);
    expectUsage(a);
    expect(a.stderr).toContain('--folds and --validate-seeds');
    const b = await runCli(['tune', '--corpus', corpusDir, '--topic', topic, '--folds', '3', '--validate-topic', topic, '--out', out]);
    expectUsage(b);
    expect(b.stderr).toContain('--folds and --validate-topic');
    const c = await runCli(['tune', '--corpus', corpusDir, '--topic', topic, '--folds', '1', '--out', out]);
    expectUsage(c);
    expect(c.stderr).toContain('--folds 1: expected a whole number of seed sets, at least 2');
    const d = await runCli(['tune', '--corpus', corpusDir, '--topic', topic, '--folds', '13', '--out', out]);
    expectUsage(d, '[E_CONFIG]');
    expect(d.stderr).toContain('13 folds of 1 seeds need 13 pages labelled "astro" the topic may start from; the corpus has 12');
  });

  it('a fold whose crawl fetched nothing is an error naming the fold', async () => {
    // labelled pages without a file: a crawl from one of them alone fetches nothing (a 404)
    const missing = Array.from({ length: 30 }, (_, i) => `http://a.example/lost-${i}.html`);
    const built = buildCorpus(missing);
    const pool = foldPool(loadCorpus(built.dir), 'astro', loadConfig(built.topic));
    // a seed of the draw whose fold 1 is served and whose fold 2 is not
    const seed = Array.from({ length: 200 }, (_, i) => i + 1).find((s) => {
      const [f1, f2] = drawFolds(pool, 2, 1, s);
      return !missing.includes(f1.seeds[0]) && missing.includes(f2.seeds[0]);
    })!;
    const lost = drawFolds(pool, 2, 1, seed)[1].seeds[0];
    const r = await runCli(['tune', '--corpus', built.dir, '--topic', built.topic, '--budget', '5', '--trials', '2', '--folds', '2', '--seed', String(seed), '--out', join(built.dir, 'x.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`fold 2 of 2 (a validation fold): the best-first-fish crawl fetched no page (1 attempts, none answered 2xx) from ${lost}`);
    expect(r.stderr).toContain('[E_CONFIG]');
  }, 60_000);
});
