import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { suiteTmpDir } from '../helpers/tmp.js';

/** Bad input on the command line: a one-line message naming the problem, exit code 2, no stack trace. */
describe('CLI errors', () => {
  const dir = suiteTmpDir();
  const write = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const expectOneLine = (stderr: string) => {
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(stderr).not.toMatch(/\n\s+at /);
  };

  it('a topic file with a wrong type names file, line, key and what was expected', async () => {
    const f = write('wrong-type.yaml', 'name: t\nseeds:\n  - http://a.example/\nstrategy:\n  x: lots\n');
    const r = await runCli(['crawl', f, '--db', join(dir, 'x.db')]);
    expect(r.code).toBe(2);
    expectOneLine(r.stderr);
    expect(r.stderr).toContain('wrong-type.yaml:5');
    expect(r.stderr).toContain('strategy.x');
    expect(r.stderr).toMatch(/number/);
  });

  it('a missing topic file, a YAML syntax error and a missing key each get their own message', async () => {
    const missing = await runCli(['crawl', join(dir, 'nope.yaml')]);
    expect(missing.code).toBe(2);
    expectOneLine(missing.stderr);
    expect(missing.stderr).toContain('nope.yaml');

    const syntax = await runCli(['crawl', write('syntax.yaml', 'name: t\nseeds: [http://a.example/\n')]);
    expect(syntax.code).toBe(2);
    expectOneLine(syntax.stderr);
    expect(syntax.stderr).toMatch(/syntax\.yaml:\d+/);

    const noSeeds = await runCli(['crawl', write('noseeds.yaml', 'name: t\n')]);
    expect(noSeeds.code).toBe(2);
    expectOneLine(noSeeds.stderr);
    expect(noSeeds.stderr).toContain('seeds');
  });

  it('bad flags are usage errors', async () => {
    const f = write('ok.yaml', 'name: t\nseeds: [http://a.example/]\n');
    const badSet = await runCli(['crawl', f, '--set', 'strategy.x=abc']);
    expect(badSet.code).toBe(2);
    expectOneLine(badSet.stderr);
    expect(badSet.stderr).toContain('strategy.x');
    const badStrategy = await runCli(['crawl', f, '--strategy', 'nope', '--db', join(dir, 'y.db')]);
    expect(badStrategy.code).toBe(2);
    expect(badStrategy.stderr).toContain('unknown strategy "nope"');
    const badResolve = await runCli(['crawl', f, '--resolve', 'nonsense']);
    expect(badResolve.code).toBe(2);
    expect(badResolve.stderr).toContain('--resolve');
    const noCommand = await runCli([]);
    expect(noCommand.code).toBe(2);
  });

  it('stats on a file that is not a crawl fails cleanly', async () => {
    const r = await runCli(['stats', write('junk.db', 'this is not sqlite')]);
    expect(r.code).not.toBe(0);
    expectOneLine(r.stderr);
    expect(r.stderr).toContain('junk.db');
  });
});
