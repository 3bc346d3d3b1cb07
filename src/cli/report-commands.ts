import { TopicrawlError } from '../errors.js';
import { crawlTotals, exportRows, pagesByLanguage, revisitTotals, statusByHost, type RevisitFigures } from '../store/crawl-report.js';
import { crawlLabel, openCrawl } from '../store/segments.js';
import { feedbackWhen, table } from './format.js';
import { feedbackTermsLine } from '../crawl/relevance-feedback.js';

/** One crawl file, or several (the segments of a distributed crawl) or folders of them. */
export type CrawlArg = string | readonly string[];

const asList = (db: CrawlArg): readonly string[] => (typeof db === 'string' ? [db] : db);

/**
 * `topicrawl stats <db..>`: totals, status counts per host, estimated harvest, frontier, discovery
 * rate; of one crawl file, or of a distributed crawl's segments merged (store/segments.ts).
 */
export function runStats(args: { db: CrawlArg; json?: boolean }, out: { log: (s: string) => void }): void {
  const crawl = openCrawl(asList(args.db));
  const db = crawl.db;
  try {
    const t = crawlTotals(db);
    const hosts = statusByHost(db);
    const revisit = revisitTotals(db);
    const languages = pagesByLanguage(db);
    if (args.json) {
      const segments = crawl.paths.length > 1 ? { crawl: { id: crawl.crawlId, segments: crawl.paths, workers: crawl.workers } } : {};
      out.log(JSON.stringify({ totals: t, languages, hosts, ...(revisit ? { revisit } : {}), ...segments }, null, 2));
      return;
    }
    const d = t.duplicates;
    const langs = Object.entries(languages);
    const spanS = t.firstFetchAt && t.lastFetchAt ? (t.lastFetchAt - t.firstFetchAt) / 1000 : 0;
    out.log(
      [
        crawl.paths.length === 1 ? `crawl file         ${crawl.paths[0]}` : `crawl              ${crawlLabel(crawl)}`,
        ...(crawl.paths.length > 1 ? [`workers            ${crawl.workers.join(', ')}`] : []),
        `topic              ${t.topic ?? '?'} (strategy ${t.strategy ?? '?'}, created ${t.createdAt ?? '?'})`,
        `pages fetched      ${t.fetched} (${t.failed} without a response)${spanS > 0 ? `, over ${spanS.toFixed(1)} s` : ''}`,
        `estimated harvest  ${(t.harvest * 100).toFixed(1)}% (${t.relevant} relevant of ${t.fetched})`,
        `duplicates         ${d.exact + d.near} (${d.exact} exact, ${d.near} near-duplicates); ${d.relevant} of them scored relevant, not counted in the harvest`,
        `languages          ${langs.length ? langs.map(([l, n]) => `${l} ${n}`).join(', ') : '-'} (pages fetched with a 2xx answer; und: not told)`,
        `errors             ${t.errors} (pages whose outcome carries an error code, plus hosts suspended because their robots.txt could not be fetched)`,
        `frontier           ${t.queued} queued, ${t.pruned} pruned by Fish life, ${t.skipped} skipped (robots/scope)`,
        `known URLs         ${t.known} on ${t.hosts} hosts, ${t.links} links`,
        `discovery rate     ${t.discoveryRate.toFixed(2)} new URLs per fetched page`,
        `bytes              ${t.bytes} fetched, ${t.storedBytes} stored (compressed)`,
        ...(t.suspendedHosts.length ? [`suspended hosts    ${t.suspendedHosts.join(', ')} (repeated failures; their URLs stay queued)`] : []),
        ...(t.feedback ? [`feedback terms     ${feedbackTermsLine(t.feedback)} (${feedbackWhen(t.feedback)})`] : []),
        ...(revisit ? revisitLines(revisit) : []),
        '',
        table(
          ['host', 'fetched', 'queued', 'statuses'],
          hosts.map((h) => [h.host, h.fetched, h.queued, Object.entries(h.statuses).map(([k, n]) => `${k}:${n}`).join(' ')]),
        ),
      ].join('\n'),
    );
  } finally {
    crawl.close();
  }
}

/** The revisit lines of `stats` (see revisitTotals). */
function revisitLines(r: RevisitFigures): string[] {
  return [
    `revisit            ${r.scheduled} pages scheduled, ${r.dueNow} due now, ${r.deleted} deleted`,
    `revisit checks     ${r.checks} (${r.changed} changed, ${r.unchanged} unchanged, ${r.notModified} not modified, ${r.failed} failed)`,
    `changes per day    ${r.changesPerDay === null ? '-' : r.changesPerDay.toFixed(2)} (last 7 days of checks)`,
    `304 responses      ${(r.notModifiedShare * 100).toFixed(1)}% of checks, ${r.bytesSaved} bytes saved`,
  ];
}

/**
 * `topicrawl export <db..> --format jsonl`: one line per fetched page, in fetch order (of a
 * distributed crawl's segments: each page once, in order of fetch time over all workers).
 */
export function runExport(args: { db: CrawlArg; format: string }, write: (s: string) => void): number {
  if (args.format !== 'jsonl') throw new TopicrawlError('E_USAGE', `--format ${args.format}: only jsonl is supported`);
  const crawl = openCrawl(asList(args.db));
  let n = 0;
  try {
    for (const r of exportRows(crawl.db)) {
      write(`${JSON.stringify(r)}\n`);
      n++;
    }
  } finally {
    crawl.close();
  }
  return n;
}
