import type { FetchResult } from '../fetch/fetcher.js';
import { HTML_TYPES } from '../fetch/html-types.js';
import type { CheckOutcome, DuePage, RevisitRow } from '../store/revisit-store.js';
import { fingerprintBytes, fingerprintPage, parseHtmlBody } from './text-fingerprint.js';

/** What one revisit response says, before the page is scheduled again. */
export interface JudgedResponse {
  outcome: CheckOutcome;
  /** The page's row with the response's validators, text hash and failure count (nothing else changed yet). */
  row: RevisitRow;
  /** A 304: the stored body's size, not transferred again. */
  savedBytes: number;
  /** The HTML page as parsed for its fingerprint (handed on to the analysis when it changed). */
  parsed: ReturnType<typeof parseHtmlBody> | null;
}

/**
 * Judges a revisit response: a 304 is `not_modified` (the stored validators refreshed); a 2xx is
 * `changed` when the fingerprint of its normalised text (text-fingerprint.ts; bytes for other
 * types) differs from the stored one, else `unchanged`; 404 and 410 are `deleted`; anything else
 * (5xx, network errors, redirects) is `failed`, and `deleted` once `maxFailures` came in a row.
 */
export function judgeResponse(p: DuePage, res: FetchResult, maxFailures: number, storedBodyBytes: () => number): JudgedResponse {
  const row: RevisitRow = { ...p };
  let outcome: CheckOutcome;
  let savedBytes = 0;
  let parsed: JudgedResponse['parsed'] = null;
  const ok2xx = !res.error && res.status >= 200 && res.status < 300;
  if (res.status === 304 && !res.error) {
    outcome = 'not_modified';
    savedBytes = storedBodyBytes();
    row.etag = res.headers.etag ?? row.etag;
    row.lastModified = res.headers['last-modified'] ?? row.lastModified;
  } else if (ok2xx) {
    const html = res.contentType !== null && HTML_TYPES.has(res.contentType);
    // parsed once: for the fingerprint, and (when it changed) for the analysis that stores it
    if (html) parsed = parseHtmlBody(res.body, res.headers['content-type'] ?? null, p.url);
    const hash = parsed ? fingerprintPage(parsed.page).hash : fingerprintBytes(res.body);
    outcome = row.textHash !== null && hash !== row.textHash ? 'changed' : 'unchanged';
    row.textHash = hash;
    row.etag = res.headers.etag ?? null;
    row.lastModified = res.headers['last-modified'] ?? null;
  } else if (res.status === 404 || res.status === 410) {
    outcome = 'deleted';
  } else {
    row.failures++;
    outcome = row.failures >= maxFailures ? 'deleted' : 'failed';
  }
  return { outcome, row, savedBytes, parsed };
}
