import { TopicrawlError } from '../errors.js';

/**
 * Fast path for URLs already in normal form: a lower-case ASCII host with no userinfo, and a
 * port written without leading zeros. Anything else goes through WHATWG `URL`.
 */
const SIMPLE = /^(https?):\/\/([a-z0-9.-]+)(?::([1-9]\d{0,4}))?(?=[/?#]|$)/;
/** A last label WHATWG would read as an IPv4 number (decimal, octal or hex): leave to `URL`. */
const NUMERIC_LABEL = /(?:^|\.)(?:0x[0-9a-f]*|\d+)\.?$/;

function invalid(url: string, reason: string, cause?: unknown): never {
  throw new TopicrawlError('E_INVALID_URL', `${reason}: "${url.slice(0, 200)}"`, { url, reason }, { cause });
}

/**
 * The per-host key of a URL: lower-case `host[:port]`, the port only when it is not the scheme's
 * default (IDN hosts in punycode, IPv6 in brackets, as `normalizeUrl` writes them). Politeness
 * queues, robots.txt and per-host budgets are keyed by it. Throws `TopicrawlError` `E_INVALID_URL`
 * for anything that is not an absolute http(s) URL with a host.
 */
export function hostKey(url: string): string {
  const m = SIMPLE.exec(url);
  if (m && !NUMERIC_LABEL.test(m[2])) {
    const port = m[3];
    if (port === undefined) return m[2];
    const n = Number(port);
    if (n <= 65535) return n === (m[1] === 'https' ? 443 : 80) ? m[2] : `${m[2]}:${port}`;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (err) {
    invalid(url, 'invalid URL', err);
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.host === '') {
    invalid(url, 'not an http(s) URL with a host');
  }
  return parsed.host;
}
