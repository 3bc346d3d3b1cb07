import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { TopicrawlError } from '../errors.js';
import { normalizeUrl, type NormalizeOptions } from '../url/normalize.js';

/** Options of {@link runNormalize}, as given on the command line. */
export interface NormalizeCommandOptions {
  /** URLs from the arguments; when empty, URLs are read from `io.stdin`, one per line. */
  urls: string[];
  /** Resolve relative inputs against this absolute http(s) URL. */
  base?: string;
  /** Sort query parameters (default true). */
  sortQuery?: boolean;
  /** Extra query parameters to strip (a trailing `*` makes a prefix); each may be comma-separated. */
  strip?: string[];
}

/** The streams the command reads and writes (process.stdin/stdout/stderr in the CLI). */
export interface NormalizeIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

/** Output is written in chunks of about this many characters (and at least once per input chunk). */
const FLUSH_AT = 64 * 1024;

/** Resolves when `w` drains, closes or fails; leaves no listener behind. */
function drain(w: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      w.off('drain', done);
      w.off('close', done);
      w.off('error', done);
      resolve();
    };
    w.on('drain', done);
    w.on('close', done);
    w.on('error', done);
  });
}

/**
 * `topicrawl normalize`: one output line per input URL, in order. A valid input gives its
 * normalised URL; an invalid one gives an EMPTY line on stdout (so line i of stdout always belongs
 * to input URL i) and `topicrawl: <where>: <reason> [E_INVALID_URL]` on stderr, where <where> is
 * "line N" (of stdin, counting blank lines) or "argument N". Blank stdin lines are skipped and give
 * no output line. Stdin is read as a stream, line by line. Resolves to the exit code: 0 if every
 * input was valid, 1 otherwise. Stops quietly when stdout is closed early (`| head`).
 */
export async function runNormalize(opts: NormalizeCommandOptions, io: NormalizeIo): Promise<number> {
  const base = opts.base;
  if (base !== undefined) {
    let ok = false;
    try {
      const u = new URL(base);
      ok = u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      // not a URL
    }
    if (!ok) throw new TopicrawlError('E_USAGE', `--base ${JSON.stringify(base)}: expected an absolute http(s) URL`);
  }
  const options: NormalizeOptions = {
    sortQuery: opts.sortQuery !== false,
    stripParams: (opts.strip ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s.length > 0),
  };

  let invalid = 0;
  let buf = '';
  let closed = false; // stdout went away (EPIPE): stop
  let immediate: NodeJS.Immediate | null = null;
  const onError = () => {
    closed = true;
  };
  io.stdout.on('error', onError);

  const flush = () => {
    if (immediate) clearImmediate(immediate);
    immediate = null;
    if (buf.length > 0 && !closed) io.stdout.write(buf);
    buf = '';
  };
  const one = (input: string, where: string) => {
    try {
      buf += normalizeUrl(input, options, base) + '\n';
    } catch (err) {
      invalid++;
      buf += '\n';
      flush(); // keep stdout and stderr in order on a terminal
      const msg = err instanceof TopicrawlError ? `${err.message} [${err.code}]` : String(err);
      io.stderr.write(`topicrawl: ${where}: ${msg}\n`);
    }
  };
  const drained = async () => {
    if (buf.length >= FLUSH_AT) flush();
    else if (!immediate) immediate = setImmediate(flush); // flush once the current input chunk is done
    if (io.stdout.writableNeedDrain && !closed) await drain(io.stdout);
  };

  try {
    if (opts.urls.length > 0) {
      for (let i = 0; i < opts.urls.length && !closed; i++) {
        one(opts.urls[i].trim(), `argument ${i + 1}`);
        await drained();
      }
    } else {
      const rl = createInterface({ input: io.stdin, crlfDelay: Infinity });
      let n = 0;
      for await (const raw of rl) {
        n++;
        const line = raw.trim();
        if (line.length > 0) {
          one(line, `line ${n}`);
          await drained();
        }
        if (closed) {
          rl.close();
          io.stdin.destroy();
          break;
        }
      }
    }
    flush();
  } finally {
    if (immediate) clearImmediate(immediate);
    if (!closed) io.stdout.off('error', onError);
  }
  return invalid > 0 ? 1 : 0;
}
