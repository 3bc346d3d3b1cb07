import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { suiteTmpDir } from '../helpers/tmp.js';
import { serve, type TestServer } from '../fetch/serve.js';

const ROBOTS = [
  '# robots.txt for x.example', //                       1
  'User-agent: alphabot', //                             2
  'Disallow: /private/', //                              3
  'Allow: /private/public/', //                          4
  'Disallow: /tie', //                                   5
  'Allow: /tie', //                                      6
  'Disallow: /*.pdf$', //                                7
  'Disallow: /search*q=', //                             8
  'Crawl-delay: 3', //                                   9
  '', //                                                 10
  'User-agent: betabot', //                              11
  'Disallow: /', //                                      12
  'Allow: /public/   # the open part', //                13
  '', //                                                 14
  'User-agent: *', //                                    15
  'Disallow: /private/', //                              16
  '', //                                                 17
  'Sitemap: https://x.example/sitemap.xml', //           18
  'Sitemap: /news-sitemap.xml', //                       19
  '',
].join('\r\n');

interface Row {
  verdict: string;
  url: string;
  why: string;
}

/** The table rows of the text output: "<verdict>  <url>  (<why>)". */
function rows(stdout: string): Row[] {
  const out: Row[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^(allowed|disallowed) +(\S+) +\((.*)\)$/.exec(line);
    if (m) out.push({ verdict: m[1], url: m[2], why: m[3] });
  }
  return out;
}

describe('topicrawl robots, a local file', () => {
  const dir = suiteTmpDir();
  const file = join(dir, 'robots.txt');
  writeFileSync(file, ROBOTS);

  it('picks the agent group, applies longest match, the Allow tie, * and $, and names the deciding line', async () => {
    const r = await runCli([
      'robots', file, '--agent', 'AlphaBot/1.2 (+https://alpha.example/bot)',
      'https://x.example/', 'https://x.example/private/a', 'https://x.example/private/public/b', 'https://x.example/tie/1',
      'https://x.example/doc/a.pdf', 'https://x.example/doc/a.pdf?page=2', 'https://x.example/search?lang=en&q=tobacco',
      'https://x.example/search?lang=en', '/private/c',
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(rows(r.stdout)).toEqual([
      { verdict: 'allowed', url: 'https://x.example/', why: 'no matching rule' },
      { verdict: 'disallowed', url: 'https://x.example/private/a', why: 'line 3: Disallow: /private/' },
      { verdict: 'allowed', url: 'https://x.example/private/public/b', why: 'line 4: Allow: /private/public/' },
      { verdict: 'allowed', url: 'https://x.example/tie/1', why: 'line 6: Allow: /tie' },
      { verdict: 'disallowed', url: 'https://x.example/doc/a.pdf', why: 'line 7: Disallow: /*.pdf$' },
      { verdict: 'allowed', url: 'https://x.example/doc/a.pdf?page=2', why: 'no matching rule' },
      { verdict: 'disallowed', url: 'https://x.example/search?lang=en&q=tobacco', why: 'line 8: Disallow: /search*q=' },
      { verdict: 'allowed', url: 'https://x.example/search?lang=en', why: 'no matching rule' },
      { verdict: 'disallowed', url: '/private/c', why: 'line 3: Disallow: /private/' },
    ]);
    // Crawl-delay of the group and the sitemaps (relative ones resolved), after the table
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.slice(-4)).toEqual(['', 'Crawl-delay: 3 s', 'Sitemap: https://x.example/sitemap.xml', 'Sitemap: https://x.example/news-sitemap.xml']);
  });

  it('another agent gets its own group; an unknown one falls back to "*"', async () => {
    const urls = ['https://x.example/public/a', 'https://x.example/other', 'https://x.example/private/a', '/robots.txt'];
    const [beta, gamma] = await Promise.all([
      runCli(['robots', file, '--agent', 'betabot', ...urls]),
      runCli(['robots', file, '--agent', 'gammabot/3', ...urls]),
    ]);
    expect(rows(beta.stdout)).toEqual([
      { verdict: 'allowed', url: urls[0], why: 'line 13: Allow: /public/   # the open part' },
      { verdict: 'disallowed', url: urls[1], why: 'line 12: Disallow: /' },
      { verdict: 'disallowed', url: urls[2], why: 'line 12: Disallow: /' },
      { verdict: 'allowed', url: urls[3], why: 'robots.txt itself is always allowed' },
    ]);
    expect(beta.stdout).not.toContain('Crawl-delay');
    expect(rows(gamma.stdout)).toEqual([
      { verdict: 'allowed', url: urls[0], why: 'no matching rule' },
      { verdict: 'allowed', url: urls[1], why: 'no matching rule' },
      { verdict: 'disallowed', url: urls[2], why: 'line 16: Disallow: /private/' },
      { verdict: 'allowed', url: urls[3], why: 'robots.txt itself is always allowed' },
    ]);
  });

  it('--json prints an array of {url, allowed, line, rule, reason}', async () => {
    const r = await runCli(['robots', file, '--agent', 'alphabot', '--json', 'https://x.example/private/a', 'https://x.example/']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { url: 'https://x.example/private/a', allowed: false, line: 3, rule: 'Disallow: /private/', reason: 'line 3: Disallow: /private/' },
      { url: 'https://x.example/', allowed: true, line: null, rule: null, reason: 'no matching rule' },
    ]);
  });

  it('a missing file or a missing --agent is a usage error', async () => {
    const [missing, noAgent] = await Promise.all([
      runCli(['robots', join(dir, 'nope.txt'), '--agent', 'a', 'https://x.example/']),
      runCli(['robots', file, 'https://x.example/']),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.txt');
    expect(missing.stderr).toContain('[E_USAGE]');
    expect(noAgent.code).toBe(2);
    expect(noAgent.stderr).toContain('agent');
  });
});

describe('topicrawl robots, an http URL', () => {
  let srv: TestServer;
  let closedPort: number;
  beforeAll(async () => {
    srv = await serve((req, res) => {
      const path = req.url ?? '';
      if (path === '/ok/robots.txt') res.writeHead(200, { 'content-type': 'text/plain' }).end(ROBOTS);
      else if (path === '/moved/robots.txt') res.writeHead(301, { location: '/ok/robots.txt' }).end();
      else if (path.startsWith('/loop/')) res.writeHead(302, { location: `/loop/${Number(path.slice(6)) + 1}` }).end();
      else if (path === '/broken/robots.txt') res.writeHead(500).end('oops');
      else if (path === '/busy/robots.txt') res.writeHead(429).end('slow down');
      else res.writeHead(404).end('not found');
    });
    const gone = await serve((_req, res) => res.end());
    closedPort = gone.port;
    await gone.close();
  });
  afterAll(() => srv.close());

  const base = () => `http://127.0.0.1:${srv.port}`;
  const urls = ['https://x.example/', 'https://x.example/private/a'];

  it('fetches the file (following redirects) with the agent as User-Agent and judges by it', async () => {
    const [direct, moved] = await Promise.all([
      runCli(['robots', `${base()}/ok/robots.txt`, '--agent', 'alphabot/9', ...urls]),
      runCli(['robots', `${base()}/moved/robots.txt`, '--agent', 'alphabot/9', ...urls]),
    ]);
    for (const r of [direct, moved]) {
      expect(r.code).toBe(0);
      expect(rows(r.stdout)).toEqual([
        { verdict: 'allowed', url: urls[0], why: 'no matching rule' },
        { verdict: 'disallowed', url: urls[1], why: 'line 3: Disallow: /private/' },
      ]);
      expect(r.stdout).toContain('Crawl-delay: 3 s');
    }
    const agents = srv.requests.filter((q) => q.url === '/ok/robots.txt').map((q) => q.headers['user-agent']);
    expect(agents).toEqual(['alphabot/9', 'alphabot/9']);
  });

  it('404 allows everything, 500, 429 and an unreachable server disallow everything, too many redirects allow everything', async () => {
    const [missing, broken, busy, unreachable, loop] = await Promise.all([
      runCli(['robots', `${base()}/missing/robots.txt`, '--agent', 'alphabot', ...urls]),
      runCli(['robots', `${base()}/broken/robots.txt`, '--agent', 'alphabot', ...urls]),
      runCli(['robots', `${base()}/busy/robots.txt`, '--agent', 'alphabot', ...urls]),
      runCli(['robots', `http://127.0.0.1:${closedPort}/robots.txt`, '--agent', 'alphabot', ...urls]),
      runCli(['robots', `${base()}/loop/0`, '--agent', 'alphabot', ...urls]),
    ]);
    for (const r of [missing, broken, busy, unreachable, loop]) expect(r.code).toBe(0);
    expect(rows(missing.stdout).map((x) => [x.verdict, x.why])).toEqual([
      ['allowed', 'robots.txt HTTP 404: allow all'],
      ['allowed', 'robots.txt HTTP 404: allow all'],
    ]);
    expect(rows(broken.stdout).map((x) => [x.verdict, x.why])).toEqual([
      ['disallowed', 'robots.txt HTTP 500: disallow all'],
      ['disallowed', 'robots.txt HTTP 500: disallow all'],
    ]);
    expect(rows(busy.stdout).map((x) => x.verdict)).toEqual(['disallowed', 'disallowed']);
    const down = rows(unreachable.stdout);
    expect(down.map((x) => x.verdict)).toEqual(['disallowed', 'disallowed']);
    expect(down[0].why).toMatch(/^robots\.txt unreachable \(.*\): disallow all$/);
    expect(rows(loop.stdout).map((x) => [x.verdict, x.why])).toEqual([
      ['allowed', 'robots.txt redirected more than 5 times: allow all'],
      ['allowed', 'robots.txt redirected more than 5 times: allow all'],
    ]);
    // the first request and 5 hops, no more
    expect(srv.requests.filter((q) => q.url?.startsWith('/loop/')).map((q) => q.url)).toEqual(['/loop/0', '/loop/1', '/loop/2', '/loop/3', '/loop/4', '/loop/5']);
  });
});
