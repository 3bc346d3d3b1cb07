import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { openDatabase } from '../../src/store/sqlite-store.js';
import { repoRoot } from './crawl-corpus.js';

/** The end of a `topicrawl` child process. */
export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Where and how to run it: working directory, extra environment, a kill after timeoutMs, text on stdin. */
export interface ProcessOptions {
  cwd?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
  input?: string;
}

/** A running `topicrawl` child process: its output so far, a wait for a line, and its end. */
export interface CliProcess {
  child: ChildProcessByStdio<Writable | null, Readable, Readable>;
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves when stderr (or stdout) matches `re`; rejects if the process ends first. */
  waitFor(re: RegExp): Promise<void>;
  done: Promise<ProcessResult>;
}

/**
 * Starts the real `topicrawl` bin in a child process: for what only a process shows (exit codes
 * after a signal or a kill, two processes on one file, a process that must not hang). Killed with
 * SIGKILL after `timeoutMs` (default 60 s), so a hang ends the test instead of the suite.
 */
export function startCli(args: string[], opts: ProcessOptions = {}): CliProcess {
  const child = spawn(process.execPath, [join(repoRoot, 'bin/topicrawl.js'), ...args], {
    cwd: opts.cwd ?? repoRoot,
    env: { ...process.env, ...opts.env },
    stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  }) as ChildProcessByStdio<Writable | null, Readable, Readable>;
  if (opts.input !== undefined) child.stdin!.end(opts.input);
  let stdout = '';
  let stderr = '';
  const waiters: { re: RegExp; resolve: () => void; reject: (e: Error) => void }[] = [];
  const check = () => {
    for (const w of [...waiters]) {
      if (w.re.test(stderr) || w.re.test(stdout)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  child.stdout.on('data', (d) => {
    stdout += d;
    check();
  });
  child.stderr.on('data', (d) => {
    stderr += d;
    check();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
  const done = new Promise<ProcessResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      for (const w of waiters.splice(0)) w.reject(new Error(`process ended (code ${code}, signal ${signal}) before ${w.re}: ${stderr.slice(-500)}`));
      resolve({ code, signal, stdout, stderr });
    });
  });
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    waitFor: (re) =>
      new Promise<void>((resolve, reject) => {
        waiters.push({ re, resolve, reject });
        check();
      }),
    done,
  };
}

/** Runs the real `topicrawl` bin in a child process to its end. */
export function runCliProcess(args: string[], opts: ProcessOptions = {}): Promise<ProcessResult> {
  return startCli(args, opts).done;
}

/**
 * Runs `topicrawl <args>` (a crawl into `db`) in a child process and kills it with SIGKILL once the
 * file holds at least `pages` fetched pages; resolves, after the process is gone, to the count seen
 * then. Rejects if the crawl ends by itself first.
 */
export async function crawlKilledAfter(args: string[], db: string, pages: number): Promise<number> {
  const child = spawn(process.execPath, [join(repoRoot, 'bin/topicrawl.js'), ...args], { stdio: 'ignore' });
  const exited = new Promise((r) => child.once('exit', r));
  const seen = await new Promise<number>((resolve, reject) => {
    const poll = setInterval(() => {
      try {
        const conn = openDatabase(db, { readonly: true });
        const n = (conn.prepare('SELECT COUNT(*) AS n FROM urls WHERE fetch_seq IS NOT NULL').get() as { n: number }).n;
        conn.close();
        if (n >= pages) {
          clearInterval(poll);
          child.kill('SIGKILL');
          resolve(n);
        }
      } catch {
        /* file not created yet */
      }
    }, 20);
    child.on('exit', () => {
      clearInterval(poll);
      reject(new Error('crawl ended before it could be killed'));
    });
  });
  await exited;
  return seen;
}
