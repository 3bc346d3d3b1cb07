/**
 * The one error module of topicrawl. Every error the product raises or records carries a stable
 * code from {@link ErrorCode}; codes never change meaning, so logs, the store and scripts can rely
 * on them.
 *
 * - Page-level failures (network, HTTP, parse) are *outcomes*: they are recorded in the store and
 *   never stop a crawl.
 * - Only configuration errors (`E_CONFIG*`, `E_USAGE`), a broken store (`E_STORE`), a crawl file
 *   that another process writes (`E_IN_USE`) and a shared frontier that cannot be reached (`E_REDIS`,
 *   after its retries) and a --warc folder that cannot be written at the start (`E_WARC`) are fatal.
 */
export const ErrorCodes = {
  // fatal, user-facing
  E_USAGE: 'bad command-line usage',
  E_CONFIG: 'invalid configuration',
  E_TOPIC_READ: 'topic file cannot be read',
  E_TOPIC_YAML: 'topic file is not valid YAML',
  E_TOPIC_SCHEMA: 'topic file does not match the schema',
  E_CORPUS: 'corpus is missing or malformed',
  E_STORE: 'the store (SQLite file) is broken or unusable',
  E_IN_USE: 'the crawl file is in use by another crawl or recrawl',
  E_INTERRUPTED: 'stopped by Ctrl-C before it had a result (tune)',
  E_REDIS: 'the shared frontier (Redis) cannot be reached or went away',
  E_WARC: 'the --warc folder cannot be written (not a folder, no permission, a full disk): checked before the crawl starts',
  // page outcomes (recorded, never fatal)
  E_INVALID_URL: 'URL is invalid or has an unsupported scheme',
  E_DNS: 'host name could not be resolved',
  E_CONNECT: 'connection failed',
  E_CONNECT_TIMEOUT: 'connect timed out',
  E_HEADERS_TIMEOUT: 'response headers timed out',
  E_BODY_TIMEOUT: 'response body timed out',
  E_RESET: 'connection reset',
  E_TLS: 'TLS handshake or certificate failed',
  E_TOO_LARGE: 'body exceeds the size cap',
  E_DECODE: 'content encoding could not be decoded',
  E_REDIRECT_LIMIT: 'too many redirect hops',
  E_REDIRECT_LOOP: 'redirect loop',
  E_ROBOTS: 'disallowed by robots.txt',
  E_NOT_HTML: 'content type is not HTML',
  E_HTTP: 'HTTP error status, or a response that is not valid HTTP (malformed, headers over the size limit)',
  E_PARSE: 'page could not be parsed',
  E_ADDRESS_REFUSED: 'address is in a refused range',
  E_HOST_SUSPENDED: 'host suspended after repeated failures',
  E_ROBOTS_UNREACHABLE: "robots.txt of the URL's origin could not be fetched while another origin of its host answered: that origin is given up for the run",
  E_ABORTED: 'request aborted',
  E_WARC_WRITE: 'a WARC record of the page could not be written (the page fails, the crawl goes on)',
  E_INTERNAL: 'internal error',
} as const;

export type ErrorCode = keyof typeof ErrorCodes;

/** An error with a stable code. `details` is structured, printable context (file, key, line, …). */
export class TopicrawlError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TopicrawlError';
    this.code = code;
    this.details = details;
  }
  /** True for errors that must stop the process (bad configuration, broken store, bad usage). */
  get fatal(): boolean {
    return isFatalCode(this.code);
  }
}

export function isFatalCode(code: ErrorCode): boolean {
  return code === 'E_USAGE' || code.startsWith('E_CONFIG') || code.startsWith('E_TOPIC') || code === 'E_CORPUS' || code === 'E_STORE' || code === 'E_IN_USE' || code === 'E_REDIS' || code === 'E_WARC';
}

/** Turns anything thrown into a {code, message} outcome suitable for recording. */
export function toOutcome(err: unknown, fallback: ErrorCode = 'E_INTERNAL'): { code: ErrorCode; message: string } {
  if (err instanceof TopicrawlError) return { code: err.code, message: err.message };
  const message = err instanceof Error ? err.message : String(err);
  return { code: fallback, message };
}
