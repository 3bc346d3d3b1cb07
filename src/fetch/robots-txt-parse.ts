/**
 * The line syntax of robots.txt (RFC 9309 §2.1–§2.2), read as Google's reference parser reads it:
 * lines end at CR, LF or CRLF; `#` starts a comment; a key and its value are split at the first
 * colon (or, lacking one, at the whitespace between exactly two words); keys are case-insensitive,
 * with the frequent misspellings Google accepts; a line is cut at 16,663 octets.
 *
 * Groups (§2.1): one or more `user-agent` lines, then the rules up to the next `user-agent` line
 * that follows a rule. Lines that are not rules (`crawl-delay`, `sitemap`, unknown keys) do not end
 * a group. Rules before the first `user-agent` line belong to no group.
 */

export interface RobotsRuleLine {
  allow: boolean;
  /** The pattern as written (comment and surrounding whitespace removed). */
  pattern: string;
  /** 1-based line number in the text. */
  line: number;
}

export interface RobotsGroup {
  /** Product tokens of the group's user-agent lines, lower-cased; "*" for the global group. */
  agents: string[];
  rules: RobotsRuleLine[];
  /** The group's first valid Crawl-delay, in seconds (not in RFC 9309; widely used). */
  crawlDelay: number | null;
}

export interface ParsedRobotsTxt {
  groups: RobotsGroup[];
  /** `Sitemap:` values as written, in file order. */
  sitemaps: string[];
}

/** Google's line cap (2083 · 8 octets, the last one for the line end). */
const MAX_LINE_OCTETS = 2083 * 8 - 1;

const USER_AGENT = new Set(['user-agent', 'useragent', 'user agent']);
const ALLOW = new Set(['allow']);
const DISALLOW = new Set(['disallow', 'dissallow', 'dissalow', 'disalow', 'diasllow', 'disallaw']);
const SITEMAP = new Set(['sitemap', 'site-map']);

/** The product token at the start of a user-agent value: `[A-Za-z_-]+`, lower-cased ("" if none). */
export function agentToken(value: string): string {
  const m = /^[A-Za-z_-]+/.exec(value);
  return m ? m[0].toLowerCase() : '';
}

function cutLine(line: string): string {
  if (line.length * 3 <= MAX_LINE_OCTETS) return line;
  const b = Buffer.from(line, 'utf8');
  if (b.length <= MAX_LINE_OCTETS) return line;
  // a cut inside a multi-octet character drops that character
  return b.subarray(0, MAX_LINE_OCTETS).toString('utf8').replace(/\uFFFD$/u, '');
}

/** Splits one line into a lower-cased key and its value, or null for a blank or unreadable line. */
function keyValue(raw: string): [string, string] | null {
  const hash = raw.indexOf('#');
  const line = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
  if (line === '') return null;
  const colon = line.indexOf(':');
  if (colon >= 0) {
    const key = line.slice(0, colon).trim();
    return key === '' ? null : [key.toLowerCase(), line.slice(colon + 1).trim()];
  }
  // a missing colon: accepted only for exactly two whitespace-separated words
  const m = /^(\S+)[ \t]+(\S+)$/.exec(line);
  return m ? [m[1].toLowerCase(), m[2]] : null;
}

export function parseRobotsTxt(text: string): ParsedRobotsTxt {
  const groups: RobotsGroup[] = [];
  const sitemaps: string[] = [];
  let current: RobotsGroup | null = null;
  let ruleSeen = false;
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    const kv = keyValue(cutLine(lines[i]));
    if (!kv) continue;
    const [key, value] = kv;
    if (USER_AGENT.has(key)) {
      if (!current || ruleSeen) {
        current = { agents: [], rules: [], crawlDelay: null };
        groups.push(current);
        ruleSeen = false;
      }
      // "*", alone or followed by whitespace, is the global group (as Google reads it)
      current.agents.push(/^\*(\s|$)/.test(value) ? '*' : agentToken(value));
    } else if (ALLOW.has(key) || DISALLOW.has(key)) {
      if (!current) continue;
      ruleSeen = true;
      // an empty rule matches nothing (RFC 9309 §2.2.2: an empty disallow allows everything)
      if (value !== '') current.rules.push({ allow: ALLOW.has(key), pattern: value, line: i + 1 });
    } else if (SITEMAP.has(key)) {
      if (value !== '') sitemaps.push(value);
    } else if (key === 'crawl-delay') {
      const n = Number(value);
      if (current && current.crawlDelay === null && value !== '' && Number.isFinite(n) && n >= 0) current.crawlDelay = n;
    }
  }
  return { groups, sitemaps };
}
