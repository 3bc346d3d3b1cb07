import { describe, expect, it } from 'vitest';
import { TopicrawlError } from '../../src/errors.js';
import { mapFetchError } from '../../src/fetch/fetch-errors.js';
import { HostMap, originKey } from '../../src/fetch/host-map.js';
import { parseContentEncoding } from '../../src/fetch/body-reader.js';
import { mediaType } from '../../src/fetch/undici-fetcher.js';
import { flattenHeaders } from '../../src/fetch/response-handler.js';

const err = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('mapFetchError', () => {
  it('maps node and undici errors to stable codes', () => {
    expect(mapFetchError(err('ENOTFOUND')).code).toBe('E_DNS');
    expect(mapFetchError(err('EAI_AGAIN')).code).toBe('E_DNS');
    expect(mapFetchError(err('ECONNREFUSED')).code).toBe('E_CONNECT');
    expect(mapFetchError(err('UND_ERR_CONNECT_TIMEOUT')).code).toBe('E_CONNECT_TIMEOUT');
    expect(mapFetchError(err('UND_ERR_HEADERS_TIMEOUT')).code).toBe('E_HEADERS_TIMEOUT');
    expect(mapFetchError(err('UND_ERR_BODY_TIMEOUT')).code).toBe('E_BODY_TIMEOUT');
    expect(mapFetchError(err('UND_ERR_SOCKET')).code).toBe('E_RESET');
    expect(mapFetchError(err('ECONNRESET')).code).toBe('E_RESET');
    expect(mapFetchError(err('Z_DATA_ERROR')).code).toBe('E_DECODE');
    expect(mapFetchError(err('HPE_INVALID_CONSTANT')).code).toBe('E_HTTP');
    expect(mapFetchError(new TopicrawlError('E_TOO_LARGE', 'big')).code).toBe('E_TOO_LARGE');
    expect(mapFetchError(new Error('wrapped', { cause: err('ECONNREFUSED') })).code).toBe('E_CONNECT');
    expect(mapFetchError(new Error('??'))).toEqual({ code: 'E_INTERNAL', message: '??' });
  });
});

describe('HostMap', () => {
  it('prefers host:port keys, keeps the URL port when the value has none', () => {
    const m = new HostMap({ 'A.example': '127.0.0.1:8080', 'a.example:8443': '10.0.0.1', 'v6.example': '[::1]:81', 'bare6.example': '::1' });
    expect(m.lookup('a.example', 80)).toEqual({ address: '127.0.0.1', port: 8080 });
    expect(m.lookup('A.EXAMPLE', 8443)).toEqual({ address: '10.0.0.1', port: null });
    expect(m.lookup('v6.example', 80)).toEqual({ address: '::1', port: 81 });
    expect(m.lookup('bare6.example', 80)).toEqual({ address: '::1', port: null });
    expect(m.lookup('b.example', 80)).toBeNull();
  });

  it('rejects malformed mappings as configuration errors', () => {
    expect(() => new HostMap({ 'a.example': '127.0.0.1:http' })).toThrow(TopicrawlError);
    expect(() => new HostMap({ 'a.example': '127.0.0.1:70000' })).toThrow(/bad port/);
  });

  it('builds origin keys with default ports', () => {
    expect(originKey('http:', 'A.example', '')).toBe('http://a.example:80');
    expect(originKey('https:', '[::1]', '')).toBe('https://::1:443');
  });
});

describe('header helpers', () => {
  it('flattens headers and extracts the media type', () => {
    const b = (s: string) => Buffer.from(s, 'latin1');
    // as undici's client hands them over (Buffers), and as its interceptors' wrapper does (a repeated header's values in an array)
    expect(flattenHeaders([b('Set-Cookie'), b('a=1'), b('content-type'), b('Text/HTML; charset=utf-8'), b('SET-COOKIE'), b('b=2')])).toEqual({
      'set-cookie': 'a=1, b=2',
      'content-type': 'Text/HTML; charset=utf-8',
    });
    expect(flattenHeaders([b('x-list'), [b('1'), b('2')], b('x-caf\xe9'), b('\xe9t\xe9')])).toEqual({ 'x-list': '1, 2', 'x-caf\xe9': '\xe9t\xe9' });
    // names that are properties of every object are headers like any other
    const odd = flattenHeaders([b('Constructor'), b('c'), b('__proto__'), b('p'), b('toString'), b('t')]);
    expect(Object.keys(odd)).toEqual(['constructor', '__proto__', 'tostring']);
    expect([odd.constructor, Object.getOwnPropertyDescriptor(odd, '__proto__')?.value, odd.tostring]).toEqual(['c', 'p', 't']);
    expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
    expect(mediaType('Text/HTML; charset=utf-8')).toBe('text/html');
    expect(mediaType(undefined)).toBeNull();
    expect(parseContentEncoding('identity, GZIP')).toEqual(['gzip']);
  });
});
