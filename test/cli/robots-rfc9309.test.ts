import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type TestServer } from '../fetch/serve.js';
import { runCli } from '../helpers/run-cli.js';
import { suiteTmpDir } from '../helpers/tmp.js';

/** `topicrawl robots` decides as RFC 9309 says (the crawler's own path: test/crawl/robots-rfc9309-crawl.test.ts). */
interface Row {
  url: string;
  allowed: boolean;
  line: number | null;
  rule: string | null;
}

describe('topicrawl robots, RFC 9309', () => {
  const dir = suiteTmpDir();
  const file = (name: string, text: string | Buffer) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const judge = async (robots: string, agent: string, urls: string[]): Promise<Row[]> => {
    const r = await runCli(['robots', robots, '--agent', agent, '--json', ...urls]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as Row[];
  };
  const verdicts = (rows: Row[]) => rows.map((r) => [r.url, r.allowed, r.line]);

  it('percent-encoding (§2.2.2) and special characters (§2.2.3)', async () => {
    // the issue's reproduction: printf 'User-agent: *\nDisallow: /%%7ejoe/\n' > b.txt
    const joe = file('b.txt', 'User-agent: *\nDisallow: /%7ejoe/\n');
    const enc = file('enc.txt', 'User-agent: *\nDisallow: /\nAllow: /~mak\nAllow: /foo/bar/%62%61%7A\nAllow: /π\nAllow: /b%c3%bccher/\n');
    const special = file('special.txt', 'User-agent: *\nDisallow: /path/foo-%24\nDisallow: /star-%2A\nDisallow: /end$\n');
    const [a, b, c] = await Promise.all([
      judge(joe, 'x', ['http://a.example/~joe/i.html', 'http://a.example/%7Ejoe/', 'http://a.example/joe/']),
      judge(enc, 'x', ['http://a.example/%7Emak/mak.html', 'http://a.example/foo/bar/baz', 'http://a.example/%CF%80/1', 'http://a.example/bücher/1', 'http://a.example/other']),
      judge(special, 'x', ['http://a.example/path/foo-$', 'http://a.example/path/foo-bar', 'http://a.example/star-*', 'http://a.example/star-s', 'http://a.example/end', 'http://a.example/end/']),
    ]);
    expect(verdicts(a)).toEqual([
      ['http://a.example/~joe/i.html', false, 2],
      ['http://a.example/%7Ejoe/', false, 2],
      ['http://a.example/joe/', true, null],
    ]);
    expect(a[0].rule).toBe('Disallow: /%7ejoe/');
    expect(verdicts(b)).toEqual([
      ['http://a.example/%7Emak/mak.html', true, 3],
      ['http://a.example/foo/bar/baz', true, 4],
      ['http://a.example/%CF%80/1', true, 5],
      ['http://a.example/bücher/1', true, 6],
      ['http://a.example/other', false, 2],
    ]);
    expect(verdicts(c)).toEqual([
      ['http://a.example/path/foo-$', false, 2],
      ['http://a.example/path/foo-bar', true, null],
      ['http://a.example/star-*', false, 3],
      ['http://a.example/star-s', true, null],
      ['http://a.example/end', false, 4],
      ['http://a.example/end/', true, null],
    ]);
  });

  it('groups (§2.1, §2.2.4), merged groups, a rule-less group (§5.1), product tokens, IDN hosts', async () => {
    const groups = file('groups.txt', [
      'User-agent: mybot', 'Crawl-delay: 10', 'User-agent: yourbot', 'Disallow: /private/', '',
      'User-agent: *', 'Disallow: /', '',
      'User-agent: One, Two, Three', 'Disallow: /listed/', '',
      'User-agent: MYBOT', 'Disallow: /merged/', '',
      // last: a user-agent line right after it would join its group (blank lines do not end one)
      'User-agent: quxbot', '',
    ].join('\n'));
    const urls = ['http://a.example/private/x', 'http://a.example/merged/y', 'http://a.example/listed/z', 'http://www.münich.com/index.html'];
    const [my, qux, one, two] = await Promise.all([
      judge(groups, 'mybot/1.0', urls),
      judge(groups, 'quxbot', urls),
      judge(groups, 'One', urls),
      judge(groups, 'two', urls),
    ]);
    expect(my.map((r) => [r.allowed, r.line])).toEqual([[false, 4], [false, 13], [true, null], [true, null]]);
    expect(qux.map((r) => r.allowed)).toEqual([true, true, true, true]);
    expect(one.map((r) => [r.allowed, r.line])).toEqual([[true, null], [true, null], [false, 10], [true, null]]);
    // "Two" is not the product token of "One, Two, Three": "*" applies
    expect(two.map((r) => [r.allowed, r.line])).toEqual([[false, 7], [false, 7], [false, 7], [false, 7]]);
    const text = await runCli(['robots', groups, '--agent', 'mybot', 'http://www.münich.com/index.html']);
    expect(text.stdout).toContain('allowed     http://www.münich.com/index.html  (no matching rule)');
    expect(text.stdout).toContain('Crawl-delay: 10 s');
  });

  it('decides a rule of "/" plus 2,000 "*a" against 100 KB URLs (no backtracking)', async () => {
    const star = file('star.txt', `User-agent: *\nDisallow: /${'*a'.repeat(2000)}\n`);
    const rows = await judge(star, 'x', [`http://a.example/${'a'.repeat(100_000)}`, `http://a.example/${'a'.repeat(1999)}${'b'.repeat(98_000)}`]);
    expect(rows.map((r) => [r.allowed, r.line])).toEqual([[false, 2], [true, null]]);
  });

  it('a file over 500 KiB is judged by its first 500 KiB, as the crawler reads it (§2.5)', async () => {
    const filler = `# ${'x'.repeat(1021)}\n`.repeat(600); // 600 KiB of comments
    const big = file('big.txt', `User-agent: *\nDisallow: /early\n${filler}Disallow: /late\n`);
    const r = await runCli(['robots', big, '--agent', 'x', 'http://a.example/early', 'http://a.example/late']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^disallowed +http:\/\/a\.example\/early +\(line 2: Disallow: \/early\)$/m);
    expect(r.stdout).toMatch(/^allowed +http:\/\/a\.example\/late +\(no matching rule\)$/m);
    expect(r.stdout).toContain('robots.txt is over 500 KiB');
  });

  describe('over HTTP', () => {
    let srv: TestServer;
    beforeAll(async () => {
      const body = `User-agent: *\nDisallow: /early\n${`# ${'x'.repeat(1021)}\n`.repeat(3 * 1024)}Disallow: /late\n`;
      srv = await serve((req, res) => {
        if (req.url === '/big/robots.txt') res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(Buffer.byteLength(body)) }).end(body);
        else res.writeHead(404).end();
      });
    });
    afterAll(() => srv.close());

    it('a 3 MB robots.txt is read up to 500 KiB, not taken for unreachable', async () => {
      const r = await runCli(['robots', `http://127.0.0.1:${srv.port}/big/robots.txt`, '--agent', 'x', '--json', 'http://a.example/early', 'http://a.example/other']);
      expect(r.code).toBe(0);
      expect((JSON.parse(r.stdout) as Row[]).map((x) => [x.allowed, x.line])).toEqual([[false, 2], [true, null]]);
    });
  });
});

describe('topicrawl crawl with an unreachable seed host', () => {
  const dir = suiteTmpDir();

  it('warns, counts the error, keeps the URLs queued and exits non-zero', async () => {
    const gone = await serve((_q, r) => r.end());
    const port = gone.port;
    await gone.close();
    const topic = join(dir, 't.yaml');
    writeFileSync(topic, 'name: t\nseeds:\n  - http://down.test/\nkeywords:\n  page: 1\npoliteness:\n  delay_ms: 0\nfetch:\n  retry_base_ms: 5\n');
    const r = await runCli(['crawl', topic, '--db', join(dir, 't.db'), '--resolve', `down.test=127.0.0.1:${port}`]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('crawl finished without reaching any host');
    expect(r.stdout).toMatch(/errors +1\n/);
    expect(r.stdout).toMatch(/frontier +1 queued/);
    expect(r.stdout).toMatch(/suspended hosts +down\.test/);
    expect(r.stderr).toMatch(/no host could be reached \(down\.test\).*\[E_HOST_SUSPENDED\]/);
  });
});
