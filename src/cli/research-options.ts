import { commonCrawl } from './crawl-options.js';

// The options of the commands that measure and tune strategies on labelled corpora (yargs option specs).

/** `eval`'s options. */
export const evalOptions = {
  corpus: { type: 'string', demandOption: true, describe: 'corpus folder (corpus.json, site/, labels.tsv)' },
  topic: { type: 'string', demandOption: true, describe: 'topic file; its evaluation.label names the corpus label that counts as relevant' },
  strategies: {
    type: 'string', array: true,
    describe: 'comma-separated: strategy names, "default" (the topic\'s own strategy), oracle, random, or "all" (default: default,breadth-first,best-first,shark,oracle,random)',
  },
  budget: { type: 'number', describe: 'pages per strategy (default: the topic\'s limits.max_pages)' },
  seeds: { type: 'string', array: true, describe: 'comma-separated start URLs (default: the topic\'s seeds)' },
  out: { type: 'string', describe: 'folder for results.json, report.html and one <strategy>.db per strategy (default: eval-out/<topic>-<corpus>)' },
  json: { type: 'boolean', describe: 'print results.json on stdout instead of the table' },
  'random-seed': { type: 'number', default: 1, describe: 'seed of the random strategy' },
  concurrency: { type: 'number', default: 1, describe: 'requests in flight (per host: the topic\'s per_host_concurrency, at most this)' },
  set: commonCrawl.set,
} as const;

/** `train`'s options. */
export const trainOptions = {
  topic: { type: 'string', demandOption: true, describe: 'topic file' },
  corpus: { type: 'string', describe: 'labelled corpus folder (default: the topic\'s training.corpus)' },
  label: { type: 'string', describe: 'corpus label of relevant pages (default: training.label, then evaluation.label)' },
  out: { type: 'string', describe: 'model file to write (default: relevance.classifier.model, else <topic name>.model.json)' },
  folds: { type: 'number', default: 5, describe: 'cross-validation folds (0 or 1: none)' },
  set: commonCrawl.set,
} as const;

/** `tune`'s options. */
export const tuneOptions = {
  corpus: { type: 'string', demandOption: true, describe: 'corpus folder (corpus.json, site/, labels.tsv)' },
  topic: { type: 'string', demandOption: true, describe: 'topic file to tune; its evaluation.label names the corpus label that counts as relevant' },
  budget: { type: 'number', describe: 'pages per trial crawl (default: the topic\'s limits.max_pages)' },
  trials: { type: 'number', default: 30, describe: 'crawls to try, the file\'s own settings first' },
  'validate-seeds': { type: 'string', array: true, describe: 'comma-separated start URLs: re-run the file\'s and the tuned settings from these seeds' },
  'validate-topic': { type: 'string', describe: 'another topic file (its seeds and label, the same corpus): re-run both settings on it' },
  folds: { type: 'number', describe: 'K ≥ 2 disjoint seed sets drawn (by --seed) from the corpus pages with the topic\'s label, as many seeds each as the topic has: tune on the first, re-run the file\'s and the tuned settings on the others' },
  out: { type: 'string', describe: 'tuned topic file to write (default: <topic name>.tuned.yaml)' },
  seed: { type: 'number', default: 1, describe: 'seed of the search' },
  objective: { type: 'string', default: 'auc', describe: 'auc: mean harvest rate over the crawl; harvest: harvest rate at the budget' },
  json: { type: 'boolean', describe: 'print the result as JSON instead of the table' },
  set: commonCrawl.set,
} as const;
