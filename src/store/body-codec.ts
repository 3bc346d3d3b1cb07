import { brotliCompressSync, brotliDecompressSync, constants as zc } from 'node:zlib';

/** Brotli at quality 1: HTML to ~1/3 of its size at ~12k pages/s (quality 4: ~0.29 at ~4k pages/s). */
const BROTLI = { params: { [zc.BROTLI_PARAM_QUALITY]: 1, [zc.BROTLI_PARAM_MODE]: zc.BROTLI_MODE_TEXT } };

/** Compresses a raw body for the store; tiny bodies are kept as they are. */
export function compressBody(body: Uint8Array): { data: Uint8Array; codec: 'br' | 'identity' } {
  if (body.length < 64) return { data: body, codec: 'identity' };
  return { data: brotliCompressSync(body, BROTLI), codec: 'br' };
}

/** The raw body back from what the store holds. */
export function decompressBody(data: Uint8Array | null, codec: string): Buffer {
  if (!data) return Buffer.alloc(0);
  return codec === 'br' ? brotliDecompressSync(data) : Buffer.from(data);
}
