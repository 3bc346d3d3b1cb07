/**
 * Logistic regression on hashed page features (text-features.ts): P(relevant | x) = σ(bias + w·x).
 *
 * Training ({@link trainLogistic}): AdaGrad (per-weight step η/√(Σ g²)), L2 penalty λ·w applied to the
 * weights of the features an example has (lazy, so a step costs O(features of the page), not
 * O(2^bits)), class-balanced (an example of class y weighs n / (2·n_y)), a fixed number of epochs over
 * the examples in an order shuffled by a seeded PRNG: the same examples and options give the same
 * weights, bit for bit. Weights are rounded to Float32 when training ends, which is what is saved, so
 * a model in memory and the same model loaded from its file give identical probabilities.
 *
 * File format (JSON): { format: "topicrawl-logistic", version: 1, features: { bits, terms, values },
 * bias, weights: base64 of 2^bits little-endian float32, training: summary }.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { TopicrawlError } from '../errors.js';
import { mulberry32 } from '../eval/prng.js';
import { DEFAULT_HASH_BITS, type SparseVector } from './text-features.js';

export const MODEL_FORMAT = 'topicrawl-logistic';
export const MODEL_VERSION = 1;
/** Names the feature extraction of text-features.ts; a model made with another one is refused. */
export const FEATURE_TERMS = 'field-prefixed stems + cjk bigrams + url tokens';
export const FEATURE_VALUES = 'log1p(tf), l2-normalised';

/** What training saw and how (saved with the model; `extra` is free-form, e.g. cross-validation). */
export interface TrainingSummary {
  examples: number;
  positives: number;
  negatives: number;
  epochs: number;
  learningRate: number;
  l2: number;
  seed: number;
  /** Mean class-weighted log loss over the last epoch. */
  loss: number;
  extra?: Record<string, unknown>;
}

/** A trained model as plain data (structured-cloneable: it crosses to worker threads). */
export interface LogisticModelData {
  bits: number;
  bias: number;
  /** 2^bits weights. */
  weights: Float32Array;
  training: TrainingSummary;
}

export interface TrainOptions {
  epochs?: number;
  learningRate?: number;
  l2?: number;
  seed?: number;
  bits?: number;
}

export interface LabelledVector {
  x: SparseVector;
  relevant: boolean;
}

export const TRAIN_DEFAULTS = { epochs: 12, learningRate: 0.5, l2: 1e-4, seed: 1, bits: DEFAULT_HASH_BITS } as const;

function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

/** P(relevant) of a feature vector under a model. */
export function predict(model: LogisticModelData, x: SparseVector): number {
  let z = model.bias;
  const w = model.weights;
  for (let i = 0; i < x.indices.length; i++) z += w[x.indices[i]] * x.values[i];
  return sigmoid(z);
}

/** Trains a model (see the file header). Throws E_CONFIG unless both classes have examples. */
export function trainLogistic(examples: readonly LabelledVector[], options: TrainOptions = {}): LogisticModelData {
  const o = { ...TRAIN_DEFAULTS, ...options };
  const n = examples.length;
  const positives = examples.filter((e) => e.relevant).length;
  const negatives = n - positives;
  if (positives === 0 || negatives === 0) {
    throw new TopicrawlError('E_CONFIG', `training needs relevant and non-relevant pages, got ${positives} relevant and ${negatives} not`);
  }
  const size = 2 ** o.bits;
  for (const e of examples) {
    if (e.x.indices.length > 0 && e.x.indices[e.x.indices.length - 1] >= size) throw new RangeError(`a feature index is beyond 2^${o.bits}: hash the pages with the same bits`);
  }
  const w = new Float64Array(size);
  const g2 = new Float64Array(size);
  let bias = 0;
  let gBias = 0;
  const classWeight = [n / (2 * negatives), n / (2 * positives)];
  const rng = mulberry32(o.seed);
  const order = examples.map((_, i) => i);
  let loss = 0;
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    loss = 0;
    for (const k of rng.shuffle(order)) {
      const { x, relevant } = examples[k];
      let z = bias;
      for (let i = 0; i < x.indices.length; i++) z += w[x.indices[i]] * x.values[i];
      const p = sigmoid(z);
      const y = relevant ? 1 : 0;
      const c = classWeight[y];
      loss -= c * Math.log(Math.max(1e-12, relevant ? p : 1 - p));
      const g = (p - y) * c;
      for (let i = 0; i < x.indices.length; i++) {
        const j = x.indices[i];
        const grad = g * x.values[i] + o.l2 * w[j];
        g2[j] += grad * grad;
        w[j] -= (o.learningRate * grad) / Math.sqrt(g2[j] + 1e-12);
      }
      gBias += g * g;
      bias -= (o.learningRate * g) / Math.sqrt(gBias + 1e-12);
    }
    loss /= n;
  }
  return {
    bits: o.bits, bias, weights: Float32Array.from(w),
    training: { examples: n, positives, negatives, epochs: o.epochs, learningRate: o.learningRate, l2: o.l2, seed: o.seed, loss },
  };
}

/** The JSON text of a model file. */
export function modelToJson(model: LogisticModelData): string {
  const buf = Buffer.alloc(model.weights.length * 4);
  for (let i = 0; i < model.weights.length; i++) buf.writeFloatLE(model.weights[i], i * 4);
  return `${JSON.stringify({
    format: MODEL_FORMAT, version: MODEL_VERSION,
    features: { bits: model.bits, terms: FEATURE_TERMS, values: FEATURE_VALUES },
    bias: model.bias, training: model.training, weights: buf.toString('base64'),
  }, null, 1)}\n`;
}

function bad(file: string, what: string): never {
  throw new TopicrawlError('E_CONFIG', `${file}: not a usable topicrawl model: ${what}`, { file });
}

/** Parses and checks a model file's JSON; `file` names it in the E_CONFIG message. */
export function modelFromJson(text: string, file: string): LogisticModelData {
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    bad(file, `invalid JSON (${(err as Error).message.split('\n')[0]})`);
  }
  if (j === null || typeof j !== 'object' || j.format !== MODEL_FORMAT) bad(file, `"format" is not "${MODEL_FORMAT}"`);
  if (j.version !== MODEL_VERSION) bad(file, `version ${JSON.stringify(j.version)} (this topicrawl reads version ${MODEL_VERSION})`);
  const f = j.features as Record<string, unknown> | undefined;
  const bits = f?.bits;
  if (typeof bits !== 'number' || !Number.isInteger(bits) || bits < 1 || bits > 24) bad(file, 'features.bits is not an integer from 1 to 24');
  if (f?.terms !== FEATURE_TERMS || f?.values !== FEATURE_VALUES) bad(file, 'made with other features (train it again)');
  if (typeof j.bias !== 'number' || !Number.isFinite(j.bias)) bad(file, 'bias is not a number');
  if (typeof j.weights !== 'string') bad(file, 'weights missing');
  const buf = Buffer.from(j.weights, 'base64');
  if (buf.length !== 4 * 2 ** bits) bad(file, `weights hold ${buf.length} bytes, expected ${4 * 2 ** bits}`);
  const weights = new Float32Array(2 ** bits);
  for (let i = 0; i < weights.length; i++) {
    const v = buf.readFloatLE(i * 4);
    if (!Number.isFinite(v)) bad(file, `weight ${i} is not finite`);
    weights[i] = v;
  }
  const training = (j.training ?? {}) as TrainingSummary;
  return { bits, bias: j.bias, weights, training };
}

/** Writes a model file. */
export function saveModelFile(path: string, model: LogisticModelData): void {
  writeFileSync(path, modelToJson(model));
}

/** Reads a model file; any problem is one E_CONFIG line naming the file. */
export function loadModelFile(path: string): LogisticModelData {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (code ?? (err as Error).message);
    throw new TopicrawlError('E_CONFIG', `${path}: cannot read the classifier model (${why})`, { file: path }, { cause: err });
  }
  return modelFromJson(text, path);
}
