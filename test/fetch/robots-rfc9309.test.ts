import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRobots, parseRobotsExplained, productToken, RobotsCache } from '../../src/fetch/robots.js';
import { canonicalPath, compilePattern, matchPattern, pathMask } from '../../src/fetch/robots-pattern.js';
import { PieceIndex } from '../../src/fetch/robots-pieces.js';
import { RobotsMatcher } from '../../src/fetch/robots-matcher.js';
import { parseRobotsTxt } from '../../src/fetch/robots-txt-parse.js';
import { UndiciFetcher } from '../../src/fetch/undici-fetcher.js';
import { serve, type TestServer } from './serve.js';

const allowed = (robots: string, agent: string, url: string) => parseRobots(robots, 'http://a.example/robots.txt', agent).isAllowed(url);

describe('RFC 9309 §2.2.2: percent-encoding', () => {
  it('matches a raw non-ASCII rule or URL with its UTF-8 percent-encoded form, either way round', () => {
    for (const [rule, url] of [
      ['/π', 'http://a.example/%CF%80/x'],
      ['/%CF%80', 'http://a.example/π/x'],
      ['/bücher/', 'http://a.example/b%C3%BCcher/1'],
      ['/b%c3%bccher/', 'http://a.example/bücher/1'],
      ['/bücher/', 'http://a.example/bücher/1'],
    ]) {
      expect(allowed(`User-agent: *\nDisallow: ${rule}\n`, 'x', url), `${rule} vs ${url}`).toBe(false);
    }
    expect(allowed('User-agent: *\nDisallow: /bücher/\n', 'x', 'http://a.example/buecher/1')).toBe(true);
  });

  it('decodes percent-encoded unreserved characters on both sides, and only those', () => {
    expect(allowed('User-agent: *\nDisallow: /%7ejoe/\n', 'x', 'http://a.example/~joe/index.html')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /\nAllow: /~mak\n', 'x', 'http://a.example/%7Emak/mak.html')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /foo/bar/%62%61%7A\n', 'x', 'http://a.example/foo/bar/baz')).toBe(false);
    // a reserved character stays distinct from its escape: %2F is not a path separator
    expect(allowed('User-agent: *\nDisallow: /a%2Fb\n', 'x', 'http://a.example/a/b')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /a%2fb\n', 'x', 'http://a.example/a%2Fb')).toBe(false);
    expect(canonicalPath('/a%7e%2f%aa b')).toBe('/a~%2F%AA%20b');
  });
});

describe('RFC 9309 §2.2.3: special characters', () => {
  it('%24 and %2A match a literal $ and *; only an unencoded * and a final $ are wildcards', () => {
    const r = 'User-agent: *\nDisallow: /path/foo-%24\nDisallow: /path/file-with-a-%2A.html\nDisallow: /exact$\nDisallow: /any*thing\n';
    expect(allowed(r, 'x', 'http://a.example/path/foo-$')).toBe(false);
    expect(allowed(r, 'x', 'http://a.example/path/foo-%24')).toBe(false);
    expect(allowed(r, 'x', 'http://a.example/path/foo-')).toBe(true);
    expect(allowed(r, 'x', 'http://a.example/path/file-with-a-*.html')).toBe(false);
    expect(allowed(r, 'x', 'http://a.example/path/file-with-a-b.html')).toBe(true);
    expect(allowed(r, 'x', 'http://a.example/exact')).toBe(false);
    expect(allowed(r, 'x', 'http://a.example/exactly')).toBe(true);
    expect(allowed(r, 'x', 'http://a.example/any-old-thing')).toBe(false);
    // a $ that is not last is a literal
    expect(allowed('User-agent: *\nDisallow: /a$b\n', 'x', 'http://a.example/a$bc')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /a$b\n', 'x', 'http://a.example/ab')).toBe(true);
  });

  it('takes the longest (normalised) pattern, Allow on a tie', () => {
    const r = 'User-agent: *\nDisallow: /%7ejoe\nAllow: /~joe\nDisallow: /~joe/p*\nAllow: /~joe/private/ok$\n';
    expect(parseRobotsExplained(r, 'http://a.example/robots.txt', 'x').decide('/~joe/')).toEqual({ allowed: true, line: 3 });
    expect(parseRobotsExplained(r, 'http://a.example/robots.txt', 'x').decide('/~joe/private/')).toEqual({ allowed: false, line: 4 });
    expect(parseRobotsExplained(r, 'http://a.example/robots.txt', 'x').decide('/~joe/private/ok')).toEqual({ allowed: true, line: 5 });
  });
});

describe('RFC 9309 §2.1, §2.2.1, §2.2.4: groups', () => {
  it('lines that are not rules do not end a group', () => {
    const r = 'User-agent: mybot\nCrawl-delay: 10\nUser-agent: yourbot\nDisallow: /private/\n';
    for (const agent of ['mybot', 'yourbot/2.0']) expect(allowed(r, agent, 'http://a.example/private/x'), agent).toBe(false);
    expect(allowed(r, 'otherbot', 'http://a.example/private/x')).toBe(true);
    expect(parseRobots(r, 'http://a.example/robots.txt', 'mybot').crawlDelayMs).toBe(10_000);
    const s = 'User-agent: mybot\nSitemap: https://a.example/s.xml\nUnknown-key: v\nUser-agent: yourbot\nDisallow: /private/\n';
    expect(allowed(s, 'mybot', 'http://a.example/private/x')).toBe(false);
  });

  it('merges the groups of one agent', () => {
    const r = 'User-agent: mybot\nDisallow: /a/\n\nUser-agent: other\nDisallow: /b/\n\nUser-agent: MyBot\nDisallow: /c/\n';
    expect(['/a/1', '/b/1', '/c/1'].map((p) => allowed(r, 'mybot', p))).toEqual([false, true, false]);
  });

  it('a group naming the agent without rules allows everything and does not fall back to "*" (§5.1)', () => {
    const r = [
      'User-Agent: *', 'Disallow: *.gif$', 'Disallow: /example/', 'Allow: /publications/', '',
      'User-Agent: foobot', 'Disallow:/', 'Allow:/example/page.html', 'Allow:/example/allowed.gif', '',
      'User-Agent: barbot', 'User-Agent: bazbot', 'Disallow: /example/page.html', '',
      'User-Agent: quxbot', '', 'EOF',
    ].join('\n');
    expect(allowed(r, 'quxbot', 'http://a.example/example/page.html')).toBe(true);
    expect(allowed(r, 'quxbot', 'http://a.example/x.gif')).toBe(true);
    expect(allowed(r, 'foobot', 'http://a.example/example/page.html')).toBe(true);
    expect(allowed(r, 'foobot', 'http://a.example/example/allowed.gif')).toBe(true);
    expect(allowed(r, 'foobot', 'http://a.example/other')).toBe(false);
    expect(allowed(r, 'bazbot', 'http://a.example/example/page.html')).toBe(false);
    expect(allowed(r, 'bazbot', 'http://a.example/publications/x')).toBe(true);
    expect(allowed(r, 'nobot', 'http://a.example/example/x')).toBe(false);
    expect(allowed(r, 'nobot', 'http://a.example/a/b.gif')).toBe(false);
    expect(allowed(r, 'nobot', 'http://a.example/publications/x')).toBe(true);
  });

  it('matches user agents on the product token [A-Za-z_-]+, case-insensitively', () => {
    const r = 'User-agent: One, Two, Three\nDisallow: /listed/\n\nUser-agent: *\nDisallow: /star/\n';
    expect(allowed(r, 'one', 'http://a.example/listed/x')).toBe(false);
    expect(allowed(r, 'ONE/2.1 (+http://one.example/)', 'http://a.example/listed/x')).toBe(false);
    expect(allowed(r, 'one', 'http://a.example/star/x')).toBe(true);
    // "Two" and "Three" are not product tokens of that line: they fall back to "*"
    expect(allowed(r, 'two', 'http://a.example/listed/x')).toBe(true);
    expect(allowed(r, 'two', 'http://a.example/star/x')).toBe(false);
    expect(productToken('Foo_Bar-baz/1.0')).toBe('foo_bar-baz');
    expect(productToken('topicrawl/0.1 (+https://example.invalid/bot)')).toBe('topicrawl');
  });
});

describe('URLs', () => {
  it('judges an IDN host URL by its path', () => {
    const r = 'User-agent: *\nDisallow: /private/\n';
    expect(allowed(r, 'x', 'http://www.münich.com/index.html')).toBe(true);
    expect(allowed(r, 'x', 'http://www.münich.com/private/a')).toBe(false);
    expect(allowed(r, 'x', 'http://www.xn--mnich-kva.com/private/a')).toBe(false);
  });
});

/** The reference: the set of positions reachable after each pattern character (Google's Matches(), O(n·m)). */
function reference(pattern: string, path: string): boolean {
  let pos = [0];
  for (let k = 0; k < pattern.length; k++) {
    const c = pattern[k];
    if (c === '$' && k === pattern.length - 1) return pos.includes(path.length);
    if (c === '*') pos = Array.from({ length: path.length - pos[0] + 1 }, (_, i) => pos[0] + i);
    else pos = pos.filter((p) => p < path.length && path[p] === c).map((p) => p + 1);
    if (pos.length === 0) return false;
  }
  return true;
}

describe('the wildcard matcher', () => {
  it('agrees with the position-set reference on random patterns and paths', () => {
    const alpha = fc.constantFrom('a', 'b', '/', '*', '$');
    const path = fc.array(fc.constantFrom('a', 'b', '/'), { maxLength: 14 }).map((a) => `/${a.join('')}`);
    const pattern = fc.array(alpha, { maxLength: 10 }).map((a) => `/${a.join('')}`);
    fc.assert(
      fc.property(pattern, path, (pat, p) => {
        const compiled = compilePattern(pat);
        expect(matchPattern(compiled, p, pathMask(p))).toBe(reference(pat, p));
      }),
      { numRuns: 3000 },
    );
  });

  it('decides as the reference longest match with many wildcard rules (the piece-occurrence path)', () => {
    const chars = fc.constantFrom('a', 'b', '/');
    const pattern = fc.tuple(fc.array(fc.constantFrom('a', 'b', '/', '*'), { maxLength: 8 }), fc.boolean()).map(([a, end]) => `/${a.join('')}${end ? '$' : ''}`);
    const rules = fc.array(fc.tuple(fc.boolean(), pattern), { minLength: 20, maxLength: 60 });
    const paths = fc.array(fc.array(chars, { maxLength: 16 }).map((a) => `/${a.join('')}`), { minLength: 1, maxLength: 5 });
    fc.assert(
      fc.property(rules, paths, (rs, ps) => {
        const text = `User-agent: *\n${rs.map(([allow, p]) => `${allow ? 'Allow' : 'Disallow'}: ${p}`).join('\n')}\n`;
        const parsed = parseRobots(text, 'http://a.example/robots.txt', 'x');
        // the same rules decided only by scanning, and only through the piece occurrences
        const scanning = new RobotsMatcher(parseRobotsTxt(text), 'x', Infinity);
        const indexed = new RobotsMatcher(parseRobotsTxt(text), 'x', 0);
        for (const p of ps) {
          let best: [number, boolean] | null = null;
          for (const [allow, pat] of rs) {
            if (!reference(pat, p)) continue;
            if (!best || pat.length > best[0] || (pat.length === best[0] && allow)) best = [pat.length, allow];
          }
          const expected = p === '/robots.txt' || !best || best[1];
          expect(parsed.isAllowed(`http://a.example${p}`), `${p}\n${text}`).toBe(expected);
          expect(scanning.decide(p)?.allow ?? true, `${p}\n${text}`).toBe(expected);
          expect(indexed.decide(p)?.allow ?? true, `${p}\n${text}`).toBe(expected);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('finds every occurrence of every piece in one pass', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ unit: fc.constantFrom('a', 'b', 'c'), minLength: 1, maxLength: 4 }), { maxLength: 12 }), fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 40 }), (pieces, s) => {
        const index = new PieceIndex();
        const ids = pieces.map((p) => index.add(p));
        const occ = index.scan(s);
        pieces.forEach((p, k) => {
          const naive: number[] = [];
          for (let i = s.indexOf(p); i >= 0; i = s.indexOf(p, i + 1)) naive.push(i);
          expect(occ[ids[k]] ?? [], `${p} in ${s}`).toEqual(naive);
        });
      }),
      { numRuns: 2000 },
    );
  });

  it('finds long pieces (KMP) where a naive scan would restart', () => {
    const piece = 'ab'.repeat(10) + 'c';
    const compiled = compilePattern(`/*${piece}*x$`);
    expect(compiled.kmp[1]).not.toBeNull();
    expect(matchPattern(compiled, `/${'ab'.repeat(50)}c-x`, null)).toBe(true);
    expect(matchPattern(compiled, `/${'ab'.repeat(50)}-x`, null)).toBe(false);
  });

  it('decides a rule of "/" and 2,000 "*a" against a 100 KB URL (the backtracking case)', () => {
    const rule = `/${'*a'.repeat(2000)}`;
    const r = `User-agent: *\nDisallow: ${rule}\n`;
    expect(allowed(r, 'x', `http://a.example/${'a'.repeat(100_000)}`)).toBe(false);
    expect(allowed(r, 'x', `http://a.example/${'a'.repeat(1999)}b${'b'.repeat(100_000)}`)).toBe(true);
  });
});

describe('§2.5: a robots.txt over the cap', () => {
  let srv: TestServer | null = null;
  let fetcher: UndiciFetcher | null = null;
  afterEach(async () => {
    await fetcher?.close();
    await srv?.close();
  });

  it('is parsed up to 500 KiB from a long body (Content-Length 64 MB), which is not downloaded further', async () => {
    const head = Buffer.from('User-agent: *\nDisallow: /early\n');
    const filler = Buffer.from(`# ${'x'.repeat(1021)}\n`); // 1 KiB lines
    const total = 64 * 1024 * 1024;
    let sent = 0;
    srv = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(total) });
      const late = Buffer.from('Disallow: /late\n');
      const pump = () => {
        while (sent < total && !res.destroyed) {
          const chunk = sent === 0 ? head : total - sent <= late.length + filler.length ? Buffer.concat([late, filler]).subarray(0, total - sent) : filler;
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (sent >= total) res.end();
      };
      req.socket.on('close', () => res.destroy());
      pump();
    });
    fetcher = new UndiciFetcher({
      userAgent: 'x', connectTimeoutMs: 2000, headersTimeoutMs: 2000, bodyTimeoutMs: 5000, maxPageBytes: 1 << 20,
      resolve: { 'a.example': `127.0.0.1:${srv.port}` },
    });
    const rules = await new RobotsCache(fetcher, { userAgent: 'x' }).get('http://a.example/');
    expect(rules.status).toBe('ok');
    expect(rules.failure).toBeUndefined();
    expect(rules.isAllowed('http://a.example/early')).toBe(false);
    expect(rules.isAllowed('http://a.example/page')).toBe(true);
    // the connection was dropped after the cap: far less than the body was sent
    await new Promise((r) => setTimeout(r, 100));
    expect(sent).toBeLessThan(total / 4);
  });
});
