import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Dispatcher } from 'undici';
import type { WireExchange } from './wire-exchange.js';

/**
 * Keeps an exchange as it went over the wire (see WireExchange), for fetchers made with `keepWire`.
 * An undici interceptor wraps the request's handler: the raw response header list (undici's
 * controller carries it), the reason phrase and the body chunks before decoding. The request head
 * as written comes from undici's `undici:client:sendHeaders` diagnostics channel, which undici
 * publishes synchronously right after it calls the handler's onRequestStart for that request on
 * that socket: the capture started last is the one the message belongs to (its path is checked).
 * Fetchers without keepWire install none of this (no interceptor, no channel subscriber).
 */

/** What the interceptor fills in for one request. Passed to dispatch in the options as `wire`. */
export class WireCapture {
  requestHead: string | null = null;
  statusCode = 0;
  statusText = '';
  rawHeaders: Buffer[] | null = null;
  readonly body: Buffer[] = [];
  bodyBytes = 0;
  ended = false;

  constructor(readonly method: string, readonly path: string) {}

  /** The exchange as kept; `complete` when the body ended normally and the reader kept all of it. */
  exchange(readerComplete: boolean): WireExchange {
    const headers: [string, string][] = [];
    let exact = true;
    const raw = this.rawHeaders ?? [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const n = headerText(raw[i]);
      const v = headerText(raw[i + 1]);
      exact &&= n.exact && v.exact;
      headers.push([n.text, v.text]);
    }
    return {
      requestHead: this.requestHead, httpVersion: 'HTTP/1.1', statusCode: this.statusCode, statusText: this.statusText,
      headers, headerBytesExact: exact, body: this.body, bodyBytes: this.bodyBytes, complete: this.ended && readerComplete,
    };
  }
}

/** A header's bytes as text that TextEncoder turns back into the same bytes when it can (valid UTF-8). */
function headerText(b: Buffer | string): { text: string; exact: boolean } {
  if (typeof b === 'string') return { text: b, exact: true };
  const text = b.toString('utf8');
  if (Buffer.byteLength(text) === b.length && Buffer.from(text).equals(b)) return { text, exact: true };
  return { text: b.toString('latin1'), exact: false };
}

/** The options the fetcher hands to undici, with the capture. */
export type WireDispatchOptions = Dispatcher.DispatchOptions & { wire?: WireCapture };

let current: WireCapture | null = null;
let subscribers = 0;

function onSendHeaders(message: unknown): void {
  const m = message as { request?: { path?: string }; headers?: string };
  const cap = current;
  current = null;
  if (cap && m.request?.path === cap.path && typeof m.headers === 'string') cap.requestHead = m.headers;
}

/** Starts listening for request heads (reference-counted: one subscriber for every keepWire fetcher). */
export function listenForRequestHeads(): () => void {
  if (subscribers++ === 0) subscribe('undici:client:sendHeaders', onSendHeaders);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (--subscribers === 0) unsubscribe('undici:client:sendHeaders', onSendHeaders);
  };
}

/** The interceptor: requests whose options carry `wire` are captured into it; others pass as they are. */
export const wireInterceptor: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
  const cap = (opts as WireDispatchOptions).wire;
  return cap ? dispatch(opts, new CaptureHandler(handler, cap)) : dispatch(opts, handler);
};

class CaptureHandler implements Dispatcher.DispatchHandler {
  constructor(private readonly next: Dispatcher.DispatchHandler, private readonly cap: WireCapture) {}

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    current = this.cap; // undici writes this request's head next, synchronously (see above)
    this.next.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(controller: Dispatcher.DispatchController, statusCode: number, headers: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>[2], socket: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>[3]): void {
    this.next.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>[2], statusMessage?: string): void {
    if (statusCode >= 200) {
      // (a 1xx interim response comes first on some servers; the record keeps the final one)
      this.cap.statusCode = statusCode;
      this.cap.statusText = statusMessage ?? '';
      const raw = controller.rawHeaders;
      this.cap.rawHeaders = Array.isArray(raw) ? raw.map((x) => (typeof x === 'string' ? Buffer.from(x, 'latin1') : x)) : null;
    }
    this.next.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.cap.body.push(chunk);
    this.cap.bodyBytes += chunk.length;
    this.next.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseEnd']>>[1]): void {
    this.cap.ended = true;
    this.next.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.next.onResponseError?.(controller, error);
  }
}
