import { TopicrawlError } from '../errors.js';
import { pageChangeRate } from '../revisit/revisit-policy.js';
import { revisitDetail, type RevisitDetail } from '../store/revisit-store.js';
import { crawlLabel, openCrawl, type OpenCrawl } from '../store/segments.js';
import { crawlUrl, explainPriority, storedConfig, type PriorityExplanation } from './explain-report.js';

/** How many anchors the text output lists (JSON lists them all). */
const MAX_ANCHORS_SHOWN = 20;

/** A number for people: at most 6 decimals, no trailing zeros. */
function num(v: number | null): string {
  if (v === null) return '-';
  return Number.isInteger(v) ? String(v) : v.toFixed(6).replace(/\.?0+$/, '');
}

function relevanceText(relevance: number | null, relevant: boolean | null): string {
  if (relevance === null) return 'not scored';
  return `${num(relevance)}, ${relevant ? 'relevant' : 'not relevant'}`;
}

/** The explanation as lines for a terminal. */
export function formatExplanation(e: PriorityExplanation): string {
  const row = (k: string, v: string) => `${k.padEnd(16)} ${v}`;
  const lines = [
    row('url', e.url + (e.input.trim() !== e.url ? `  (given as ${e.input.trim()})` : '')),
    row('id', String(e.id)),
    row('state', e.state),
    row('depth', String(e.depth)),
    row('priority', `${num(e.priority)} (now)`),
  ];
  if (e.fetchSeq !== null) {
    lines.push(
      row('fetch priority', `${num(e.fetchPriority)} (fetched as #${e.fetchSeq}, HTTP ${e.status ?? '-'})`),
      row('relevance', relevanceText(e.relevance, e.relevant)),
    );
  }
  // what was recorded with its outcome (a skipped URL has one too, without a fetch)
  if (e.error !== null) lines.push(row('error', e.error));
  if (e.note !== null) lines.push(row('note', e.note));
  lines.push(
    row('life', `${e.life} (max_life ${e.maxLife})`),
    row('inlinks', `${e.inlinks} (fetched pages that linked here while it was queued), inlink_score ${num(e.inlinkScore)}`),
  );
  if (e.hops > 0) lines.push(row('redirect hops', String(e.hops)));
  lines.push(row('parent', e.parent ? `${e.parent.url} (relevance ${relevanceText(e.parent.relevance, e.parent.relevant)})` : 'none (a seed or sitemap URL)'));
  lines.push(row('anchors', e.anchors.length === 0 ? 'none' : `${e.anchors.length} link${e.anchors.length > 1 ? 's' : ''} to this URL`));
  for (const a of e.anchors.slice(0, MAX_ANCHORS_SHOWN)) lines.push(`  ${JSON.stringify(a.anchor)} from ${a.fromUrl}`);
  if (e.anchors.length > MAX_ANCHORS_SHOWN) lines.push(`  … ${e.anchors.length - MAX_ANCHORS_SHOWN} more (--json lists all)`);

  const i = e.importance;
  const term = (name: string, v: number, w: string, wv: number, why: string) =>
    `  ${name.padEnd(4)} ${num(v).padEnd(8)}  × ${w} ${num(wv).padEnd(8)} = ${num(v * wv).padEnd(8)}  ${why}`;
  lines.push(
    '',
    'I(p) = x·IB + y·IL + z·ID, recomputed from the stored configuration:',
    term('IB', i.ib, 'x', i.x, `best backlink evidence, inlink_score ${num(e.inlinkScore)}`),
    term('IL', i.il, 'y', i.y, 'Location Metric of the URL'),
    term('ID', i.id, 'z', i.z, `1/(1+depth), depth ${i.idDepth}`),
    ...(i.factor !== 1 ? [`  I(p) ${num(i.sum).padEnd(8)}  × directory yield factor ${num(i.factor)} = ${num(i.sum * i.factor)}`] : []),
    `  ${i.factor !== 1 ? 'prio' : 'I(p)'} ${num(i.sum * i.factor).padEnd(8)}  ${i.matchesStored ? '= the stored priority' : `≠ the stored priority ${num(e.priority)}`}`,
  );
  if (i.note) lines.push(`  note: ${i.note}`);

  const s = e.strategy;
  lines.push('');
  if (s.error) lines.push(`strategy ${s.name}: ${s.error}`);
  else if (!s.hasExplain) lines.push(`strategy ${s.name}: no per-URL figures beyond I(p) and life`);
  else if (!s.figures) lines.push(`strategy ${s.name} (after replaying ${s.replayedPages} fetched pages): nothing known about this URL`);
  else {
    lines.push(`strategy ${s.name} (after replaying ${s.replayedPages} fetched pages):`);
    const width = Math.max(...Object.keys(s.figures).map((k) => k.length));
    for (const [k, v] of Object.entries(s.figures)) lines.push(`  ${k.padEnd(width)}  ${typeof v === 'number' ? num(v) : v}`);
  }
  return lines.join('\n');
}

/** A page's revisit state as `explain --json` gives it: the stored row and checks, and λ̂. */
export type RevisitExplanation = RevisitDetail & { rate: number | null };

const iso = (ms: number) => new Date(ms).toISOString();

/** The revisit section of `explain` (a page in revisit scheduling) as lines. */
export function formatRevisit(r: RevisitExplanation): string {
  const row = (k: string, v: string) => `  ${k.padEnd(14)} ${v}`;
  const days = (ms: number) => num(Math.round((ms / 86_400_000) * 100) / 100);
  const a = r.ages;
  const source = a && (a.changes > 0 || a.unchangedMs > 0)
    ? `from Last-Modified: ${a.changes} change${a.changes === 1 ? '' : 's'} aged ${days(a.ageMs)} days in all, ${days(a.unchangedMs)} days watched unchanged`
    : `from the checks over ${days(r.lastCheckAt - r.firstCheckAt)} days${a ? '' : ' (Last-Modified not believed)'}`;
  const lines = [
    `revisit (class ${r.cls}):`,
    row('checks', `${r.checks} compared with the stored copy (${r.changes} found a change)`),
    ...(r.rate === null ? [] : [row('change rate', `λ̂ ${num(r.rate)} changes/day, ${source}`)]),
    row(r.deletedAt === null ? 'next due' : 'deleted', iso(r.deletedAt ?? r.nextAt)),
    row('last check', r.checks > 0 ? iso(r.lastCheckAt) : `none (copy fetched ${iso(r.firstCheckAt)})`),
    row('validators', [r.etag ? `ETag ${r.etag}` : '', r.lastModified ? `Last-Modified ${r.lastModified}` : ''].filter(Boolean).join(', ') || 'none'),
  ];
  if (r.failures > 0) lines.push(row('failures', `${r.failures} in a row`));
  if (r.recent.length > 0) {
    lines.push(row('latest checks', r.totalChecks > r.recent.length ? `${r.recent.length} of ${r.totalChecks} recorded, newest first` : 'newest first'));
    for (const c of r.recent) {
      const saved = c.savedBytes > 0 ? `, ${c.savedBytes} saved` : '';
      lines.push(`    ${iso(c.at)}  ${String(c.status || '-').padEnd(3)} ${c.outcome.padEnd(12)} ${c.wireBytes} bytes${saved}`);
    }
  }
  return lines.join('\n');
}

/**
 * Opens a crawl file (or a distributed crawl's segments, merged) read-only; a missing or foreign
 * file is a usage error (exit 2).
 */
function openCrawlFiles(db: string | readonly string[]): OpenCrawl {
  const paths = typeof db === 'string' ? [db] : db;
  try {
    return openCrawl(paths);
  } catch (err) {
    throw asUsage(err, paths.length === 1 ? paths[0] : '');
  }
}

/** The database or the URL argument is wrong: tell the user in one line, exit code 2. */
function asUsage(err: unknown, db: string): unknown {
  if (err instanceof TopicrawlError && (err.code === 'E_STORE' || err.code === 'E_INVALID_URL')) {
    const msg = err.message.startsWith(db) ? err.message : `${db}: ${err.message}`; // db '': the message names its file
    return new TopicrawlError('E_USAGE', msg, { ...err.details, cause: err.code }, { cause: err });
  }
  return err;
}

/**
 * `topicrawl explain <db..> <url> [--json]`: why a URL has its priority, and its revisit state if it
 * has one; `db` is a crawl file, or the segments of a distributed crawl (files or folders).
 */
export function runExplain(args: { db: string | readonly string[]; url: string; json?: boolean }, out: { log: (s: string) => void }): void {
  const crawl = openCrawlFiles(args.db);
  const db = crawl.db;
  const label = crawlLabel(crawl);
  try {
    let e: PriorityExplanation | null;
    try {
      e = explainPriority(db, args.url);
    } catch (err) {
      throw asUsage(err, label);
    }
    if (!e) {
      const url = crawlUrl(storedConfig(db), args.url);
      const shown = url === args.url.trim() ? url : `${args.url.trim()} (normalised: ${url})`;
      throw new TopicrawlError('E_USAGE', `${shown}: not known to the crawl in ${label}`, { db: args.db, url });
    }
    const detail = revisitDetail(db, e.id);
    const revisit: RevisitExplanation | null = detail && { ...detail, rate: detail.checks > 0 ? pageChangeRate(detail) : null };
    if (args.json) out.log(JSON.stringify({ ...e, revisit }, null, 2));
    else out.log(formatExplanation(e) + (revisit ? `\n\n${formatRevisit(revisit)}` : ''));
  } finally {
    crawl.close();
  }
}
