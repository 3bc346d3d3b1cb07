/**
 * What `topicrawl eval` measures and writes (results.json, exactly this shape), and what the HTML
 * report (report.html, next to it) is drawn from.
 *
 * - harvest rate after n fetches = relevant pages among the first n fetched / n;
 * - target recall after n fetches = relevant pages among the first n fetched / relevant pages in the corpus;
 * - a page is relevant when its labels (the corpus's labels.tsv) include the evaluation label;
 * - `auc` = the mean harvest rate over n = 1 … fetched (the area under the harvest curve, divided
 *   by the number of fetches), so 1 means every fetch was relevant from the first;
 * - `curve` = [n, harvest rate after n] at n = 1 and then at regular steps (at most ~200 points),
 *   always ending at n = fetched.
 */
export interface EvalResults {
  /** The corpus's name (corpus.json). */
  corpus: string;
  /** The topic's name. */
  topic: string;
  /** The corpus label that marks a page as on-topic. */
  label: string;
  /** Pages fetched per strategy at most. */
  budget: number;
  /** Pages of the corpus that carry the label. */
  relevant_in_corpus: number;
  /** Requests in flight in every crawl (`--concurrency`, default 1). Absent in files written before it existed: 1. */
  concurrency?: number;
  /** Requests in flight per host: the topic's `politeness.per_host_concurrency`, at most `concurrency`. */
  per_host_concurrency?: number;
  /** One entry per strategy, in the order they were run. */
  strategies: Record<string, StrategyResult>;
}

export interface StrategyResult {
  fetched: number;
  relevant: number;
  harvest_rate: number;
  target_recall: number;
  auc: number;
  curve: [number, number][];
  wall_s: number;
  /**
   * CPU seconds the whole process used during the crawl and its measuring (process.cpuUsage, user +
   * system: every thread, so page analysis in worker threads too, and the corpus server, which
   * runs in the same process). Absent in files written before it existed.
   */
  cpu_s?: number;
}

/** What the report shows besides the results: the topic and the settings used. */
export interface ReportMeta {
  /** topic file path as given */
  topicFile: string;
  corpusDir: string;
  description: string;
  seeds: string[];
  /** the topic's strategy block (name, x, y, z, max_life, …) after defaults and overrides */
  strategy: Record<string, unknown>;
  /** relevance threshold and field weights */
  relevance: { threshold: number; fields: Record<string, number> };
  /** keyword → weight */
  keywords: Record<string, number>;
  /** location tokens → weight */
  locationTokens: Record<string, number>;
  /** ISO time the evaluation ran */
  generatedAt: string;
}
