import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scopeOf } from '../crawl/crawl-settings.js';
import { TopicrawlError } from '../errors.js';
import { parseRobots, type RobotsRules } from '../fetch/robots.js';
import type { Config } from '../topic/config.js';
import type { Corpus } from './corpus.js';
import { mulberry32 } from './prng.js';

/**
 * The seed sets of `tune --folds K` and the arithmetic of "how much of the gain held":
 *
 * - The pool: the corpus pages that carry the evaluation label (near seeds), that the topic's scope
 *   admits and, when the topic honours robots.txt, that their host's robots.txt in the corpus
 *   allows; sorted by URL.
 * - The folds: the pool shuffled (Fisher–Yates) by mulberry32(seed), cut into K consecutive slices
 *   of `perFold` URLs: disjoint, and the same for the same corpus, topic, K and seed.
 * - held = validation gain ÷ tuning gain (1 = the whole gain held, 0 = none, negative = the tuned
 *   settings did worse than the file's there); null when the tuning gain is not positive (there
 *   is no gain to hold).
 */

/** A fold: its number (1-based) and its seeds. */
export interface Fold {
  fold: number;
  seeds: string[];
}

/** One fold's figures in the report: the objective of the file's settings and of the best trial's. */
export interface FoldResult extends Fold {
  /** `tuning` for fold 1 (the trials ran on it), else `validation`. */
  role: 'tuning' | 'validation';
  baseline: number;
  best: number;
  /** best − baseline. */
  gain: number;
  /** For a validation fold, gain ÷ the tuning gain (see {@link heldShare}); null on the tuning fold. */
  held: number | null;
  /** Pages the best settings' crawl fetched there (never 0: such a crawl is an error). */
  fetched: number;
}

/** Mean, smallest and largest of a list of figures. */
export interface Spread {
  mean: number;
  min: number;
  max: number;
}

/** The spread over the validation folds. */
export interface FoldSummary {
  /** Seeds per fold. */
  per_fold: number;
  /** Pages in the pool the folds were drawn from. */
  pool: number;
  tuning_gain: number;
  validation_gain: Spread;
  /** Spread of `held` over the validation folds; null when the tuning gain is not positive. */
  held: Spread | null;
}

/** The share of the tuning gain that held on validation; null when there was no gain to hold (tuning gain ≤ 0). */
export function heldShare(tuningGain: number, validationGain: number): number | null {
  return tuningGain > 0 ? validationGain / tuningGain : null;
}

/** Mean, min and max of a non-empty list. */
export function spread(xs: readonly number[]): Spread {
  if (xs.length === 0) throw new RangeError('spread of an empty list');
  return { mean: xs.reduce((a, b) => a + b, 0) / xs.length, min: Math.min(...xs), max: Math.max(...xs) };
}

/** The corpus's robots.txt of a host (its `site/<host>/robots.txt`), parsed; null when it has none. */
function corpusRobots(corpus: Corpus, host: string, userAgent: string, cache: Map<string, RobotsRules | null>): RobotsRules | null {
  if (!cache.has(host)) {
    const file = join(corpus.dir, 'site', host, 'robots.txt');
    cache.set(host, existsSync(file) ? parseRobots(readFileSync(file, 'utf8'), `http://${host}/robots.txt`, userAgent) : null);
  }
  return cache.get(host)!;
}

/** The pages folds are drawn from (see the module comment), sorted. */
export function foldPool(corpus: Corpus, label: string, config: Config): string[] {
  const inScope = scopeOf(config);
  const robots = new Map<string, RobotsRules | null>();
  const pool: string[] = [];
  for (const [url, labels] of corpus.labels) {
    if (!labels.includes(label) || !inScope(url).ok) continue;
    if (config.politeness.robots) {
      const rules = corpusRobots(corpus, new URL(url).hostname, config.politeness.user_agent, robots);
      if (rules && !rules.isAllowed(url)) continue;
    }
    pool.push(url);
  }
  return pool.sort();
}

/**
 * `k` disjoint folds of `perFold` URLs drawn from `pool` with `seed` (see the module comment).
 * E_USAGE when k < 2 or perFold < 1; E_CONFIG when the pool holds fewer than k × perFold URLs.
 */
export function drawFolds(pool: readonly string[], k: number, perFold: number, seed: number, label = 'the label'): Fold[] {
  if (!Number.isInteger(k) || k < 2) throw new TopicrawlError('E_USAGE', `--folds ${k}: expected a whole number of seed sets, at least 2`, { flag: '--folds' });
  if (!Number.isInteger(perFold) || perFold < 1) throw new RangeError(`perFold must be a whole number ≥ 1, got ${perFold}`);
  if (pool.length < k * perFold) {
    throw new TopicrawlError('E_CONFIG', `--folds ${k}: ${k} folds of ${perFold} seeds need ${k * perFold} pages labelled "${label}" the topic may start from; the corpus has ${pool.length}`, { flag: '--folds' });
  }
  const shuffled = mulberry32(seed).shuffle([...pool].sort());
  return Array.from({ length: k }, (_, i) => ({ fold: i + 1, seeds: shuffled.slice(i * perFold, (i + 1) * perFold) }));
}

/** The spread over the validation folds (every fold but the first). */
export function summarizeFolds(folds: readonly FoldResult[], perFold: number, pool: number): FoldSummary {
  const tuning = folds.find((f) => f.role === 'tuning');
  const val = folds.filter((f) => f.role === 'validation');
  if (!tuning || val.length === 0) throw new RangeError('summarizeFolds needs the tuning fold and at least one validation fold');
  const held = val.map((f) => f.held);
  return {
    per_fold: perFold, pool, tuning_gain: tuning.gain,
    validation_gain: spread(val.map((f) => f.gain)),
    held: held.every((h): h is number => h !== null) ? spread(held) : null,
  };
}
