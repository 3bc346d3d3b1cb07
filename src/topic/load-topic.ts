import { readFileSync } from 'node:fs';
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Document, type YAMLMap } from 'yaml';
import { TopicrawlError, type ErrorCode } from '../errors.js';
import type { Topic } from './topic-schema.js';
import { typosFirst, validateTopic, type TopicIssue, type TopicPath } from './topic-issues.js';
import { findDuplicateKeys } from './duplicate-keys.js';
import { topicEncodingProblem } from './topic-encoding.js';

/**
 * Reading a topic file: YAML → validated {@link Topic} (defaults applied). Every failure is a
 * `TopicrawlError` with a one-line message `file:line:col: what is wrong` and
 * `details = { file, key, expected, got, line, column, issues }`, where `issues` lists every
 * problem found (the message reports the first).
 */

/** One reported issue with its place in the file (line/column 1-based, absent when unknown). */
export interface LocatedIssue {
  key: string;
  expected: string;
  got?: string;
  line?: number;
  column?: number;
  message: string;
}

const READ_REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a parent is not a directory',
};

function located(file: string, line?: number, column?: number): string {
  return line === undefined ? file : `${file}:${line}:${column ?? 1}`;
}

function raise(code: ErrorCode, file: string, issues: LocatedIssue[], cause?: unknown): never {
  const first = issues[0];
  throw new TopicrawlError(code, first.message, {
    file, key: first.key, expected: first.expected, got: first.got, line: first.line, column: first.column, issues,
  }, { cause });
}

type YamlPair = YAMLMap['items'][number];

/** Pairs of a mapping by key, built once per mapping (a topic may have 60,000 keywords, each with an issue). */
const pairIndex = new WeakMap<YAMLMap, Map<string, YamlPair>>();

function pairAt(map: YAMLMap, key: string): YamlPair | undefined {
  let index = pairIndex.get(map);
  if (!index) {
    index = new Map();
    for (const p of map.items) {
      const k = String(isScalar(p.key) ? p.key.value : p.key);
      if (!index.has(k)) index.set(k, p);
    }
    pairIndex.set(map, index);
  }
  return index.get(key);
}

/** Offset in the source of the node at `path` (its key when `atKey`), or of the deepest node that exists. */
function offsetOf(doc: Document, path: TopicPath, atKey: boolean): number | undefined {
  let node: unknown = doc.contents;
  let keyOffset: number | undefined;
  let best: number | undefined = (node as { range?: number[] } | null)?.range?.[0];
  for (const seg of path) {
    keyOffset = undefined;
    if (isMap(node)) {
      const pair = pairAt(node, String(seg));
      if (!pair) return best;
      keyOffset = (pair.key as { range?: number[] } | null)?.range?.[0];
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      node = node.items[seg];
    } else {
      return best;
    }
    const own = (node as { range?: number[] } | null)?.range?.[0];
    best = own ?? keyOffset ?? best;
  }
  return atKey && keyOffset !== undefined ? keyOffset : best;
}

function locate(file: string, doc: Document, lc: LineCounter, issue: TopicIssue): LocatedIssue & { offset: number } {
  const offset = issue.missing ? undefined : offsetOf(doc, issue.path, issue.atKey === true);
  const pos = offset === undefined ? undefined : lc.linePos(offset);
  return {
    key: issue.key, expected: issue.expected, got: issue.got, line: pos?.line, column: pos?.col,
    message: `${located(file, pos?.line, pos?.col)}: ${issue.text}`, offset: offset ?? -1,
  };
}

/** Parses and validates topic YAML from a string; `file` names it in messages. */
export function parseTopicText(text: string, file: string): Topic {
  const lc = new LineCounter();
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  // uniqueKeys: the library's check is quadratic in a mapping's size; findDuplicateKeys is linear
  const doc = parseDocument(source, { lineCounter: lc, uniqueKeys: false, prettyErrors: true });
  const duplicates = findDuplicateKeys(doc);
  if (doc.errors.length > 0 || duplicates.length > 0) {
    const issues = doc.errors.map((e): LocatedIssue & { offset: number } => {
      const pos = e.linePos?.[0] ?? lc.linePos(e.pos[0]);
      const what = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?\s*$/, '');
      return { key: '', expected: 'valid YAML', line: pos.line, column: pos.col, message: `${located(file, pos.line, pos.col)}: YAML syntax error: ${what}`, offset: e.pos[0] };
    });
    for (const d of duplicates) {
      const pos = lc.linePos(d.offset);
      const first = lc.linePos(d.firstOffset).line;
      issues.push({
        key: d.key, expected: 'a key not defined before in its mapping', got: JSON.stringify(d.key), line: pos.line, column: pos.col, offset: d.offset,
        message: `${located(file, pos.line, pos.col)}: YAML syntax error: Map keys must be unique: ${JSON.stringify(d.key)} is defined at line ${first} already`,
      });
    }
    issues.sort((a, b) => a.offset - b.offset);
    raise('E_TOPIC_YAML', file, issues.map(({ offset: _offset, ...rest }) => rest));
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    raise('E_TOPIC_YAML', file, [{ key: '', expected: 'valid YAML', message: `${file}: YAML error: ${(err as Error).message.split('\n')[0]}` }], err);
  }
  if (data === null || data === undefined) {
    raise('E_TOPIC_SCHEMA', file, [{ key: '', expected: 'a mapping with at least name and seeds', message: `${file}: the topic file is empty (expected a mapping with at least "name" and "seeds")` }]);
  }
  const result = validateTopic(data);
  if (result.topic) return result.topic;
  const issues = result.issues.map((issue) => ({ ...locate(file, doc, lc, issue), issue }));
  issues.sort((a, b) => a.offset - b.offset); // stable: missing keys (no place) first, then by position
  raise('E_TOPIC_SCHEMA', file, typosFirst(issues, (i) => i.issue).map(({ offset: _offset, issue: _issue, ...rest }) => rest));
}

/** Reads, parses and validates a topic file (see the module comment for errors). */
export function loadTopicFile(path: string): Topic {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    const reason = READ_REASONS[code] ?? (err as Error).message;
    const message = `${path}: cannot read topic file (${reason})`;
    throw new TopicrawlError('E_TOPIC_READ', message, {
      file: path, key: undefined, expected: 'a readable YAML file', line: undefined, column: undefined, errno: code,
      issues: [{ key: '', expected: 'a readable YAML file', message }],
    }, { cause: err });
  }
  const bad = topicEncodingProblem(bytes);
  if (bad) {
    const expected = 'UTF-8 text';
    const message = `${located(path, bad.line, bad.column)}: cannot read topic file (${bad.reason}; expected ${expected}: save it as UTF-8)`;
    throw new TopicrawlError('E_TOPIC_READ', message, {
      file: path, key: undefined, expected, line: bad.line, column: bad.column,
      issues: [{ key: '', expected, line: bad.line, column: bad.column, message }],
    });
  }
  return parseTopicText(bytes.toString('utf8'), path);
}
