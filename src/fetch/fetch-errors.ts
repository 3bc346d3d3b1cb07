import { TopicrawlError, type ErrorCode } from '../errors.js';

/** A page-level fetch failure, as recorded in {@link FetchResult.error}. */
export interface FetchFailure {
  code: ErrorCode;
  message: string;
}

const NODE_CODES: Record<string, ErrorCode> = {
  ENOTFOUND: 'E_DNS',
  EAI_AGAIN: 'E_DNS',
  EAI_NODATA: 'E_DNS',
  EAI_FAIL: 'E_DNS',
  EAI_NONAME: 'E_DNS',
  ECONNREFUSED: 'E_CONNECT',
  ENETDOWN: 'E_CONNECT',
  EHOSTUNREACH: 'E_CONNECT',
  ENETUNREACH: 'E_CONNECT',
  EHOSTDOWN: 'E_CONNECT',
  EADDRNOTAVAIL: 'E_CONNECT',
  ETIMEDOUT: 'E_CONNECT_TIMEOUT',
  ECONNRESET: 'E_RESET',
  ECONNABORTED: 'E_RESET',
  EPIPE: 'E_RESET',
  ERR_STREAM_PREMATURE_CLOSE: 'E_RESET',
  UND_ERR_CONNECT_TIMEOUT: 'E_CONNECT_TIMEOUT',
  UND_ERR_HEADERS_TIMEOUT: 'E_HEADERS_TIMEOUT',
  UND_ERR_BODY_TIMEOUT: 'E_BODY_TIMEOUT',
  UND_ERR_SOCKET: 'E_RESET',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'E_RESET',
  UND_ERR_ABORTED: 'E_ABORTED',
  UND_ERR_ABORT: 'E_ABORTED',
  ABORT_ERR: 'E_ABORTED',
  UND_ERR_CLOSED: 'E_ABORTED',
  UND_ERR_DESTROYED: 'E_ABORTED',
  UND_ERR_INVALID_ARG: 'E_INVALID_URL',
  // the server's answer is not acceptable HTTP: headers over undici's 16 KiB limit, an upgrade, …
  UND_ERR_HEADERS_OVERFLOW: 'E_HTTP',
  UND_ERR_NOT_SUPPORTED: 'E_HTTP',
  UND_ERR_RESPONSE: 'E_HTTP',
  UND_ERR_INFO: 'E_HTTP',
  UND_ERR_RES_EXCEEDED_MAX_SIZE: 'E_TOO_LARGE',
  // TLS: handshake failures (an https URL on a plain-HTTP port, old protocols) and certificates
  EPROTO: 'E_TLS',
  UND_ERR_PRX_TLS: 'E_TLS',
  CERT_HAS_EXPIRED: 'E_TLS',
  CERT_NOT_YET_VALID: 'E_TLS',
  CERT_REVOKED: 'E_TLS',
  CERT_UNTRUSTED: 'E_TLS',
  CERT_REJECTED: 'E_TLS',
  CERT_SIGNATURE_FAILURE: 'E_TLS',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'E_TLS',
  SELF_SIGNED_CERT_IN_CHAIN: 'E_TLS',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'E_TLS',
  UNABLE_TO_GET_ISSUER_CERT: 'E_TLS',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'E_TLS',
  HOSTNAME_MISMATCH: 'E_TLS',
  Z_DATA_ERROR: 'E_DECODE',
  Z_BUF_ERROR: 'E_DECODE',
  ERR_BROTLI_DECOMPRESSION_FAILED: 'E_DECODE',
  ERR__ERROR_FORMAT_PADDING_1: 'E_DECODE',
  E_ADDRESS_REFUSED: 'E_ADDRESS_REFUSED',
};

function codeOf(err: unknown): ErrorCode | undefined {
  if (err instanceof TopicrawlError) return err.code;
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; name?: unknown; errno?: unknown };
  if (typeof e.code === 'string') {
    const mapped = NODE_CODES[e.code];
    if (mapped) return mapped;
    // llhttp parser errors: the server sent something that is not HTTP/1.x.
    if (e.code.startsWith('HPE_')) return 'E_HTTP';
    // node:tls and OpenSSL: ERR_TLS_CERT_ALTNAME_INVALID, ERR_SSL_WRONG_VERSION_NUMBER, …
    if (e.code.startsWith('ERR_TLS_') || e.code.startsWith('ERR_SSL_')) return 'E_TLS';
  }
  // undici 7 builds its HTTPParserError without a code (it looks the llhttp error number up in a map of names)
  if (e.name === 'HTTPParserError') return 'E_HTTP';
  if (e.name === 'AbortError') return 'E_ABORTED';
  return undefined;
}

/**
 * Maps anything thrown while fetching (undici, node:net, node:dns, node:zlib errors, or a
 * TopicrawlError) to a stable page-level code. Looks through `cause` chains; unknown → E_INTERNAL.
 */
export function mapFetchError(err: unknown): FetchFailure {
  let cur: unknown = err;
  for (let depth = 0; depth < 5 && cur; depth++) {
    const code = codeOf(cur);
    if (code) return { code, message: messageOf(err) };
    cur = (cur as { cause?: unknown }).cause;
  }
  return { code: 'E_INTERNAL', message: messageOf(err) };
}

function messageOf(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    const base = err.message || err.name;
    return typeof code === 'string' && !base.includes(code) ? `${code}: ${base}` : base;
  }
  return String(err);
}

/**
 * Whether a request failed in HTTP/1.1 keep-alive's race: it went out on a connection that had
 * already carried an answer (`readBefore`: the bytes that connection had read when the request
 * started, > 0), the server closed that connection just as the request was sent, and not one byte
 * of an answer came (the socket undici reports read no more than before). RFC 9110 §9.2.2 and RFC
 * 9112 §9.3.1 let a client send an idempotent request again on a new connection then, as browsers
 * do. A request whose connection died after part of an answer, or on a new connection, is not one.
 */
export function closedKeepAlive(err: unknown, readBefore: number): boolean {
  const e = err as { code?: unknown; socket?: { bytesRead?: unknown } } | null;
  return readBefore > 0 && e?.code === 'UND_ERR_SOCKET' && e.socket?.bytesRead === readBefore;
}
