import { constants, gunzipSync } from 'node:zlib';
import iconv from 'iconv-lite';
import { resolveCharset } from './charset.js';

/**
 * Byte-level helpers of the sitemap parser: gzip detection by magic bytes, gzip decompression with
 * a hard cap on the decompressed size (a gzip bomb stops at the cap), and bytes → text.
 */

/** True when `b` starts with the gzip magic bytes 1f 8b (the name and content type are not looked at). */
export function isGzip(b: Buffer): boolean {
  return b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
}

/** Result of {@link gunzipCapped}: the (possibly partial) output, and what went wrong, if anything. */
export interface Inflated {
  data: Buffer;
  /** The decompressed size would exceed the cap; `data` is a prefix of at most `cap` bytes. */
  capped: boolean;
  /** A decompression error (truncated or corrupt stream); `data` is what could be recovered. */
  error: string | null;
}

function isTooLarge(err: unknown): boolean {
  return err instanceof RangeError || (err as { code?: string } | null)?.code === 'ERR_BUFFER_TOO_LARGE';
}

/** Inflates a prefix of the input, tolerating a cut stream; throws RangeError past the cap. */
function inflatePrefix(body: Buffer, cap: number): Buffer {
  return gunzipSync(body, { maxOutputLength: cap, finishFlush: constants.Z_SYNC_FLUSH });
}

/**
 * Decompresses gzip data (one or more members) to at most `cap` bytes. Never throws. Past the cap,
 * the output is the decompressed prefix of the longest input prefix (found by bisection, at most
 * ~20 bounded attempts) whose output still fits, so URLs before the cap are kept.
 */
export function gunzipCapped(body: Buffer, cap: number): Inflated {
  const limit = Math.max(1, Math.floor(cap));
  try {
    return { data: gunzipSync(body, { maxOutputLength: limit }), capped: false, error: null };
  } catch (err) {
    if (!isTooLarge(err)) {
      // Truncated or corrupt: recover what a sync flush gives.
      const message = `gzip: ${(err as Error).message}`;
      try {
        return { data: inflatePrefix(body, limit), capped: false, error: message };
      } catch (err2) {
        if (!isTooLarge(err2)) return { data: Buffer.alloc(0), capped: false, error: message };
      }
    }
  }
  // Over the cap: bisect on the input length for the longest prefix that still fits.
  let lo = 0;
  let hi = body.length;
  let best: Buffer = Buffer.alloc(0);
  for (let i = 0; i < 24 && hi - lo > 64; i++) {
    const mid = lo + Math.floor((hi - lo) / 2);
    try {
      best = inflatePrefix(body.subarray(0, mid), limit);
      lo = mid;
    } catch {
      hi = mid;
    }
  }
  return { data: best, capped: true, error: null };
}

const XML_DECL = /^\s*<\?xml[^>]*?encoding\s*=\s*["']([^"']+)["']/;

/**
 * Bytes → text: a UTF-8 BOM is dropped, a UTF-16 BOM selects UTF-16, otherwise the encoding named in
 * an XML declaration is used when it is known, else UTF-8 (the protocol's encoding). Invalid
 * sequences become U+FFFD.
 */
export function decodeSitemapBytes(b: Buffer): string {
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return b.subarray(3).toString('utf8');
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe) return iconv.decode(b.subarray(2), 'utf-16le');
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return iconv.decode(b.subarray(2), 'utf-16be');
  const m = XML_DECL.exec(b.subarray(0, 256).toString('latin1'));
  if (m) {
    const cs = resolveCharset(m[1]);
    // A declaration readable as ASCII rules out UTF-16, whatever it says.
    if (cs && cs !== 'utf-8' && !cs.startsWith('utf-16')) return iconv.decode(b, cs);
  }
  return b.toString('utf8');
}
