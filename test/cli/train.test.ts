import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCorpus, relevantUrls } from '../../src/eval/corpus.js';
import { corpusFileOf } from '../../src/eval/training-set.js';
import { decodeHtml } from '../../src/fetch/charset.js';
import { Parse5Parser } from '../../src/parse/html-parser.js';
import { KeywordScorer } from '../../src/relevance/keyword-scorer.js';
import { loadModelFile, predict } from '../../src/relevance/logistic-model.js';
import { pageFeatures } from '../../src/relevance/text-features.js';
import { loadConfig } from '../../src/topic/config.js';
import { readRows, repoRoot } from '../helpers/crawl-corpus.js';
import { runCli } from '../helpers/run-cli.js';
import { suiteTmpDir } from '../helpers/tmp.js';

const CORPUS = join(repoRoot, 'corpora/tobacco-demo');
const TOPIC = join(repoRoot, 'topics/tobacco.yaml');

describe('topicrawl train, then crawl with the classifier (tobacco-demo)', () => {
  const dir = suiteTmpDir();
  const modelFile = join(dir, 'tobacco.model.json');

  it('trains on the corpus: prints cross-validated figures and the counts, writes a model', async () => {
    const r = await runCli(['train', '--topic', TOPIC, '--corpus', CORPUS, '--label', 'tobacco', '--out', modelFile, '--folds', '4']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const corpus = loadCorpus(CORPUS);
    const relevant = relevantUrls(corpus, 'tobacco').size;
    const total = corpus.labels.size;
    expect(r.stdout).toContain(`training set: ${total} pages, ${relevant} relevant, ${total - relevant} not`);
    const cv = /4-fold cross-validation \(relevant when p >= 0\.5\): precision (\S+)\s+recall (\S+)\s+F1 (\S+)\s+accuracy (\S+)/.exec(r.stdout);
    expect(cv).not.toBeNull();
    const [precision, recall, f1, accuracy] = cv!.slice(1).map(Number);
    const counts = /TP (\d+)\s+FP (\d+)\s+FN (\d+)\s+TN (\d+)/.exec(r.stdout)!.slice(1).map(Number);
    const [tp, fp, fn, tn] = counts;
    expect(tp + fp + fn + tn).toBe(total);
    expect(tp + fn).toBe(relevant);
    // the printed figures follow from the printed counts
    expect(precision).toBeCloseTo(tp / (tp + fp), 3);
    expect(recall).toBeCloseTo(tp / (tp + fn), 3);
    expect(f1).toBeCloseTo((2 * precision * recall) / (precision + recall), 2);
    expect(accuracy).toBeCloseTo((tp + tn) / total, 3);
    expect(accuracy).toBeGreaterThan(0.7); // far better than the majority class (~0.59)
    expect(r.stdout).toContain(`wrote ${modelFile}`);
    const model = loadModelFile(modelFile);
    expect(model.training).toMatchObject({ examples: total, positives: relevant });
  });

  it('is deterministic: training again writes the same file', async () => {
    const again = join(dir, 'again.json');
    const r = await runCli(['train', '--topic', TOPIC, '--corpus', CORPUS, '--out', again, '--folds', '0']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('cross-validation: skipped');
    expect(loadModelFile(again).weights).toEqual(loadModelFile(modelFile).weights);
    expect(loadModelFile(again).bias).toBe(loadModelFile(modelFile).bias);
  });

  it('a crawl with relevance.classifier (path relative to the topic file) stores the classifier\'s scores', async () => {
    const topic = join(dir, 'tobacco-clf.yaml');
    writeFileSync(topic, `${readFileSync(TOPIC, 'utf8')}\n`.replace(/^relevance:\n/m, 'relevance:\n  classifier: { model: tobacco.model.json, weight: 1 }\n'));
    expect(loadConfig(topic).relevance.classifier?.model).toBe(modelFile);
    const db = join(dir, 'crawl.db');
    const r = await runCli(['crawl', topic, '--corpus', CORPUS, '--db', db, '--max-pages', '12', '--set', 'politeness.delay_ms=0', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rows = readRows(db).filter((row) => row.relevance !== null);
    expect(rows.length).toBeGreaterThanOrEqual(10);
    const model = loadModelFile(modelFile);
    const keywords = KeywordScorer.fromTopic(loadConfig(TOPIC));
    const parser = new Parse5Parser();
    let differs = 0;
    for (const row of rows) {
      const page = parser.parse(decodeHtml(readFileSync(corpusFileOf(CORPUS, row.url)!), 'text/html').text, row.url);
      const doc = { url: row.url, title: page.title, headings: page.headings, body: page.text };
      expect(row.relevance).toBeCloseTo(predict(model, pageFeatures(doc)), 12);
      if (Math.abs(keywords.score({ ...doc, anchors: [] }) - row.relevance!) > 0.01) differs++;
    }
    expect(differs).toBeGreaterThan(0); // not the keyword score
  });

  it('a broken or missing model file stops the crawl at the start: exit 2, one line naming the file', async () => {
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"format": "topicrawl-logistic", "version": 1, "weights": "AAAA"');
    for (const file of [broken, join(dir, 'missing.json')]) {
      const db = join(dir, 'never.db');
      const r = await runCli(['crawl', TOPIC, '--corpus', CORPUS, '--db', db, '--set', `relevance.classifier.model=${file}`]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(file);
      expect(lines[0]).toMatch(/\[E_CONFIG\]$/);
      expect(existsSync(db)).toBe(false);
    }
  });

  it('train without pages or with an unknown label is a one-line usage/config error', async () => {
    const r = await runCli(['train', '--topic', TOPIC, '--out', join(dir, 'x.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nothing to train on.*\[E_USAGE\]\n$/);
    const l = await runCli(['train', '--topic', TOPIC, '--corpus', CORPUS, '--label', 'tea', '--out', join(dir, 'x.json')]);
    expect(l.code).toBe(2);
    expect(l.stderr).toMatch(/label "tea" is not a label of the corpus \(labels: tobacco\) \[E_CONFIG\]\n$/);
  });
});

describe('topicrawl train from training.examples in the topic', () => {
  const dir = suiteTmpDir();

  it('reads example files relative to the topic file', async () => {
    const pages = [
      ['a.html', true, '<title>Tobacco leaf</title><p>Tobacco leaf curing and cigarette making.</p>'],
      ['b.html', true, '<title>Cigar news</title><p>Cigar and tobacco industry news.</p>'],
      ['c.html', false, '<title>Travel</title><p>Hotel and beach travel guide.</p>'],
      ['d.html', false, '<title>Recipes</title><p>Bread recipe with flour and butter.</p>'],
    ] as const;
    for (const [f, , html] of pages) writeFileSync(join(dir, f), html);
    const topic = join(dir, 't.yaml');
    writeFileSync(topic, [
      'name: ex', 'seeds: [http://a.example/]', 'keywords: { tobacco: 1 }', 'training:', '  examples:',
      ...pages.map(([f, rel]) => `    - { file: ${f}, relevant: ${rel} }`), '',
    ].join('\n'));
    const r = await runCli(['train', '--topic', topic, '--folds', '2'], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('training set: 4 pages, 2 relevant, 2 not, from 4 example file(s)');
    const model = loadModelFile(join(dir, 'ex.model.json'));
    const p = (title: string, body: string) => predict(model, pageFeatures({ url: '', title, headings: '', body }));
    expect(p('Tobacco', 'tobacco leaf cigar')).toBeGreaterThan(p('Travel', 'hotel beach recipe'));
  });
});
