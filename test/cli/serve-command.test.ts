import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

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
