import { describe, expect, it } from 'vitest';
import { decodeRecord } from '../../src/frontier/redis-codec.js';
import { testCrawl } from '../helpers/redis.js';

describe('URL records as the scripts store them (MessagePack from Lua cmsgpack), read by the client', () => {
  it('reads every number width, floats, strings of every length class, false and true, as the server wrote them', async () => {
    const conn = await testCrawl('record').connect();
    const strings = ['', 'a', 'x'.repeat(31), 'y'.repeat(32), 'z'.repeat(255), 'é'.repeat(128), 'w'.repeat(70_000), '/p/1.html?q=ü'];
    const numbers = [0, 1, 127, 128, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 3, -1, -32, -33, -128, -129, -32768, -32769,
      -(2 ** 31), -(2 ** 31) - 1, -(2 ** 40), 0.5, 0.1, -2.75, 1e300, 123456.789, 3.4028234663852886e38];
    // values go to Lua as strings (numbers through tonumber) and come back packed by cmsgpack
    const lua = `local t = {}
for i = 1, #ARGV do
  local kind, v = string.sub(ARGV[i], 1, 1), string.sub(ARGV[i], 2)
  if kind == 'n' then t[i] = tonumber(v) elseif kind == 's' then t[i] = v elseif kind == 'b' then t[i] = v == '1' end
end
return cmsgpack.pack(t)`;
    const args = [...numbers.map((n) => `n${n}`), ...strings.map((s) => `s${s}`), 'b0', 'b1'];
    // in chunks: a MessagePack fixarray holds at most 15 (a longer one is array 16, also read)
    for (const chunk of [args.slice(0, 12), args.slice(12, 27), args.slice(27), args]) {
      const packed = (await conn.client.callBuffer('EVAL', lua, 0, ...chunk)) as Buffer;
      const want = chunk.map((a) => (a[0] === 'n' ? Number(a.slice(1)) : a[0] === 's' ? a.slice(1) : a === 'b1'));
      expect(decodeRecord(packed)).toEqual(want);
    }
  });

  it('refuses what is not a record, rather than reading garbage', () => {
    expect(() => decodeRecord(Buffer.from([0x81, 0xa1, 0x61, 0x01]))).toThrow(/not a record/);
    expect(() => decodeRecord(Buffer.from([0x92, 0xc4, 0x01, 0x00]))).toThrow(/not a record/);
    expect(() => decodeRecord(Buffer.from([0x92, 0xa5, 0x61]))).toThrow(/cut short/);
  });
});
