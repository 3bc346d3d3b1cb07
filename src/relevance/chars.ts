/**
 * Character classes shared by the tokenizer and the scorer's scanner. Plain code-unit range checks
 * (no regexes): they run once per character of every page.
 */

/** A Han ideograph or kana code unit, or the high surrogate of a plane-2 ideograph (callers take its low half too). */
export function isCjk(c: number): boolean {
  return (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x3040 && c <= 0x30ff) ||
    (c >= 0xf900 && c <= 0xfaff) || c === 0x3007 || (c >= 0xd840 && c <= 0xd87f);
}

/** A letter of a space-delimited script: ASCII, Latin-1/Extended, Greek, Cyrillic, Hangul syllables. */
export function isLetter(c: number): boolean {
  if (c < 0x80) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
  return (c >= 0xc0 && c <= 0x24f && c !== 0xd7 && c !== 0xf7) || (c >= 0x370 && c <= 0x52f && c !== 0x37e && c !== 0x387) ||
    (c >= 0xac00 && c <= 0xd7af);
}

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Whitespace (ASCII, NBSP, Unicode spaces, ideographic space, BOM) other than line breaks. */
export function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 11 || c === 12 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200b) ||
    c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** Apostrophes and hyphens join or split words but never end a sentence. */
export function isJoiner(c: number): boolean {
  return c === 39 || c === 0x2019 || c === 45 || c === 0x2010 || c === 0x2011 || c === 0xad || c === 95;
}
