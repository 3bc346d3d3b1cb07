/**
 * One HTTP exchange as it went over the wire, kept by a fetcher made with `keepWire` (WARC output).
 *
 * Contract: `requestHead` is the request line and header lines exactly as undici wrote them to the
 * socket (each line ending CRLF, without the blank line), or null when the request was never written;
 * `headers` are the response's header fields in the order received, names in the case received,
 * values as received (bytes read as UTF-8 when they are valid UTF-8, else as latin1: see
 * `headerBytesExact`); `body` is the response body as received: after undoing the transfer coding
 * (chunked), before undoing any content coding (gzip, br, deflate). When the fetch stopped early
 * (a size cap, a timeout, a reset) `complete` is false and `body` holds what arrived.
 */
export interface WireExchange {
  requestHead: string | null;
  /**
   * The response's protocol as written in the record's status line. undici speaks HTTP/1.1 and does
   * not report the version the server answered with, so this is always "HTTP/1.1".
   */
  httpVersion: string;
  statusCode: number;
  /** The reason phrase as received (may be empty). */
  statusText: string;
  headers: [string, string][];
  /** False when some header's bytes were neither ASCII nor valid UTF-8 (then read as latin1: not byte-exact). */
  headerBytesExact: boolean;
  body: Buffer[];
  bodyBytes: number;
  complete: boolean;
}
