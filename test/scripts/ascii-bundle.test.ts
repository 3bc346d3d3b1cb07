import { describe, expect, it } from 'vitest';
import { toAscii } from '../../scripts/ascii-bundle.js';

/** Runs `code` (a CommonJS-style body that sets `out`) and returns `out`. */
const run = (code: string): unknown => new Function(`let out; ${code}; return out;`)();

describe('toAscii (scripts/ascii-bundle.ts): the bundles made pure ASCII, meaning the same', () => {
  it('escapes what esbuild leaves (regular expressions, with and without the u flag, and comments) to the same code', () => {
    const code = [
      '// a comment · with … characters and 😀',
      '/* block — comment */',
      'const ago = /#\\s*(?:分钟前|小时前|天前)/;',
      'const cls = /[·–—]/;',
      'const astral = /^😀+$/u;',
      'const astralPlain = /😀/;',
      "out = [ago.test('# 小时前'), ago.test('# later'), cls.test('a–b'), cls.test('a-b'), astral.test('😀😀'), astral.test('😀x'), astralPlain.test('x😀'), '·'.length];",
    ].join('\n');
    const ascii = toAscii(code);
    expect(/[^\0-\x7f]/.test(ascii)).toBe(false);
    expect(ascii).not.toBe(code);
    expect(run(ascii)).toEqual(run(code));
    expect(run(ascii)).toEqual([true, false, true, false, true, false, true, 1]);
  });

  it('leaves ASCII alone', () => {
    const code = "out = /a\\u00b7b/.source + 'x';";
    expect(toAscii(code)).toBe(code);
  });

  it('refuses a backslash before a non-ASCII character, where an escape would change the meaning', () => {
    expect(() => toAscii('out = /a\\·b/;')).toThrow(/backslash before a non-ASCII character at offset 8/);
  });
});
