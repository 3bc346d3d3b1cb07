/**
 * RFC 9309 §2.2.2–§2.2.3: one canonical form for robots.txt rule paths and URL paths, and a
 * matcher for `*` / `$` patterns that never backtracks.
 *
 * Canonical form (both sides, on the UTF-8 octets):
 * - a percent-encoded unreserved character (ALPHA / DIGIT / "-" / "." / "_" / "~") is decoded
 *   (`%7ejoe` → `~joe`, `%62%61%7A` → `baz`);
 * - `%2A` and `%24` become a literal `*` and `$` (§2.2.3: `/path/foo-%24` matches `/path/foo-$`);
 *   any other percent-encoded octet stays encoded, with upper-case hex (`%aa` → `%AA`);
 * - unreserved and reserved (RFC 3986 gen-delims / sub-delims) characters stay as they are; every
 *   other octet (non-ASCII, controls, space, `"<>\^`{|}`, a `%` not followed by two hex digits) is
 *   percent-encoded (`/bücher/` → `/b%C3%BCcher/`).
 * In a rule, only an unencoded `*` is a wildcard and only an unencoded final `$` anchors the end.
 */

const HEX = '0123456789ABCDEF';
/** 0: encode; 1: keep as is (unreserved or reserved). Indexed by octet. */
const KEEP = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&\'()*+,;=') KEEP[c.charCodeAt(0)] = 1;
const UNRESERVED = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~') UNRESERVED[c.charCodeAt(0)] = 1;

function hexVal(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/** The canonical form of `s` (a whole URL path, or one piece of a pattern between its wildcards). */
function canonical(s: string): string {
  // fast path: plain ASCII with nothing to decode or encode
  let plain = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || !KEEP[c] || c === 37) {
      plain = false;
      break;
    }
  }
  if (plain) return s;
  const b = Buffer.from(s, 'utf8');
  let out = '';
  for (let i = 0; i < b.length; i++) {
    const c = b[i];
    if (c === 37) {
      const hi = i + 2 < b.length ? hexVal(b[i + 1]) : -1;
      const lo = hi >= 0 ? hexVal(b[i + 2]) : -1;
      if (lo >= 0) {
        const v = hi * 16 + lo;
        i += 2;
        if (UNRESERVED[v] || v === 42 || v === 36) out += String.fromCharCode(v);
        else out += `%${HEX[hi]}${HEX[lo]}`;
        continue;
      }
      out += '%25';
    } else if (c < 128 && KEEP[c]) out += String.fromCharCode(c);
    else out += `%${HEX[c >> 4]}${HEX[c & 15]}`;
  }
  return out;
}

/** The canonical form of a URL path (with its query, without its fragment). */
export function canonicalPath(path: string): string {
  return canonical(path);
}

/**
 * A compiled rule pattern: the literal pieces between its wildcards, in canonical form. The pattern
 * matches a path that starts with pieces[0], then contains the other pieces in order, not
 * overlapping; the last one at the very end when `anchored`.
 */
export interface RobotsPattern {
  pieces: string[];
  anchored: boolean;
  /** Octets of the normalised pattern (a literal `*` or `$` counts as its 3-octet escape): the rule's priority. */
  length: number;
  /** Failure tables of the pieces searched with KMP (longer than {@link SHORT}); null for the others. */
  kmp: (Int32Array | null)[];
  /** Bit mask of the characters (all ASCII) the pieces after the first need, 4 × 32 bits: a cheap reject. */
  mask: number[];
}

/** Pieces up to this length are found with indexOf: its naive worst case is SHORT · n comparisons. */
const SHORT = 8;

export function compilePattern(raw: string): RobotsPattern {
  let anchored = false;
  let text = raw;
  if (text.endsWith('$')) {
    anchored = true;
    text = text.slice(0, -1);
  }
  // split at the unencoded wildcards first: a `%2A` decoded inside a piece is a literal `*`
  const pieces = text.split('*').map(canonical);
  let length = pieces.length - 1 + (anchored ? 1 : 0);
  for (const p of pieces) {
    length += p.length;
    for (let i = 0; i < p.length; i++) if (p.charCodeAt(i) === 42 || p.charCodeAt(i) === 36) length += 2;
  }
  const mask = [0, 0, 0, 0];
  for (let k = 1; k < pieces.length; k++) for (let i = 0; i < pieces[k].length; i++) setBit(mask, pieces[k].charCodeAt(i));
  const kmp = pieces.map((p, k) => (k > 0 && p.length > SHORT ? failureTable(p) : null));
  return { pieces, anchored, length, kmp, mask };
}

function setBit(mask: number[], c: number): void {
  mask[(c >> 5) & 3] |= 1 << (c & 31);
}

/** The character mask of a canonical path, for {@link RobotsPattern.mask}. */
export function pathMask(path: string): number[] {
  const mask = [0, 0, 0, 0];
  for (let i = 0; i < path.length; i++) setBit(mask, path.charCodeAt(i));
  return mask;
}

function failureTable(p: string): Int32Array {
  const f = new Int32Array(p.length);
  let k = 0;
  for (let i = 1; i < p.length; i++) {
    while (k > 0 && p.charCodeAt(i) !== p.charCodeAt(k)) k = f[k - 1];
    if (p.charCodeAt(i) === p.charCodeAt(k)) k++;
    f[i] = k;
  }
  return f;
}

/** First index ≥ from where `p` occurs in `s`, or -1: Knuth–Morris–Pratt, O(|s| − from + |p|). */
function kmpSearch(s: string, p: string, f: Int32Array, from: number): number {
  let k = 0;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    while (k > 0 && c !== p.charCodeAt(k)) k = f[k - 1];
    if (c === p.charCodeAt(k)) k++;
    if (k === p.length) return i - p.length + 1;
  }
  return -1;
}

/**
 * Whether the pattern matches the canonical path `s` (whose mask is `m`, or null to skip that
 * test). Greedy left to right: each middle piece at its first occurrence after the previous one (the
 * earliest place leaves the most room for the rest, so no other choice can succeed where it fails),
 * the last anchored at the end under `$`. O(|s| + |pattern|): no backtracking.
 */
export function matchPattern(pat: RobotsPattern, s: string, m: number[] | null): boolean {
  const { pieces } = pat;
  const first = pieces[0];
  if (pieces.length === 1) return pat.anchored ? s === first : s.startsWith(first);
  if (!s.startsWith(first)) return false;
  if (m) {
    const pm = pat.mask;
    if ((pm[0] & ~m[0]) | (pm[1] & ~m[1]) | (pm[2] & ~m[2]) | (pm[3] & ~m[3])) return false;
  }
  const last = pieces.length - 1;
  // under `$` the last piece must end the path: a check in O(its length) before any scan
  if (pat.anchored && !s.endsWith(pieces[last])) return false;
  let pos = first.length;
  for (let k = 1; k < last; k++) {
    const p = pieces[k];
    if (p.length === 0) continue;
    const f = pat.kmp[k];
    const at = f ? kmpSearch(s, p, f, pos) : s.indexOf(p, pos);
    if (at < 0) return false;
    pos = at + p.length;
  }
  const p = pieces[last];
  if (pat.anchored) return s.length - p.length >= pos;
  if (p.length === 0) return true;
  const f = pat.kmp[last];
  return (f ? kmpSearch(s, p, f, pos) : s.indexOf(p, pos)) >= 0;
}

/**
 * The path, parameters and query of a URL, without its fragment, as Google's reference parser
 * takes them (also from a bare path, or a URL without a scheme): the host is never parsed, so an
 * IDN host (`http://www.münich.com/`) is no obstacle.
 */
export function pathParamsQuery(url: string): string {
  const start = url.startsWith('//') ? 2 : 0;
  const early = firstOf(url, start);
  let protoEnd = url.indexOf('://', start);
  if (protoEnd < 0 || (early >= 0 && early < protoEnd)) protoEnd = start;
  else protoEnd += 3;
  const pathStart = firstOf(url, protoEnd);
  if (pathStart < 0) return '/';
  const hash = url.indexOf('#', start);
  if (hash >= 0 && hash < pathStart) return '/';
  const path = url.slice(pathStart, hash < 0 ? url.length : hash);
  return path.startsWith('/') ? path : `/${path}`;
}

function firstOf(s: string, from: number): number {
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 47 || c === 63 || c === 59) return i; // / ? ;
  }
  return -1;
}
