import type { ErrorCode } from '../errors.js';
import type { Fetcher } from './fetcher.js';

/** robots.txt octets parsed at least (RFC 9309 §2.5: at least 500 KiB). */
export const ROBOTS_MAX_BYTES = 500 * 1024;

/**
 * What fetching one robots.txt came to: its text (`url` is where it was finally found, after
 * redirects), or the "allow all" / "disallow all" that RFC 9309 prescribes, with a short reason
 * ("HTTP 404", "unreachable (connection refused)", …). `httpStatus` is the last status seen (0: none).
 * A "disallow all" carries `code`: the network error, or E_HTTP for 429 and 5xx (§2.3.1.3–§2.3.1.4:
 * a temporary condition, to retry), and `retryAfter`, the server's Retry-After header if any.
 */
export type RobotsFetchOutcome =
  | { status: 'ok'; url: string; httpStatus: number; text: string; truncated: boolean }
  | { status: 'allow-all'; url: string; httpStatus: number; reason: string }
  | { status: 'disallow-all'; url: string; httpStatus: number; reason: string; code: ErrorCode; retryAfter?: string };

/**
 * Fetches the robots.txt at `url`: 2xx → its text, read up to maxBytes and cut at the last whole
 * line within them (the rest of a larger file is never downloaded); 3xx → followed up to
 * maxRedirects hops, then allow all; 4xx → allow all; 429, 5xx or a network error → disallow all.
 * Never rejects.
 */
export async function fetchRobotsTxt(
  fetcher: Fetcher,
  url: string,
  opts: { maxBytes?: number; maxRedirects?: number } = {},
): Promise<RobotsFetchOutcome> {
  const maxBytes = opts.maxBytes ?? ROBOTS_MAX_BYTES;
  const maxRedirects = opts.maxRedirects ?? 5;
  let target = url;
  let s = 0;
  const allowAll = (reason: string): RobotsFetchOutcome => ({ status: 'allow-all', url: target, httpStatus: s, reason });
  const disallowAll = (reason: string, code: ErrorCode, retryAfter?: string): RobotsFetchOutcome => ({
    status: 'disallow-all', url: target, httpStatus: s, reason, code, ...(retryAfter ? { retryAfter } : {}),
  });
  try {
    for (let hop = 0; ; hop++) {
      // truncate: a body over the cap (by Content-Length or as it streams) is cut there, not refused
      const r = await fetcher.fetch(target, { maxBytes, truncate: true });
      s = r.status;
      if (s >= 200 && s < 300) {
        if (r.error && (r.error.code !== 'E_TOO_LARGE' || r.body.length === 0)) return disallowAll(`unreachable (${r.error.message})`, r.error.code);
        const truncated = r.error?.code === 'E_TOO_LARGE' || r.body.length > maxBytes;
        const text = truncated ? cutAtLastLine(r.body.subarray(0, maxBytes)) : r.body.toString('utf8');
        return { status: 'ok', url: target, httpStatus: s, text, truncated };
      }
      if (s >= 300 && s < 400) {
        // unavailable (RFC 9309 §2.3.1.2)
        if (!r.location) return allowAll(`HTTP ${s} without a Location`);
        if (hop >= maxRedirects) return allowAll(`redirected more than ${maxRedirects} times`);
        target = r.location;
        continue;
      }
      if (s === 0) return disallowAll(`unreachable (${r.error?.message ?? 'no response'})`, r.error?.code ?? 'E_CONNECT');
      if (s === 429 || s >= 500) return disallowAll(`HTTP ${s}`, 'E_HTTP', r.headers['retry-after']);
      if (s >= 400) return allowAll(`HTTP ${s}`);
      return disallowAll(`HTTP ${s}`, 'E_HTTP'); // 1xx or nonsense
    }
  } catch (err) {
    return disallowAll(`unreachable (${err instanceof Error ? err.message : String(err)})`, 'E_INTERNAL');
  }
}

function cutAtLastLine(body: Buffer): string {
  const nl = body.lastIndexOf(0x0a);
  return (nl >= 0 ? body.subarray(0, nl + 1) : body).toString('utf8');
}
