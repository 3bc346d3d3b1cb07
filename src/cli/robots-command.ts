import { readFileSync } from 'node:fs';
import { TopicrawlError } from '../errors.js';
import { fetchRobotsTxt, parseRobotsExplained, ROBOTS_MAX_BYTES, type RobotsFetchOutcome } from '../fetch/robots.js';
import { canonicalPath, pathParamsQuery } from '../fetch/robots-pattern.js';
import { UndiciFetcher } from '../fetch/undici-fetcher.js';

/** Options of {@link runRobots}, as given on the command line. */
export interface RobotsCommandOptions {
  /** A local file, or an http(s) URL of a robots.txt. */
  source: string;
  /** The user agent whose group decides (its product token selects the group). */
  agent: string;
  /** URLs (or paths) to judge. */
  urls: string[];
  json?: boolean;
}

/** One judged URL. `line` and `rule` name the deciding Allow/Disallow rule, when one decided. */
export interface RobotsVerdictRow {
  url: string;
  allowed: boolean;
  line: number | null;
  rule: string | null;
  /** Why, in words: "line 4: Disallow: /private/", "no matching rule", "robots.txt HTTP 500: disallow all". */
  reason: string;
}

/** The judged URLs, plus the file's Crawl-delay for the agent's group and its Sitemap URLs. */
export interface RobotsReport {
  rows: RobotsVerdictRow[];
  /** Octets parsed when the file was larger than the crawler reads (500 KiB, RFC 9309 §2.5); else null. */
  truncatedAt?: number | null;
  crawlDelayMs: number | null;
  sitemaps: string[];
}

const isHttpUrl = (s: string) => /^https?:\/\//i.test(s);

/** Where relative Sitemap: lines of a local file resolve: the origin of the first judged URL, if any. */
function fileBase(urls: string[]): string {
  for (const u of urls) {
    try {
      const parsed = new URL(u);
      if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return `${parsed.origin}/robots.txt`;
    } catch {
      // a path or nonsense: try the next
    }
  }
  return 'http://robots.invalid/robots.txt';
}

async function load(source: string, agent: string, urls: string[]): Promise<RobotsFetchOutcome> {
  if (!isHttpUrl(source)) {
    try {
      // cut as the crawler cuts a fetched file: the first 500 KiB, up to the last whole line
      const bytes = readFileSync(source);
      const truncated = bytes.length > ROBOTS_MAX_BYTES;
      const kept = truncated ? bytes.subarray(0, ROBOTS_MAX_BYTES) : bytes;
      const nl = truncated ? kept.lastIndexOf(0x0a) : -1;
      const text = (nl >= 0 ? kept.subarray(0, nl + 1) : kept).toString('utf8');
      return { status: 'ok', url: fileBase(urls), httpStatus: 0, text, truncated };
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
      throw new TopicrawlError('E_USAGE', `robots: cannot read ${source}: ${why}`, { file: source });
    }
  }
  const fetcher = new UndiciFetcher({
    userAgent: agent,
    connectTimeoutMs: 10_000,
    headersTimeoutMs: 15_000,
    bodyTimeoutMs: 30_000,
    maxPageBytes: ROBOTS_MAX_BYTES,
  });
  try {
    return await fetchRobotsTxt(fetcher, source, { maxBytes: ROBOTS_MAX_BYTES, maxRedirects: 5 });
  } finally {
    await fetcher.close();
  }
}

/**
 * Judges `urls` against a robots.txt for one user agent, as the crawler would (RFC 9309, the
 * crawler's own parser and fetch rules: 4xx → allow all; 5xx or unreachable → disallow all).
 */
export async function judgeRobots(opts: RobotsCommandOptions): Promise<RobotsReport> {
  const src = await load(opts.source, opts.agent, opts.urls);
  if (src.status !== 'ok') {
    const allowed = src.status === 'allow-all';
    const reason = `robots.txt ${src.reason}: ${allowed ? 'allow all' : 'disallow all'}`;
    return {
      rows: opts.urls.map((url) => {
        // "/robots.txt" itself stays allowed, as in the crawler
        const self = !allowed && isRobotsTxtPath(url);
        return { url, allowed: allowed || self, line: null, rule: null, reason: self ? 'robots.txt itself is always allowed' : reason };
      }),
      crawlDelayMs: null,
      sitemaps: [],
    };
  }
  const lines = src.text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const rules = parseRobotsExplained(src.text, src.url, opts.agent);
  const rows = opts.urls.map((url): RobotsVerdictRow => {
    const d = rules.decide(url);
    if (d.line !== null) {
      const rule = (lines[d.line - 1] ?? '').trim();
      return { url, allowed: d.allowed, line: d.line, rule, reason: `line ${d.line}: ${rule}` };
    }
    const reason = isRobotsTxtPath(url) ? 'robots.txt itself is always allowed' : 'no matching rule';
    return { url, allowed: d.allowed, line: null, rule: null, reason };
  });
  return { rows, crawlDelayMs: rules.crawlDelayMs, sitemaps: rules.sitemaps, truncatedAt: src.truncated ? Buffer.byteLength(src.text) : null };
}

function isRobotsTxtPath(url: string): boolean {
  return canonicalPath(pathParamsQuery(url)) === '/robots.txt';
}

/** The report as terminal lines: a table (verdict, URL, why), then Crawl-delay and Sitemap lines. */
export function formatRobotsReport(r: RobotsReport): string[] {
  const urlWidth = Math.min(60, Math.max(0, ...r.rows.map((x) => x.url.length)));
  const out = r.rows.map((x) => `${(x.allowed ? 'allowed' : 'disallowed').padEnd(10)}  ${x.url.padEnd(urlWidth)}  (${x.reason})`);
  const trailer: string[] = [];
  if (r.truncatedAt) trailer.push(`robots.txt is over ${ROBOTS_MAX_BYTES / 1024} KiB: judged by its first ${r.truncatedAt} bytes (whole lines), as the crawler reads it`);
  if (r.crawlDelayMs !== null) trailer.push(`Crawl-delay: ${r.crawlDelayMs / 1000} s`);
  for (const s of r.sitemaps) trailer.push(`Sitemap: ${s}`);
  if (trailer.length > 0 && out.length > 0) out.push('');
  return [...out, ...trailer];
}

/** `topicrawl robots`: prints the table (or, with --json, an array of {@link RobotsVerdictRow}). */
export async function runRobots(opts: RobotsCommandOptions, out: { log(s: string): void }): Promise<void> {
  const report = await judgeRobots(opts);
  if (opts.json) out.log(JSON.stringify(report.rows, null, 2));
  else for (const line of formatRobotsReport(report)) out.log(line);
}
