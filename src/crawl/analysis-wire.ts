import type { AnalyzedLink, PageAnalysis } from './page-analysis.js';

/**
 * A page's analysis as an analysis thread posts it to the crawl's thread: its links in columns
 * (their strings in one string with their lengths, their hashes in one buffer, their scores in
 * one array) instead of one object each. Structured cloning copies an object property by property
 * and re-interns every key on the receiving side: for a page of 40 links, decoding the objects cost
 * the crawl's thread 55–93 µs against 27 µs for the columns and their unpacking, and the thread
 * that posts 69–87 µs against 49 (a micro-benchmark of v8.serialize on such pages, 2026-12-03).
 * The crawl's thread is the crawl's serial part, so what it does per page counts most.
 */
export interface WireAnalysis extends Omit<PageAnalysis, 'links'> {
  links: WireLinks;
}

interface WireLinks {
  /** each link's url, host and anchor, one after the other */
  text: string;
  /** their lengths in `text`, 3 per link */
  lengths: Uint32Array;
  /** 16 bytes per link */
  hashes: Uint8Array;
  /** anchorScore, contextScore and location per link */
  scores: Float64Array;
}

const HASH_BYTES = 16;

/** The analysis in columns, for postMessage (the analysis itself is not changed). */
export function packAnalysis(a: PageAnalysis): WireAnalysis {
  const n = a.links.length;
  const lengths = new Uint32Array(n * 3);
  const hashes = new Uint8Array(n * HASH_BYTES);
  const scores = new Float64Array(n * 3);
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
    hashes.set(l.hash, i * HASH_BYTES);
    scores[3 * i] = l.anchorScore;
    scores[3 * i + 1] = l.contextScore;
    scores[3 * i + 2] = l.location;
  }
  return { ...a, links: { text: parts.join(''), lengths, hashes, scores } };
}

/** The analysis back from its columns; each link's hash a Buffer on the shared hash buffer. */
export function unpackAnalysis(w: WireAnalysis): PageAnalysis {
  const { text, lengths, hashes, scores } = w.links;
  const n = lengths.length / 3;
  const links: AnalyzedLink[] = new Array(n);
  let at = 0;
  const next = (len: number): string => text.slice(at, (at += len));
  for (let i = 0; i < n; i++) {
    const url = next(lengths[3 * i]);
    const host = next(lengths[3 * i + 1]);
    const anchor = next(lengths[3 * i + 2]);
    const hash = Buffer.from(hashes.buffer, hashes.byteOffset + i * HASH_BYTES, HASH_BYTES);
    links[i] = { url, hash, host, anchor, anchorScore: scores[3 * i], contextScore: scores[3 * i + 1], location: scores[3 * i + 2] };
  }
  return { ...w, links };
}
