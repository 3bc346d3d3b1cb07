/**
 * Labelled pages for training a classifier (`topicrawl train`): the pages of a corpus (its site/
 * files; relevant = its labels.tsv row has the label) and/or example files named in the topic
 * (`training.examples`). Each page is decoded (charset from BOM or <meta>) and parsed with the
 * crawler's own parser, so training sees pages exactly as the crawl will.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TopicrawlError } from '../errors.js';
import { decodeHtml } from '../fetch/charset.js';
import { Parse5Parser } from '../parse/html-parser.js';
import type { FeatureDoc } from '../relevance/text-features.js';
import { loadCorpus } from './corpus.js';
import { contentTypeFor, targetToRelativePath } from './corpus-server.js';

/** One labelled page, parsed. */
export interface TrainingPage {
  /** The page's URL (corpus pages, examples with `url`), else the file's file: URL. */
  url: string;
  file: string;
  relevant: boolean;
  doc: FeatureDoc;
}

export interface TrainingExample {
  file: string;
  relevant: boolean;
  url?: string;
}

/** Where the pages come from; paths as given (callers resolve them). */
export interface TrainingSource {
  corpus?: string;
  /** Required with `corpus`. */
  label?: string;
  examples?: readonly TrainingExample[];
}

export interface TrainingSet {
  pages: TrainingPage[];
  /** Corpus rows left out (no file under site/, not HTML), with the reason. */
  skipped: { url: string; reason: string }[];
}

/** Parses one HTML file into a feature document. */
function parsePage(parser: Parse5Parser, bytes: Buffer, url: string, featureUrl: string): FeatureDoc {
  const page = parser.parse(decodeHtml(bytes, 'text/html').text, url);
  return { url: featureUrl, title: page.title, headings: page.headings, body: page.text };
}

/** The file under `<corpus>/site/` that serves a URL, or null if the URL cannot map to one. */
export function corpusFileOf(corpusDir: string, url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const rel = targetToRelativePath(u.pathname);
  return rel === null ? null : join(corpusDir, 'site', u.hostname.toLowerCase(), rel);
}

/**
 * Reads the labelled pages. Errors: E_CORPUS (corpus unreadable), E_CONFIG (label unknown to the
 * corpus, corpus without label, an example file unreadable), each one line naming the file.
 */
export function loadTrainingSet(source: TrainingSource): TrainingSet {
  const parser = new Parse5Parser();
  const pages: TrainingPage[] = [];
  const skipped: TrainingSet['skipped'] = [];
  if (source.corpus !== undefined) {
    const corpus = loadCorpus(source.corpus);
    const label = source.label;
    if (label === undefined) throw new TopicrawlError('E_CONFIG', `${source.corpus}: name the label that marks relevant pages (--label, training.label or evaluation.label)`);
    if (!Object.hasOwn(corpus.meta.labels, label)) {
      throw new TopicrawlError('E_CONFIG', `${source.corpus}: label ${JSON.stringify(label)} is not a label of the corpus (labels: ${Object.keys(corpus.meta.labels).join(', ')})`, { file: source.corpus });
    }
    for (const [url, labels] of corpus.labels) {
      const file = corpusFileOf(source.corpus, url);
      if (file === null) {
        skipped.push({ url, reason: 'URL does not map to a file' });
        continue;
      }
      if (!contentTypeFor(file).startsWith('text/html')) {
        skipped.push({ url, reason: 'not HTML' });
        continue;
      }
      let bytes: Buffer;
      try {
        bytes = readFileSync(file);
      } catch {
        skipped.push({ url, reason: 'no file under site/' });
        continue;
      }
      pages.push({ url, file, relevant: labels.includes(label), doc: parsePage(parser, bytes, url, url) });
    }
  }
  for (const e of source.examples ?? []) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(e.file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new TopicrawlError('E_CONFIG', `${e.file}: cannot read the training example (${code === 'ENOENT' ? 'no such file' : (code ?? (err as Error).message)})`, { file: e.file }, { cause: err });
    }
    const url = e.url ?? pathToFileURL(e.file).href;
    pages.push({ url, file: e.file, relevant: e.relevant, doc: parsePage(parser, bytes, url, e.url ?? '') });
  }
  return { pages, skipped };
}
