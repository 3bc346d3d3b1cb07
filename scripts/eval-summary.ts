import type { EvalResults } from '../src/eval/eval-types.js';

/**
 * The per-strategy summary of one set of eval-figures.ts: mean harvest at the budget and auc over the
 * topics, the share of the oracle per topic (its mean, and the worst topic), × breadth-first (of the
 * mean harvests) and CPU milliseconds per fetched page (all the set's crawls of the strategy: total
 * CPU ÷ total pages; process-wide CPU, so the in-process corpus server is included).
 */
export interface StrategySummary {
  name: string;
  harvest: number;
  auc: number;
  /** Mean over the topics of harvest ÷ the oracle's harvest on that topic; null without the oracle (or when it harvested nothing). */
  oracle_share: number | null;
  /** The topic with the lowest share of the oracle (without the oracle: the lowest harvest), its harvest and share. */
  worst: { topic: string; harvest: number; oracle_share: number | null };
  /** Mean harvest ÷ breadth-first's mean harvest; null without breadth-first (or when it harvested nothing). */
  vs_breadth_first: number | null;
  /** CPU ms per fetched page; null when the results carry no CPU time. */
  cpu_ms_per_page: number | null;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The summary of every strategy of `results` (topics of one set, each run on the same strategies). */
export function summarizeSet(results: readonly EvalResults[]): StrategySummary[] {
  if (results.length === 0) return [];
  const names = Object.keys(results[0].strategies);
  const meanOf = (name: string, key: 'harvest_rate' | 'auc') => mean(results.map((r) => r.strategies[name]?.[key] ?? 0));
  const hasOracle = names.includes('oracle') && results.every((r) => (r.strategies.oracle?.harvest_rate ?? 0) > 0);
  const bfs = names.includes('breadth-first') ? meanOf('breadth-first', 'harvest_rate') : 0;
  return names.map((name) => {
    const perTopic = results.map((r) => {
      const harvest = r.strategies[name].harvest_rate;
      return { topic: r.topic, harvest, oracle_share: hasOracle ? harvest / r.strategies.oracle.harvest_rate : null };
    });
    const worst = perTopic.reduce((w, t) => ((t.oracle_share ?? t.harvest) < (w.oracle_share ?? w.harvest) ? t : w));
    const runs = results.map((r) => r.strategies[name]);
    const fetched = runs.reduce((a, s) => a + s.fetched, 0);
    const cpu = runs.every((s) => typeof s.cpu_s === 'number') && fetched > 0 ? (runs.reduce((a, s) => a + s.cpu_s!, 0) * 1000) / fetched : null;
    const harvest = meanOf(name, 'harvest_rate');
    return {
      name, harvest, auc: meanOf(name, 'auc'),
      oracle_share: hasOracle ? mean(perTopic.map((t) => t.oracle_share!)) : null,
      worst, vs_breadth_first: bfs > 0 ? harvest / bfs : null, cpu_ms_per_page: cpu,
    };
  });
}

const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(0)}%`);

/** The summary as a markdown table. */
export function summaryTable(rows: readonly StrategySummary[]): string {
  const lines = [
    '| strategy | harvest (mean) | auc (mean) | % of oracle (mean of topics) | worst topic: harvest (% of oracle) | × breadth-first | CPU ms / page |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const s of rows) {
    lines.push(`| ${s.name} | ${s.harvest.toFixed(3)} | ${s.auc.toFixed(2)} | ${pct(s.oracle_share)} | ${s.worst.topic}: ${s.worst.harvest.toFixed(3)} (${pct(s.worst.oracle_share)}) | ` +
      `${s.vs_breadth_first === null ? '-' : `×${s.vs_breadth_first.toFixed(2)}`} | ${s.cpu_ms_per_page === null ? '-' : s.cpu_ms_per_page.toFixed(2)} |`);
  }
  return lines.join('\n');
}
