import { TopicrawlError } from '../errors.js';
import { Recrawler, storedConfig, type RecrawlSummary } from '../revisit/recrawl.js';
import { parseResolve } from './crawl-command.js';
import { openRecrawlWarc } from '../warc/warc-output.js';

/** The flags of `topicrawl recrawl`. */
export interface RecrawlArgs {
  db: string;
  /** DATE (ISO 8601 or anything Date.parse reads) or DURATION from now (90s, 30m, 12h, 7d, 2w). */
  until?: string;
  resolve?: string[];
  /** Reach only the hosts of `resolve` (no DNS lookup for any other). */
  mappedOnly?: boolean;
  json?: boolean;
  /** Write the checks as WARC records into this folder (revisit records for 304s and identical payloads). */
  warc?: string;
  warcMaxBytes?: number;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `--until`: a duration from `now` (e.g. 12h, 7d, 1.5d) or a date. E_USAGE when neither. */
export function parseUntil(text: string, now: number): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)\s*$/i.exec(text);
  if (m) return now + Number(m[1]) * UNIT_MS[m[2].toLowerCase()];
  if (/^\d{4}-\d{2}-\d{2}/.test(text.trim())) {
    const t = Date.parse(text);
    if (Number.isFinite(t)) return t;
  }
  throw new TopicrawlError('E_USAGE', `--until ${text}: expected a date (2026-01-31, 2026-01-31T18:00:00Z) or a duration (90s, 30m, 12h, 7d, 2w)`);
}

const when = (t: number | null) => (t === null ? 'none' : new Date(t).toISOString());

/** The summary of a recrawl pass, as lines for a terminal. */
export function formatRecrawlSummary(s: RecrawlSummary): string {
  return [
    `recrawl ${s.reason === 'signal' ? 'stopped (interrupted)' : 'finished'}: ${s.db}`,
    `  checked            ${s.checked} (${s.changed} changed, ${s.unchanged} unchanged, ${s.notModified} not modified (304), ${s.deleted} deleted, ${s.failed} failed)`,
    `  bytes              ${s.wireBytes} transferred, ${s.bytesSaved} saved by 304s`,
    `  new URLs queued    ${s.newUrls} (fetched by the next crawl)`,
    ...(s.robotsSkipped ? [`  robots.txt         ${s.robotsSkipped} due pages disallowed now (postponed)`] : []),
    ...(s.robotsUnavailable ? [`  robots.txt         ${s.robotsUnavailable} due pages of hosts whose robots.txt could not be fetched (retried soon)`] : []),
    ...(s.sitemapsRead ? [`  sitemaps           ${s.sitemapsRead} read; ${s.sitemapSignals} pages brought forward by their lastmod, ${s.sitemapConfirmed} found changed`] : []),
    `  scheduled          ${s.scheduled} pages (${s.enrolled} new this run), next due ${when(s.nextDueAt)}`,
  ].join('\n');
}

/**
 * `topicrawl recrawl <db>`: revisits the due pages of a crawl file with the configuration its crawl
 * recorded. Without --until: what is due now, then exits; with it: keeps going (sleeping until the
 * next page is due) until then. Ctrl-C stops after the checks in flight.
 */
export async function runRecrawl(args: RecrawlArgs, out: { log: (s: string) => void }): Promise<RecrawlSummary> {
  const until = args.until === undefined ? undefined : parseUntil(args.until, Date.now());
  const config = storedConfig(args.db);
  const warc = args.warc ? await openRecrawlWarc({ dir: args.warc, maxBytes: args.warcMaxBytes }, config, args.db, config.name) : null;
  let summary: RecrawlSummary;
  try {
    const rc = new Recrawler({ dbPath: args.db, config, resolve: parseResolve(args.resolve), mappedOnly: args.mappedOnly, hooks: warc ? [warc.hook] : undefined });
    const onSignal = () => rc.stop();
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      summary = await rc.runDue(until);
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await rc.close();
    }
  } finally {
    await warc?.close();
  }
  out.log(args.json ? JSON.stringify(summary, null, 2) : formatRecrawlSummary(summary));
  return summary;
}
