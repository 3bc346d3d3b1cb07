import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { TopicrawlError } from '../errors.js';

/**
 * A minimal reader of tar archives (POSIX ustar, GNU and pax variants), enough to read data sets
 * without a system `tar`: 512-byte headers, octal (or GNU base-256) sizes, the ustar `prefix`
 * field, GNU long names (`L` entries) and pax `path` records (`x` entries). Names are decoded as
 * UTF-8 and kept exactly, control bytes (such as a trailing "\r") included.
 */

/** One member of a tar archive. `data` is a view into the archive buffer (empty for non-files). */
export interface TarEntry {
  name: string;
  /** 'file' (typeflag '0' or NUL), 'directory' ('5'), or 'other' (links, devices, …). */
  type: 'file' | 'directory' | 'other';
  /** The raw typeflag character. */
  typeflag: string;
  size: number;
  data: Buffer;
}

const BLOCK = 512;

function fail(message: string, details: Record<string, unknown> = {}): never {
  throw new TopicrawlError('E_CORPUS', message, details);
}

/** A NUL-terminated field as a UTF-8 string. */
function field(h: Buffer, start: number, length: number): string {
  const end = h.indexOf(0, start);
  return h.toString('utf8', start, end === -1 || end > start + length ? start + length : end);
}

/** A numeric field: octal text, or GNU base-256 when the high bit of the first byte is set. */
function numberField(h: Buffer, start: number, length: number, at: number): number {
  if (h[start] & 0x80) {
    let n = h[start] & 0x7f;
    for (let i = start + 1; i < start + length; i++) n = n * 256 + h[i];
    return n;
  }
  const text = field(h, start, length).trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) fail(`tar: bad numeric field ${JSON.stringify(text)} in the header at byte ${at}`, { offset: at });
  return parseInt(text, 8);
}

function checksumOk(h: Buffer, stored: number): boolean {
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK; i++) {
    const b = i >= 148 && i < 156 ? 0x20 : h[i];
    unsigned += b;
    signed += b > 127 ? b - 256 : b;
  }
  return stored === unsigned || stored === signed;
}

function isZeroBlock(buf: Buffer, at: number): boolean {
  for (let i = at; i < at + BLOCK; i++) if (buf[i] !== 0) return false;
  return true;
}

/** The `path` record of a pax extended header ("<len> key=value\n" records), if any. */
function paxPath(data: Buffer): string | undefined {
  let i = 0;
  let path: string | undefined;
  while (i < data.length) {
    const space = data.indexOf(0x20, i);
    if (space === -1) break;
    const len = parseInt(data.toString('utf8', i, space), 10);
    if (!Number.isFinite(len) || len <= 0) break;
    const record = data.toString('utf8', space + 1, i + len - 1); // without the trailing "\n"
    const eq = record.indexOf('=');
    if (eq > 0 && record.slice(0, eq) === 'path') path = record.slice(eq + 1);
    i += len;
  }
  return path;
}

/**
 * Iterates the members of an uncompressed tar archive, in archive order. Throws `E_CORPUS` on a
 * truncated archive or a header whose checksum does not match.
 */
export function* readTar(buf: Buffer): Generator<TarEntry> {
  let at = 0;
  let longName: string | undefined;
  while (at + BLOCK <= buf.length) {
    if (isZeroBlock(buf, at)) return; // end-of-archive marker
    const h = buf.subarray(at, at + BLOCK);
    if (!checksumOk(h, numberField(h, 148, 8, at))) fail(`tar: header checksum mismatch at byte ${at}`, { offset: at });
    const size = numberField(h, 124, 12, at);
    const typeflag = h[156] === 0 ? '0' : String.fromCharCode(h[156]);
    const dataStart = at + BLOCK;
    if (dataStart + size > buf.length) fail(`tar: member at byte ${at} is truncated`, { offset: at });
    const data = buf.subarray(dataStart, dataStart + size);
    at = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    if (typeflag === 'L') {
      const end = data.indexOf(0);
      longName = data.toString('utf8', 0, end === -1 ? data.length : end);
      continue;
    }
    if (typeflag === 'x') {
      longName = paxPath(data) ?? longName;
      continue;
    }
    if (typeflag === 'g' || typeflag === 'K') continue; // global pax header, GNU long link name
    let name = field(h, 0, 100);
    if (h.toString('latin1', 257, 262) === 'ustar' && h[263] === 0x30) {
      const prefix = field(h, 345, 155); // POSIX ustar ("ustar\0" "00"); GNU puts other data there
      if (prefix) name = `${prefix}/${name}`;
    }
    if (longName !== undefined) {
      name = longName;
      longName = undefined;
    }
    const type = typeflag === '0' || typeflag === '7' ? 'file' : typeflag === '5' ? 'directory' : 'other';
    yield { name, type, typeflag, size, data: type === 'file' ? data : data.subarray(0, 0) };
  }
  if (at < buf.length) fail('tar: archive ends inside a header', { offset: at });
}

/** Reads a tar.gz (or plain .tar) file whole and returns its members. */
export function readTarGzFile(path: string): TarEntry[] {
  let raw: Buffer;
  try {
    raw = readFileSync(path);
  } catch (err) {
    throw new TopicrawlError('E_CORPUS', `${path}: cannot read (${(err as Error).message})`, { file: path }, { cause: err });
  }
  let tar: Buffer;
  try {
    tar = raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw;
  } catch (err) {
    throw new TopicrawlError('E_CORPUS', `${path}: not a valid gzip file (${(err as Error).message})`, { file: path }, { cause: err });
  }
  return [...readTar(tar)];
}
