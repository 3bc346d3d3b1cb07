/**
 * Binary classification figures and stratified k-fold cross-validation for the trained classifier.
 * Folds are deterministic: relevant and non-relevant examples are each shuffled by a seeded PRNG and
 * dealt round-robin into k folds, so every fold has about the same share of each class.
 */
import { mulberry32 } from './prng.js';
import { predict, trainLogistic, type LabelledVector, type TrainOptions } from '../relevance/logistic-model.js';

/** Confusion counts and the figures derived from them (0 where undefined, e.g. precision with no positive prediction). */
export interface BinaryMetrics {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  precision: number;
  recall: number;
  f1: number;
  accuracy: number;
}

export function binaryMetrics(tp: number, fp: number, fn: number, tn: number): BinaryMetrics {
  const precision = tp + fp > 0 ? tp / (tp + fp) : 0;
  const recall = tp + fn > 0 ? tp / (tp + fn) : 0;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  const n = tp + fp + fn + tn;
  return { tp, fp, fn, tn, precision, recall, f1, accuracy: n > 0 ? (tp + tn) / n : 0 };
}

/** Figures of predictions against truth. */
export function scorePredictions(predicted: readonly boolean[], truth: readonly boolean[]): BinaryMetrics {
  let tp = 0, fp = 0, fn = 0, tn = 0;
  predicted.forEach((p, i) => {
    if (p && truth[i]) tp++;
    else if (p) fp++;
    else if (truth[i]) fn++;
    else tn++;
  });
  return binaryMetrics(tp, fp, fn, tn);
}

/** Fold number (0..k−1) of each example, stratified by class (see the file header). */
export function stratifiedFolds(relevant: readonly boolean[], k: number, seed = 1): number[] {
  const rng = mulberry32(seed);
  const fold = new Array<number>(relevant.length).fill(0);
  for (const cls of [true, false]) {
    const idx = rng.shuffle(relevant.map((r, i) => (r === cls ? i : -1)).filter((i) => i >= 0));
    idx.forEach((i, n) => (fold[i] = n % k));
  }
  return fold;
}

/** Cross-validation result: pooled figures over all held-out predictions. */
export interface CrossValidation extends BinaryMetrics {
  folds: number;
  /** Probability at or above which a page is predicted relevant. */
  cutoff: number;
}

/**
 * k-fold cross-validation of the logistic model: each fold is predicted by a model trained on the
 * others; figures are pooled over all examples. `k` is capped at the size of the smaller class.
 * Returns null when k < 2 after capping.
 */
export function crossValidate(examples: readonly LabelledVector[], k: number, options: TrainOptions = {}, cutoff = 0.5): CrossValidation | null {
  const labels = examples.map((e) => e.relevant);
  const pos = labels.filter(Boolean).length;
  const folds = Math.min(k, pos, labels.length - pos);
  if (folds < 2) return null;
  const fold = stratifiedFolds(labels, folds, options.seed ?? 1);
  const predicted = new Array<boolean>(examples.length).fill(false);
  for (let f = 0; f < folds; f++) {
    const model = trainLogistic(examples.filter((_, i) => fold[i] !== f), options);
    examples.forEach((e, i) => {
      if (fold[i] === f) predicted[i] = predict(model, e.x) >= cutoff;
    });
  }
  return { ...scorePredictions(predicted, labels), folds, cutoff };
}
