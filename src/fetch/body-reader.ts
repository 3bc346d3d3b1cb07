import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import type { Readable, Transform } from 'node:stream';
import { mapFetchError, type FetchFailure } from './fetch-errors.js';

/** Decompressor output chunks: 64 KiB instead of 16, so a big body is fewer thread-pool round trips. */
const DECODE_CHUNK = 64 * 1024;

/** How to read one response body. */
export interface BodyReadOptions {
  /** The raw Content-Encoding header, or undefined. */
  contentEncoding: string | undefined;
  /** Cap on the decompressed body, and on the raw bytes read. */
  maxBytes: number;
  /** Overall deadline for reading the whole body, from now. */
  deadlineMs: number;
  /** The Content-Length header as a number, or null. */
  contentLength: number | null;
  /** Read the first maxBytes of a body whose Content-Length is over the cap, instead of refusing it. */
  truncate?: boolean;
}

/** What was read: the (decompressed, possibly cut) body, the raw byte count, and a failure if any. */
export interface BodyReadResult {
  body: Buffer;
  wireBytes: number;
  error?: FetchFailure;
}

const EMPTY = Buffer.alloc(0);
const SUPPORTED = new Set(['gzip', 'x-gzip', 'deflate', 'br']);

/** Content codings to undo, outermost last; "identity" dropped. */
export function parseContentEncoding(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '' && s !== 'identity');
}

/** "deflate" is meant to be zlib-wrapped, but many servers send raw deflate: look at the header. */
function isZlibHeader(first: Buffer): boolean {
  if (first.length < 2) return true;
  const cmf = first[0];
  const flg = first[1];
  return (cmf & 0x0f) === 8 && (cmf >> 4) <= 7 && ((cmf << 8) | flg) % 31 === 0;
}

function createDecoder(encoding: string, first: Buffer): Transform {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip({ chunkSize: DECODE_CHUNK });
    case 'deflate':
      return isZlibHeader(first) ? createInflate({ chunkSize: DECODE_CHUNK }) : createInflateRaw({ chunkSize: DECODE_CHUNK });
    default:
      return createBrotliDecompress({ chunkSize: DECODE_CHUNK });
  }
}

/**
 * Reads a response body stream to the end, decompressing gzip / deflate / br, within a size cap
 * (applied to the raw bytes and to the decompressed output: a compression bomb stops as soon as
 * its output passes the cap) and an overall deadline (a slow drip cannot hold it forever).
 * Never throws: failures come back in `error`; on E_TOO_LARGE the body holds the first maxBytes
 * bytes, on any other failure it is empty. The stream is always consumed or destroyed.
 */
export async function readBody(stream: Readable, o: BodyReadOptions): Promise<BodyReadResult> {
  // undici's body emits 'error' (RequestAbortedError) when destroyed before its end: the outcome is
  // recorded from our own state, so that event must never go unhandled.
  stream.on('error', noop);
  const encodings = parseContentEncoding(o.contentEncoding);
  if (o.contentLength !== null && o.contentLength > o.maxBytes && !o.truncate) {
    stream.destroy();
    return { body: EMPTY, wireBytes: 0, error: tooLarge(o.maxBytes, `Content-Length ${o.contentLength}`) };
  }
  if (encodings.length > 1 || (encodings.length === 1 && !SUPPORTED.has(encodings[0]))) {
    stream.destroy();
    return { body: EMPTY, wireBytes: 0, error: { code: 'E_DECODE', message: `unsupported Content-Encoding "${o.contentEncoding}"` } };
  }
  const encoding = encodings[0];
  const out: Buffer[] = [];
  let outBytes = 0;
  let wireBytes = 0;
  let failure: FetchFailure | undefined;
  let decoder: Transform | undefined;
  let decoderClosed: Promise<void> | undefined;

  const stop = (f: FetchFailure): void => {
    if (failure) return;
    failure = f;
    decoder?.destroy();
    if (!stream.destroyed) stream.destroy();
  };
  const accept = (chunk: Buffer): void => {
    if (failure) return;
    const room = o.maxBytes - outBytes;
    if (chunk.length > room) {
      if (room > 0) out.push(chunk.subarray(0, room));
      outBytes += Math.max(room, 0);
      stop(tooLarge(o.maxBytes, 'decoded body'));
      return;
    }
    out.push(chunk);
    outBytes += chunk.length;
  };
  const timer = setTimeout(() => {
    stop({ code: 'E_BODY_TIMEOUT', message: `body not complete after ${o.deadlineMs} ms` });
  }, o.deadlineMs);

  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (failure) break;
      wireBytes += chunk.length;
      if (encoding === undefined) {
        accept(chunk);
      } else {
        if (!decoder) {
          const d = createDecoder(encoding, chunk);
          decoder = d;
          decoderClosed = new Promise((resolve) => d.once('close', resolve));
          d.on('data', accept);
          d.on('error', (err: unknown) => stop({ code: 'E_DECODE', message: mapFetchError(err).message }));
        }
        if (wireBytes > o.maxBytes) stop(tooLarge(o.maxBytes, 'raw body'));
        else if (!decoder.write(chunk)) await drained(decoder);
      }
      if (failure) break;
    }
    if (decoder && !failure) {
      decoder.end();
      await decoderClosed;
    }
  } catch (err) {
    if (!failure) failure = mapFetchError(err);
  } finally {
    clearTimeout(timer);
    if (failure) {
      decoder?.destroy();
      if (!stream.destroyed) stream.destroy();
    }
  }
  if (failure && failure.code !== 'E_TOO_LARGE') return { body: EMPTY, wireBytes, error: failure };
  return { body: out.length === 1 ? out[0] : Buffer.concat(out, outBytes), wireBytes, ...(failure ? { error: failure } : {}) };
}

function noop(): void {}

function tooLarge(max: number, what: string): FetchFailure {
  return { code: 'E_TOO_LARGE', message: `${what} exceeds ${max} bytes` };
}

/** Resolves when the decoder wants more input, or is gone. */
function drained(d: Transform): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      d.off('drain', done);
      d.off('close', done);
      resolve();
    };
    d.on('drain', done);
    d.on('close', done);
  });
}
