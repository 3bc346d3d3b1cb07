/**
 * Dates found in sitemaps and feeds → milliseconds since the epoch.
 *
 * W3C Datetime (the sitemaps.org `<lastmod>` format, also Atom's `<updated>`): `YYYY`, `YYYY-MM`,
 * `YYYY-MM-DD`, `YYYY-MM-DDThh:mm[:ss[.s+]]TZD` with TZD = `Z` or `±hh:mm`. Tolerated on top:
 * a space instead of `T`, `±hhmm` or `±hh`, and a missing TZD (read as UTC; many generators omit it).
 * RFC 822 / 1123 (RSS `<pubDate>`): `[Wkd,] DD Mon YY[YY] hh:mm[:ss] [zone]`, zone = `GMT`, `UT`,
 * `UTC`, `Z`, US zones (`EST` … `PDT`) or `±hhmm`; a two-digit year is 19xx from 50 and 20xx below
 * (RFC 2822 §4.3); a missing zone is read as UTC. Anything else, or an impossible date, is null.
 */

const W3C = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?)?)?$/i;
const RFC822 =
  /^(?:[a-z]{3,9},?\s+)?(\d{1,2})\s+([a-z]{3,9})\.?\s+(\d{2}|\d{4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(gmt|utc|ut|z|[ecmp][sd]t|[+-]\d{4})?$/i;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const US_ZONES: Record<string, number> = { est: -5, edt: -4, cst: -6, cdt: -5, mst: -7, mdt: -6, pst: -8, pdt: -7 };

function daysIn(year: number, month: number): number {
  if (month !== 2) return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
}

/** UTC ms for the fields, or null when one is out of range. `offsetMin` is the zone's offset from UTC. */
function build(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number, offsetMin: number): number | null {
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo)) return null;
  if (h > 24 || mi > 59 || s > 60 || (h === 24 && (mi > 0 || s > 0 || ms > 0))) return null;
  const dt = new Date(0);
  dt.setUTCFullYear(y, mo - 1, d); // not Date.UTC: it reads years 0–99 as 19xx
  dt.setUTCHours(h, mi, Math.min(s, 59), ms);
  const t = dt.getTime() - offsetMin * 60_000;
  return Number.isFinite(t) ? t : null;
}

/** `±hh[:mm]` / `±hhmm` → minutes, or null when out of range. */
function numericOffset(z: string): number | null {
  const sign = z[0] === '-' ? -1 : 1;
  const digits = z.slice(1).replace(':', '');
  const hh = Number(digits.slice(0, 2));
  const mm = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
  if (hh > 23 || mm > 59) return null;
  return sign * (hh * 60 + mm);
}

function parseW3c(s: string): number | null {
  const m = W3C.exec(s);
  if (!m) return null;
  const [, y, mo, d, h, mi, sec, frac, tz] = m;
  let offset = 0;
  if (tz && tz.toUpperCase() !== 'Z') {
    const o = numericOffset(tz);
    if (o === null) return null;
    offset = o;
  }
  const ms = frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0;
  return build(Number(y), mo ? Number(mo) : 1, d ? Number(d) : 1, h ? Number(h) : 0, mi ? Number(mi) : 0, sec ? Number(sec) : 0, ms, offset);
}

function parseRfc822(s: string): number | null {
  const m = RFC822.exec(s);
  if (!m) return null;
  const [, d, mon, yy, h, mi, sec, zone] = m;
  const mo = MONTHS.indexOf(mon.slice(0, 3).toLowerCase());
  if (mo < 0) return null;
  let year = Number(yy);
  if (yy.length === 2) year += year < 50 ? 2000 : 1900;
  let offset = 0;
  if (zone) {
    const z = zone.toLowerCase();
    if (z[0] === '+' || z[0] === '-') {
      const o = numericOffset(z);
      if (o === null) return null;
      offset = o;
    } else if (z in US_ZONES) {
      offset = US_ZONES[z] * 60;
    }
  }
  return build(year, mo + 1, Number(d), Number(h), Number(mi), sec ? Number(sec) : 0, 0, offset);
}

/** A sitemap `<lastmod>` (W3C Datetime) or an RSS date (RFC 822) → ms since the epoch; null if unreadable. */
export function parseLastmod(s: string | null | undefined): number | null {
  if (typeof s !== 'string') return null;
  const t = s.trim();
  if (!t || t.length > 64) return null;
  return parseW3c(t) ?? parseRfc822(t);
}
