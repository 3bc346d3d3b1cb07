import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { parse as parseYaml, stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EvalResults } from '../../src/eval/eval-types.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { suiteTmpDir } from '../helpers/tmp.js';

const CORPUS = 'corpora/tobacco-demo';
const TOPIC = 'topics/tobacco.yaml';
const BUDGET = 15;
const STRATS = ['breadth-first', 'best-first', 'oracle'];

/** Pages of labels.tsv labelled "tobacco", counted straight from the file. */
function labelledInCorpus(): number {
  const lines = readFileSync(join(CORPUS, 'labels.tsv'), 'utf8').split(/\r?\n/).slice(1).filter((l) => l !== '');
  return lines.filter((l) => l.split('\t')[1].split(',').includes('tobacco')).length;
}

const expectOneLine = (r: CliResult) => {
  expect(r.code).toBe(2);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
};

describe('topicrawl eval (CLI, end to end on corpora/tobacco-demo)', () => {
  const dir = suiteTmpDir();
  const out = join(dir, 'out');
  let r: CliResult;
  let results: EvalResults;
  beforeAll(async () => {
    r = await runCli(['eval', '--corpus', CORPUS, '--topic', TOPIC, '--budget', String(BUDGET), '--strategies', STRATS.join(','), '--out', out]);
    if (r.code !== 0) throw new Error(`eval failed: ${r.stderr}`);
    results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as EvalResults;
  });

  it('results.json has exactly the documented keys, strategies in the order run', () => {
    expect(Object.keys(results)).toEqual(['corpus', 'topic', 'label', 'budget', 'relevant_in_corpus', 'concurrency', 'per_host_concurrency', 'strategies']);
    expect(results).toMatchObject({ corpus: 'tobacco-demo', topic: 'tobacco', label: 'tobacco', budget: BUDGET, concurrency: 1, per_host_concurrency: 1 });
    expect(results.relevant_in_corpus).toBe(labelledInCorpus());
    expect(Object.keys(results.strategies)).toEqual(STRATS);
    for (const s of Object.values(results.strategies)) {
      expect(Object.keys(s).sort()).toEqual(['auc', 'cpu_s', 'curve', 'fetched', 'harvest_rate', 'relevant', 'target_recall', 'wall_s']);
    }
  });

  it('each strategy is internally consistent and matches its crawl file', () => {
    for (const [name, s] of Object.entries(results.strategies)) {
      expect(s.fetched, name).toBe(BUDGET);
      expect(s.harvest_rate, name).toBeCloseTo(s.relevant / s.fetched, 12);
      expect(s.target_recall, name).toBeCloseTo(s.relevant / results.relevant_in_corpus, 12);
      expect(s.curve[0][0]).toBe(1);
      expect(s.curve[s.curve.length - 1][0]).toBe(s.fetched);
      expect(s.curve[s.curve.length - 1][1]).toBeCloseTo(s.harvest_rate, 12);
      // BUDGET < 200: one point per fetch, so the auc is the mean of the curve
      expect(s.curve).toHaveLength(s.fetched);
      expect(s.auc).toBeCloseTo(s.curve.reduce((a, [, h]) => a + h, 0) / s.curve.length, 12);
      expect(s.wall_s).toBeGreaterThan(0);
      expect(s.cpu_s).toBeGreaterThan(0); // a crawl of 15 pages costs some CPU (ms granularity)
      const db = new Database(join(out, `${name}.db`), { readonly: true });
      try {
        expect((db.prepare('SELECT COUNT(*) AS n FROM urls WHERE fetch_seq IS NOT NULL').get() as { n: number }).n).toBe(s.fetched);
        expect((db.prepare("SELECT value FROM meta WHERE key = 'strategy'").get() as { value: string }).value).toBe(name);
      } finally {
        db.close();
      }
    }
    expect(results.strategies.oracle.harvest_rate).toBeGreaterThanOrEqual(results.strategies['breadth-first'].harvest_rate);
  });

  it('prints the table on stdout and one progress line per strategy on stderr; writes report.html', () => {
    const lines = r.stdout.split('\n');
    const head = lines.findIndex((l) => /^strategy\s+fetched\s+relevant\s+harvest\s+recall\s+auc\s+vs breadth-first\s+% of oracle\s+wall s$/.test(l));
    expect(head).toBeGreaterThanOrEqual(0);
    for (const [i, name] of STRATS.entries()) {
      const cells = lines[head + 1 + i].trim().split(/\s{2,}/);
      const s = results.strategies[name];
      expect(cells[0]).toBe(name);
      expect(cells.slice(1, 4)).toEqual([String(s.fetched), String(s.relevant), `${(s.harvest_rate * 100).toFixed(1)}%`]);
    }
    expect(lines[head + 1].trim().split(/\s{2,}/)[6]).toBe('×1.00'); // breadth-first against itself
    expect(lines[head + 3].trim().split(/\s{2,}/)[7]).toBe('100%'); // oracle against itself
    const progress = r.stderr.trim().split('\n');
    expect(progress).toHaveLength(STRATS.length);
    STRATS.forEach((name, i) => expect(progress[i]).toContain(`${i + 1}/${STRATS.length} ${name}:`));
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toMatch(/<html/i);
    for (const name of STRATS) expect(html).toContain(name);
  });

  it('--json prints results.json on stdout instead of the table', async () => {
    const out2 = join(dir, 'out-json');
    const j = await runCli(['eval', '--corpus', CORPUS, '--topic', TOPIC, '--budget', '5', '--strategies', 'oracle', '--strategies', 'random', '--json', '--out', out2]);
    expect(j.code).toBe(0);
    const printed = JSON.parse(j.stdout) as EvalResults;
    expect(printed).toEqual(JSON.parse(readFileSync(join(out2, 'results.json'), 'utf8')));
    expect(Object.keys(printed.strategies)).toEqual(['oracle', 'random']);
    expect(printed.budget).toBe(5);
    expect(existsSync(join(out2, 'report.html'))).toBe(true);
  });

  it('--concurrency N crawls with N requests in flight and says so in results.json, the table and report.html', async () => {
    const out3 = join(dir, 'out-c4');
    const c = await runCli(['eval', '--corpus', CORPUS, '--topic', TOPIC, '--budget', '12', '--strategies', 'best-first', '--concurrency', '4', '--out', out3]);
    expect(c.code).toBe(0);
    const res = JSON.parse(readFileSync(join(out3, 'results.json'), 'utf8')) as EvalResults;
    // tobacco.yaml keeps the default per_host_concurrency, 1
    expect(res).toMatchObject({ concurrency: 4, per_host_concurrency: 1 });
    expect(res.strategies['best-first'].fetched).toBe(12);
    expect(c.stdout).toContain('budget 12 pages, 4 requests in flight (1 per host)');
    expect(readFileSync(join(out3, 'report.html'), 'utf8')).toContain('in flight <b>4</b> (per host <b>1</b>)');
    // the crawl itself ran with it: the configuration recorded in its crawl file
    const db = new Database(join(out3, 'best-first.db'), { readonly: true });
    const cfg = JSON.parse((db.prepare("SELECT value FROM meta WHERE key = 'config'").get() as { value: string }).value) as { politeness: Record<string, number> };
    db.close();
    expect(cfg.politeness).toMatchObject({ concurrency: 4, per_host_concurrency: 1, delay_ms: 0 });
    expect(r.stdout).toContain(`budget ${BUDGET} pages, 1 request in flight`);
  });

  describe('errors → exit 2, one line, nothing written', () => {
    it('a --concurrency that is not a whole number of at least 1', async () => {
      const e = await runCli(['eval', '--corpus', CORPUS, '--topic', TOPIC, '--concurrency', '0', '--out', join(dir, 'e0')]);
      expectOneLine(e);
      expect(e.stderr).toContain('--concurrency 0');
      expect(e.stderr).toContain('[E_USAGE]');
      expect(existsSync(join(dir, 'e0'))).toBe(false);
    });

    const topicWith = (name: string, evaluation: Record<string, unknown>) => {
      const topic = parseYaml(readFileSync(TOPIC, 'utf8')) as Record<string, unknown>;
      const file = join(dir, `${name}.yaml`);
      writeFileSync(file, stringify({ ...topic, evaluation }));
      return file;
    };

    it('a topic without evaluation.label', async () => {
      const e = await runCli(['eval', '--corpus', CORPUS, '--topic', topicWith('no-label', {}), '--out', join(dir, 'e1')]);
      expectOneLine(e);
      expect(e.stderr).toContain('evaluation.label');
      expect(e.stderr).toContain('[E_CONFIG]');
      expect(existsSync(join(dir, 'e1'))).toBe(false);
    });

    it('a label the corpus does not declare', async () => {
      const e = await runCli(['eval', '--corpus', CORPUS, '--topic', topicWith('bad-label', { label: 'astronomy' }), '--out', join(dir, 'e2')]);
      expectOneLine(e);
      expect(e.stderr).toContain('"astronomy"');
      expect(e.stderr).toContain('labels: tobacco');
      expect(existsSync(join(dir, 'e2'))).toBe(false);
    });

    it('an unknown strategy', async () => {
      const e = await runCli(['eval', '--corpus', CORPUS, '--topic', TOPIC, '--strategies', 'breadth-first,nope', '--out', join(dir, 'e3')]);
      expectOneLine(e);
      expect(e.stderr).toContain('unknown strategy "nope"');
      expect(e.stderr).toContain('[E_USAGE]');
      expect(existsSync(join(dir, 'e3'))).toBe(false);
    });

    it('an --out where results.json cannot be written: refused before the first crawl', async () => {
      const bad = join(dir, 'e4');
      mkdirSync(join(bad, 'results.json'), { recursive: true });
      const e = await runCli(['eval', '--corpus', CORPUS, '--topic', TOPIC, '--budget', '5', '--strategies', 'breadth-first', '--out', bad]);
      expectOneLine(e);
      expect(e.stderr).toContain(`--out ${bad}: results.json there is not a file`);
      expect(e.stderr).toContain('[E_USAGE]');
      expect(readdirSync(bad)).toEqual(['results.json']); // no crawl file: nothing ran
      const file = join(dir, 'e5');
      writeFileSync(file, 'a file, not a folder');
      const f = await runCli(['eval', '--corpus', CORPUS, '--topic', TOPIC, '--budget', '5', '--strategies', 'breadth-first', '--out', file]);
      expectOneLine(f);
      expect(f.stderr).toContain('it exists and is not a folder');
    });

    it('a crawl that fetched no page is an error, not a row of zeros', async () => {
      const e = await runCli(['eval', '--corpus', CORPUS, '--topic', TOPIC, '--budget', '5', '--strategies', 'breadth-first',
        '--seeds', 'http://www.tobacco-info.example/no-such-page.html', '--out', join(dir, 'e6')]);
      expectOneLine(e);
      expect(e.stderr).toContain('the breadth-first crawl fetched no page (1 attempts, none answered 2xx)');
      expect(e.stderr).toContain('[E_CONFIG]');
      expect(existsSync(join(dir, 'e6', 'results.json'))).toBe(false);
    });
  });
});
