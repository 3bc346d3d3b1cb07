import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { TopicrawlError } from '../errors.js';

/**
 * A labelled corpus on disk (format in DESIGN.md, "Corpora and evaluation"): `corpus.json`,
 * `site/<host>/…` and `labels.tsv`. Loading validates all three and throws `E_CORPUS` with a
 * one-line message naming the file and the problem.
 */
export interface Corpus {
  /** The corpus folder as given. */
  dir: string;
  meta: CorpusMeta;
  /** Folder names under site/, sorted. Each is a host name the corpus server answers. */
  hosts: string[];
  /** URL → labels (possibly empty), one entry per row of labels.tsv. */
  labels: Map<string, string[]>;
}

/** The contents of corpus.json. */
export interface CorpusMeta {
  name: string;
  description: string;
  license: string;
  seeds: string[];
  /** label → what it means */
  labels: Record<string, string>;
}

const httpUrl = z.string().refine((s) => {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}, 'expected an http(s) URL');

const MetaSchema = z.object({
  name: z.string().min(1),
  description: z.string(),
  license: z.string().min(1),
  seeds: z.array(httpUrl).min(1),
  labels: z.record(z.string().regex(/^[^\s,]+$/, 'a label has no spaces or commas'), z.string()),
});

const HOST_RE = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

function fail(message: string, details: Record<string, unknown>, cause?: unknown): never {
  throw new TopicrawlError('E_CORPUS', message, details, cause === undefined ? undefined : { cause });
}

/** Host folder names under `<dir>/site/`, sorted; throws E_CORPUS if site/ is missing or a name is not a host name. */
export function listCorpusHosts(dir: string): string[] {
  const site = join(dir, 'site');
  let names: string[];
  try {
    names = readdirSync(site, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch (err) {
    fail(`${site}: cannot read the site folder (${(err as Error).message})`, { file: site }, err);
  }
  for (const name of names) {
    if (!HOST_RE.test(name)) fail(`${join(site, name)}: folder name is not a lower-case host name`, { file: join(site, name) });
  }
  return names.sort();
}

function readMeta(dir: string): CorpusMeta {
  const file = join(dir, 'corpus.json');
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (err) {
    fail(`${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { file }, err);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    fail(`${file}: not valid JSON (${(err as Error).message})`, { file }, err);
  }
  const parsed = MetaSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue.path.length > 0 ? issue.path.join('.') : '(top level)';
    fail(`${file}: ${at}: ${issue.message}`, { file, key: at });
  }
  return parsed.data;
}

function readLabels(dir: string, declared: Record<string, string>): Map<string, string[]> {
  const file = join(dir, 'labels.tsv');
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (err) {
    fail(`${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { file }, err);
  }
  const lines = raw.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines[0] !== 'url\tlabels') fail(`${file}:1: header must be "url<TAB>labels"`, { file, line: 1 });
  const labels = new Map<string, string[]>();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const where = `${file}:${i + 1}`;
    if (line.trim() === '') continue;
    const cols = line.split('\t');
    if (cols.length !== 2) fail(`${where}: expected 2 tab-separated columns, got ${cols.length}`, { file, line: i + 1 });
    const [url, list] = cols;
    if (!httpUrl.safeParse(url).success) fail(`${where}: not an http(s) URL: ${JSON.stringify(url)}`, { file, line: i + 1 });
    if (labels.has(url)) fail(`${where}: duplicate URL ${url}`, { file, line: i + 1 });
    const ls = list.trim() === '' ? [] : list.split(',').map((s) => s.trim());
    for (const l of ls) {
      if (!Object.hasOwn(declared, l)) fail(`${where}: label ${JSON.stringify(l)} is not declared in corpus.json`, { file, line: i + 1 });
    }
    labels.set(url, ls);
  }
  return labels;
}

/** Reads and validates a corpus folder. Throws TopicrawlError('E_CORPUS') on any problem. */
export function loadCorpus(dir: string): Corpus {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) fail(`${dir}: corpus folder not found`, { file: dir });
  const meta = readMeta(dir);
  const hosts = listCorpusHosts(dir);
  const labels = readLabels(dir, meta.labels);
  return { dir, meta, hosts, labels };
}

/** The URLs that carry `label` (the ground truth "relevant" set for that label). */
export function relevantUrls(corpus: Corpus, label: string): Set<string> {
  const out = new Set<string>();
  for (const [url, ls] of corpus.labels) if (ls.includes(label)) out.add(url);
  return out;
}
