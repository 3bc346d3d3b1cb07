/**
 * robots.txt matching benchmark (issue 12): checks per second of our RFC 9309 matcher against
 * robots-parser 3.0.1 through the wrapper topicrawl used before (kept below as `oldParse`, verbatim
 * in what it does), in one run, as a ratio.
 *
 *   npx tsx scripts/bench-robots.ts [--rules 20000] [--url-length 2048] [--urls 200] [--before-urls 20] [--seconds 3]
 *
 * Scenarios (all rules in the "*" group, which applies to our agent):
 * 1. dirs: a ~500 KiB robots.txt of `--rules` wildcard rules `Disallow:/sDD/*aK*bK*c$` (DD, K in
 *    base 36) over 500 directories; URLs of `--url-length` characters under those directories, full
 *    of the rules' pieces; half end in "x" (then every wildcard rule of the directory is tried to
 *    the end and fails), half in "c".
 * 2. shared: the same number of distinct rules, `Disallow:/*aI*bJ*cK`, all starting with "/*" (no literal
 *    prefix to index by, no `$` to check first): every rule is a candidate for every URL and, on the
 *    half of the URLs that end in "x", scans it to the end for its last piece. The worst case of
 *    our index (the other half end in "c0").
 * 3. one rule of "/" plus 2,000 "*a" against one 100 KB URL of "a"s ending in "b" (issue 12's case).
 * For each: parse time, then checks of the URLs in a loop for at least `--seconds` (and at least
 * one pass); "before" checks only the first `--before-urls` URLs (it is that slow). The verdicts of
 * both implementations on those URLs are compared (`disagree`).
 */
import { parseArgs } from 'node:util';
import mod from 'robots-parser';
import { parseRobots } from '../src/fetch/robots.js';

const robotsParser = mod as unknown as typeof mod.default;

const { values: args } = parseArgs({
  options: {
    rules: { type: 'string', default: '20000' },
    'url-length': { type: 'string', default: '2048' },
    urls: { type: 'string', default: '200' },
    'before-urls': { type: 'string', default: '20' },
    seconds: { type: 'string', default: '3' },
  },
});
const RULES = Number(args.rules);
const URL_LENGTH = Number(args['url-length']);
const URLS = Number(args.urls);
const BEFORE_URLS = Number(args['before-urls']);
const SECONDS = Number(args.seconds);
const UA = 'topicrawl/0.1 (+https://example.invalid/topicrawl)';

/** The wrapper of robots-parser 3.0.1 that src/fetch/robots.ts was before issue 12 (isAllowed only). */
function oldParse(text: string, robotsUrl: string, userAgent: string): (url: string) => boolean {
  const DIRECTIVE = /^([ \t]*)(user-agent|allow|disallow|sitemap|crawl-delay)(?:[ \t]*:[ \t]*|[ \t]+)(.*)$/i;
  const normalised = text
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\r|\n/)
    .map((line) => {
      const m = DIRECTIVE.exec(line);
      if (!m) return line;
      const value = m[2].toLowerCase() === 'user-agent' ? (m[3].trim().split(/[\s#]/, 1)[0] ?? '') : m[3];
      return `${m[1]}${m[2]}: ${value}`;
    })
    .join('\n');
  const base = new URL('/robots.txt', robotsUrl);
  const robots = robotsParser(base.href, normalised);
  const token = userAgent.trim().split(/[/\s]/, 1)[0].toLowerCase() || '*';
  return (url: string) => {
    let path: string;
    try {
      const u = new URL(url.replace(/[^\x00-\x7f]/gu, '%00'), 'http://robots.invalid/');
      path = u.pathname + u.search;
    } catch {
      return false;
    }
    if (path === '/robots.txt') return true;
    return robots.isAllowed(base.origin + path, token) !== false;
  };
}

/** A small fixed PRNG (mulberry32), so every run benches the same files. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Scenario {
  name: string;
  robots: string;
  urls: string[];
}

function dirsScenario(shared: boolean): Scenario {
  const rnd = prng(shared ? 2 : 1);
  const dirs = 500;
  const lines = ['User-agent: *'];
  for (let i = 0; i < RULES; i++) {
    const k = (i % 36).toString(36);
    if (shared) lines.push(`Disallow:/*a${k}*b${(Math.floor(i / 36) % 36).toString(36)}*c${(Math.floor(i / 1296) % 36).toString(36)}`);
    else lines.push(`Disallow:/s${(i % dirs).toString(36)}/*a${k}*b${k}*c$`);
  }
  let robots = `${lines.join('\n')}\n`;
  // pad with comments to 500 KiB: the size the crawler reads
  const target = 500 * 1024;
  while (robots.length < target) robots += `# ${'-'.repeat(Math.min(98, target - robots.length - 3))}\n`;
  const urls: string[] = [];
  for (let u = 0; u < URLS; u++) {
    // "/c-/": every character of the rules is in every URL (no cheap reject by character set)
    let path = `/s${Math.floor(rnd() * dirs).toString(36)}/c-/`;
    const k = () => Math.floor(rnd() * 36).toString(36);
    while (path.length < URL_LENGTH) path += `a${k()}-b${k()}/`;
    const end = u % 2 === 0 ? 'x' : shared ? 'c0' : 'c';
    urls.push(`http://bench.example${path.slice(0, URL_LENGTH - end.length)}${end}`);
  }
  return { name: shared ? 'shared' : 'dirs', robots, urls };
}

function pathologicalScenario(): Scenario {
  return { name: 'star-a', robots: `User-agent: *\nDisallow: /${'*a'.repeat(2000)}\n`, urls: [`http://bench.example/${'a'.repeat(100_000)}b`] };
}

/** Checks per second over passes of `urls` for at least SECONDS (the first pass counts: it gives the verdicts). */
function bench(check: (url: string) => boolean, urls: string[]): { perSec: number; checks: number; verdicts: boolean[] } {
  const t0 = process.hrtime.bigint();
  const seconds = () => Number(process.hrtime.bigint() - t0) / 1e9;
  const verdicts = urls.map(check);
  let checks = urls.length;
  while (seconds() < SECONDS) {
    for (const u of urls) check(u);
    checks += urls.length;
  }
  return { perSec: checks / seconds(), checks, verdicts };
}

function timed<T>(fn: () => T): [T, number] {
  const t0 = process.hrtime.bigint();
  const v = fn();
  return [v, Number(process.hrtime.bigint() - t0) / 1e6];
}

const results: Record<string, unknown>[] = [];
for (const s of [dirsScenario(false), dirsScenario(true), pathologicalScenario()]) {
  const robotsUrl = 'http://bench.example/robots.txt';
  const [neu, newParseMs] = timed(() => parseRobots(s.robots, robotsUrl, UA));
  const [old, oldParseMs] = timed(() => oldParse(s.robots, robotsUrl, UA));
  const after = bench((u) => neu.isAllowed(u), s.urls);
  const before = bench(old, s.urls.slice(0, BEFORE_URLS));
  const disagree = before.verdicts.filter((v, i) => v !== after.verdicts[i]).length;
  results.push({
    scenario: s.name, robotsBytes: Buffer.byteLength(s.robots), rules: s.robots.split('\n').filter((l) => l.startsWith('Disallow')).length,
    urlLength: s.urls[0].length - 'http://bench.example'.length, urls: { after: s.urls.length, before: Math.min(BEFORE_URLS, s.urls.length) },
    disallowed: after.verdicts.filter((v) => !v).length, disagree,
    parseMs: { before: +oldParseMs.toFixed(1), after: +newParseMs.toFixed(1) },
    checksPerSec: { before: +before.perSec.toPrecision(4), after: +after.perSec.toPrecision(4) },
    checks: { before: before.checks, after: after.checks },
    speedup: +(after.perSec / before.perSec).toPrecision(4),
  });
  console.error(`${s.name}: done`);
}
console.log(JSON.stringify({ command: `npx tsx scripts/bench-robots.ts ${process.argv.slice(2).join(' ')}`.trim(), node: process.version, results }, null, 2));
