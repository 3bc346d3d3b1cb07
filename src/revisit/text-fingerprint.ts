import { createHash } from 'node:crypto';
import { decodeHtmlChunks } from '../fetch/charset.js';
import { Parse5Parser } from '../parse/html-parser.js';
import type { ParsedPage, Parser } from '../parse/parser.js';

/**
 * The fingerprint a revisit compares: a hash of the page's NORMALISED title and visible text, so that
 * boilerplate which changes on every request (today's date, a clock, a visitor counter, "3 minutes
 * ago") does not count as a change. Normalisation: Unicode NFKC (full-width digits become ASCII),
 * lower case, every run of digits (with its separators: 1,234.5 · 2024-05-01 · 10:32:11) becomes one
 * placeholder, month and weekday names next to a number, am/pm and "N units ago" fold into it, and
 * whitespace is collapsed. The price of this: a change that only alters numbers (a price, a score)
 * is not seen either.
 */

/** The placeholder every number (and the date words around it) becomes. */
export const NUMBER_MARK = '#';

const MONTHS =
  'january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec';
const WEEKDAYS = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues|tue|wed|thurs|thur|thu|fri|sat|sun';
const UNITS = 'seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|yrs?';

const NUMBER = /\d+(?:[.,:/\-]\d+)*/g;
const NAME_NEXT_TO_NUMBER = new RegExp(`(#[\\s,.]*)?\\b(?:${MONTHS}|${WEEKDAYS})\\b\\.?([\\s,.]*#)?`, 'g');
const AM_PM = /#\s*(?:a\.m\.|p\.m\.|am\b|pm\b)/g;
const AGO = new RegExp(`(?:#|\\ban?\\b)\\s*(?:${UNITS})\\s+ago\\b`, 'g');
const AGO_ZH = /#\s*(?:秒钟?|分钟|小时|個?小時|天|日|周|週|个?月|個?月|年)前/g;
const MARK_RUN = /#(?:[\s,.:/\-]*#)+/g;

/** The text as the fingerprint sees it (see the module comment). Idempotent. */
export function normalizeForFingerprint(text: string): string {
  let s = text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ');
  s = s.replace(NUMBER, NUMBER_MARK);
  s = s.replace(AGO, `${NUMBER_MARK} ago`).replace(AGO_ZH, `${NUMBER_MARK}前`);
  // twice: "monday, may #" needs the month folded before the weekday touches a number
  for (let i = 0; i < 2; i++) s = s.replace(NAME_NEXT_TO_NUMBER, (m, before?: string, after?: string) => (before || after ? NUMBER_MARK : m));
  s = s.replace(AM_PM, NUMBER_MARK).replace(MARK_RUN, NUMBER_MARK);
  return s.replace(/\s+/g, ' ').trim();
}

/** Hex SHA-256 (first 16 bytes) of the normalised title and text. */
export function textFingerprint(title: string, text: string): string {
  return createHash('sha256').update(normalizeForFingerprint(title)).update('\n').update(normalizeForFingerprint(text)).digest('hex').slice(0, 32);
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
const WORD = /[\p{L}\p{N}]+/gu;

/** Words of a text: Latin-script words, plus CJK characters at two per word. */
export function countWords(text: string): number {
  const cjk = text.match(CJK)?.length ?? 0;
  const rest = cjk ? text.replace(CJK, ' ') : text;
  return (rest.match(WORD)?.length ?? 0) + Math.round(cjk / 2);
}

/** What a revisit learns from an HTML body: its fingerprint, and the page's shape for its URL class. */
export interface PageFingerprint {
  /** {@link textFingerprint} of title and visible text. */
  hash: string;
  title: string;
  /** Links on the page (`<a href>`, `<area href>`). */
  links: number;
  /** {@link countWords} of the visible text. */
  textWords: number;
}

let defaultParser: Parser | null = null;

/** The fingerprint of a page already parsed. */
export function fingerprintPage(page: Pick<ParsedPage, 'title' | 'text' | 'links'>): PageFingerprint {
  return { hash: textFingerprint(page.title, page.text), title: page.title, links: page.links.length, textWords: countWords(page.text) };
}

/**
 * Decodes an HTML body as the crawl does (charset from the header, BOM or `<meta>`) and parses it
 * with the project's parser. Never throws on malformed HTML.
 */
export function parseHtmlBody(body: Buffer, contentType: string | null, url: string, parser?: Parser): { page: ParsedPage; charset: string | null } {
  const p = parser ?? (defaultParser ??= new Parse5Parser());
  const decoded = decodeHtmlChunks(body, contentType); // (in pieces, as page analysis decodes: charset.ts)
  return { page: p.parse(decoded.chunks, url), charset: decoded.charset };
}

/** {@link parseHtmlBody}, then {@link fingerprintPage}. */
export function fingerprintHtml(body: Buffer, contentType: string | null, url: string, parser?: Parser): PageFingerprint {
  return fingerprintPage(parseHtmlBody(body, contentType, url, parser).page);
}

/** The fingerprint of a body that is not HTML: a hash of its bytes. */
export function fingerprintBytes(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex').slice(0, 32);
}
