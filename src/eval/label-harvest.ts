import type Database from 'better-sqlite3';
import { recordedUrls } from '../store/url-report.js';
import { tryNormalizeUrl } from '../url/normalize.js';

export interface LabelHarvest {
  label: string;
  fetched: number;
  relevant: number;
  harvestRate: number;
  relevantInCorpus: number;
  /** Pages listed in the labels file. */
  corpusPages: number;
  targetRecall: number;
}

/**
 * Harvest rate of a crawl measured against ground-truth labels (DESIGN.md): relevant pages fetched
 * / pages fetched, and target recall = relevant pages fetched / relevant pages in the corpus. A
 * page is relevant when its labels include `label` and it duplicates no page fetched before it
 * (exact or near: a copy is no new relevant page). URLs are compared in normalised form. `db` is a
 * crawl file or the merged view of a crawl's segments (store/segments.ts: openCrawl).
 */
export function labelHarvest(db: Database.Database, labels: Map<string, string[]>, label: string): LabelHarvest {
  const truth = new Set<string>();
  for (const [url, ls] of labels) {
    if (ls.includes(label)) truth.add(tryNormalizeUrl(url) ?? url);
  }
  let fetched = 0;
  let relevant = 0;
  for (const { url, dup } of recordedUrls(db)) {
    fetched++;
    if (truth.has(url) && !dup) relevant++;
  }
  return {
    label, fetched, relevant, harvestRate: fetched ? relevant / fetched : 0, relevantInCorpus: truth.size, corpusPages: labels.size,
    targetRecall: truth.size ? relevant / truth.size : 0,
  };
}
