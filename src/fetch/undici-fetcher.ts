import type { Agent as AgentType, buildConnector as BuildConnector, Dispatcher } from 'undici';
import { Agent, buildConnector } from './undici-parts.js';
import type { Socket } from 'node:net';
import type { FetchOptions, FetchResult, Fetcher, FetcherOptions } from './fetcher.js';
import { dispatchGet, type ReadResponse } from './response-handler.js';
import { closedKeepAlive, mapFetchError, type FetchFailure } from './fetch-errors.js';
import { createCachingLookup, type CachingLookup } from './dns-cache.js';
import { HostMap, mappedConnector, originKey } from './host-map.js';
import { mayBeIpLiteral } from '../url/ip-literal.js';
import { publicOnlyLookup } from './address-policy.js';
import { listenForRequestHeads, wireInterceptor, WireCapture, type WireDispatchOptions } from './wire-capture.js';

const ACCEPT = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5';
const ACCEPT_ENCODING = 'gzip, deflate, br';
const EMPTY = Buffer.alloc(0);

/** The media type of a Content-Type header, without parameters, lower-cased; null if absent. */
export function mediaType(contentType: string | undefined): string | null {
  if (!contentType) return null;
  const t = contentType.split(';', 1)[0].trim().toLowerCase();
  return t === '' ? null : t;
}

/**
 * {@link Fetcher} on undici's dispatcher `request()` with one keep-alive {@link Agent}: one hop, no
 * redirects followed, host mapping without DNS, connect / headers / body timeouts (the body also
 * has an overall deadline), decompression with a cap on the decoded size. Never throws from fetch().
 */
export class UndiciFetcher implements Fetcher {
  private readonly agent: AgentType;
  /** The agent, with the wire-capture interceptor when keepWire (else the agent itself). */
  private readonly dispatcher: Dispatcher;
  /**
   * Each origin's newest open connection, by originKey: the bytes it had read when a request
   * started tell whether a failure was keep-alive's race (closedKeepAlive). With one connection per
   * origin (connectionsPerOrigin 1) it is the one a request goes out on; with more, a guess that
   * only ever makes a retry less likely.
   */
  private readonly sockets = new Map<string, Socket>();
  private readonly stopListening: (() => void) | null;
  private readonly remote = new Map<string, string>();
  /** The DNS cache of this fetcher's connections. */
  readonly lookup: CachingLookup;
  private readonly baseHeaders: Record<string, string>;
  private closed = false;

  constructor(private readonly opts: FetcherOptions) {
    this.lookup = createCachingLookup({ ttlMs: opts.dnsTtlMs });
    const base = buildConnector({ timeout: opts.connectTimeoutMs, lookup: this.lookup } as BuildConnector.BuildOptions);
    const refusePrivate = !(opts.allowPrivate ?? true);
    // unmapped hosts: private DNS answers are dropped before connecting (the socket is checked again after)
    const guarded = refusePrivate ? buildConnector({ timeout: opts.connectTimeoutMs, lookup: publicOnlyLookup(this.lookup) } as BuildConnector.BuildOptions) : base;
    const connect = mappedConnector(base, new HostMap(opts.resolve), (key, addr, socket) => {
      if (this.remote.size >= 100_000) this.remote.clear(); // one entry per origin: bound it on huge crawls
      this.remote.set(key, addr);
      this.sockets.set(key, socket);
      socket.once('close', () => {
        if (this.sockets.get(key) === socket) this.sockets.delete(key);
      });
    }, opts.mappedOnly ?? false, refusePrivate, guarded);
    this.agent = new Agent({
      connect,
      connections: opts.connectionsPerOrigin ?? 8,
      headersTimeout: opts.headersTimeoutMs,
      bodyTimeout: opts.bodyTimeoutMs,
      keepAliveTimeout: 10_000,
      keepAliveMaxTimeout: 60_000,
    });
    this.dispatcher = opts.keepWire ? this.agent.compose(wireInterceptor) : this.agent;
    this.stopListening = opts.keepWire ? listenForRequestHeads() : null;
    this.baseHeaders = { 'user-agent': opts.userAgent, accept: ACCEPT, 'accept-encoding': ACCEPT_ENCODING };
  }

  async fetch(url: string, options: FetchOptions = {}): Promise<FetchResult> {
    const startedAt = Date.now();
    const t0 = performance.now();
    const result = (partial: Partial<FetchResult>, error?: FetchFailure): FetchResult => ({
      url,
      status: 0,
      headers: {},
      body: EMPTY,
      contentType: null,
      location: null,
      wireBytes: 0,
      startedAt,
      elapsedMs: performance.now() - t0,
      ...partial,
      ...(error ? { error } : {}),
    });

    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return result({}, { code: 'E_INVALID_URL', message: `invalid URL: ${url}` });
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') {
      return result({}, { code: 'E_INVALID_URL', message: `unsupported scheme ${u.protocol}` });
    }
    if (this.closed) return result({}, { code: 'E_ABORTED', message: 'fetcher is closed' });

    let headers = this.baseHeaders;
    if (options.headers) {
      headers = { ...this.baseHeaders };
      for (const [k, v] of Object.entries(options.headers)) headers[k.toLowerCase()] = v;
    }

    let res: ReadResponse;
    // (the origin's key for its socket and address, made once: a string built and lower-cased)
    const origin = originKey(u.protocol, u.hostname, u.port);
    const limits = { maxBytes: options.maxBytes ?? this.opts.maxPageBytes, deadlineMs: this.opts.bodyTimeoutMs, truncate: options.truncate };
    const path = u.pathname + u.search;
    let wire: WireCapture | undefined;
    for (let attempt = 1; ; attempt++) {
      wire = this.stopListening ? new WireCapture('GET', path) : undefined;
      const readBefore = this.bytesReadOn(origin);
      try {
        const req: WireDispatchOptions & Dispatcher.DispatchOptions = { origin: u.origin, path, method: 'GET', headers };
        // the name undici would derive itself (its net.isIP costs the first request ~10 ms: ip-literal.ts)
        if (!mayBeIpLiteral(u.hostname)) (req as { servername?: string }).servername = u.hostname;
        if (wire) req.wire = wire;
        res = await dispatchGet(this.dispatcher, req, limits, options.signal);
        break;
      } catch (err) {
        // a kept-alive connection the server had just closed: sent again once, on a new connection
        if (attempt === 1 && closedKeepAlive(err, readBefore) && !options.signal?.aborted) continue;
        return result({ remoteAddress: this.remote.get(origin) }, abortedOr(options.signal, mapFetchError(err)));
      }
    }

    const { status, headers: hdrs, error } = res;
    return result(
      {
        status,
        headers: hdrs,
        body: res.body,
        contentType: mediaType(hdrs['content-type']),
        location: status >= 300 && status < 400 ? resolveLocation(hdrs.location, u) : null,
        wireBytes: res.wireBytes,
        remoteAddress: this.remote.get(origin),
        ...(wire ? { wire: wire.exchange(!error) } : {}),
      },
      error && error.code !== 'E_TOO_LARGE' ? abortedOr(options.signal, error) : error,
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopListening?.();
    await this.agent.destroy().catch(() => undefined);
  }

  /** The bytes the origin's newest open connection has read (0: none open). */
  private bytesReadOn(origin: string): number {
    const s = this.sockets.get(origin);
    return s && !s.destroyed ? s.bytesRead : 0;
  }
}

/** A failure caused by the caller's signal is E_ABORTED, whatever the signal's reason was. */
function abortedOr(signal: AbortSignal | undefined, failure: FetchFailure): FetchFailure {
  return signal?.aborted ? { code: 'E_ABORTED', message: `aborted: ${failure.message}` } : failure;
}

function resolveLocation(location: string | undefined, base: URL): string | null {
  if (!location) return null;
  try {
    return new URL(location.trim(), base).href;
  } catch {
    return null;
  }
}
