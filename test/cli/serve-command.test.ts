import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { startCli } from '../helpers/cli-process.js';
import { openDatabase } from '../../src/store/open-database.js';
import { tmpDir } from '../helpers/tmp.js';

/** `topicrawl serve` with a port it cannot use: one line naming the port, exit 2 (a usage error), no stack. */
describe('topicrawl serve: bad ports', () => {
  it('--port 99999 is a usage error', async () => {
    const r = await runCli(['serve', 'corpora/tobacco-demo', '--port', '99999']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('topicrawl: --port 99999: expected a port number from 0 to 65535 (0: any free port) [E_USAGE]\n');
  });

  it('a port in use is named in the error', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as AddressInfo).port;
    try {
      const r = await runCli(['serve', 'corpora/tobacco-demo', '--port', String(port)]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `topicrawl: cannot serve on 127.0.0.1 port ${port}: the port is in use by another program (EADDRINUSE); choose another --port, or 0 for any free port [E_USAGE]\n`,
      );
    } finally {
      await new Promise<void>((r) => taken.close(() => r()));
    }
  });
});

/**
 * The line `serve` prints is pasted as it is: a crawl with it reaches every host of the corpus on
 * loopback, and an unmapped host fails without a DNS lookup (--mapped-only).
 */
describe('topicrawl serve: the crawl command it prints', () => {
  it('maps every host with --mapped-only; a host left out fails with E_DNS, never looked up', async () => {
    const server = startCli(['serve', 'corpora/tobacco-demo'], { timeoutMs: 120_000 });
    try {
      await server.waitFor(/^or simply:/m);
      const line = /crawl it with: topicrawl crawl <topic\.yaml> (.*)$/m.exec(server.stdout + server.stderr);
      expect(line, server.stdout + server.stderr).not.toBeNull();
      const args = line![1].split(' ');
      expect(args[0]).toBe('--mapped-only');
      const maps = args.slice(1).filter((a) => a !== '--resolve');
      expect(maps.length).toBe(14); // every host of corpora/tobacco-demo
      const crawl = async (resolve: string[], extra: string[] = []) => {
        const db = join(tmpDir(), 'c.db');
        const r = await runCli(['crawl', 'topics/tobacco.yaml', '--db', db, '--max-pages', '40', '--json', '--set', 'politeness.delay_ms=0', '--mapped-only', ...resolve.flatMap((m) => ['--resolve', m]), ...extra]);
        expect(r.code, r.stderr).toBe(0);
        const d = openDatabase(db, { readonly: true });
        try {
          const rows = d.prepare("SELECT url, note FROM urls WHERE error = 'E_DNS'").all() as { url: string; note: string }[];
          return { summary: JSON.parse(r.stdout) as { fetched: number; errors: number }, rows };
        } finally {
          d.close();
        }
      };
      const all = await crawl(maps);
      expect(all.summary.fetched).toBe(40);
      expect(all.rows, JSON.stringify(all.rows)).toEqual([]);
      // only the seed's host mapped (robots.txt off, else the others are suspended when their
      // robots.txt cannot be fetched): the others' URLs fail as hosts not in the map, not looked up
      const seedHost = 'www.tobacco-info.example';
      const one = await crawl(maps.filter((m) => m.startsWith(`${seedHost}=`)), ['--set', 'politeness.robots=false']);
      expect(one.rows.length).toBeGreaterThan(0);
      for (const r of one.rows) {
        expect(new URL(r.url).hostname).not.toBe(seedHost);
        expect(r.note).toContain('(not in the host map; DNS is off)');
      }
    } finally {
      server.child.kill('SIGINT');
      await server.done;
    }
  }, 120_000);
});
