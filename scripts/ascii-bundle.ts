/**
 * Makes an esbuild bundle pure ASCII (scripts/build.ts), so that bin/load-bundle.cjs can decode it
 * as latin1: the cheapest decoding, right only for ASCII (utf8 took twice as long, and a source
 * with one character beyond ASCII becomes a two-byte string, twice the memory).
 *
 * With `charset: 'ascii'` esbuild escapes the other characters of strings and names, not those of
 * regular expressions and comments. Each UTF-16 unit of theirs becomes `\uXXXX`: the same character
 * in a regular expression, with or without the u flag (a pair of them for one beyond U+FFFF, which
 * the u flag reads as one code point), and harmless in a comment. Not after a backslash, where it
 * would mean something else: that throws.
 */
export function toAscii(code: string): string {
  const escaped = /\\[^\0-\x7f]/.exec(code);
  if (escaped) throw new Error(`a backslash before a non-ASCII character at offset ${escaped.index}: the bundle cannot be made ASCII`);
  return code.replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
