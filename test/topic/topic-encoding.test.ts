import { describe, expect, it } from 'vitest';
import { firstInvalidUtf8, topicEncodingProblem } from '../../src/topic/topic-encoding.js';

/** Node's own strict decoder is the oracle of what is well-formed UTF-8. */
const strictOk = (b: Uint8Array) => {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b);
    return true;
  } catch {
    return false;
  }
};

describe('firstInvalidUtf8', () => {
  it('agrees with a strict UTF-8 decoder and points at the first bad byte', () => {
    const cases: [number[], number][] = [
      [[0x61, 0x62], -1],
      [[...Buffer.from('烟草 café 𠀀')], -1],
      [[0x61, 0xe9, 0x62], 1], // Latin-1 é
      [[0xc0, 0xaf], 0], // overlong "/"
      [[0xe0, 0x80, 0xaf], 0], // overlong, 3 bytes
      [[0xed, 0xa0, 0x80], 0], // a UTF-16 surrogate encoded
      [[0xf4, 0x90, 0x80, 0x80], 0], // past U+10FFFF
      [[0x61, 0xe7, 0x83], 1], // cut short by the end
      [[0xe7, 0x83, 0x61], 0], // a continuation byte missing
      [[0x80], 0], // a lone continuation byte
      [[0xf0, 0x9f, 0x98, 0x80, 0xff], 4],
    ];
    for (const [bytes, at] of cases) {
      const b = Uint8Array.from(bytes);
      expect(firstInvalidUtf8(b), bytes.join(' ')).toBe(at);
      expect(strictOk(b), bytes.join(' ')).toBe(at === -1);
    }
  });

  it('accepts UTF-8 (with or without a byte order mark) and names the rest', () => {
    expect(topicEncodingProblem(Buffer.from('\uFEFFname: x\n'))).toBeNull();
    expect(topicEncodingProblem(Buffer.from('name: 烟草\n'))).toBeNull();
    expect(topicEncodingProblem(Buffer.from([0xff, 0xfe, 0, 0, 0x6e, 0, 0, 0]))?.reason).toBe('it is UTF-32 (byte order mark 0xFF 0xFE 0x00 0x00)');
    expect(topicEncodingProblem(Buffer.from('name: x\n\0'))).toEqual({ reason: 'it holds a NUL byte (a binary file?)', line: 2, column: 1 });
    expect(topicEncodingProblem(Buffer.from('a: 1\nb: 烟\xff', 'latin1'))?.line).toBe(2);
  });
});
