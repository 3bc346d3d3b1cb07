import type Database from 'better-sqlite3';
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
 * page is relevant when its labels include `label`. URLs are compared in normalised form.
 */
export function labelHarvest(db: Database.Database, labels: Map<string, string[]>, label: string): LabelHarvest {
  const truth = new Set<string>();
  for (const [url, ls] of labels) {
    if (ls.includes(label)) truth.add(tryNormalizeUrl(url) ?? url);
  }
  let fetched = 0;
  let relevant = 0;
  for (const r of db.prepare('SELECT url FROM urls WHERE fetch_seq IS NOT NULL').iterate() as IterableIterator<{ url: string }>) {
    fetched++;
    if (truth.has(r.url)) relevant++;
  }
  return {
    label, fetched, relevant, harvestRate: fetched ? relevant / fetched : 0, relevantInCorpus: truth.size, corpusPages: labels.size,
    targetRecall: truth.size ? relevant / truth.size : 0,
  };
}
