import { hash } from 'node:crypto';

/** Length in bytes of {@link urlHash}. */
export const URL_HASH_BYTES = 16;

/**
 * A fixed-length key for a URL: the first 16 bytes of the SHA-256 of the URL string (UTF-8).
 * Pass the *normalised* URL (see `normalizeUrl`); the string is hashed as given, so two spellings
 * of one URL hash alike only after normalisation. 128 bits: collisions are negligible at any
 * crawl size (~1e-20 for a billion URLs).
 */
export function urlHash(url: string): Buffer {
  // one-shot hash (2× faster than createHash); its own 32-byte buffer, never a pooled slab
  return hash('sha256', url, 'buffer').subarray(0, URL_HASH_BYTES);
}
