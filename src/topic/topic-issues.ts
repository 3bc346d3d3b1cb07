import type * as z from 'zod';
import { TopicSchema, type Topic } from './topic-schema.js';
import { compileScopePattern } from '../url/scope.js';
import { words as stopwordList } from 'natural/lib/natural/util/stopwords.js';

const STOP_WORDS = new Set(stopwordList);

/**
 * True when every word of a keyword (split at whitespace) is an English stop word ("the", "of the").
 * The list's single letters and digits (a, x, 7) are not counted as stop words here.
 */
function onlyStopWords(keyword: string): boolean {
  const words = keyword.toLowerCase().trim().split(/\s+/);
  return words.length > 0 && words.every((w) => w.length > 1 && STOP_WORDS.has(w));
}

/**
 * Validation of topic data (already parsed from YAML or merged with flags) into user-facing
 * issues. Callers add the location: a file line:column (load-topic.ts) or a command-line flag
 * (config.ts).
 */

export type TopicPath = (string | number)[];

/** One problem in topic data, worded for a user. */
export interface TopicIssue {
  /** Path of the offending value, or of the offending key when `atKey`. */
  path: TopicPath;
  /** `path` formatted: `strategy.x`, `seeds[0]`, `keywords.烟草`. */
  key: string;
  /** What was expected, e.g. `a number`, `one of the allowed keys`. */
  expected: string;
  /** What was found, e.g. `"abc"`; absent when the key is missing. */
  got?: string;
  /** The key itself is wrong (unknown key, empty keyword): locate the key, not its value. */
  atKey?: boolean;
  /** The key is required and absent. */
  missing?: boolean;
  /** An unknown key's near miss among the allowed ones, as a path: `seeds` for `sead`. */
  suggests?: string;
  /** One line, without location: `strategy.x: expected a number, got "abc"`. */
  text: string;
}

/** Formats a path the way users write it: `a.b[0].c`; keys that are not plain words are quoted. */
export function formatKey(path: readonly (string | number | symbol)[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (typeof seg === 'string' && /^[\p{L}\p{N}_-]+$/u.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out;
}

/** Hints for keys that have no default, used in "missing required key" messages. */
const REQUIRED_HINTS: Record<string, string> = {
  name: 'a non-empty string',
  seeds: 'a list of http(s) URLs',
};

type AnySchema = { _zod: { def: Record<string, unknown> & { type: string } } } & Record<string, unknown>;

function unwrap(s: AnySchema | undefined): AnySchema | undefined {
  let cur = s;
  while (cur && ['default', 'optional', 'nullable', 'prefault', 'readonly', 'catch'].includes(cur._zod.def.type)) {
    cur = cur._zod.def.innerType as AnySchema;
  }
  return cur;
}

/** The (unwrapped) schema at a path of the topic, or undefined when the path leaves the schema. */
export function schemaAt(path: readonly (string | number | symbol)[]): AnySchema | undefined {
  let cur = unwrap(TopicSchema as unknown as AnySchema);
  for (const seg of path) {
    if (!cur) return undefined;
    const def = cur._zod.def;
    if (def.type === 'object') cur = unwrap((def.shape as Record<string, AnySchema>)[String(seg)]);
    else if (def.type === 'record') cur = unwrap(def.valueType as AnySchema);
    else if (def.type === 'array') cur = unwrap(def.element as AnySchema);
    else return undefined;
  }
  return cur;
}

/** Allowed keys of the object schema at a path (empty when it is not an object). */
export function allowedKeys(path: readonly (string | number | symbol)[]): string[] {
  const s = schemaAt(path);
  return s && s._zod.def.type === 'object' ? Object.keys(s._zod.def.shape as object) : [];
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let cur = data;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[seg as string];
  }
  return cur;
}

/** Describes a found value briefly: `"abc"`, `12`, `a list`, `an empty value`. */
export function describeValue(v: unknown): string {
  if (v === null || v === undefined) return 'an empty value';
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? v.slice(0, 60) + '…' : v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v)) return v.length === 0 ? 'an empty list' : 'a list';
  if (v instanceof Date) return `a date (${v.toISOString().slice(0, 10)}; quote it to make it a string)`;
  return Object.keys(v).length === 0 ? 'an empty mapping' : 'a mapping';
}

const TYPE_WORDS: Record<string, string> = {
  number: 'a number', int: 'an integer', string: 'a string', boolean: 'true or false', array: 'a list',
  object: 'a mapping', record: 'a mapping', bigint: 'an integer',
};

function isIntAt(path: readonly PropertyKey[]): boolean {
  const s = schemaAt(path);
  return !!s && (s.isInt === true || s.format === 'safeint' || s.format === 'int32');
}

function bound(issue: { origin?: unknown; inclusive?: unknown }, value: unknown, small: boolean, path: readonly PropertyKey[]): string {
  const n = Number(value);
  const origin = String(issue.origin);
  if (origin === 'string') return small ? (n === 1 ? 'a non-empty string' : `a string of at least ${n} characters`) : `a string of at most ${n} characters`;
  if (origin === 'array' || origin === 'set') return small ? (n === 1 ? 'a non-empty list' : `a list of at least ${n} items`) : `a list of at most ${n} items`;
  const op = small ? (issue.inclusive ? '>=' : '>') : issue.inclusive ? '<=' : '<';
  return `${isIntAt(path) ? 'an integer' : 'a number'} ${op} ${String(value)}`;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

function unknownKeyIssue(parent: TopicPath, key: string): TopicIssue {
  const allowed = allowedKeys(parent);
  const path = [...parent, key];
  const near = allowed.map((k) => ({ k, d: editDistance(key.toLowerCase(), k) })).sort((x, y) => x.d - y.d)[0];
  const hint = near && near.d <= 2 ? `did you mean "${near.k}"? ` : '';
  const where = parent.length > 0 ? `${formatKey(parent)}: ` : '';
  return {
    path, key: formatKey(path), expected: `one of: ${allowed.join(', ')}`, atKey: true,
    text: `${where}unknown key "${key}" (${hint}allowed: ${allowed.join(', ')})`,
    ...(hint ? { suggests: formatKey([...parent, near.k]) } : {}),
  };
}

/**
 * The order in which issues are told, given the order they come in: an unknown key that nearly spells
 * a missing required one (`sead` for `seeds`) goes first, so that the message names the typo and its
 * place rather than only the key it left missing.
 */
export function typosFirst<T>(issues: readonly T[], issueOf: (t: T) => TopicIssue): T[] {
  const missing = new Set(issues.map(issueOf).filter((i) => i.missing).map((i) => i.key));
  const typo = (t: T) => {
    const s = issueOf(t).suggests;
    return s !== undefined && missing.has(s);
  };
  return [...issues.filter(typo), ...issues.filter((t) => !typo(t))];
}

function valueIssue(path: TopicPath, expected: string, data: unknown, atKey = false): TopicIssue {
  const key = formatKey(path);
  const v = valueAt(data, path);
  if (v === undefined && !atKey) {
    const hint = REQUIRED_HINTS[key] ?? expected;
    return { path, key, expected: hint, missing: true, text: `missing required key "${key}" (${hint})` };
  }
  const got = atKey ? JSON.stringify(String(path[path.length - 1])) : describeValue(v);
  const subject = path.length === 0 ? 'expected the topic to be a mapping of keys' : `${key}: expected ${expected}`;
  return { path, key, expected, got, atKey, text: `${subject}, got ${got}` };
}

/** Converts zod issues (from TopicSchema) to topic issues; `data` is the validated input. */
export function issuesFromZod(issues: readonly z.core.$ZodIssue[], data: unknown): TopicIssue[] {
  const out: TopicIssue[] = [];
  for (const issue of issues) {
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const k of issue.keys) out.push(unknownKeyIssue(path, k));
        break;
      case 'invalid_type':
        out.push(valueIssue(path, TYPE_WORDS[issue.expected] ?? `a ${issue.expected}`, data));
        break;
      case 'too_small':
        out.push(valueIssue(path, bound(issue, issue.minimum, true, path), data));
        break;
      case 'too_big':
        out.push(valueIssue(path, bound(issue, issue.maximum, false, path), data));
        break;
      case 'invalid_format':
        out.push(valueIssue(path, issue.format === 'url' ? 'an http(s) URL' : `a ${issue.format}`, data));
        break;
      case 'invalid_key':
        out.push(valueIssue(path, 'a non-empty key', data, true));
        break;
      case 'invalid_value':
        out.push(valueIssue(path, `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`, data));
        break;
      default:
        out.push({ path, key: formatKey(path), expected: issue.message, text: `${formatKey(path) || 'topic'}: ${issue.message}` });
    }
  }
  return out;
}

/**
 * Checks zod cannot express: scope patterns compile as RegExps; weight-map keys are non-empty after
 * trim; a keyword is not an English stop word (natural's list), which the matcher drops anyway.
 */
export function semanticIssues(data: unknown): TopicIssue[] {
  const out: TopicIssue[] = [];
  const scope = valueAt(data, ['scope']);
  for (const field of ['include', 'exclude'] as const) {
    const list = valueAt(scope, [field]);
    if (!Array.isArray(list)) continue;
    list.forEach((src, i) => {
      if (typeof src !== 'string') return;
      try {
        compileScopePattern(src);
      } catch (err) {
        const path = ['scope', field, i];
        const reason = (err as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '');
        out.push({ path, key: formatKey(path), expected: 'a JavaScript regular expression', got: JSON.stringify(src), text: `${formatKey(path)}: invalid regular expression ${JSON.stringify(src)} (${reason})` });
      }
    });
  }
  out.push(...revisitIssues(valueAt(data, ['revisit', 'classes'])));
  for (const mapPath of [['keywords'], ['location', 'tokens'], ['location', 'tld']]) {
    const map = valueAt(data, mapPath);
    if (map === null || typeof map !== 'object' || Array.isArray(map)) continue;
    for (const k of Object.keys(map)) {
      if (k.length > 0 && k.trim() === '') {
        const path = [...mapPath, k];
        out.push({ path, key: formatKey(path), expected: 'a non-empty key', got: JSON.stringify(k), atKey: true, text: `${formatKey(mapPath)}: a key must not be blank, got ${JSON.stringify(k)}` });
      } else if (mapPath[0] === 'keywords' && k.trim() !== '' && onlyStopWords(k)) {
        const path = [...mapPath, k];
        const what = /\s/.test(k.trim()) ? 'stop words never mark a topic' : 'a stop word never marks a topic';
        out.push({ path, key: formatKey(path), expected: 'a keyword that is not a stop word', got: JSON.stringify(k), atKey: true, text: `${formatKey(path)}: ${what}` });
      }
    }
  }
  return out;
}

/** revisit.classes: patterns compile (case-insensitive RegExps), names are unique, min_ms ≤ initial_ms ≤ max_ms. */
function revisitIssues(classes: unknown): TopicIssue[] {
  const out: TopicIssue[] = [];
  if (!Array.isArray(classes)) return out;
  const seen = new Set<string>();
  classes.forEach((c: unknown, i) => {
    if (c === null || typeof c !== 'object') return;
    const cls = c as Record<string, unknown>;
    if (typeof cls.name === 'string') {
      if (seen.has(cls.name)) {
        const path = ['revisit', 'classes', i, 'name'];
        out.push({ path, key: formatKey(path), expected: 'a class name not used before', got: JSON.stringify(cls.name), text: `${formatKey(path)}: class ${JSON.stringify(cls.name)} is defined twice` });
      }
      seen.add(cls.name);
    }
    if (Array.isArray(cls.patterns)) {
      cls.patterns.forEach((src: unknown, j) => {
        if (typeof src !== 'string') return;
        try {
          new RegExp(src, 'i');
        } catch (err) {
          const path = ['revisit', 'classes', i, 'patterns', j];
          const reason = (err as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '');
          out.push({ path, key: formatKey(path), expected: 'a JavaScript regular expression', got: JSON.stringify(src), text: `${formatKey(path)}: invalid regular expression ${JSON.stringify(src)} (${reason})` });
        }
      });
    }
    const { min_ms: min, initial_ms: initial, max_ms: max } = cls;
    if (typeof min === 'number' && typeof max === 'number' && min > max) {
      const path = ['revisit', 'classes', i, 'min_ms'];
      out.push({ path, key: formatKey(path), expected: `at most max_ms (${max})`, got: String(min), text: `${formatKey(path)}: must not exceed max_ms (${max}), got ${min}` });
    } else if (typeof initial === 'number' && ((typeof min === 'number' && initial < min) || (typeof max === 'number' && initial > max))) {
      const path = ['revisit', 'classes', i, 'initial_ms'];
      out.push({ path, key: formatKey(path), expected: 'between min_ms and max_ms', got: String(initial), text: `${formatKey(path)}: must lie between min_ms (${String(min)}) and max_ms (${String(max)}), got ${initial}` });
    }
  });
  return out;
}

/** Validates topic data: the parsed topic (defaults applied) when there are no issues. */
export function validateTopic(data: unknown): { topic: Topic; issues: [] } | { topic?: undefined; issues: TopicIssue[] } {
  const parsed = TopicSchema.safeParse(data);
  const issues = [...(parsed.success ? [] : issuesFromZod(parsed.error.issues, data)), ...semanticIssues(data)];
  if (parsed.success && issues.length === 0) return { topic: parsed.data, issues: [] };
  return { issues };
}
