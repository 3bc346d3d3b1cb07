/**
 * Topic files are UTF-8 (a UTF-8 byte order mark is allowed). Node's `readFileSync(path, 'utf8')`
 * turns bytes that are not UTF-8 into U+FFFD without a word, so a topic saved as Latin-1 would load
 * with its keywords silently changed ("café" → "caf\uFFFD"), and a UTF-16 file would fail with a
 * baffling YAML error. This checks the bytes first and says what the file is and what was expected.
 */
import { isUtf8 } from 'node:buffer';

/** Why a topic file's bytes are not UTF-8 text, with the place of the first bad byte when there is one. */
export interface EncodingProblem {
  /** One phrase: what the file is, e.g. `it is UTF-16 (byte order mark FF FE)`. */
  reason: string;
  /** 1-based line and column (in characters) of the first byte that is not UTF-8, when known. */
  line?: number;
  column?: number;
}

const hex = (b: number) => `0x${b.toString(16).toUpperCase().padStart(2, '0')}`;

/** Offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629), or -1. */
export function firstInvalidUtf8(buf: Uint8Array): number {
  const n = buf.length;
  let i = 0;
  while (i < n) {
    const b = buf[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number; // smallest allowed second byte (no overlong forms, no surrogates, ≤ U+10FFFF)
    let max = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) (need = 1), (min = 0x80);
    else if (b === 0xe0) (need = 2), (min = 0xa0);
    else if (b >= 0xe1 && b <= 0xef) (need = 2), (min = 0x80), (max = b === 0xed ? 0x9f : 0xbf);
    else if (b === 0xf0) (need = 3), (min = 0x90);
    else if (b >= 0xf1 && b <= 0xf4) (need = 3), (min = 0x80), (max = b === 0xf4 ? 0x8f : 0xbf);
    else return i;
    if (i + need >= n) return i; // cut short by the end of the file
    const second = buf[i + 1];
    if (second < min || second > max) return i;
    for (let k = 2; k <= need; k++) if ((buf[i + k] & 0xc0) !== 0x80) return i;
    i += need + 1;
  }
  return -1;
}

/** What is wrong with a topic file's bytes as UTF-8 text, or null when they are fine. */
export function topicEncodingProblem(buf: Uint8Array): EncodingProblem | null {
  const b0 = buf[0];
  const b1 = buf[1];
  if (buf.length >= 4 && ((b0 === 0 && b1 === 0 && buf[2] === 0xfe && buf[3] === 0xff) || (b0 === 0xff && b1 === 0xfe && buf[2] === 0 && buf[3] === 0))) {
    return { reason: `it is UTF-32 (byte order mark ${[...buf.subarray(0, 4)].map(hex).join(' ')})` };
  }
  if (buf.length >= 2 && ((b0 === 0xff && b1 === 0xfe) || (b0 === 0xfe && b1 === 0xff))) {
    return { reason: `it is UTF-16 (byte order mark ${hex(b0)} ${hex(b1)})` };
  }
  const nul = buf.indexOf(0);
  if (nul >= 0) {
    // UTF-16 without a byte order mark: ASCII text with a NUL beside every character
    const head = buf.subarray(0, 4096);
    let even = 0;
    let odd = 0;
    for (let i = 0; i < head.length; i++) if (head[i] === 0) (i % 2 === 0 ? even++ : odd++);
    const utf16 = Math.max(even, odd) >= head.length / 4 && Math.min(even, odd) <= head.length / 64;
    const reason = utf16 ? `it looks like UTF-16 without a byte order mark (a NUL byte beside every character)` : `it holds a NUL byte (a binary file?)`;
    return { reason, ...place(buf, nul) };
  }
  if (isUtf8(buf)) return null; // native and fast; the scan below only finds the place
  const bad = firstInvalidUtf8(buf);
  if (bad < 0) return null;
  return { reason: `byte ${hex(buf[bad])} is not UTF-8: Latin-1, Windows-1252, GBK or another legacy encoding?`, ...place(buf, bad) };
}

/** Line and column (in characters of the valid UTF-8 before it) of byte offset `at`. */
function place(buf: Uint8Array, at: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < at; i++) {
    if (buf[i] === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  const column = new TextDecoder().decode(buf.subarray(lineStart, at)).length + 1;
  return { line, column };
}
