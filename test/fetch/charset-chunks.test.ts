import fc from 'fast-check';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { PIECES_MAX_BYTES, decodeHtml, decodeHtmlChunks } from '../../src/fetch/charset.js';
import { Parse5Parser } from '../../src/parse/html-parser.js';

/** Text with characters of 1 to 4 UTF-8 bytes, so that piece boundaries fall inside them. */
const chars = ['a', ' ', '<', '>', '\n', '\r', 'é', '中', '烟', '’', '😀', '𠀀', '&', ';'];
const text = fc.array(fc.constantFrom(...chars), { maxLength: 300 }).map((a) => a.join(''));

describe('decodeHtmlChunks', () => {
  it('gives pieces whose concatenation is what decodeHtml gives, with the same charset, for any piece size', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 64 }), fc.constantFrom('utf-8-header', 'utf-8-bom', 'gbk', 'utf-16le-bom', 'none'), (t, size, kind) => {
        let body: Buffer;
        let type: string | null = null;
        if (kind === 'utf-8-header') (body = Buffer.from(t)), (type = 'text/html; charset=utf-8');
        else if (kind === 'utf-8-bom') body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(t)]);
        else if (kind === 'gbk') (body = iconv.encode(t.replace(/[😀𠀀’é]/gu, 'x'), 'gbk')), (type = 'text/html; charset=gbk');
        else if (kind === 'utf-16le-bom') body = Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(t, 'utf-16le')]);
        else body = Buffer.from(t);
        const whole = decodeHtml(body, type);
        const pieces = decodeHtmlChunks(body, type, size);
        expect(pieces.chunks.join('')).toBe(whole.text);
        expect([pieces.charset, pieces.source]).toEqual([whole.charset, whole.source]);
        for (const c of pieces.chunks) expect(c.length).toBeLessThanOrEqual(size + 2); // (+ a character cut by the last piece)
      }),
      { numRuns: 2000 },
    );
  });

  it('replaces broken UTF-8 as decoding the whole body does (a BOM makes a body UTF-8 unchecked)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.integer({ min: 1, max: 16 }), (bytes, size) => {
        const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(bytes)]);
        expect(decodeHtmlChunks(body, null, size).chunks.join('')).toBe(decodeHtml(body, null).text);
      }),
      { numRuns: 3000 },
    );
  });

  it('decodes a body no longer than a piece as one piece', () => {
    expect(decodeHtmlChunks(Buffer.from('<p>short</p>'), null).chunks).toEqual(['<p>short</p>']);
    expect(decodeHtmlChunks(Buffer.alloc(0), null).chunks).toEqual(['']);
    // and a body above PIECES_MAX_BYTES (a giant page costs less memory whole)
    expect(decodeHtmlChunks(Buffer.alloc(PIECES_MAX_BYTES + 1, 97), null).chunks).toHaveLength(1);
    expect(decodeHtmlChunks(Buffer.alloc(PIECES_MAX_BYTES, 97), null).chunks.length).toBeGreaterThan(1);
  });
});

describe('Parse5Parser over pieces', () => {
  const parser = new Parse5Parser();
  const markup = ['<p>', '</p>', '<a href="/x?a=1&amp;b=2">', '</a>', '<br>', '<script>if (a < b) {}</script>', '<!-- c -->', '&nbsp;', '&amp;',
    '&#x4e2d;', 'word', '中文', '😀', ' ', '\r\n', '\n', '<table><td>x</td></table>', '<title>T</title>', '<pre>\n', '</pre>', 'é'];
  it('gives the page that parsing the concatenation gives, wherever the pieces are cut', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...markup), { maxLength: 40 }).map((a) => a.join('')), fc.array(fc.nat(), { maxLength: 8 }), (html, cuts) => {
        // cut at code point boundaries, as a decoder's pieces are
        const points = [...html];
        const at = [...new Set(cuts.map((c) => c % (points.length + 1)))].sort((x, y) => x - y);
        const pieces: string[] = [];
        let from = 0;
        for (const c of at) {
          pieces.push(points.slice(from, c).join(''));
          from = c;
        }
        pieces.push(points.slice(from).join(''));
        expect(parser.parse(pieces, 'http://example.com/')).toEqual(parser.parse(html, 'http://example.com/'));
      }),
      { numRuns: 3000 },
    );
  });

  it('parses a page of many pieces as it parses the page whole, past parse5 dropping what it has read', () => {
    const page = `<html><head><title>Big</title><script>${'var x = 1;\n'.repeat(20000)}</script></head><body>` +
      Array.from({ length: 400 }, (_, i) => `<p>段落 ${i} <a href="/p${i}">link ${i}</a> text ’${i}’</p>`).join('\n') + '</body></html>';
    const body = Buffer.from(page);
    const pieces = decodeHtmlChunks(body, 'text/html; charset=utf-8');
    expect(pieces.chunks.length).toBeGreaterThan(12); // over 200 KB: parse5 drops what it has read many times
    const a = parser.parse(pieces.chunks, 'http://example.com/');
    expect(a).toEqual(parser.parse(page, 'http://example.com/'));
    expect(a.links).toHaveLength(400);
    expect(a.title).toBe('Big');
  });

  it('parses a token longer than many pieces (a 300 KB attribute) as it parses the page whole', () => {
    const page = `<p>before</p><a href="/long" title="${'中x'.repeat(150_000)}">long</a><p>after <a href="/next">next</a></p>`;
    const pieces = decodeHtmlChunks(Buffer.from(page), 'text/html; charset=utf-8');
    expect(pieces.chunks.length).toBeGreaterThan(20);
    const a = parser.parse(pieces.chunks, 'http://example.com/');
    expect(a).toEqual(parser.parse(page, 'http://example.com/'));
    expect(a.links.map((l) => l.url)).toEqual(['http://example.com/long', 'http://example.com/next']);
  });
});
