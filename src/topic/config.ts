import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { TopicrawlError, type ErrorCode } from '../errors.js';
import { SHARED_DEFAULT_STRATEGY, type Topic, type TopicInput } from './topic-schema.js';
import { loadTopicFile } from './load-topic.js';
import { formatKey, describeValue, typosFirst, validateTopic, type TopicPath } from './topic-issues.js';
import { deepFreeze, type DeepReadonly } from './deep-freeze.js';

export type { DeepReadonly } from './deep-freeze.js';

/**
 * The crawl configuration. One merge order, lowest to highest precedence:
 *
 *   1. built-in defaults (the `.default(...)`s of TopicSchema),
 *   2. the topic file,
 *   3. command-line `--set key.path=value` flags, in the order given (a later one wins),
 *   4. the dedicated flags `--strategy` (= strategy.name) and `--max-pages` (= limits.max_pages).
 *
 * The merged object is validated again by the schema and deep-frozen.
 */
export type Config = DeepReadonly<Topic>;

/** Command-line flags that change the configuration. */
export interface ConfigFlags {
  /** Ordering strategy name (strategy.name). */
  strategy?: string;
  /** Page budget (limits.max_pages). */
  maxPages?: number;
  /** `key.path=value` strings; the value is a YAML scalar or flow collection (`0.4`, `true`, `[a, b]`); empty = "". */
  set?: string[];
  /**
   * The crawl runs on a shared frontier and its topic names no strategy (loadConfig finds out from
   * the file): it gets SHARED_DEFAULT_STRATEGY instead of DEFAULT_STRATEGY, unless a flag names one.
   */
  sharedFrontier?: boolean;
}

/** Which command-line flag set which path (to name the flag in errors). */
interface FlagSource {
  path: TopicPath;
  flag: string;
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function usage(flag: string, what: string): never {
  throw new TopicrawlError('E_USAGE', `command line: ${flag}: ${what}`, { source: 'command line', flag });
}

/** Parses one `--set key.path=value` string into a path and a value. Throws E_USAGE when malformed. */
export function parseSetFlag(text: string): { path: string[]; value: unknown } {
  const flag = `--set ${text}`;
  const eq = text.indexOf('=');
  if (eq <= 0) usage(flag, 'expected key.path=value (e.g. strategy.x=0.4)');
  const path = text.slice(0, eq).trim().split('.');
  if (path.some((p) => p.trim() === '')) usage(flag, 'the key path has an empty part');
  if (path.some((p) => FORBIDDEN_KEYS.has(p))) usage(flag, 'that key is not allowed');
  const raw = text.slice(eq + 1);
  if (raw.trim() === '') return { path, value: '' };
  const doc = parseDocument(raw, { uniqueKeys: true });
  if (doc.errors.length > 0) usage(flag, `the value is not valid YAML (${doc.errors[0].message.split('\n')[0].replace(/ at line \d+, column \d+:?\s*$/, '')})`);
  return { path, value: doc.toJS({ maxAliasCount: 10 }) };
}

function isContainer(v: unknown): v is Record<string, unknown> | unknown[] {
  return v !== null && typeof v === 'object';
}

function setAt(root: Record<string, unknown>, path: string[], value: unknown, flag: string): TopicPath {
  let cur: Record<string, unknown> | unknown[] = root;
  const done: TopicPath = [];
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    let key: string | number = seg;
    if (Array.isArray(cur)) {
      if (!/^\d+$/.test(seg) || Number(seg) > cur.length) {
        throw new TopicrawlError('E_CONFIG', `command line: ${flag}: ${formatKey(done)} is a list; use an index from 0 to ${cur.length}`, { source: 'command line', flag, key: formatKey(done) });
      }
      key = Number(seg);
    }
    done.push(key);
    const last = i === path.length - 1;
    const container = cur as Record<string | number, unknown>;
    if (last) {
      container[key] = value;
      break;
    }
    if (container[key] === undefined || container[key] === null) container[key] = {};
    const next = container[key];
    if (!isContainer(next)) {
      throw new TopicrawlError('E_CONFIG', `command line: ${flag}: ${formatKey(done)} is ${describeValue(next)}, not a mapping`, { source: 'command line', flag, key: formatKey(done) });
    }
    cur = next;
  }
  return done;
}

function overlaps(a: TopicPath, b: TopicPath): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (String(a[i]) !== String(b[i])) return false;
  return true;
}

/**
 * Merges a topic (raw input or already parsed) with command-line flags, validates the result with
 * the schema and returns it deep-frozen. Errors: E_USAGE (malformed --set), E_CONFIG (a flag's
 * value is wrong: "command line: --set strategy.x=abc: expected a number, got "abc""),
 * E_TOPIC_SCHEMA (the topic itself is wrong; `file` names it in messages).
 */
export function buildConfig(topic: TopicInput | Topic | Config, flags: ConfigFlags = {}, file?: string): Config {
  const merged = structuredClone(topic) as unknown as Record<string, unknown>;
  if (!isContainer(merged) || Array.isArray(merged)) {
    throw new TopicrawlError('E_TOPIC_SCHEMA', `${file ?? 'topic'}: expected the topic to be a mapping of keys`, { file });
  }
  const sources: FlagSource[] = [];
  for (const text of flags.set ?? []) {
    const { path, value } = parseSetFlag(text);
    const flag = `--set ${text}`;
    sources.push({ path: setAt(merged, path, value, flag), flag });
  }
  if (flags.strategy !== undefined) {
    sources.push({ path: setAt(merged, ['strategy', 'name'], flags.strategy, '--strategy'), flag: `--strategy ${JSON.stringify(flags.strategy)}` });
  }
  if (flags.sharedFrontier && flags.strategy === undefined && !(flags.set ?? []).some((t) => /^\s*strategy\.name\s*=/.test(t))) {
    setAt(merged, ['strategy', 'name'], SHARED_DEFAULT_STRATEGY, '--frontier');
  }
  if (flags.maxPages !== undefined) {
    sources.push({ path: setAt(merged, ['limits', 'max_pages'], flags.maxPages, '--max-pages'), flag: `--max-pages ${flags.maxPages}` });
  }

  const result = validateTopic(merged);
  if (result.topic) return deepFreeze(result.topic);

  const issues = typosFirst(result.issues, (i) => i).map((issue) => {
    const src = [...sources].reverse().find((s) => overlaps(s.path, issue.path));
    if (!src) return { key: issue.key, expected: issue.expected, got: issue.got, message: `${file ?? 'topic'}: ${issue.text}` };
    const sameKey = formatKey(src.path) === issue.key && issue.text.startsWith(`${issue.key}: `);
    const text = sameKey ? issue.text.slice(issue.key.length + 2) : issue.text;
    return { key: issue.key, expected: issue.expected, got: issue.got, flag: src.flag, message: `command line: ${src.flag}: ${text}` };
  });
  const first = issues[0];
  const code: ErrorCode = first.flag ? 'E_CONFIG' : 'E_TOPIC_SCHEMA';
  throw new TopicrawlError(code, first.message, {
    source: first.flag ? 'command line' : file, file, flag: first.flag, key: first.key, expected: first.expected, got: first.got, issues,
  });
}

/**
 * The topic with its file paths (relevance.classifier.model, training.corpus, training.examples[].file)
 * made absolute against `dir` (the topic file's folder). A new object; absolute paths stay as they are.
 */
export function resolveTopicPaths(topic: Topic, dir: string): Topic {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(dir, p));
  const out = structuredClone(topic);
  if (out.relevance.classifier) out.relevance.classifier.model = abs(out.relevance.classifier.model);
  if (out.training) {
    if (out.training.corpus !== undefined) out.training.corpus = abs(out.training.corpus);
    for (const e of out.training.examples) e.file = abs(e.file);
  }
  return out;
}

/**
 * Loads a topic file and merges the flags: `buildConfig(loadTopicFile(path), flags, path)`. Paths in
 * the file are relative to the file ({@link resolveTopicPaths}); paths given with --set are taken as
 * they are (relative to the working directory).
 */
export function loadConfig(path: string, flags: ConfigFlags = {}): Config {
  const shared = flags.sharedFrontier && !namesStrategy(path);
  return buildConfig(resolveTopicPaths(loadTopicFile(path), dirname(resolve(path))), { ...flags, sharedFrontier: shared }, path);
}

/** Whether a topic file names its strategy (strategy.name), read before the defaults fill it in. */
function namesStrategy(path: string): boolean {
  try {
    const doc = parseDocument(readFileSync(path, 'utf8')).toJS() as { strategy?: { name?: unknown } } | null;
    return doc?.strategy?.name !== undefined;
  } catch {
    return false; // (loadTopicFile reports the file's problems)
  }
}
