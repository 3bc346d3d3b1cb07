import { hideBin } from './yargs-lib.js';
import { runCli } from './cli.js';

// The `topicrawl` process: runs the command line through runCli (src/cli/cli.ts) with the process's
// own streams and exits with its code.

// output piped into a reader that stops early (`| head`): end quietly, as Unix tools do
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

process.exitCode = await runCli(hideBin(process.argv), {
  stdout: process.stdout,
  stderr: process.stderr,
  // only `normalize` reads stdin; opening it for every command would be wasted (and may hold a terminal)
  get stdin() {
    return process.stdin;
  },
});
