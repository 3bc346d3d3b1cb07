import { describe, expect, it } from 'vitest';
import { RedisHostIds } from '../../src/frontier/redis-host-ids.js';

/** A lease-like buffer holding `name` at some offset, as decodeLease hands it to nameOf. */
function inBuffer(name: string): { b: Buffer; start: number; end: number } {
  const bytes = Buffer.from(name, 'utf8');
  const b = Buffer.concat([Buffer.from('xxxx'), bytes, Buffer.from('yy')]);
  return { b, start: 4, end: 4 + bytes.length };
}

describe('RedisHostIds.nameOf', () => {
  it('decodes a host name once per id, learns the id, and decodes again when the bytes for that id differ', () => {
    const ids = new RedisHostIds();
    ids.reset('e1');
    const a = inBuffer('ä.test');
    const first = ids.nameOf(5, a.b, a.start, a.end);
    expect(first).toBe('ä.test');
    expect(ids.get('ä.test')).toBe(5);
    // the same bytes in another buffer: the name decoded before
    const again = inBuffer('ä.test');
    again.b[0] = 0x7a;
    expect(ids.nameOf(5, again.b, again.start, again.end)).toBe(first);
    // id 5 now names another host (of the same length, and of another): decoded, learnt
    const b = inBuffer('b.test1');
    expect(ids.nameOf(5, b.b, b.start, b.end)).toBe('b.test1');
    expect(ids.get('b.test1')).toBe(5);
    const c = inBuffer('c.test1');
    expect(ids.nameOf(5, c.b, c.start, c.end)).toBe('c.test1');
    // a new epoch forgets the names too
    ids.reset('e2');
    expect(ids.get('c.test1')).toBeUndefined();
    expect(ids.nameOf(5, a.b, a.start, a.end)).toBe('ä.test');
  });
});
