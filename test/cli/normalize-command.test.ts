import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/crawl-corpus.js';
import { runCli } from '../helpers/run-cli.js';

/** Starts the real bin with piped stdin/stdout/stderr (for what only a process shows: streaming, a reader that goes away). */
function startCli(args: string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [join(repoRoot, 'bin/topicrawl.js'), ...args], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Runs `topicrawl <args>` (in-process, see runCli) with `input` on stdin. */
const runWithInput = (args: string[], input: string) => runCli(args, { input });

const lines = (s: string) => s.split('\n').slice(0, -1); // every line ends with "\n"

describe('topicrawl normalize', () => {
  it('normalises its arguments, one per line, in order, and exits 0', async () => {
    const r = await runCli([
      'normalize',
      'HTTP://Example.COM:80/a/./b/../c?z=1&a=2&utm_source=news#frag',
      'https://user:pw@Shop.example:443/%7euser/%c3%a4?',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual(['http://example.com/a/c?a=2&z=1', 'https://shop.example/~user/%C3%A4']);
  });

  it('an invalid argument in the middle gives an empty line there, a message on stderr, and exit 1', async () => {
    const r = await runCli(['normalize', 'http://a.example/x', 'mailto:someone@a.example', 'http://b.example/y']);
    expect(r.code).toBe(1);
    expect(lines(r.stdout)).toEqual(['http://a.example/x', '', 'http://b.example/y']);
    expect(r.stderr).toMatch(/^topicrawl: argument 2: unsupported scheme "mailto:".*\[E_INVALID_URL\]\n$/);
  });

  it('reads stdin line by line when no URL is given: blank lines skipped, CRLF and spaces trimmed, line numbers in errors', async () => {
    const input = 'http://A.example/?b=2&a=1\r\n\r\n   \nnot a url\n  http://b.example/%7Ex#top  \nhttp://c.example/z';
    const r = await runWithInput(['normalize'], input);
    expect(r.code).toBe(1);
    // 4 non-blank input lines → 4 output lines; the invalid third one is empty
    expect(lines(r.stdout)).toEqual(['http://a.example/?a=1&b=2', '', 'http://b.example/~x', 'http://c.example/z']);
    expect(r.stderr).toMatch(/^topicrawl: line 4: invalid URL: "not a url" \[E_INVALID_URL\]\n$/);
  });

  it('exits 0 on stdin when every line is valid', async () => {
    const r = await runWithInput(['normalize'], 'http://a.example\nhttp://b.example/\n');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(lines(r.stdout)).toEqual(['http://a.example/', 'http://b.example/']);
  });

  it('--base resolves relative inputs (arguments and stdin); absolute inputs are unchanged', async () => {
    const [args, stdin, noBase] = await Promise.all([
      runCli(['normalize', '--base', 'http://x.example/dir/page.html', '../up', 'same?q=1', '//other.example/p', 'https://y.example/']),
      runWithInput(['normalize', '--base', 'http://x.example/a/'], 'b/c\n/root\n'),
      runCli(['normalize', '/root']),
    ]);
    expect(args.code).toBe(0);
    expect(lines(args.stdout)).toEqual(['http://x.example/up', 'http://x.example/dir/same?q=1', 'http://other.example/p', 'https://y.example/']);
    expect(lines(stdin.stdout)).toEqual(['http://x.example/a/b/c', 'http://x.example/root']);
    expect(noBase.code).toBe(1);
    expect(lines(noBase.stdout)).toEqual(['']);
  });

  it('a --base that is not an absolute http(s) URL is a usage error (exit 2)', async () => {
    const r = await runCli(['normalize', '--base', 'relative/path', 'x']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--base');
    expect(r.stderr).toContain('[E_USAGE]');
  });

  it('--no-sort-query keeps the order; --strip removes more parameters (repeatable, comma-separated, prefixes)', async () => {
    const url = 'http://a.example/?z=1&sid=9&a=2&ref_src=x&ref_id=y&keep=1&fbclid=3';
    const [sorted, unsorted, stripped] = await Promise.all([
      runCli(['normalize', url]),
      runCli(['normalize', '--no-sort-query', url]),
      runCli(['normalize', '--strip', 'sid', '--strip', 'ref_*,z', url]),
    ]);
    expect(lines(sorted.stdout)).toEqual(['http://a.example/?a=2&keep=1&ref_id=y&ref_src=x&sid=9&z=1']);
    expect(lines(unsorted.stdout)).toEqual(['http://a.example/?z=1&sid=9&a=2&ref_src=x&ref_id=y&keep=1']);
    expect(lines(stripped.stdout)).toEqual(['http://a.example/?a=2&keep=1']);
  });

  it('streams: a line is answered before stdin ends', async () => {
    const child = startCli(['normalize']);
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    let stdout = '';
    const seen = (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (lines(stdout).length >= n) {
            child.stdout.off('data', check);
            resolve();
          }
        };
        child.stdout.on('data', check);
      });
    child.stdout.on('data', (d) => (stdout += d));
    const first = seen(1);
    child.stdin.write('http://First.example/one\n');
    await first; // stdin is still open here
    expect(lines(stdout)).toEqual(['http://first.example/one']);
    child.stdin.end('http://second.example/two\n');
    const code = await new Promise((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    expect(code).toBe(0);
    expect(lines(stdout)).toEqual(['http://first.example/one', 'http://second.example/two']);
  });

  it('handles a large input in order, and stops quietly when its reader goes away', async () => {
    const n = 50_000;
    const input = Array.from({ length: n }, (_, i) => `http://Host${i % 7}.example/p/${i}?b=1&a=${i}`).join('\n');
    const r = await runWithInput(['normalize'], input);
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out).toHaveLength(n);
    expect(out[0]).toBe('http://host0.example/p/0?a=0&b=1');
    expect(out[n - 1]).toBe(`http://host${(n - 1) % 7}.example/p/${n - 1}?a=${n - 1}&b=1`);

    // like `| head -1`: close our end of its stdout after the first chunk
    const child = startCli(['normalize']);
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.once('data', () => child.stdout.destroy());
    child.stdin.on('error', () => undefined); // it may stop reading before we finish writing
    child.stdin.end(input + '\n' + input);
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stderr).toBe('');
  });
});
