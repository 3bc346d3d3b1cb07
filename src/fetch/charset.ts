import { isUtf8 } from 'node:buffer';
import { StringDecoder } from 'node:string_decoder';
import iconv from 'iconv-lite';

/** The decoded text of a page, the encoding used (an iconv-lite name) and where it came from. */
export interface DecodedHtml {
  text: string;
  charset: string;
  source: 'bom' | 'header' | 'meta' | 'default';
}

/**
 * Labels → decoder, after the WHATWG Encoding Standard where it matters: GB2312 / GBK labels decode
 * as GB18030 (a superset), Big5 as Big5-HKSCS, Shift_JIS as Windows-31J, EUC-KR as CP949, and
 * ISO-8859-1 / ASCII as Windows-1252. Other labels known to iconv-lite are used as they are.
 */
const LABELS: Record<string, string> = {};
function alias(target: string, labels: string): void {
  for (const l of labels.split(' ')) LABELS[l] = target;
}
alias('utf-8', 'utf-8 utf8 unicode-1-1-utf-8 unicode11utf8 unicode20utf8 x-unicode20utf8 utf-8n utf8mb3 utf8mb4 uft-8 uft8 utf-08 utf_8 utf');
alias('gb18030', 'gb18030 gbk gb2312 gb_2312 gb_2312-80 gb-2312 chinese csgb2312 csiso58gb231280 iso-ir-58 x-gbk cp936 ms936 windows-936 euc-cn x-euc-cn gb');
alias('big5hkscs', 'big5 big5-hkscs big5hkscs cn-big5 csbig5 x-x-big5 cp950 ms950 windows-950 x-big5');
alias('cp932', 'shift_jis shift-jis sjis x-sjis ms_kanji csshiftjis windows-31j cp932 ms932 x-ms-cp932');
alias('eucjp', 'euc-jp eucjp x-euc-jp cseucpkdfmtjapanese');
alias('cp949', 'euc-kr euckr cseuckr csksc56011987 iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 ksc5601 ksc_5601 windows-949 cp949 uhc');
alias('windows-1252', 'windows-1252 cp1252 x-cp1252 iso-8859-1 iso8859-1 iso88591 iso_8859-1 iso_8859-1:1987 iso-ir-100 l1 latin1 csisolatin1 cp819 ibm819 ascii us-ascii ansi_x3.4-1968');
alias('windows-1254', 'iso-8859-9 iso8859-9 iso88599 iso_8859-9 latin5 l5 csisolatin5 iso-ir-148 windows-1254 cp1254');
alias('windows-874', 'tis-620 iso-8859-11 iso8859-11 dos-874 windows-874');
alias('utf-16le', 'utf-16 utf-16le utf16le ucs-2 unicode csunicode iso-10646-ucs-2 unicodefeff');
alias('utf-16be', 'utf-16be utf16be unicodefffe');

/** The decoder for a charset label, or null when the label is unknown (then the next source is tried). */
export function resolveCharset(label: string): string | null {
  const l = label.trim().replace(/^["']|["']$/g, '').trim().toLowerCase();
  if (!l) return null;
  const known = LABELS[l];
  if (known) return known;
  return iconv.encodingExists(l) ? l : null;
}

const HEADER_CHARSET = /charset\s*=\s*["']?([^"';,\s]+)/i;
const META_TAG = /<meta\b[^>]*>/gi;
const META_CHARSET = /charset\s*=\s*["']?\s*([^"'\s;/>]+)/i;

/** The charset parameter of a Content-Type header, if any. */
export function charsetFromContentType(contentType: string | null): string | null {
  return contentType ? (HEADER_CHARSET.exec(contentType)?.[1] ?? null) : null;
}

/** `<meta charset>` or `<meta http-equiv content="…charset=…">` in the first 2048 bytes (comments skipped). */
export function sniffMetaCharset(body: Buffer): string | null {
  const head = body.subarray(0, 2048).toString('latin1').replace(/<!--[\s\S]*?(-->|$)/g, '');
  for (const m of head.matchAll(META_TAG)) {
    const label = META_CHARSET.exec(m[0])?.[1];
    if (label) return label;
  }
  return null;
}


/** True if the bytes are valid UTF-8. */
export function isValidUtf8(body: Buffer): boolean {
  return isUtf8(body); // native validation: no decode
}

/** Counts multi-byte UTF-8 sequences (lead bytes 0xC2–0xF4); only meaningful for valid UTF-8. */
function utf8MultiByteCount(body: Buffer): number {
  let n = 0;
  for (let i = 0; i < body.length; i++) if (body[i] >= 0xc2 && body[i] <= 0xf4) n++;
  return n;
}

/**
 * Do the bytes look like GBK / GB18030 text? Every non-ASCII byte must start a well-formed GB
 * sequence (two bytes: lead 0x81–0xFE, trail 0x40–0xFE except 0x7F; four bytes: 0x81–0xFE,
 * 0x30–0x39, 0x81–0xFE, 0x30–0x39), allowing 1% broken ones (a cut page), and at least half of the
 * two-byte pairs must fall in the GB2312 hanzi and symbol area (lead 0xA1–0xF7, trail 0xA1–0xFE),
 * where nearly all real Chinese text is; Latin-1 text with accents rarely passes both.
 */
export function looksLikeGb(body: Buffer): boolean {
  let pairs = 0;
  let common = 0;
  let bad = 0;
  for (let i = 0; i < body.length; i++) {
    const b = body[i];
    if (b < 0x80) continue;
    const t = body[i + 1];
    if (b >= 0x81 && b <= 0xfe && t !== undefined) {
      if (t >= 0x30 && t <= 0x39 && body[i + 2] >= 0x81 && body[i + 2] <= 0xfe && body[i + 3] >= 0x30 && body[i + 3] <= 0x39) {
        pairs++;
        i += 3;
        continue;
      }
      if (t >= 0x40 && t <= 0xfe && t !== 0x7f) {
        pairs++;
        if (b >= 0xa1 && b <= 0xf7 && t >= 0xa1) common++;
        i++;
        continue;
      }
    }
    bad++;
  }
  return pairs > 0 && bad <= pairs / 100 && common * 2 >= pairs;
}

function decode(body: Buffer, charset: string): string {
  if (charset === 'utf-8') return body.toString('utf8');
  return iconv.decode(body, charset, { stripBOM: false });
}

/** Below this many multi-byte sequences, valid UTF-8 in a page declared otherwise may be chance. */
const MIN_UTF8_EVIDENCE = 8;

/**
 * Picks the charset for a declared label, correcting wrong declarations:
 * - declared UTF-8 but the bytes are not valid UTF-8 → GB18030 if they look like GB (see
 *   {@link looksLikeGb}), else Windows-1252 (which decodes every byte);
 * - declared a legacy (non-UTF) charset but the bytes are valid UTF-8 with at least
 *   MIN_UTF8_EVIDENCE multi-byte sequences → UTF-8 (a chance match is then very unlikely).
 */
function correctDeclared(body: Buffer, declared: string): string {
  if (declared === 'utf-8') {
    if (isValidUtf8(body)) return 'utf-8';
    return looksLikeGb(body) ? 'gb18030' : 'windows-1252';
  }
  if (declared.startsWith('utf-16')) return declared;
  if (utf8MultiByteCount(body) >= MIN_UTF8_EVIDENCE && isValidUtf8(body)) return 'utf-8';
  return declared;
}

/** With nothing declared: UTF-8 if valid, else GB18030 if it looks like GB, else Windows-1252. */
function guess(body: Buffer): string {
  if (isValidUtf8(body)) return 'utf-8';
  return looksLikeGb(body) ? 'gb18030' : 'windows-1252';
}

/**
 * Decodes an HTML body. Order: BOM (UTF-8 / UTF-16LE / UTF-16BE) > charset in the Content-Type
 * header > `<meta>` in the first 2048 bytes > a guess (UTF-8, else GB, else Windows-1252). Unknown
 * labels fall through to the next source; a UTF-16 label in `<meta>` means UTF-8 (WHATWG); wrong
 * declarations are corrected as described at {@link correctDeclared}. The BOM is not in `text`.
 */
export function decodeHtml(body: Buffer, contentType: string | null): DecodedHtml {
  const { charset, source, skip } = chooseCharset(body, contentType);
  const bytes = skip > 0 ? body.subarray(skip) : body;
  return { text: decode(bytes, charset), charset, source };
}

/** The charset {@link decodeHtml} decodes a body with, and how many BOM bytes it skips. */
function chooseCharset(body: Buffer, contentType: string | null): { charset: string; source: DecodedHtml['source']; skip: number } {
  if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return { charset: 'utf-8', source: 'bom', skip: 3 };
  if (body.length >= 2 && body[0] === 0xff && body[1] === 0xfe) return { charset: 'utf-16le', source: 'bom', skip: 2 };
  if (body.length >= 2 && body[0] === 0xfe && body[1] === 0xff) return { charset: 'utf-16be', source: 'bom', skip: 2 };
  const fromHeader = charsetFromContentType(contentType);
  const headerCharset = fromHeader ? resolveCharset(fromHeader) : null;
  if (headerCharset) return { charset: correctDeclared(body, headerCharset), source: 'header', skip: 0 };
  const fromMeta = sniffMetaCharset(body);
  let metaCharset = fromMeta ? resolveCharset(fromMeta) : null;
  if (metaCharset) {
    if (metaCharset.startsWith('utf-16')) metaCharset = 'utf-8';
    return { charset: correctDeclared(body, metaCharset), source: 'meta', skip: 0 };
  }
  return { charset: guess(body), source: 'default', skip: 0 };
}

/** Bytes decoded into one piece by {@link decodeHtmlChunks} (a piece has about as many UTF-16 code units at most). */
export const DECODE_CHUNK_BYTES = 16384;

/**
 * Bodies above this size are decoded whole, as one piece: in pieces, a crawl of the hostile test
 * server (pages of 3 MiB, a 2 MB attribute) grew its RSS by ~148 MB against ~112 MB whole
 * (test/crawl/hostile.test.ts), and a page that large pays the large-object cost once for megabytes.
 */
export const PIECES_MAX_BYTES = 1024 * 1024;

/** A page decoded as {@link decodeHtml} decodes it, in pieces: `chunks.join('')` is its `text`. */
export interface DecodedChunks {
  chunks: string[];
  charset: string;
  source: DecodedHtml['source'];
}

/**
 * {@link decodeHtml} in pieces of at most `chunkBytes` bytes of the body each (a piece never splits
 * a character), for a parser that reads its input in pieces (html-parser.ts). V8 puts a string of
 * 128 KB or more (65,536 characters outside Latin-1) in its large-object space, and on this
 * project's machine such an allocation cost about 11 ns a character against 1 ns below that size
 * (README, "Pages over 64 K characters"): a page of 80 KB with one Chinese character took 0.7 ms
 * to decode whole, against a few dozen µs in pieces. A body of at most `chunkBytes`, or of more than
 * {@link PIECES_MAX_BYTES}, is one piece.
 */
export function decodeHtmlChunks(body: Buffer, contentType: string | null, chunkBytes = DECODE_CHUNK_BYTES): DecodedChunks {
  const { charset, source, skip } = chooseCharset(body, contentType);
  const bytes = skip > 0 ? body.subarray(skip) : body;
  if (bytes.length <= chunkBytes || bytes.length > PIECES_MAX_BYTES) {
    return { chunks: [decode(bytes, charset)], charset, source };
  }
  const decoder = charset === 'utf-8' ? new StringDecoder('utf8') : iconv.getDecoder(charset, { stripBOM: false });
  const chunks: string[] = [];
  for (let at = 0; at < bytes.length; at += chunkBytes) {
    const piece = decoder.write(bytes.subarray(at, Math.min(bytes.length, at + chunkBytes)));
    if (piece) chunks.push(piece);
  }
  const rest = decoder.end();
  if (rest) chunks.push(rest);
  return { chunks, charset, source };
}
