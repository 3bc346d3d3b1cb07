import type { FetchResult } from '../fetch/fetcher.js';

/**
 * When a failed fetch is tried again, and how long its host is left alone (seed 002, RFC 9110).
 *
 * - Retryable: no response for a transient reason (connection refused or reset, timeouts, DNS),
 *   and HTTP 429, 500, 502, 503, 504. Not retryable: everything else (a 404 stays a 404; a body
 *   over the cap, a corrupt encoding or a refused address will not change).
 * - A URL is retried at most `maxRetries` times; it keeps its place at the head of its host's queue.
 * - Each retryable failure backs its host off: base · 2^(consecutive failures − 1), capped, or the
 *   server's Retry-After (seconds or an HTTP date) when that is longer, also capped.
 * - A host whose last `hostFailureLimit` attempts all failed is suspended for the rest of the run:
 *   its URLs stay queued (a later run tries again) and a warning says so.
 */
export interface RetrySettings {
  maxRetries: number;
  baseMs: number;
  maxBackoffMs: number;
  hostFailureLimit: number;
}

const RETRY_CODES = new Set(['E_CONNECT', 'E_CONNECT_TIMEOUT', 'E_HEADERS_TIMEOUT', 'E_BODY_TIMEOUT', 'E_RESET', 'E_DNS']);
const RETRY_STATUS = new Set([429, 500, 502, 503, 504]);

export function isRetryable(res: FetchResult): boolean {
  // a reset or a timeout in the middle of the body (status already received) is transient too
  if (res.error) return RETRY_CODES.has(res.error.code);
  return RETRY_STATUS.has(res.status);
}

/** Retry-After in ms from now, or null if absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: number): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : Math.max(0, t - now);
}

export type RetryDecision =
  | { kind: 'done'; attempts: number }
  | { kind: 'retry'; attempt: number; deferUntil: number }
  | { kind: 'give-up'; attempts: number; deferUntil: number; suspend: boolean };

/** Keeps the per-URL attempt counts and per-host failure streaks of one run. */
export class RetryPolicy {
  private readonly attempts = new Map<number, number>();
  private readonly streaks = new Map<number, number>();

  constructor(private readonly s: RetrySettings) {}

  decide(urlId: number, hostId: number, res: FetchResult, now: number): RetryDecision {
    if (!isRetryable(res)) {
      this.streaks.delete(hostId);
      const attempts = (this.attempts.get(urlId) ?? 0) + 1;
      this.attempts.delete(urlId);
      return { kind: 'done', attempts };
    }
    const streak = (this.streaks.get(hostId) ?? 0) + 1;
    this.streaks.set(hostId, streak);
    const backoff = Math.min(this.s.maxBackoffMs, this.s.baseMs * 2 ** (streak - 1));
    const after = retryAfterMs(res.headers['retry-after'], now);
    const deferUntil = now + Math.max(backoff, Math.min(after ?? 0, this.s.maxBackoffMs));
    const attempt = (this.attempts.get(urlId) ?? 0) + 1;
    const suspend = streak >= this.s.hostFailureLimit;
    if (attempt <= this.s.maxRetries && !suspend) {
      this.attempts.set(urlId, attempt);
      return { kind: 'retry', attempt, deferUntil };
    }
    this.attempts.delete(urlId);
    return { kind: 'give-up', attempts: attempt, deferUntil, suspend };
  }
}
