import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRobots } from '../../src/fetch/robots.js';
import { join } from 'node:path';
import { SHARED_DIR } from '../helpers/tmp.js';

interface AllowedCase {
  test: string;
  robotstxt: string;
  useragent: string;
  url: string;
  expected_allowed: boolean;
}

const VECTORS = join(SHARED_DIR, 'conformance/robots-txt.json');
const present = existsSync(VECTORS);
const suite = (present ? JSON.parse(readFileSync(VECTORS, 'utf8')).suites['google/robotstxt'] : { allowed: [] }) as { allowed: AllowedCase[] };

/** Known deviations from the RFC (ID_*) cases: none. */
const KNOWN = new Set<string>();

function run(c: AllowedCase): boolean {
  let robotsUrl = 'http://example.com/robots.txt';
  try {
    robotsUrl = new URL('/robots.txt', c.url).href;
  } catch {
    // empty or relative test URL: any origin will do
  }
  return parseRobots(c.robotstxt, robotsUrl, c.useragent).isAllowed(c.url || '/') === c.expected_allowed;
}

describe.skipIf(!present)('robots.txt conformance (google/robotstxt vectors)', () => {
  it('passes every RFC 9309 (ID_*) case except the known deviations', () => {
    const rfc = suite.allowed.filter((c) => c.test.startsWith('ID_') && !KNOWN.has(c.test));
    expect(rfc.length).toBeGreaterThan(50);
    const failed = rfc.filter((c) => !run(c)).map((c) => `${c.test}: ${c.useragent} ${c.url}`);
    expect(failed).toEqual([]);
  });

  it('reports how many of all the vectors pass', () => {
    const passed = suite.allowed.filter(run).length;
    console.info(`robots.txt conformance: ${passed}/${suite.allowed.length} google/robotstxt cases pass`);
    expect(passed).toBeGreaterThan(suite.allowed.length * 0.9);
  });
});
