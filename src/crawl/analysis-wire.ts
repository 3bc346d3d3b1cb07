import type { AnalyzedLink, PageAnalysis } from './page-analysis.js';

/**
 * A page's analysis as an analysis thread posts it to the crawl's thread: its links in columns
 * (their strings in one string with their lengths, their hashes, scores and the page's binary
 * fields in one buffer) instead of one object each. Structured cloning copies an object property
 * by property and re-interns every key on the receiving side: for a page of 40 links, decoding the
 * objects cost the crawl's thread 55–93 µs against 27 µs for the columns and their unpacking, and
 * the thread that posts 69–87 µs against 49 (a micro-benchmark of v8.serialize on such pages,
 * 2026-12-03).
 *
 * Every byte of the page (the links' scores, lengths and hashes, the content hash, the SimHash and
 * the stored body) goes in ONE buffer, which is transferred, not copied: each typed array cloned
 * costs an allocation on both sides, and a body compressed by zlib is a view on a 16 KB buffer that
 * a clone copies whole (packing, posting, receiving and unpacking 400 pages of /tmp/synth100k in one
 * process: 14.0 µs a page as separate arrays, 10.1 µs as one transferred buffer, 2026-12-05). The crawl's thread is the crawl's serial
 * part, so what it does per page counts most.
 */
export interface WireAnalysis extends Omit<PageAnalysis, 'links' | 'contentHash' | 'simhash' | 'stored'> {
  /** each link's url, host and anchor, one after the other (their lengths in `bytes`) */
  linkText: string;
  /** links in `bytes` */
  links: number;
  contentHash: boolean;
  simhash: boolean;
  codec: PageAnalysis['stored']['codec'];
  /** the stored body's length, the last thing in `bytes` */
  storedBytes: number;
  /**
   * Laid out as: per link anchorScore, contextScore and location (float64 × 3), then per link the
   * lengths of url, host and anchor (uint32 × 3), then per link its 16-byte hash, then the content
   * hash (16 bytes, when set), the SimHash (8 bytes, when set) and the stored body.
   */
  bytes: ArrayBuffer;
}

const HASH_BYTES = 16;
const CONTENT_HASH_BYTES = 16;
const SIMHASH_BYTES = 8;

/** Where each part of {@link WireAnalysis.bytes} starts for `n` links. */
function layout(n: number): { lengths: number; hashes: number; fixed: number } {
  const lengths = n * 3 * 8;
  const hashes = lengths + n * 3 * 4;
  return { lengths, hashes, fixed: hashes + n * HASH_BYTES };
}

/** The analysis for postMessage, and the buffer to transfer with it (the analysis itself is not changed). */
export function packAnalysis(a: PageAnalysis): { wire: WireAnalysis; transfer: ArrayBuffer[] } {
  const n = a.links.length;
  const at = layout(n);
  const ch = a.contentHash;
  const sh = a.simhash;
  if (ch && ch.byteLength !== CONTENT_HASH_BYTES) throw new Error(`a content hash has ${ch.byteLength} bytes, not ${CONTENT_HASH_BYTES}`);
  if (sh && sh.byteLength !== SIMHASH_BYTES) throw new Error(`a SimHash has ${sh.byteLength} bytes, not ${SIMHASH_BYTES}`);
  const body = a.stored.data;
  let end = at.fixed + (ch ? CONTENT_HASH_BYTES : 0);
  const shAt = end;
  end += sh ? SIMHASH_BYTES : 0;
  const bodyAt = end;
  const bytes = new ArrayBuffer(end + body.byteLength);
  const scores = new Float64Array(bytes, 0, n * 3);
  const lengths = new Uint32Array(bytes, at.lengths, n * 3);
  const u8 = new Uint8Array(bytes);
  const parts: string[] = new Array(n * 3);
  for (let i = 0; i < n; i++) {
    const l = a.links[i];
    if (l.hash.byteLength !== HASH_BYTES) throw new Error(`a link's hash has ${l.hash.byteLength} bytes, not ${HASH_BYTES}`);
    parts[3 * i] = l.url;
    parts[3 * i + 1] = l.host;
    parts[3 * i + 2] = l.anchor;
    lengths[3 * i] = l.url.length;
    lengths[3 * i + 1] = l.host.length;
    lengths[3 * i + 2] = l.anchor.length;
    u8.set(l.hash, at.hashes + i * HASH_BYTES);
    scores[3 * i] = l.anchorScore;
    scores[3 * i + 1] = l.contextScore;
    scores[3 * i + 2] = l.location;
  }
  if (ch) u8.set(ch, at.fixed);
  if (sh) u8.set(sh, shAt);
  u8.set(body, bodyAt);
  // (every field named: an object rest with keys left out is built by a slow runtime call)
  const wire: WireAnalysis = {
    charset: a.charset, title: a.title, relevance: a.relevance, lang: a.lang, dropped: a.dropped, canonical: a.canonical,
    linksCut: a.linksCut, noindex: a.noindex, nofollow: a.nofollow,
    linkText: parts.join(''), links: n, contentHash: ch !== null, simhash: sh !== null, codec: a.stored.codec, storedBytes: body.byteLength, bytes,
  };
  return { wire, transfer: [bytes] };
}

/**
 * The analysis back from its columns. The links' hashes are Buffers on one buffer of their own,
 * and the content hash and SimHash copies, so that nothing kept of a link holds the page's body;
 * the stored body is a Buffer on the transferred buffer (held until the page is recorded).
 */
export function unpackAnalysis(w: WireAnalysis): PageAnalysis {
  const { linkText: text, links: n, bytes } = w;
  const at = layout(n);
  const scores = new Float64Array(bytes, 0, n * 3);
  const lengths = new Uint32Array(bytes, at.lengths, n * 3);
  const hashes = Buffer.from(bytes.slice(at.hashes, at.fixed));
  const links: AnalyzedLink[] = new Array(n);
  let pos = 0;
  const next = (len: number): string => text.slice(pos, (pos += len));
  for (let i = 0; i < n; i++) {
    const url = next(lengths[3 * i]);
    const host = next(lengths[3 * i + 1]);
    const anchor = next(lengths[3 * i + 2]);
    const hash = hashes.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES);
    links[i] = { url, hash, host, anchor, anchorScore: scores[3 * i], contextScore: scores[3 * i + 1], location: scores[3 * i + 2] };
  }
  let end = at.fixed;
  const contentHash = w.contentHash ? new Uint8Array(bytes.slice(end, (end += CONTENT_HASH_BYTES))) : null;
  const simhash = w.simhash ? new Uint8Array(bytes.slice(end, (end += SIMHASH_BYTES))) : null;
  return {
    charset: w.charset, title: w.title, relevance: w.relevance, lang: w.lang, dropped: w.dropped, canonical: w.canonical,
    linksCut: w.linksCut, noindex: w.noindex, nofollow: w.nofollow,
    links, contentHash, simhash, stored: { data: Buffer.from(bytes, end, w.storedBytes), codec: w.codec },
  };
}
