import { heldShare } from '../eval/tune-folds.js';
import { objectiveScore, type TrialRecord, type TuneResult } from '../eval/tune-runner.js';
import type { TuneParams } from '../eval/tune-search.js';
import { table } from './format.js';

// What `topicrawl tune` prints: the progress line of each trial, the table, the verdict (how much of
// the gain held on validation) and the warning when the tuned settings do worse there.

export const f3 = (x: number) => x.toFixed(3);
export const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(3)}`;
/** A share as a whole percentage ("62%"; "-40%" when the validation gain is negative). */
export const pct = (x: number) => `${Math.round(x * 100)}%`;
const fmtParams = (p: TuneParams) => `x=${p.x.toFixed(2)} y=${p.y.toFixed(2)} z=${p.z.toFixed(2)} life=${p.max_life} thr=${p.threshold.toFixed(2)}`;

/** The progress line of one trial (stderr). */
export function formatTrial(t: TrialRecord, total: number, best: TrialRecord): string {
  return `trial ${t.trial}/${total}  ${fmtParams(t.params)}  fetched ${t.figures.fetched}  auc ${f3(t.figures.auc)} harvest ${f3(t.figures.harvest_rate)}  (best ${f3(best.score)})`;
}

/** The gain of the best trial over the baseline on the tuning seeds (≥ 0: the baseline is a trial). */
export function tuningGain(r: TuneResult): number {
  return objectiveScore(r.best.tuning, r.objective) - objectiveScore(r.baseline.tuning, r.objective);
}

/** The gain on the validation set (`--validate-seeds`/`--validate-topic`), or null without one. */
function validationGain(r: TuneResult): number | null {
  if (!r.best.validation || !r.baseline.validation) return null;
  return objectiveScore(r.best.validation, r.objective) - objectiveScore(r.baseline.validation, r.objective);
}

/**
 * Whether the gain holds on validation, in a sentence: the gains on tuning and validation and the
 * share of the tuning gain that held ("62% of the tuning gain held on validation"); with folds, the
 * mean, min and max over the validation folds. No share when there was no tuning gain to hold.
 */
export function verdict(r: TuneResult): string {
  const o = r.objective;
  const gain = tuningGain(r);
  if (r.best.trial === 1 || gain <= 0) {
    const where = r.folds || r.validation ? ' (no gain to hold on validation)' : '';
    return `no trial beat the file's settings (${o} ${f3(objectiveScore(r.baseline.tuning, o))}); the tuned file keeps them${where}`;
  }
  const s = r.fold_summary;
  if (r.folds && s) {
    const n = r.folds.length - 1;
    const g = s.validation_gain;
    const held = s.held ? `: ${pct(s.held.mean)} of the tuning gain held on average (min ${pct(s.held.min)}, max ${pct(s.held.max)})` : '';
    return `gain ${signed(gain)} ${o} on tuning (fold 1); on the ${n} validation fold${n > 1 ? 's' : ''} ${signed(g.mean)} on average (min ${signed(g.min)}, max ${signed(g.max)})${held}`;
  }
  const vgain = validationGain(r);
  if (vgain === null) return `gain ${signed(gain)} ${o} on tuning (no validation set: give --validate-seeds, --validate-topic or --folds to check it holds)`;
  const held = heldShare(gain, vgain)!;
  return `gain ${signed(gain)} ${o} on tuning, ${signed(vgain)} on validation: ${pct(held)} of the tuning gain held on validation`;
}

/**
 * The warning when the best trial on the tuning seeds does worse than the file's settings on
 * validation (on any validation fold, with folds); null when it does not.
 */
export function tuneWarning(r: TuneResult): string | null {
  const o = r.objective;
  if (r.folds && r.fold_summary) {
    const worse = r.folds.filter((f) => f.role === 'validation' && f.gain < 0);
    if (worse.length === 0) return null;
    const n = r.folds.length - 1;
    const on = worse.map((f) => `fold ${f.fold} ${o} ${signed(f.gain)}`).join(', ');
    const mean = r.fold_summary.validation_gain.mean < 0 ? ', and on average' : '';
    return `warning: the tuned settings do worse than the file's on ${worse.length} of ${n} validation folds (${on})${mean}: overfitting?`;
  }
  const vgain = validationGain(r);
  if (vgain === null || vgain >= 0) return null;
  return `warning: the tuned settings do worse on the validation set than the file's (${o} ${signed(vgain)}; ${signed(tuningGain(r))} on tuning): overfitting?`;
}

/** The folds' table and their seeds (with `--folds`), else nothing. */
export function formatFolds(r: TuneResult): string[] {
  if (!r.folds || !r.fold_summary) return [];
  const o = r.objective;
  const s = r.fold_summary;
  const rows = r.folds.map((f) => [f.fold, f.role, f3(f.baseline), f3(f.best), signed(f.gain), f.held === null ? '-' : pct(f.held), f.fetched]);
  return [
    `folds: ${r.folds.length} disjoint sets of ${s.per_fold} seed${s.per_fold > 1 ? 's' : ''}, drawn with seed ${r.seed} from the ${s.pool} pages labelled "${r.label}" ` +
      'the topic may start from; the trials ran on fold 1, the baseline and the best re-ran on the others',
    table(['fold', 'role', `file's ${o}`, `best ${o}`, 'gain', 'held', 'fetched'], rows),
    ...r.folds.map((f) => `fold ${f.fold} seeds: ${f.seeds.join(' ')}`),
  ];
}

/** The terminal report: baseline and best side by side, the folds, then the verdict and any warning. */
export function formatTuneTable(r: TuneResult): string {
  const head = `tune: topic ${r.topic} (${r.strategy}), corpus ${r.corpus}, label "${r.label}" (${r.relevant_in_corpus} relevant pages), ` +
    `budget ${r.budget} pages, ${r.trials} trials, objective ${r.objective}, seed ${r.seed}`;
  const cols = ['settings', 'trial', 'x', 'y', 'z', 'life', 'thr', 'auc', 'harvest', 'recall'];
  if (r.validation) cols.push('val auc', 'val harvest', 'val recall');
  const row = (name: string, s: TuneResult['baseline'], trial: number) => {
    const cells: (string | number)[] = [name, trial, s.params.x.toFixed(2), s.params.y.toFixed(2), s.params.z.toFixed(2), s.params.max_life, s.params.threshold.toFixed(2),
      f3(s.tuning.auc), f3(s.tuning.harvest_rate), f3(s.tuning.target_recall)];
    if (s.validation) cells.push(f3(s.validation.auc), f3(s.validation.harvest_rate), f3(s.validation.target_recall));
    return cells;
  };
  const lines = [head];
  if (r.validation) {
    const v = r.validation;
    lines.push(`validation: ${v.kind === 'seeds' ? `seeds ${v.seeds.join(', ')}` : `topic ${v.topic} (${v.file}), label "${v.label}"`} (${v.relevant_in_corpus} relevant pages)`);
  }
  lines.push(table(cols, [row('baseline', r.baseline, 1), row('best', r.best, r.best.trial)]));
  const folds = formatFolds(r);
  if (folds.length) lines.push('', ...folds);
  lines.push('', verdict(r));
  const warning = tuneWarning(r);
  if (warning) lines.push(warning);
  return lines.join('\n');
}
