import type { CrawlSummary } from '../crawl/crawler.js';
import type { PipelineSummary } from '../crawl/pipeline-meter.js';
import type { LabelHarvest } from '../eval/label-harvest.js';
import { feedbackTermsLine, type FeedbackRecord } from '../crawl/relevance-feedback.js';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

const REASONS: Record<CrawlSummary['reason'], string> = {
  done: 'finished (nothing left to fetch)',
  'max-pages': 'finished (page budget reached)',
  'max-bytes': 'finished (byte budget reached)',
  signal: 'stopped (interrupted: run the same command to resume)',
  error: 'stopped by an error',
};

/** The final summary of a crawl, as lines for a terminal. */
export function formatSummary(s: CrawlSummary, truth?: LabelHarvest | null): string {
  const how = s.unreachable && s.reason === 'done' ? 'finished without reaching any host (their URLs stay queued)' : REASONS[s.reason];
  const lines = [
    `crawl ${how}: topic ${s.topic}, strategy ${s.strategy}${s.resumed ? ', resumed' : ''}`,
    `  db                 ${s.db}`,
    `  pages fetched      ${s.fetched} (${s.fetchedThisRun} in this run, ${s.pagesPerSec.toFixed(1)} pages/s, ${(s.elapsedMs / 1000).toFixed(1)} s)`,
    `  estimated harvest  ${pct(s.harvest)} (${s.relevant} pages at or above the relevance threshold, duplicates not counted)`,
  ];
  if (truth) {
    lines.push(
      `  harvest (labels)   ${pct(truth.harvestRate)} (${truth.relevant}/${truth.fetched} fetched pages labelled "${truth.label}")`,
      `  target recall      ${pct(truth.targetRecall)} (${truth.relevant}/${truth.relevantInCorpus} labelled pages in the corpus)`,
      `  corpus base rate   ${pct(truth.corpusPages ? truth.relevantInCorpus / truth.corpusPages : 0)} (what a crawl of every page would harvest)`,
    );
  }
  lines.push(
    `  errors             ${s.errors}`,
    `  frontier           ${s.frontier} queued, ${s.pruned} pruned by Fish life, ${s.known} URLs known`,
    `  discovery rate     ${s.discoveryRate.toFixed(2)} new URLs per page (last 100 pages)`,
    `  bytes              ${s.bytes}`,
  );
  if (s.pipeline) lines.push(`  pipeline           ${pipelineLine(s.pipeline)}`);
  if (s.suspendedHosts.length) lines.push(`  suspended hosts    ${s.suspendedHosts.join(', ')} (repeated failures; their URLs stay queued)`);
  if (s.feedback) lines.push(`  feedback terms     ${feedbackTermsLine(s.feedback)} (${feedbackWhen(s.feedback)})`);
  return lines.join('\n');
}

/**
 * How full the pipeline was and how busy its threads, for the summary: e.g. "5.9 of 16 pages in
 * flight on average (2.0 fetching, 3.9 at analysis); empty slots: 9.8 held for best-first order,
 * 0.0 for politeness, 0.3 nothing to fetch; busy: crawl thread 55%, analysis threads 84%; a page at
 * analysis: 3.7 ms queued, 0.8 ms analysed, 0.6 ms back to the crawl thread".
 */
export function pipelineLine(p: PipelineSummary): string {
  const n = (x: number) => x.toFixed(1);
  const busy = (x: number) => `${Math.round(x * 100)}%`;
  return `${n(p.meanInFlight)} of ${p.concurrency} pages in flight on average (${n(p.meanFetching)} fetching, ${n(p.meanAnalysing)} at analysis); ` +
    `empty slots: ${n(p.idleSlots.order)} held for best-first order, ${n(p.idleSlots.politeness)} for politeness, ${n(p.idleSlots.other)} nothing to fetch; ` +
    `busy: crawl thread ${busy(p.crawlThreadBusy)}${p.analysisThreadsBusy === null ? ' (analysis on it)' : `, analysis threads ${busy(p.analysisThreadsBusy)}`}` +
    (p.analysisWaits ? `; a page at analysis: ${n(p.analysisWaits.queuedMs)} ms queued, ${n(p.analysisWaits.analysingMs)} ms analysed, ${n(p.analysisWaits.returningMs)} ms back to the crawl thread` : '');
}

/** When relevance feedback's terms were chosen, for the summary and `stats`. */
export function feedbackWhen(r: FeedbackRecord): string {
  return `relevance.feedback: chosen from the first ${r.pages} scored pages, ${r.top} top and ${r.low} below the threshold; in force after page ${r.fetched}`;
}

/** A table with left-aligned first column and right-aligned others. */
export function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')).join('\n');
}
