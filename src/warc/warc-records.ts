import { createHash } from 'node:crypto';
import base32Encode from 'base32-encode';
import { WARCRecord, WARC_1_1 } from 'warcio';
import type { WireExchange } from '../fetch/wire-exchange.js';
import { httpBlock, parseRequestHead, renameFields } from './exact-headers.js';

/** The WARC version topicrawl writes (warcio's default is 1.0). */
export const WARC_VERSION = WARC_1_1;

/** WARC/1.1 revisit profiles (WARC 1.1 §6.7). */
export const PROFILE_IDENTICAL = 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest';
export const PROFILE_NOT_MODIFIED = 'http://netpreserve.org/warc/1.1/revisit/server-not-modified';

/** A WARC-Date: UTC with milliseconds (WARC/1.1 allows fractions of a second). */
export const warcDate = (ms: number): string => new Date(ms).toISOString();

export const newRecordId = (): string => `<urn:uuid:${crypto.randomUUID()}>`;

/** A digest as warcio writes one with topicrawl's options: `sha256:` and the SHA-256 in base32 (RFC 4648, padded). */
export function sha256Digest(parts: Iterable<Uint8Array>): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return `sha256:${base32Encode(h.digest(), 'RFC4648')}`;
}

/**
 * Sets WARC-Block-Digest (the HTTP head as warcio will write it, then the payload) and, except on a
 * revisit, WARC-Payload-Digest, with Node's crypto: warcio's serializer then computes none (its
 * hash-wasm hashers instantiate a WebAssembly module each, two per record: most of its cost).
 */
function withDigests(rec: WARCRecord, payload: readonly Uint8Array[]): WARCRecord {
  const head = rec.httpHeaders ? [Buffer.from(`${rec.httpHeaders.toString()}\r\n`)] : [];
  rec.warcHeaders.headers.set('WARC-Block-Digest', sha256Digest([...head, ...payload]));
  if (rec.warcType !== 'revisit') rec.warcHeaders.headers.set('WARC-Payload-Digest', sha256Digest(payload));
  return rec;
}

/** The fields every record of one fetch shares. */
export interface FetchFacts {
  url: string;
  date: string;
  ip?: string;
  warcinfoId?: string;
}

function common(f: FetchFacts, id: string, extra: [string, string][] = []): [string, string][] {
  const h: [string, string][] = [['WARC-Record-ID', id]];
  if (f.ip) h.push(['WARC-IP-Address', f.ip]);
  if (f.warcinfoId) h.push(['WARC-Warcinfo-ID', f.warcinfoId]);
  return [...h, ...extra];
}

/** The status line of a response as kept: protocol, code and the reason phrase as received. */
export function statusLine(w: Pick<WireExchange, 'httpVersion' | 'statusCode' | 'statusText'>): string {
  return `${w.httpVersion} ${w.statusCode}${w.statusText ? ` ${w.statusText}` : ''}`;
}

/** A `response` record of an exchange kept from the wire (body as received: content coding kept). */
export function responseRecord(f: FetchFacts, id: string, w: WireExchange, truncated: string | null): WARCRecord {
  const extra: [string, string][] = truncated ? [['WARC-Truncated', truncated]] : [];
  const rec = WARCRecord.create({ url: f.url, date: f.date, type: 'response', warcVersion: WARC_VERSION, warcHeaders: common(f, id, extra) }, w.body);
  rec.httpHeaders = httpBlock(statusLine(w), renameFields(w.headers, false));
  return withDigests(rec, w.body);
}

/** The `request` record of an exchange: the head undici wrote; concurrent to its response. */
export function requestRecord(f: FetchFacts, responseId: string, w: WireExchange): WARCRecord {
  const { statusline, fields } = parseRequestHead(w.requestHead ?? '');
  const rec = WARCRecord.create({
    url: f.url, date: f.date, type: 'request', warcVersion: WARC_VERSION,
    warcHeaders: common(f, newRecordId(), [['WARC-Concurrent-To', responseId]]),
  });
  rec.httpHeaders = httpBlock(statusline, fields);
  return withDigests(rec, []);
}

/** What a revisit refers to: the original's URI and date, and its record id when it is in a WARC. */
export interface Original {
  url: string;
  date: string;
  recordId?: string;
  /** The original's payload digest as written (sha256:BASE32), when known. */
  digest?: string;
}

/**
 * A `revisit` record: the response's status line and headers only. `profile` is server-not-modified
 * (a 304) or identical-payload-digest (then `digest` is the payload's digest, equal to the original's).
 */
export function revisitRecord(f: FetchFacts, id: string, w: WireExchange, profile: string, original: Original, digest: string | null): WARCRecord {
  const extra: [string, string][] = [];
  if (original.recordId) extra.push(['WARC-Refers-To', original.recordId]);
  if (digest) extra.push(['WARC-Payload-Digest', digest]);
  const rec = WARCRecord.create({
    url: f.url, date: f.date, type: 'revisit', warcVersion: WARC_VERSION, warcHeaders: common(f, id, extra),
    refersToUrl: original.url, refersToDate: original.date,
  });
  rec.warcHeaders.headers.set('WARC-Profile', profile);
  rec.httpHeaders = httpBlock(statusLine(w), renameFields(w.headers, false));
  return withDigests(rec, []);
}

/** A `response` record rebuilt from a crawl file (export): stored headers, the decoded body. */
export function rebuiltResponseRecord(f: FetchFacts, status: number, headers: Record<string, string>, body: Uint8Array): WARCRecord {
  const fields = renameFields(Object.entries(headers), true);
  fields.push(['content-length', String(body.length)]); // the stored body's (the names stored are lower case)
  const rec = WARCRecord.create({ url: f.url, date: f.date, type: 'response', warcVersion: WARC_VERSION, warcHeaders: common(f, newRecordId()) }, [body]);
  rec.httpHeaders = httpBlock(`HTTP/1.1 ${status}${REASONS[status] ? ` ${REASONS[status]}` : ''}`, fields);
  return withDigests(rec, [body]);
}

/** A `metadata` record (application/warc-fields), concurrent to the fetch's response. */
export function metadataRecord(f: FetchFacts, concurrentTo: string | null, fields: [string, string][]): WARCRecord {
  const body = Buffer.from(fields.map(([n, v]) => `${n}: ${v.replace(/[\r\n]+/g, ' ')}\r\n`).join(''));
  const rec = WARCRecord.create({
    url: f.url, date: f.date, type: 'metadata', warcVersion: WARC_VERSION,
    warcHeaders: common(f, newRecordId(), concurrentTo ? [['WARC-Concurrent-To', concurrentTo]] : []),
  }, [body]);
  return withDigests(rec, [body]);
}

/** A `warcinfo` record (the first of each file). */
export function warcinfoRecord(id: string, filename: string, date: string, info: Record<string, string>): WARCRecord {
  return WARCRecord.createWARCInfo({ filename, date, warcVersion: WARC_VERSION, warcHeaders: { 'WARC-Record-ID': id } }, info);
}

/** Reason phrases for rebuilt status lines (the crawl file keeps the code only). */
const REASONS: Record<number, string> = {
  200: 'OK', 201: 'Created', 203: 'Non-Authoritative Information', 204: 'No Content', 206: 'Partial Content',
  301: 'Moved Permanently', 302: 'Found', 303: 'See Other', 304: 'Not Modified', 307: 'Temporary Redirect', 308: 'Permanent Redirect',
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 410: 'Gone', 429: 'Too Many Requests',
  500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};
