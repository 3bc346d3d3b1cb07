import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { basename } from 'node:path';
import { CDXIndexer, WARCParser } from 'warcio';

/** One record of a WARC file as warcio's parser reads it, with its raw bytes for recomputing digests. */
export interface ReadRecord {
  file: string;
  offset: number;
  length: number;
  type: string;
  headers: Map<string, string>;
  /** The record block (Content-Length bytes after the WARC headers). */
  block: Buffer;
  /** For response, request and revisit records: the HTTP head (status line and fields) and the payload after it. */
  httpHead: string | null;
  payload: Buffer | null;
  /** warcio's own parse of the HTTP head, when there is one. */
  statusCode: number | null;
}

/**
 * Reads a `.warc.gz` with warcio's WARCParser (offsets and lengths as its indexer sees them), and
 * checks nothing itself: the block and payload are cut from the decompressed record for the test's
 * own digest computation.
 */
export async function readWarc(path: string): Promise<ReadRecord[]> {
  const data = readFileSync(path);
  const parser = new WARCParser([data]);
  const out: ReadRecord[] = [];
  for await (const record of parser) {
    await record.readFully();
    const offset = parser.offset;
    const length = parser.recordLength;
    const headers = new Map<string, string>();
    for (const [k, v] of record.warcHeaders.headers) headers.set(k.toLowerCase(), v);
    // the record's block, from its own gzip member: the bytes after the WARC header block
    const raw = gunzipMember(data.subarray(offset, offset + length)).body;
    const start = raw.indexOf('\r\n\r\n') + 4;
    const block = raw.subarray(start, start + Number(headers.get('content-length')));
    let httpHead: string | null = null;
    let payload: Buffer | null = null;
    if (record.httpHeaders) {
      const end = block.indexOf('\r\n\r\n');
      httpHead = block.subarray(0, end + 2).toString('utf8');
      payload = block.subarray(end + 4);
    }
    out.push({
      file: path, offset, length, type: record.warcType ?? '', headers, block, httpHead, payload,
      statusCode: record.httpHeaders && record.warcType !== 'request' ? Number(record.httpHeaders.statusCode) : null,
    });
  }
  return out;
}

/** Decompresses exactly one gzip member at the start of `buf` (flags 0, as CompressionStream writes); its size too. */
export function gunzipMember(buf: Buffer): { body: Buffer; size: number } {
  if (buf[0] !== 0x1f || buf[1] !== 0x8b || buf[2] !== 8) throw new Error('not a gzip member');
  if (buf[3] !== 0) throw new Error(`gzip flags ${buf[3]}: this reader expects none`);
  const r = inflateRawSync(buf.subarray(10), { info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
  return { body: r.buffer, size: 10 + r.engine.bytesWritten + 8 };
}

/** The offsets of the gzip members of a file, walked member by member. */
export function gzipMembers(path: string): number[] {
  const data = readFileSync(path);
  const starts: number[] = [];
  for (let o = 0; o < data.length; ) {
    starts.push(o);
    o += gunzipMember(data.subarray(o)).size;
  }
  return starts;
}

/** sha256 in base32 (RFC 4648, with padding), as `sha256:…`: the test's own digest, not warcio's. */
export function sha256Base32(b: Uint8Array): string {
  const bytes = createHash('sha256').update(b).digest();
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += '=';
  return `sha256:${out}`;
}

/** The CDXJ lines warcio's own indexer makes of a finished WARC file (each ending with a newline). */
export async function warcioCdxj(path: string): Promise<string[]> {
  const data = readFileSync(path);
  const indexer = new CDXIndexer({ format: 'cdxj' });
  const out: string[] = [];
  const reader = (async function* () {
    yield data;
  })();
  for await (const r of indexer.iterIndex([{ filename: basename(path), reader }])) out.push(indexer.serialize(r));
  return out;
}
