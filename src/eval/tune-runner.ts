import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TopicrawlError } from '../errors.js';
import { buildConfig, type Config } from '../topic/config.js';
import { tryNormalizeUrl } from '../url/normalize.js';
import { loadCorpus, type Corpus } from './corpus.js';
import { startCorpusServer, type CorpusServer } from './corpus-server.js';
import { evaluationLabel, runStrategyOnCorpus, truthSet } from './eval-runner.js';
import type { StrategyResult } from './eval-types.js';
import { drawFolds, foldPool, heldShare, summarizeFolds, type Fold, type FoldResult, type FoldSummary } from './tune-folds.js';
import { TuneSearch, type TuneParams } from './tune-search.js';

/** What `tune` maximises: `auc` = mean harvest rate over the crawl, `harvest` = harvest rate at the budget. */
export type TuneObjective = 'auc' | 'harvest';

export const TUNE_OBJECTIVES: readonly TuneObjective[] = ['auc', 'harvest'];
/** Trials when none are given. */
export const DEFAULT_TUNE_TRIALS = 30;
/** Seed of the search when none is given. */
export const DEFAULT_TUNE_SEED = 1;

/** The figures of one evaluation crawl that `tune` reports. */
export interface TuneFigures {
  auc: number;
  harvest_rate: number;
  target_recall: number;
  fetched: number;
  relevant: number;
}

/** One trial: the settings tried and how the crawl did (`score` = the objective's figure). */
export interface TrialRecord {
  trial: number;
  params: TuneParams;
  figures: TuneFigures;
  score: number;
  wall_s: number;
}

/** Settings with their figures on the tuning seeds and, when asked, on the validation set. */
export interface TunedSettings {
  params: TuneParams;
  tuning: TuneFigures;
  validation?: TuneFigures;
}

/** What the validation set was: other seeds of the same topic, or another topic (same corpus). */
export interface ValidationSet {
  kind: 'seeds' | 'topic';
  /** The validation topic's name (the tuned topic's for `seeds`). */
  topic: string;
  /** The validation topic file (for `topic`). */
  file?: string;
  label: string;
  seeds: string[];
  relevant_in_corpus: number;
}

/** The result of a tuning run (also the `--json` output, with the file written). */
export interface TuneResult {
  corpus: string;
  topic: string;
  strategy: string;
  label: string;
  budget: number;
  trials: number;
  seed: number;
  objective: TuneObjective;
  /** The seeds the trials ran from: the topic's, or fold 1's with `folds`. */
  seeds: string[];
  relevant_in_corpus: number;
  /** The file's settings (trial 1). */
  baseline: TunedSettings;
  /** The best trial (the baseline when nothing beat it). */
  best: TunedSettings & { trial: number };
  validation?: ValidationSet;
  /** With a validation set: validation gain ÷ tuning gain (tune-folds.ts heldShare); null without a tuning gain. */
  held?: number | null;
  /** With `folds`: every fold (the first is the tuning fold: `seeds` are its seeds), then the spread. */
  folds?: FoldResult[];
  fold_summary?: FoldSummary;
  history: TrialRecord[];
}

/** Where to check that the tuned settings hold. */
export type TuneValidation = { kind: 'seeds'; seeds: readonly string[] } | { kind: 'topic'; config: Config; file: string };

export interface TuneOptions {
  /** The topic's configuration (defaults ← topic file ← flags); its strategy is the one tuned. */
  config: Config;
  corpusDir: string;
  /** Pages per crawl; default the topic's limits.max_pages. */
  budget?: number;
  /** Trials, the baseline included; default {@link DEFAULT_TUNE_TRIALS}. */
  trials?: number;
  /** Seed of the search; default {@link DEFAULT_TUNE_SEED}. */
  seed?: number;
  objective?: TuneObjective;
  validation?: TuneValidation;
  /**
   * K ≥ 2 disjoint seed sets drawn (by `seed`) from the corpus's labelled pages, each of as many
   * seeds as the topic has (tune-folds.ts): the trials run on fold 1, then the baseline and the best
   * on each other fold. Not with `validation`.
   */
  folds?: number;
  /** Folder for the temporary crawl files (a fresh folder inside it, removed at the end); default the OS's. */
  tmpDir?: string;
  /** Aborting stops the crawl in progress; tuneTopic then removes its folder and throws {@link TuneInterrupted}. */
  signal?: AbortSignal;
  /** Called after each trial with the best so far. */
  onTrial?: (t: TrialRecord, total: number, best: TrialRecord) => void;
  /** Called before each validation crawl (`fold`: the fold's number, with `folds`). */
  onValidation?: (which: 'baseline' | 'best', fold?: number) => void;
}

/** Thrown by tuneTopic when its `signal` was aborted (Ctrl-C): nothing was measured to the end. */
export class TuneInterrupted extends Error {
  constructor() {
    super('tune interrupted');
    this.name = 'TuneInterrupted';
  }
}

/** The searched settings of a configuration. */
export function paramsOf(config: Config): TuneParams {
  return { x: config.strategy.x, y: config.strategy.y, z: config.strategy.z, max_life: config.strategy.max_life, threshold: config.relevance.threshold };
}

/** The configuration with the searched settings replaced (validated again). */
export function withParams(config: Config, p: TuneParams): Config {
  const t = structuredClone(config) as unknown as { strategy: Record<string, unknown>; relevance: Record<string, unknown> };
  t.strategy = { ...t.strategy, x: p.x, y: p.y, z: p.z, max_life: p.max_life };
  t.relevance = { ...t.relevance, threshold: p.threshold };
  return buildConfig(t as unknown as Config);
}

/** The figure an objective maximises. */
export function objectiveScore(f: TuneFigures, objective: TuneObjective): number {
  return objective === 'auc' ? f.auc : f.harvest_rate;
}

function figures(r: StrategyResult): TuneFigures {
  return { auc: r.auc, harvest_rate: r.harvest_rate, target_recall: r.target_recall, fetched: r.fetched, relevant: r.relevant };
}

function checkSeeds(seeds: readonly string[], flag: string): void {
  if (seeds.length === 0) throw new TopicrawlError('E_USAGE', `${flag}: name at least one URL`, { flag });
  for (const s of seeds) {
    const u = tryNormalizeUrl(s);
    if (!u || !/^https?:/.test(u)) throw new TopicrawlError('E_USAGE', `${flag}: not an http(s) URL: ${JSON.stringify(s)}`, { flag });
  }
}

function wholeAtLeast1(v: number, flag: string, what: string): void {
  if (!Number.isInteger(v) || v < 1) throw new TopicrawlError('E_USAGE', `${flag} ${v}: expected a whole number of ${what}, at least 1`, { flag });
}

/** What tuneTopic settled on, checked before anything runs. */
export interface TunePlan {
  corpus: Corpus;
  label: string;
  budget: number;
  trials: number;
  seed: number;
  objective: TuneObjective;
  /** The validation run's configuration (seeds set) and label, if any. */
  validation?: { config: Config; label: string; set: Omit<ValidationSet, 'relevant_in_corpus'> };
  /** With `folds`: the folds, and the size of the pool they were drawn from. */
  folds?: { folds: Fold[]; pool: number };
}

/** Checks the options (E_USAGE, E_CONFIG, E_CORPUS) and works out what to run. */
export function planTune(o: TuneOptions): TunePlan {
  const budget = o.budget ?? o.config.limits.max_pages;
  wholeAtLeast1(budget, '--budget', 'pages');
  const trials = o.trials ?? DEFAULT_TUNE_TRIALS;
  wholeAtLeast1(trials, '--trials', 'trials');
  const seed = o.seed ?? DEFAULT_TUNE_SEED;
  if (!Number.isInteger(seed)) throw new TopicrawlError('E_USAGE', `--seed ${seed}: expected a whole number`, { flag: '--seed' });
  const objective = o.objective ?? 'auc';
  if (!TUNE_OBJECTIVES.includes(objective)) throw new TopicrawlError('E_USAGE', `--objective ${objective}: expected auc or harvest`, { flag: '--objective' });
  checkSeeds(o.config.seeds, 'seeds');
  if (o.folds !== undefined && o.validation) throw new TopicrawlError('E_USAGE', '--folds draws its own validation seeds: give it without --validate-seeds or --validate-topic', { flag: '--folds' });
  if (o.folds !== undefined && (!Number.isInteger(o.folds) || o.folds < 2)) throw new TopicrawlError('E_USAGE', `--folds ${o.folds}: expected a whole number of seed sets, at least 2`, { flag: '--folds' });
  const corpus = loadCorpus(o.corpusDir);
  const label = evaluationLabel(o.config, corpus);
  let validation: TunePlan['validation'];
  if (o.validation?.kind === 'seeds') {
    const seeds = [...o.validation.seeds];
    checkSeeds(seeds, '--validate-seeds');
    validation = { config: buildConfig({ ...structuredClone(o.config), seeds } as unknown as Config), label, set: { kind: 'seeds', topic: o.config.name, label, seeds } };
  } else if (o.validation?.kind === 'topic') {
    const v = o.validation.config;
    const vlabel = evaluationLabel(v, corpus);
    checkSeeds(v.seeds, `${o.validation.file}: seeds`);
    validation = { config: v, label: vlabel, set: { kind: 'topic', topic: v.name, file: o.validation.file, label: vlabel, seeds: [...v.seeds] } };
  }
  let folds: TunePlan['folds'];
  if (o.folds !== undefined) {
    const pool = foldPool(corpus, label, o.config);
    folds = { folds: drawFolds(pool, o.folds, o.config.seeds.length, seed, label), pool: pool.length };
  }
  return { corpus, label, budget, trials, seed, objective, validation, folds };
}

/**
 * `topicrawl tune`: searches strategy.x/y/z, strategy.max_life and relevance.threshold of the
 * topic's own strategy (see tune-search.ts) by real evaluation crawls of the corpus, served once;
 * then re-runs the baseline and the best on the validation set, if any. A validation topic gets the
 * baseline's and the best's settings (so the comparison is of the settings alone). With `folds`, the
 * trials run from fold 1's seeds and the baseline and the best re-run from each other fold's. A
 * crawl that fetched nothing is an error (naming the fold, with folds), never a figure. Crawl files
 * go to a temporary folder, removed at the end.
 */
export async function tuneTopic(o: TuneOptions): Promise<TuneResult> {
  const plan = planTune(o);
  const truthSize = (config: Config, label: string) => truthSet(plan.corpus, label, config).size;
  const withSeeds = (seeds: readonly string[]) => buildConfig({ ...structuredClone(o.config), seeds: [...seeds] } as unknown as Config);
  const folds = plan.folds?.folds;
  const tuningConfig = folds ? withSeeds(folds[0].seeds) : o.config;
  const work = mkdtempSync(join(o.tmpDir ?? tmpdir(), 'topicrawl-tune-'));
  let server: CorpusServer | undefined;
  try {
    server = await startCorpusServer(o.corpusDir);
    // one crawl file per crawl, removed once measured: no crawl ever reuses the path of another
    let crawls = 0;
    const run = async (config: Config, label: string, p: TuneParams, fold?: number) => {
      if (o.signal?.aborted) throw new TuneInterrupted();
      const dbPath = join(work, `crawl-${++crawls}.db`);
      try {
        const r = await runStrategyOnCorpus({ server: server!, corpus: plan.corpus, config: withParams(config, p), budget: plan.budget, label, dbPath, signal: o.signal });
        if (o.signal?.aborted) throw new TuneInterrupted(); // a crawl cut short is not a figure
        return r;
      } catch (err) {
        if (o.signal?.aborted) throw new TuneInterrupted();
        if (fold !== undefined && err instanceof TopicrawlError) {
          const role = fold === 1 ? 'the tuning fold' : 'a validation fold';
          throw new TopicrawlError(err.code, `fold ${fold} of ${folds!.length} (${role}): ${err.message}`, { ...err.details, fold }, { cause: err });
        }
        throw err;
      } finally {
        rmSync(dbPath, { force: true });
        rmSync(`${dbPath}-queues`, { force: true });
      }
    };

    const baseline = paramsOf(o.config);
    const search = new TuneSearch({ trials: plan.trials, seed: plan.seed, baseline });
    const history: TrialRecord[] = [];
    let best: TrialRecord | undefined;
    for (let p = search.propose(); p; p = search.propose()) {
      const r = await run(tuningConfig, plan.label, p, folds ? 1 : undefined);
      const f = figures(r);
      const t: TrialRecord = { trial: history.length + 1, params: p, figures: f, score: objectiveScore(f, plan.objective), wall_s: r.wall_s };
      search.report(p, t.score);
      history.push(t);
      if (!best || t.score > best.score) best = t;
      o.onTrial?.(t, plan.trials, best);
    }
    const first = history[0];
    const result: TuneResult = {
      corpus: plan.corpus.meta.name, topic: o.config.name, strategy: o.config.strategy.name, label: plan.label, budget: plan.budget,
      trials: history.length, seed: plan.seed, objective: plan.objective, seeds: [...tuningConfig.seeds],
      relevant_in_corpus: truthSize(o.config, plan.label),
      baseline: { params: first.params, tuning: first.figures },
      best: { trial: best!.trial, params: best!.params, tuning: best!.figures },
      history,
    };
    const tuningGain = best!.score - first.score;
    // the baseline's and the best's figures on another set (one crawl when the best is the baseline)
    const both = async (config: Config, label: string, fold?: number) => {
      o.onValidation?.('baseline', fold);
      const b = figures(await run(config, label, first.params, fold));
      if (best!.trial === first.trial) return { b, t: b };
      o.onValidation?.('best', fold);
      return { b, t: figures(await run(config, label, best!.params, fold)) };
    };
    if (plan.validation) {
      const v = plan.validation;
      const { b, t } = await both(v.config, v.label);
      result.baseline.validation = b;
      result.best.validation = t;
      result.validation = { ...v.set, relevant_in_corpus: truthSize(v.config, v.label) };
      result.held = heldShare(tuningGain, objectiveScore(t, plan.objective) - objectiveScore(b, plan.objective));
    }
    if (folds) {
      const out: FoldResult[] = [{ ...folds[0], role: 'tuning', baseline: first.score, best: best!.score, gain: tuningGain, held: null, fetched: best!.figures.fetched }];
      for (const f of folds.slice(1)) {
        const { b, t } = await both(withSeeds(f.seeds), plan.label, f.fold);
        const [sb, st] = [objectiveScore(b, plan.objective), objectiveScore(t, plan.objective)];
        out.push({ ...f, role: 'validation', baseline: sb, best: st, gain: st - sb, held: heldShare(tuningGain, st - sb), fetched: t.fetched });
      }
      result.folds = out;
      result.fold_summary = summarizeFolds(out, folds[0].seeds.length, plan.folds!.pool);
    }
    return result;
  } finally {
    await server?.close();
    rmSync(work, { recursive: true, force: true });
  }
}
