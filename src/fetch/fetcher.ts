import type { ErrorCode } from '../errors.js';
import type { WireExchange } from './wire-exchange.js';

/**
 * Fetches one URL over HTTP(S), one hop: it never follows redirects (the crawl loop does, so each
 * hop is normalised, scoped, robots-checked and deduplicated). It never throws for a page-level
 * failure: network errors, timeouts and oversize bodies come back as a result with `error` set.
 * Bodies are decompressed (gzip, deflate, br) and capped at `maxBytes` after decompression.
 */
export interface Fetcher {
  fetch(url: string, options?: FetchOptions): Promise<FetchResult>;
  /** Closes pooled connections. */
  close(): Promise<void>;
}

export interface FetchOptions {
  /** Extra request headers (e.g. If-None-Match). */
  headers?: Record<string, string>;
  /** Overrides the fetcher's body cap for this request. */
  maxBytes?: number;
  /**
   * Keep the first `maxBytes` of a larger body (error E_TOO_LARGE, body set) instead of refusing a
   * Content-Length over the cap outright; the rest is never read (robots.txt, RFC 9309 §2.5).
   */
  truncate?: boolean;
  signal?: AbortSignal;
}

export interface FetchResult {
  /** The URL requested. */
  url: string;
  /** HTTP status; 0 when no response was received (see `error`). */
  status: number;
  /** Response headers, names lower-cased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The decompressed body (possibly truncated, see `error`). Empty on error. */
  body: Buffer;
  /** Media type without parameters, lower-cased, e.g. "text/html"; null if absent. */
  contentType: string | null;
  /** Absolute redirect target for 3xx with a Location header, else null. */
  location: string | null;
  /** Bytes received on the wire (before decompression). */
  wireBytes: number;
  /** When the request started (ms since epoch) and how long it took. */
  startedAt: number;
  elapsedMs: number;
  /** The address actually connected to, when known. */
  remoteAddress?: string;
  /** Set when the fetch failed or the body was cut. */
  error?: { code: ErrorCode; message: string };
  /** The exchange as on the wire, when the fetcher keeps it (`FetcherOptions.keepWire`) and a response came. */
  wire?: WireExchange;
}

/** Fetcher settings: the topic's `fetch` and `politeness.user_agent`, the page cap, host mapping. */
export interface FetcherOptions {
  userAgent: string;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  maxPageBytes: number;
  /** host (lower-case, optionally "host:port") → "address" or "address:port"; bypasses DNS. */
  resolve?: Record<string, string>;
  /** Only mapped hosts are reachable; any other fails with E_DNS without a DNS lookup. */
  mappedOnly?: boolean;
  /** Connect to private, loopback, link-local… addresses of unmapped hosts (default true; the crawl passes fetch.allow_private). */
  allowPrivate?: boolean;
  /** DNS cache lifetime of an answer (default 5 min). */
  dnsTtlMs?: number;
  /** Max connections per origin (default 8). */
  connectionsPerOrigin?: number;
  /** Keep each exchange as on the wire in `FetchResult.wire` (WARC output); off: nothing of it is installed. */
  keepWire?: boolean;
}
