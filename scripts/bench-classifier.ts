/**
 * Page classifiers compared on a labelled corpus: topicrawl's logistic model (hashed features,
 * src/relevance/logistic-model.ts) against natural's BayesClassifier on the same terms, plus the two
 * keyword models (threshold 0.3) as a baseline. Each label's pages are split in a deterministic,
 * stratified half (src/eval/cross-validate.ts, seed 1): train on one half, test on the other.
 *
 *   npx tsx scripts/bench-classifier.ts [corpus=corpora/synth] [label:topic ...]
 *   (default labels: astronomy:topics/synth-astronomy.yaml tea:topics/synth-tea.yaml;
 *    make the corpus first with `npm run gen-corpus` if corpora/synth is absent)
 *
 * natural's Classifier.textToFeatures scans the whole vocabulary with Array.indexOf per document
 * (O(vocabulary × document length)); it is replaced here by the same dense 0/1 vector over the
 * vocabulary built with a Set, which changes speed, not results. (apparatus's sparse input form is
 * no way out: its probabilityOfClass returns NaN for it.) Note: apparatus multiplies the class prior
 * by exp(Σ log P(term | class)), which underflows to 0 for both classes on a page with a few hundred
 * distinct terms; such ties go to whichever class it saw first.
 */
import { BayesClassifier } from 'natural/lib/natural/classifiers/index.js';
import { binaryMetrics, stratifiedFolds, type BinaryMetrics } from '../src/eval/cross-validate.js';
import { loadTrainingSet } from '../src/eval/training-set.js';
import { KeywordScorer } from '../src/relevance/keyword-scorer.js';
import { predict, trainLogistic } from '../src/relevance/logistic-model.js';
import { hashTerms, pageTerms } from '../src/relevance/text-features.js';
import { loadConfig } from '../src/topic/config.js';

const args = process.argv.slice(2);
const corpus = args[0] ?? 'corpora/synth';
const jobs = (args.length > 1 ? args.slice(1) : ['astronomy:topics/synth-astronomy.yaml', 'tea:topics/synth-tea.yaml']).map((s) => s.split(':') as [string, string]);

function figures(pred: boolean[], truth: boolean[]): BinaryMetrics {
  let tp = 0, fp = 0, fn = 0, tn = 0;
  pred.forEach((p, i) => (p ? (truth[i] ? tp++ : fp++) : truth[i] ? fn++ : tn++));
  return binaryMetrics(tp, fp, fn, tn);
}

function line(name: string, m: BinaryMetrics, ms: number): string {
  const f = (x: number) => x.toFixed(3);
  return `  ${name.padEnd(22)} P ${f(m.precision)}  R ${f(m.recall)}  F1 ${f(m.f1)}  acc ${f(m.accuracy)}  (TP ${m.tp} FP ${m.fp} FN ${m.fn} TN ${m.tn})  ${ms.toFixed(0)} ms`;
}

const t0 = Date.now();
for (const [label, topicFile] of jobs) {
  const set = loadTrainingSet({ corpus, label });
  const pages = set.pages;
  const truth = pages.map((p) => p.relevant);
  const fold = stratifiedFolds(truth, 2, 1);
  const train = pages.map((_, i) => i).filter((i) => fold[i] === 0);
  const test = pages.map((_, i) => i).filter((i) => fold[i] === 1);
  const testTruth = test.map((i) => truth[i]);
  const terms = pages.map((p) => pageTerms(p.doc));
  console.log(`${corpus}, label ${label}: ${pages.length} pages (${truth.filter(Boolean).length} relevant); train ${train.length}, test ${test.length}`);

  let t = Date.now();
  const vectors = terms.map((ts) => hashTerms(ts));
  const model = trainLogistic(train.map((i) => ({ x: vectors[i], relevant: truth[i] })));
  console.log(line('logistic (hashed)', figures(test.map((i) => predict(model, vectors[i]) >= 0.5), testTruth), Date.now() - t));

  t = Date.now();
  const bayes = new BayesClassifier();
  const vocab = bayes.features as Record<string, number>;
  let keys: string[] | null = null;
  (bayes as unknown as { textToFeatures: (o: string[]) => number[] }).textToFeatures = (obs: string[]) => {
    keys ??= Object.keys(vocab); // first called by train(), after the last addDocument
    const have = new Set(obs);
    return keys.map((f) => (have.has(f) ? 1 : 0));
  };
  for (const i of train) bayes.addDocument([...new Set(terms[i])], truth[i] ? 'yes' : 'no');
  bayes.train();
  console.log(line('natural BayesClassifier', figures(test.map((i) => bayes.classify([...new Set(terms[i])]) === 'yes'), testTruth), Date.now() - t));

  const config = loadConfig(topicFile);
  for (const model of ['keywords', 'bm25'] as const) {
    t = Date.now();
    const scorer = new KeywordScorer({ keywords: { ...config.keywords }, fields: { ...config.relevance.fields }, model });
    const pred = test.map((i) => scorer.score({ ...pages[i].doc, anchors: [] }) >= config.relevance.threshold);
    console.log(line(`keywords: ${model}`, figures(pred, testTruth), Date.now() - t));
  }
}
console.log(`total ${((Date.now() - t0) / 1000).toFixed(1)} s`);
