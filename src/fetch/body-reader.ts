import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import type { Transform } from 'node:stream';
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

/** How a {@link BodyReader} acts on the transfer it reads. */
export interface BodySource {
  /** Stops the transfer (the reader failed: cap, deadline, bad encoding); called at most once. */
  cancel(): void;
  /** More bytes are wanted again, after {@link BodyReader.write} returned false. */
  resume(): void;
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
 * Why a body is not read at all, from its headers alone (a Content-Length over the cap without
 * `truncate`, a Content-Encoding that cannot be undone), or null to read it.
 */
export function bodyRefusal(o: BodyReadOptions): FetchFailure | null {
  if (o.contentLength !== null && o.contentLength > o.maxBytes && !o.truncate) {
    return tooLarge(o.maxBytes, `Content-Length ${o.contentLength}`);
  }
  const encodings = parseContentEncoding(o.contentEncoding);
  if (encodings.length > 1 || (encodings.length === 1 && !SUPPORTED.has(encodings[0]))) {
    return { code: 'E_DECODE', message: `unsupported Content-Encoding "${o.contentEncoding}"` };
  }
  return null;
}

/**
 * Reads one response body as its transfer hands it over (write, then end or fail), decompressing
 * gzip / deflate / br, within a size cap (applied to the raw bytes and to the decompressed output:
 * a compression bomb stops as soon as its output passes the cap) and an overall deadline from its
 * construction (a slow drip cannot hold it forever). Build it only for a body that
 * {@link bodyRefusal} accepts. `done` is called exactly once: on E_TOO_LARGE the body holds the first
 * maxBytes bytes, on any other failure it is empty. On a failure of its own the reader cancels the
 * transfer; nothing it is given after its end counts.
 */
export class BodyReader {
  private readonly encoding: string | undefined;
  private readonly out: Buffer[] = [];
  private outBytes = 0;
  private wireBytes = 0;
  private failure: FetchFailure | undefined;
  private decoder: Transform | undefined;
  private readonly timer: NodeJS.Timeout;
  private ended = false;

  constructor(
    private readonly o: BodyReadOptions,
    private readonly source: BodySource,
    private readonly done: (r: BodyReadResult) => void,
  ) {
    this.encoding = parseContentEncoding(o.contentEncoding)[0];
    this.timer = setTimeout(() => this.stop({ code: 'E_BODY_TIMEOUT', message: `body not complete after ${o.deadlineMs} ms` }), o.deadlineMs);
  }

  /** The next bytes of the body as sent; false: hold the rest until `source.resume()` (or the end). */
  write(chunk: Buffer): boolean {
    if (this.ended) return false;
    this.wireBytes += chunk.length;
    if (this.encoding === undefined) {
      this.accept(chunk);
      return !this.ended;
    }
    if (this.wireBytes > this.o.maxBytes) {
      this.stop(tooLarge(this.o.maxBytes, 'raw body'));
      return false;
    }
    return (this.decoder ?? this.startDecoder(chunk)).write(chunk);
  }

  /** The transfer is complete. */
  end(): void {
    if (this.ended) return;
    if (!this.decoder) return this.finish();
    this.decoder.once('close', () => this.finish());
    this.decoder.end();
  }

  /** The transfer failed (a reset, undici's idle timeout, the caller's abort). */
  fail(err: unknown): void {
    if (this.ended) return;
    this.failure = mapFetchError(err);
    this.decoder?.destroy();
    this.finish();
  }

  /** Ends the read with `f` and cancels the transfer. */
  stop(f: FetchFailure): void {
    if (this.ended) return;
    this.failure = f;
    this.decoder?.destroy();
    this.finish();
    this.source.cancel();
  }

  private startDecoder(first: Buffer): Transform {
    const d = createDecoder(this.encoding!, first);
    this.decoder = d;
    d.on('data', (chunk: Buffer) => this.accept(chunk));
    d.on('error', (err: unknown) => this.stop({ code: 'E_DECODE', message: mapFetchError(err).message }));
    d.on('drain', () => this.source.resume());
    return d;
  }

  private accept(chunk: Buffer): void {
    if (this.ended) return;
    const room = this.o.maxBytes - this.outBytes;
    if (chunk.length > room) {
      if (room > 0) this.out.push(chunk.subarray(0, room));
      this.outBytes += Math.max(room, 0);
      this.stop(tooLarge(this.o.maxBytes, 'decoded body'));
      return;
    }
    this.out.push(chunk);
    this.outBytes += chunk.length;
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    const f = this.failure;
    const { out, wireBytes } = this;
    if (f && f.code !== 'E_TOO_LARGE') return this.done({ body: EMPTY, wireBytes, error: f });
    const body = out.length === 0 ? EMPTY : out.length === 1 ? out[0] : Buffer.concat(out, this.outBytes);
    this.done(f ? { body, wireBytes, error: f } : { body, wireBytes });
  }
}

function tooLarge(max: number, what: string): FetchFailure {
  return { code: 'E_TOO_LARGE', message: `${what} exceeds ${max} bytes` };
}
