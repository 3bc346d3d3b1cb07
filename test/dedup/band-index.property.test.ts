import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BandIndex, MAX_INDEX_DISTANCE } from '../../src/dedup/band-index.js';
import { hamming, type Fingerprint } from '../../src/dedup/simhash.js';

/**
 * The banded index against brute force: for random fingerprints, many of them a few bits from one
 * another (so that pairs near the distance are common), every lookup finds exactly what a scan of
 * all fingerprints added before finds: a page within k when there is one (the nearest, the first
 * added of equally near ones), none when there is none.
 */

const word = fc.integer({ min: 0, max: 0xffffffff });
const fingerprint = fc.record({ hi: word, lo: word });

/** A fingerprint with `bits` distinct bit positions of `base` flipped. */
function flip(base: Fingerprint, positions: number[]): Fingerprint {
  let { hi, lo } = base;
  for (const p of positions) {
    if (p < 32) hi = (hi ^ (1 << (31 - p))) >>> 0;
    else lo = (lo ^ (1 << (63 - p))) >>> 0;
  }
  return { hi, lo };
}

/** A sequence of fingerprints: fresh ones and ones derived from an earlier one by flipping 0–k+3 bits. */
const sequence = (k: number) =>
  fc.array(
    fc.oneof(
      { weight: 1, arbitrary: fingerprint.map((f) => ({ kind: 'fresh' as const, f })) },
      {
        weight: 3,
        arbitrary: fc.record({
          kind: fc.constant('near' as const),
          of: fc.nat(),
          positions: fc.uniqueArray(fc.integer({ min: 0, max: 63 }), { maxLength: k + 3 }),
        }),
      },
    ),
    { minLength: 1, maxLength: 120 },
  );

function materialise(steps: ({ kind: 'fresh'; f: Fingerprint } | { kind: 'near'; of: number; positions: number[] })[]): Fingerprint[] {
  const out: Fingerprint[] = [];
  for (const s of steps) {
    if (s.kind === 'fresh' || out.length === 0) out.push(s.kind === 'fresh' ? s.f : { hi: 0x12345678, lo: 0x9abcdef0 });
    else out.push(flip(out[s.of % out.length], s.positions));
  }
  return out;
}

function bruteForce(added: Fingerprint[], f: Fingerprint, k: number): { id: number; distance: number } | null {
  let best: { id: number; distance: number } | null = null;
  added.forEach((g, id) => {
    const d = hamming(f, g);
    if (d <= k && (best === null || d < best.distance)) best = { id, distance: d };
  });
  return best;
}

describe('BandIndex', () => {
  it('finds every fingerprint within k and none beyond, as a brute-force scan does (fast-check)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 8 }), fc.gen(), (k, gen) => {
        const fps = materialise(gen(sequence, k));
        const index = new BandIndex(k);
        const added: Fingerprint[] = [];
        fps.forEach((f, id) => {
          expect(index.find(f)).toEqual(bruteForce(added, f, k));
          index.add(id, f);
          added.push(f);
        });
        expect(index.size).toBe(fps.length);
      }),
      { numRuns: 300 },
    );
  });

  it('leaves out the entry of the page asked about (self)', () => {
    const index = new BandIndex(3);
    const f = { hi: 0xdeadbeef, lo: 0x01234567 };
    index.add(7, f);
    expect(index.find(f)).toEqual({ id: 7, distance: 0 });
    expect(index.find(f, 7)).toBeNull();
    index.add(9, flip(f, [0, 40]));
    expect(index.find(f, 7)).toEqual({ id: 9, distance: 2 });
  });

  it('prefers the nearest, then the first added', () => {
    const index = new BandIndex(3);
    const f = { hi: 0x0f0f0f0f, lo: 0xf0f0f0f0 };
    index.add(1, flip(f, [1, 2, 3]));
    index.add(2, flip(f, [5]));
    index.add(3, flip(f, [6]));
    expect(index.find(f)).toEqual({ id: 2, distance: 1 });
  });

  it('grows past its first allocation and keeps every entry findable', () => {
    const index = new BandIndex(2);
    for (let i = 0; i < 5000; i++) index.add(i, { hi: Math.imul(i, 0x9e3779b1) >>> 0, lo: Math.imul(i + 1, 0x85ebca77) >>> 0 });
    for (let i = 0; i < 5000; i += 499) expect(index.find({ hi: Math.imul(i, 0x9e3779b1) >>> 0, lo: Math.imul(i + 1, 0x85ebca77) >>> 0 })).toEqual({ id: i, distance: 0 });
  });

  it('refuses a distance it cannot index', () => {
    expect(() => new BandIndex(-1)).toThrow(RangeError);
    expect(() => new BandIndex(MAX_INDEX_DISTANCE + 1)).toThrow(RangeError);
    expect(() => new BandIndex(1.5)).toThrow(RangeError);
  });
});
