import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { relocationEdits, tunedTopicText } from '../../src/cli/tune-command.js';
import { loadCorpus } from '../../src/eval/corpus.js';
import { startCorpusServer } from '../../src/eval/corpus-server.js';
import { runStrategyOnCorpus } from '../../src/eval/eval-runner.js';
import type { TuneResult } from '../../src/eval/tune-runner.js';
import { withParams } from '../../src/eval/tune-runner.js';
import { loadConfig } from '../../src/topic/config.js';
import { loadTopicFile } from '../../src/topic/load-topic.js';
import { startCli } from '../helpers/cli-process.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { suiteTmpDir } from '../helpers/tmp.js';

const CORPUS = 'corpora/tobacco-demo';
const TOPIC = 'topics/tobacco.yaml';
const BUDGET = 25;
const TRIALS = 4;
/** Other sites of the corpus (not the topic's seed): the validation seeds. */
const VALIDATE = ['http://www.china-tobacco.example/', 'http://www.yunnan-leaf.example/'];

type Printed = TuneResult & { verdict: string; file: string };

describe('topicrawl tune (CLI, end to end on corpora/tobacco-demo)', () => {
  const dir = suiteTmpDir();
  const tuned = join(dir, 'tuned.yaml');
  let r: CliResult;
  let res: Printed;
  beforeAll(async () => {
    r = await runCli(['tune', '--corpus', CORPUS, '--topic', TOPIC, '--budget', String(BUDGET), '--trials', String(TRIALS),
      '--validate-seeds', VALIDATE.join(','), '--out', tuned, '--objective', 'harvest', '--seed', '3', '--json']);
    if (r.code !== 0) throw new Error(`tune failed: ${r.stderr}`);
    res = JSON.parse(r.stdout) as Printed;
  }, 60_000);

  it('runs the trials, the file\'s settings first, one progress line each', () => {
    expect(res).toMatchObject({ corpus: 'tobacco-demo', topic: 'tobacco', label: 'tobacco', budget: BUDGET, trials: TRIALS, objective: 'harvest', seed: 3 });
    expect(res.history).toHaveLength(TRIALS);
    expect(res.history[0].params).toEqual({ x: 0.3, y: 0.4, z: 0.3, max_life: 3, threshold: 0.3 });
    expect(res.baseline.params).toEqual(res.history[0].params);
    const lines = r.stderr.trim().split('\n').filter((l) => l.startsWith('trial '));
    expect(lines).toHaveLength(TRIALS);
    res.history.forEach((t, i) => {
      expect(t.score).toBe(t.figures.harvest_rate); // --objective harvest
      expect(t.figures.fetched).toBe(BUDGET);
      expect(lines[i]).toContain(`trial ${i + 1}/${TRIALS}  x=${t.params.x.toFixed(2)} `);
      expect(lines[i]).toContain(`harvest ${t.figures.harvest_rate.toFixed(3)}`);
      expect(lines[i]).toContain(`fetched ${t.figures.fetched}  auc ${t.figures.auc.toFixed(3)}`);
    });
    const bestScore = Math.max(...res.history.map((t) => t.score));
    expect(res.best.tuning.harvest_rate).toBe(bestScore);
    expect(res.history[res.best.trial - 1].params).toEqual(res.best.params);
    expect(new Set(res.history.map((t) => JSON.stringify(t.params))).size).toBe(TRIALS);
  });

  it('reports figures a separate crawl of the best settings reproduces, on tuning and validation seeds', async () => {
    const corpus = loadCorpus(CORPUS);
    const server = await startCorpusServer(CORPUS);
    try {
      const config = withParams(loadConfig(TOPIC), res.best.params);
      const again = await runStrategyOnCorpus({ server, corpus, config, budget: BUDGET, label: 'tobacco', dbPath: join(dir, 'check.db') });
      expect(again.harvest_rate).toBe(res.best.tuning.harvest_rate);
      expect(again.auc).toBe(res.best.tuning.auc);
      const vconfig = withParams(loadConfig(TOPIC, { set: [`seeds=[${VALIDATE.join(', ')}]`] }), res.baseline.params);
      const v = await runStrategyOnCorpus({ server, corpus, config: vconfig, budget: BUDGET, label: 'tobacco', dbPath: join(dir, 'check-v.db') });
      expect(v.fetched).toBeGreaterThan(0);
      expect(v.auc).toBe(res.baseline.validation!.auc);
    } finally {
      await server.close();
    }
    expect(res.validation).toMatchObject({ kind: 'seeds', seeds: VALIDATE, label: 'tobacco' });
    expect(res.best.validation).toBeDefined();
  });

  it('writes the tuned file: the original with the tuned keys changed, comments kept, a note on top; it loads', () => {
    const text = readFileSync(tuned, 'utf8');
    expect(res.file).toBe(tuned);
    expect(text.startsWith('# Tuned by topicrawl tune on ')).toBe(true);
    expect(text).toContain('corpus tobacco-demo');
    expect(text).toContain(`budget ${BUDGET} pages, ${TRIALS} trials`);
    expect(text).toContain('objective harvest');
    expect(text).toContain(`harvest ${res.baseline.tuning.harvest_rate.toFixed(3)} → ${res.best.tuning.harvest_rate.toFixed(3)}`);
    expect(text).toContain('Validation on seeds http://www.china-tobacco.example/');
    // every comment of the original is still there
    const original = readFileSync(TOPIC, 'utf8');
    for (const c of original.split('\n').map((l) => l.match(/#.*$/)?.[0]).filter((c): c is string => !!c)) expect(text).toContain(c);
    const loaded = loadTopicFile(tuned);
    expect(loaded.strategy).toMatchObject({ x: res.best.params.x, y: res.best.params.y, z: res.best.params.z, max_life: res.best.params.max_life });
    expect(loaded.relevance.threshold).toBe(res.best.params.threshold);
    // nothing else changed
    const a = loadTopicFile(TOPIC) as unknown as Record<string, Record<string, unknown>>;
    const b = loaded as unknown as Record<string, Record<string, unknown>>;
    for (const k of ['x', 'y', 'z', 'max_life']) delete a.strategy[k], delete b.strategy[k];
    delete a.relevance.threshold;
    delete b.relevance.threshold;
    expect(b).toEqual(a);
  });

  it('tunedTopicText adds missing keys (Document API), keeps comments and replaces an earlier note', () => {
    const src = '# my topic\nname: t\nseeds: [http://a.example/]\nstrategy: { name: best-first }\n';
    const edits = [{ path: ['strategy', 'x'], value: 0.5 }, { path: ['relevance', 'threshold'], value: 0.25 }];
    const once = tunedTopicText(src, edits, ['Tuned by topicrawl tune on A']);
    const twice = tunedTopicText(once, edits, ['Tuned by topicrawl tune on B']);
    expect(twice).not.toContain('on A');
    expect(twice).toContain('# my topic');
    const data = parseYaml(twice) as { strategy: Record<string, unknown>; relevance: Record<string, unknown> };
    expect(data.strategy).toEqual({ name: 'best-first', x: 0.5 });
    expect(data.relevance).toEqual({ threshold: 0.25 });
    const file = join(dir, 'twice.yaml');
    writeFileSync(file, twice);
    expect(loadTopicFile(file).strategy.x).toBe(0.5);
  });

  it('relocationEdits points relative paths at the same files from the new folder, leaves absolute ones', () => {
    const src = 'name: t\nseeds: [http://a.example/]\nrelevance:\n  classifier: { model: m/t.model.json }\ntraining:\n  corpus: /abs/corpus\n  examples:\n    - { file: ex/a.html, relevant: true }\n';
    expect(relocationEdits(src, '/w/topics', '/w/topics')).toEqual([]);
    expect(relocationEdits(src, '/w/topics', '/w/out/deep')).toEqual([
      { path: ['relevance', 'classifier', 'model'], value: '../../topics/m/t.model.json' },
      { path: ['training', 'examples', 0, 'file'], value: '../../topics/ex/a.html' },
    ]);
    const text = tunedTopicText(src, relocationEdits(src, '/w/topics', '/w'), ['Tuned by topicrawl tune on C']);
    expect((parseYaml(text) as { relevance: { classifier: { model: string } } }).relevance.classifier.model).toBe('topics/m/t.model.json');
  });

  describe('errors → exit 2, one line, no file written', () => {
    const expectOneLine = (e: CliResult) => {
      expect(e.code).toBe(2);
      expect(e.stderr.trim().split('\n')).toHaveLength(1);
      expect(e.stderr).not.toMatch(/\n\s+at /);
    };
    const noLabel = join(dir, 'no-label.yaml');
    beforeAll(() => {
      const topic = parseYaml(readFileSync(TOPIC, 'utf8')) as Record<string, unknown>;
      writeFileSync(noLabel, stringify({ ...topic, evaluation: {} }));
    });

    it('a topic without evaluation.label', async () => {
      const out = join(dir, 'e1.yaml');
      const e = await runCli(['tune', '--corpus', CORPUS, '--topic', noLabel, '--trials', '2', '--budget', '5', '--out', out]);
      expectOneLine(e);
      expect(e.stderr).toContain('evaluation.label');
      expect(e.stderr).toContain('[E_CONFIG]');
      expect(existsSync(out)).toBe(false);
    });

    it('an unknown corpus, bad flags', async () => {
      const out = join(dir, 'e2.yaml');
      const c = await runCli(['tune', '--corpus', join(dir, 'nope'), '--topic', TOPIC, '--out', out]);
      expectOneLine(c);
      expect(c.stderr).toContain('[E_CORPUS]');
      const t = await runCli(['tune', '--corpus', CORPUS, '--topic', TOPIC, '--trials', '0', '--out', out]);
      expectOneLine(t);
      expect(t.stderr).toContain('--trials 0');
      expect(t.stderr).toContain('[E_USAGE]');
      const o = await runCli(['tune', '--corpus', CORPUS, '--topic', TOPIC, '--objective', 'recall', '--out', out]);
      expectOneLine(o);
      expect(o.stderr).toContain('[E_USAGE]');
      const both = await runCli(['tune', '--corpus', CORPUS, '--topic', TOPIC, '--validate-seeds', VALIDATE[0], '--validate-topic', TOPIC, '--out', out]);
      expectOneLine(both);
      expect(existsSync(out)).toBe(false);
    });

    it('an --out that cannot be written, a crawl that fetched no page: refused (before the trials for --out)', async () => {
      const folder = join(dir, 'a-folder');
      mkdirSync(folder);
      const f = await runCli(['tune', '--corpus', CORPUS, '--topic', TOPIC, '--trials', '2', '--budget', '5', '--out', folder]);
      expectOneLine(f);
      expect(f.stderr).toContain('it exists and is not a file');
      expect(f.stderr).not.toContain('trial 1/');
      const out = join(dir, 'e3.yaml');
      const z = await runCli(['tune', '--corpus', CORPUS, '--topic', TOPIC, '--trials', '2', '--budget', '5', '--out', out,
        '--validate-seeds', 'http://www.tobacco-info.example/no-such-page.html']);
      expect(z.code).toBe(2);
      expect(z.stderr).toContain('crawl fetched no page (1 attempts, none answered 2xx) from http://www.tobacco-info.example/no-such-page.html');
      expect(z.stderr).toContain('[E_CONFIG]');
      expect(existsSync(out)).toBe(false);
    });
  });

  it('Ctrl-C stops it: exit 130, no tuned file, its temporary folder removed', async () => {
    const tmp = join(dir, 'tmpdir');
    mkdirSync(tmp);
    const out = join(dir, 'interrupted.yaml');
    const p = startCli(['tune', '--corpus', CORPUS, '--topic', TOPIC, '--trials', '200', '--budget', '30', '--out', out], { env: { TMPDIR: tmp } });
    await p.waitFor(/trial 1\/200/);
    expect(readdirSync(tmp).filter((f) => f.startsWith('topicrawl-tune-'))).toHaveLength(1); // its crawl files are there
    p.child.kill('SIGINT');
    const r = await p.done;
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('tune interrupted: no tuned file written');
    expect(r.stderr).toContain('[E_INTERRUPTED]');
    expect(readdirSync(tmp).filter((f) => f.startsWith('topicrawl-'))).toEqual([]); // (tsx keeps its cache there too)
    expect(existsSync(out)).toBe(false);
  });
});
