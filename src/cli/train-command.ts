import { resolve } from 'node:path';
import { TopicrawlError } from '../errors.js';
import { crossValidate, type CrossValidation } from '../eval/cross-validate.js';
import { loadTrainingSet } from '../eval/training-set.js';
import { saveModelFile, trainLogistic, type LogisticModelData } from '../relevance/logistic-model.js';
import { pageFeatures } from '../relevance/text-features.js';
import { loadConfig } from '../topic/config.js';

export interface TrainArgs {
  topic: string;
  /** Corpus folder (default: the topic's training.corpus). */
  corpus?: string;
  /** Corpus label of relevant pages (default: training.label, then evaluation.label). */
  label?: string;
  /** Model file (default: relevance.classifier.model, else `<topic name>.model.json`). */
  out?: string;
  /** Cross-validation folds; below 2: none. Default 5. */
  folds?: number;
  set?: string[];
}

export interface TrainResult {
  file: string;
  model: LogisticModelData;
  cv: CrossValidation | null;
  pages: number;
  positives: number;
  skipped: number;
}

const f3 = (x: number) => x.toFixed(3);

/**
 * `topicrawl train`: reads the topic's labelled pages (a corpus with a label and/or the topic's
 * `training.examples`), reports k-fold cross-validated precision, recall, F1 and accuracy, trains the
 * logistic model on all pages and saves it. Paths in the topic file are relative to it; paths on
 * the command line are relative to the working directory.
 */
export async function runTrain(args: TrainArgs, out: { log: (s: string) => void }): Promise<TrainResult> {
  const config = loadConfig(args.topic, { set: args.set });
  const corpus = args.corpus !== undefined ? resolve(args.corpus) : config.training?.corpus;
  const label = args.label ?? config.training?.label ?? config.evaluation.label;
  const examples = config.training?.examples ?? [];
  if (corpus === undefined && examples.length === 0) {
    throw new TopicrawlError('E_USAGE', `${args.topic}: nothing to train on: give --corpus DIR (and --label), or set training.corpus or training.examples in the topic`);
  }
  const folds = args.folds ?? 5;
  if (!Number.isInteger(folds) || folds < 0) throw new TopicrawlError('E_USAGE', `--folds ${folds}: expected a whole number (0 or 1: no cross-validation)`);
  const set = loadTrainingSet({ corpus, label, examples });
  const data = set.pages.map((p) => ({ x: pageFeatures(p.doc), relevant: p.relevant }));
  const positives = data.filter((d) => d.relevant).length;
  const from = [corpus !== undefined ? `${corpus} (label ${label})` : '', examples.length > 0 ? `${examples.length} example file(s)` : ''].filter(Boolean).join(' and ');
  out.log(`training set: ${data.length} pages, ${positives} relevant, ${data.length - positives} not, from ${from}${set.skipped.length > 0 ? `; ${set.skipped.length} corpus rows skipped` : ''}`);

  const cv = crossValidate(data, folds);
  if (cv) {
    out.log(`${cv.folds}-fold cross-validation (relevant when p >= ${cv.cutoff}): precision ${f3(cv.precision)}  recall ${f3(cv.recall)}  F1 ${f3(cv.f1)}  accuracy ${f3(cv.accuracy)}`);
    out.log(`  counts: TP ${cv.tp}  FP ${cv.fp}  FN ${cv.fn}  TN ${cv.tn}`);
  } else {
    out.log('cross-validation: skipped (fewer than 2 folds, or fewer than 2 pages in a class)');
  }

  const model = trainLogistic(data);
  model.training.extra = { label: label ?? null, corpus: corpus ?? null, exampleFiles: examples.length, crossValidation: cv };
  const file = args.out !== undefined ? resolve(args.out) : config.relevance.classifier?.model ?? resolve(`${config.name}.model.json`);
  try {
    saveModelFile(file, model);
  } catch (err) {
    throw new TopicrawlError('E_USAGE', `${file}: cannot write the model (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { file }, { cause: err });
  }
  const t = model.training;
  out.log(`model: logistic regression, 2^${model.bits} hashed features, ${t.epochs} epochs (AdaGrad η ${t.learningRate}, L2 ${t.l2}), training loss ${t.loss.toFixed(4)}`);
  out.log(`wrote ${file}`);
  return { file, model, cv, pages: data.length, positives, skipped: set.skipped.length };
}
