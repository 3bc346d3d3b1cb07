import { resolve as resolvePath } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { runCli as cliMain } from '../../src/cli/cli.js';
import { runCliProcess } from './cli-process.js';
import { repoRoot } from './crawl-corpus.js';

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Working directory (default: the repository's root). */
  cwd?: string;
  /** Give up after this long (default 60 s). */
  timeoutMs?: number;
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Text on stdin (default: none, an empty stdin). */
  input?: string;
}

/** A writable stream that keeps what is written to it as text. */
class Capture extends Writable {
  text = '';
  private readonly decoder = new StringDecoder('utf8');
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.text += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    cb();
  }
}

/**
 * Runs `topicrawl <args>` IN THIS PROCESS: the CLI's own `runCli` (src/cli/cli.ts, what the
 * `topicrawl` bin calls) with captured stdout and stderr and an empty stdin, so the same command
 * line, the same parsing, handlers, messages and exit code, without starting node and tsx again
(about a second of CPU per run on this machine, many seconds when it is loaded).
 * Resolves to what the process runner resolves to (`signal` is always null).
 *
 * A run that needs another working directory or environment than this process has (the CLI reads
 * both from the process) goes to {@link runCliProcess} instead, as do tests about the process itself
 * (signals, kill -9, EPIPE, stdin streaming): call runCliProcess directly for those.
 */
export async function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  const cwd = resolvePath(opts.cwd ?? repoRoot);
  if (cwd !== resolvePath(process.cwd()) || (opts.env && Object.keys(opts.env).length > 0)) return runCliProcess(args, opts);
  const stdout = new Capture();
  const stderr = new Capture();
  const timeoutMs = opts.timeoutMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`topicrawl ${args.join(' ')}: not finished after ${timeoutMs} ms (in-process run)`)), timeoutMs);
  });
  try {
    const stdin = Readable.from(opts.input === undefined ? [] : [Buffer.from(opts.input)]);
    const code = await Promise.race([cliMain(args, { stdout, stderr, stdin }), timeout]);
    return { code, signal: null, stdout: stdout.text, stderr: stderr.text };
  } finally {
    clearTimeout(timer);
  }
}

export { runCliProcess };
