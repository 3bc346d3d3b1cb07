import { hideBin } from './yargs-lib.js';
import { runCli } from './cli.js';

/**
 * The `topicrawl` process: runs the command line through runCli (src/cli/cli.ts) with the process's
 * own streams and sets the exit code. Called by bin/topicrawl.js, on the sources or on the compiled
 * bundle (dist/cli/main.cjs, which exports it).
 */
export async function main(argv: string[] = hideBin(process.argv)): Promise<void> {
  // output piped into a reader that stops early (`| head`): end quietly, as Unix tools do
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  process.exitCode = await runCli(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    // only `normalize` reads stdin; opening it for every command would be wasted (and may hold a terminal)
    get stdin() {
      return process.stdin;
    },
  });
}
