import { isDeepStrictEqual } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { isScalar, parseDocument, type Document } from 'yaml';
import { TopicrawlError } from '../errors.js';
import { tuneTopic, TuneInterrupted, type TuneFigures, type TuneObjective, type TuneResult, type TuneValidation } from '../eval/tune-runner.js';
import type { TuneParams } from '../eval/tune-search.js';
import { loadConfig } from '../topic/config.js';
import { fileNameFromTopic } from './default-paths.js';
import { splitList } from './eval-command.js';
import { checkOutFile } from './output-paths.js';
import { f3, formatTrial, formatTuneTable, pct, signed, tuneWarning, verdict } from './tune-report.js';

export interface TuneArgs {
  corpus: string;
  topic: string;
  budget?: number;
  trials?: number;
  /** Comma-separated URLs (or repeated flags): validate on the same topic from these seeds. */
  validateSeeds?: string[];
  /** Validate on this topic file (its seeds and label, the same corpus). */
  validateTopic?: string;
  /** K ≥ 2 seed sets drawn from the corpus's labelled pages: tune on the first, validate on the others (not with the two above). */
  folds?: number;
  /** The tuned topic file (default `<topic name>.tuned.yaml` in the working folder). */
  out?: string;
  seed?: number;
  objective?: string;
  json?: boolean;
  /** `--set key.path=value` overrides (of the topic and of the validation topic; not written). */
  set?: string[];
}

/** A key changed in the tuned file. */
export interface TopicEdit {
  path: (string | number)[];
  value: unknown;
}

const HEADER_MARK = ' Tuned by topicrawl tune';

/** The keys of the topic file that the tuned settings change. */
export function tunedEdits(p: TuneParams): TopicEdit[] {
  return [
    { path: ['strategy', 'x'], value: p.x }, { path: ['strategy', 'y'], value: p.y }, { path: ['strategy', 'z'], value: p.z },
    { path: ['strategy', 'max_life'], value: p.max_life }, { path: ['relevance', 'threshold'], value: p.threshold },
  ];
}

/**
 * Parse options for a topic file loadTopicFile has already read and validated (duplicate keys are
 * found there, in linear time): yaml's own duplicate-key check is quadratic in a mapping's size (60,000
 * keywords: 103 s).
 */
const VALIDATED = { uniqueKeys: false } as const;

/** Edits that keep the file's relative paths pointing at the same files when it is written in another folder. */
export function relocationEdits(source: string, fromDir: string, toDir: string): TopicEdit[] {
  if (resolve(fromDir) === resolve(toDir)) return [];
  const data = (parseDocument(source.replace(/^\uFEFF/, ''), VALIDATED).toJS() ?? {}) as { relevance?: { classifier?: { model?: unknown } }; training?: { corpus?: unknown; examples?: { file?: unknown }[] } };
  const edits: TopicEdit[] = [];
  const move = (path: (string | number)[], p: unknown) => {
    if (typeof p === 'string' && p !== '' && !isAbsolute(p)) edits.push({ path, value: relative(toDir, resolve(fromDir, p)) || '.' });
  };
  move(['relevance', 'classifier', 'model'], data.relevance?.classifier?.model);
  move(['training', 'corpus'], data.training?.corpus);
  (Array.isArray(data.training?.examples) ? data.training.examples : []).forEach((e, i) => move(['training', 'examples', i, 'file'], e?.file));
  return edits;
}

/** Text of a scalar for the file: numbers as printed by JS, strings plain when safe, else double-quoted. */
function scalarText(v: unknown): string {
  if (typeof v === 'string') return /^[A-Za-z0-9_./][\w./-]*$/.test(v) && !/^(true|false|null|yes|no|on|off|~|[-+.\d][\d.eE+-]*)$/i.test(v) ? v : JSON.stringify(v);
  return String(v);
}

/** Drops a note left by an earlier `tune` at the top of the comment (up to its first blank line). */
function withoutOldHeader(comment: string | null | undefined): string {
  if (!comment || !comment.startsWith(HEADER_MARK)) return comment ?? '';
  const end = comment.indexOf('\n\n');
  return end < 0 ? '' : comment.slice(end + 2);
}

/**
 * The original topic text with `edits` applied and `header` (comment lines, without `#`) on top.
 * Existing plain values are replaced in place (every other byte kept); when a key is missing or
 * not a simple value, the yaml Document API rewrites the file (comments and other keys kept, layout
 * normalised). Either way the result is checked to parse to exactly the edited data.
 */
export function tunedTopicText(source: string, edits: readonly TopicEdit[], header: string[]): string {
  const text = source.replace(/^\uFEFF/, '');
  const expected = parseDocument(text, VALIDATED);
  for (const e of edits) expected.setIn(e.path, e.value);
  const want = expected.toJS();
  const spliced = splice(text, edits, header);
  if (spliced !== null && isDeepStrictEqual(parseDocument(spliced, VALIDATED).toJS(), want)) return spliced;
  const doc: Document = parseDocument(text, VALIDATED);
  for (const e of edits) doc.setIn(e.path, e.value);
  const rest = withoutOldHeader(doc.commentBefore);
  doc.commentBefore = header.map((l) => ` ${l}`).join('\n') + (rest ? `\n\n${rest}` : '');
  return doc.toString();
}

function splice(text: string, edits: readonly TopicEdit[], header: string[]): string | null {
  const doc = parseDocument(text, VALIDATED);
  if (doc.errors.length > 0) return null;
  const cuts: [number, number, string][] = [];
  for (const e of edits) {
    const node = doc.getIn(e.path, true);
    if (!isScalar(node) || !node.range || typeof node.value !== typeof e.value || !['PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE'].includes(node.type ?? '')) return null;
    cuts.push([node.range[0], node.range[1], scalarText(e.value)]);
  }
  let out = text;
  for (const [a, b, s] of cuts.sort((p, q) => q[0] - p[0])) out = out.slice(0, a) + s + out.slice(b);
  const lines = out.split('\n');
  if (lines[0]?.startsWith(`#${HEADER_MARK}`)) {
    const blank = lines.findIndex((l) => l.trim() === '');
    lines.splice(0, blank < 0 ? lines.length : blank + 1);
  }
  return `${header.map((l) => `# ${l}`).join('\n')}\n\n${lines.join('\n')}`;
}

/** The comment written at the top of the tuned file. */
export function tuneHeader(r: TuneResult, corpusDir: string, set: readonly string[]): string[] {
  const b = r.baseline;
  const t = r.best;
  const changed = tunedEdits(t.params)
    .map((e, i) => ({ key: e.path.join('.'), from: tunedEdits(b.params)[i].value, to: e.value }))
    .filter((c) => c.from !== c.to)
    .map((c) => `${c.key} ${c.from} → ${c.to}`);
  const fig = (f: TuneFigures | undefined, g: TuneFigures | undefined) =>
    f && g ? `auc ${f3(f.auc)} → ${f3(g.auc)} (${signed(g.auc - f.auc)}), harvest ${f3(f.harvest_rate)} → ${f3(g.harvest_rate)} (${signed(g.harvest_rate - f.harvest_rate)})` : '';
  const lines = [
    `${HEADER_MARK.trim()} on ${new Date().toISOString()}: corpus ${r.corpus} (${corpusDir}), label "${r.label}",`,
    `  strategy ${r.strategy}, budget ${r.budget} pages, ${r.trials} trials (seed ${r.seed}), objective ${r.objective}.`,
    `  Changed: ${changed.length ? changed.join(', ') : 'nothing (no trial beat the file\'s settings)'}.`,
    `  Tuning seeds${r.folds ? ' (fold 1)' : ''}, file's settings → tuned: ${fig(b.tuning, t.tuning)}.`,
  ];
  if (r.validation) {
    const v = r.validation;
    const what = v.kind === 'seeds' ? `seeds ${v.seeds.join(', ')}` : `topic ${v.topic} (${v.file}, label "${v.label}")`;
    lines.push(`  Validation on ${what}: ${fig(b.validation, t.validation)}${typeof r.held === 'number' ? `; ${pct(r.held)} of the tuning gain held` : ''}.`);
  }
  if (r.folds && r.fold_summary) {
    const s = r.fold_summary;
    lines.push(`  Folds (${r.folds.length} × ${s.per_fold} seeds drawn from the pages labelled "${r.label}", seed ${r.seed}): tuned from fold 1's seeds (${r.folds[0].seeds.join(', ')}),`,
      `  ${r.objective} gain on the other folds ${signed(s.validation_gain.mean)} on average (min ${signed(s.validation_gain.min)}, max ${signed(s.validation_gain.max)})` +
      `${s.held ? `, ${pct(s.held.mean)} of the tuning gain held on average` : ''}.`);
  }
  const warning = tuneWarning(r);
  if (warning) lines.push(`  ${warning[0].toUpperCase()}${warning.slice(1)}`);
  if (set.length) lines.push(`  Overrides in force while tuning (not written here): ${set.map((s) => `--set ${s}`).join(' ')}`);
  return lines;
}

/**
 * `topicrawl tune`: tunes the topic's strategy.x/y/z, max_life and relevance.threshold on the corpus
 * (see tuneTopic), writes the tuned topic file and prints the report (or JSON) on `out`, one line
 * per trial on `progress`.
 */
export async function runTuneCommand(args: TuneArgs, out: { log: (s: string) => void }, progress: (s: string) => void): Promise<{ result: TuneResult; file: string }> {
  const set = args.set ?? [];
  const config = loadConfig(args.topic, { set });
  const vseeds = splitList(args.validateSeeds);
  if (vseeds && args.validateTopic !== undefined) throw new TopicrawlError('E_USAGE', '--validate-seeds and --validate-topic: give one or the other', { flag: '--validate-seeds' });
  if (args.folds !== undefined && (vseeds || args.validateTopic !== undefined)) {
    throw new TopicrawlError('E_USAGE', `--folds and ${vseeds ? '--validate-seeds' : '--validate-topic'}: --folds draws its own validation seeds, give one or the other`, { flag: '--folds' });
  }
  let validation: TuneValidation | undefined;
  if (vseeds) validation = { kind: 'seeds', seeds: vseeds };
  else if (args.validateTopic !== undefined) validation = { kind: 'topic', config: loadConfig(args.validateTopic, { set }), file: args.validateTopic };
  const source = readFileSync(args.topic, 'utf8');
  const file = resolve(args.out ?? fileNameFromTopic(config.name, '.tuned.yaml', '--out'));
  checkOutFile(file, '--out'); // before the trials, not after them
  // the crawl files go to a folder of our own, removed however the run ends (Ctrl-C included)
  const tmp = mkdtempSync(join(tmpdir(), 'topicrawl-tune-'));
  const ac = new AbortController();
  const onSignal = () => {
    if (ac.signal.aborted) {
      rmSync(tmp, { recursive: true, force: true });
      process.exit(130);
    }
    progress('[tune] stopping: the crawl in progress ends, no file is written (Ctrl-C again to quit now)');
    ac.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let result: TuneResult;
  try {
    result = await tuneTopic({
      config, corpusDir: args.corpus, budget: args.budget, trials: args.trials, seed: args.seed, objective: args.objective as TuneObjective | undefined, validation, folds: args.folds,
      tmpDir: tmp, signal: ac.signal,
      onTrial: (t, n, best) => progress(formatTrial(t, n, best)),
      onValidation: (which, fold) => progress(`validation${fold ? ` fold ${fold}` : ''}: ${which === 'baseline' ? "the file's settings" : 'the tuned settings'}…`),
    });
  } catch (err) {
    if (err instanceof TuneInterrupted) throw new TopicrawlError('E_INTERRUPTED', `tune interrupted: no tuned file written (${file})`);
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    rmSync(tmp, { recursive: true, force: true });
  }
  const edits = [...tunedEdits(result.best.params), ...relocationEdits(source, dirname(resolve(args.topic)), dirname(file))];
  writeFileSync(file, tunedTopicText(source, edits, tuneHeader(result, args.corpus, set)));
  if (args.json) out.log(JSON.stringify({ ...result, verdict: verdict(result), warning: tuneWarning(result), file }, null, 2));
  else out.log(`${formatTuneTable(result)}\nwrote ${file}`);
  return { result, file };
}
