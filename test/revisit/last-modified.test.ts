import { describe, expect, it } from 'vitest';
import { CLOCK_SKEW_MS, emptyAges, nextAges, type AgeCheck } from '../../src/revisit/last-modified.js';

const H = 3_600_000;
const T0 = Date.parse('2026-11-01T00:00:00Z');
const http = (ms: number) => new Date(ms).toUTCString();
/** A check at T0 + `atH` hours after one at T0 + `prevH` hours. */
const check = (outcome: AgeCheck['outcome'], prevH: number, atH: number, lm: number | null, prevLm: number | null = null): AgeCheck => ({
  outcome, at: T0 + atH * H, previousAt: T0 + prevH * H, lastModified: lm === null ? null : http(lm), previousLastModified: prevLm === null ? null : http(prevLm),
});

describe('nextAges: what Last-Modified adds, while it is believed', () => {
  it('a change: one more change, aged from Last-Modified to the check; a 304 or an unchanged page: time watched', () => {
    let a = nextAges(emptyAges(), check('changed', 0, 10, T0 + 7 * H));
    expect(a).toEqual({ changes: 1, ageMs: 3 * H, unchangedMs: 0 });
    a = nextAges(a, check('not_modified', 10, 20, null, T0 + 7 * H));
    expect(a).toEqual({ changes: 1, ageMs: 3 * H, unchangedMs: 10 * H });
    a = nextAges(a, check('unchanged', 20, 26, T0 + 7 * H, T0 + 7 * H));
    expect(a).toEqual({ changes: 1, ageMs: 3 * H, unchangedMs: 16 * H });
    // an unchanged page that sends no Last-Modified contradicts nothing
    a = nextAges(a, check('unchanged', 26, 30, null, T0 + 7 * H));
    expect(a).toEqual({ changes: 1, ageMs: 3 * H, unchangedMs: 20 * H });
    // HTTP dates have whole seconds: a change in the second of the previous check still counts
    // (previous check at T0 + 0.5 s, change at T0 + 0.8 s: Last-Modified says T0)
    expect(nextAges(emptyAges(), { ...check('changed', 0, 1, T0 + 800), previousAt: T0 + 500 })).toEqual({ changes: 1, ageMs: H, unchangedMs: 0 });
    // a server clock a little ahead: age 0, still believed
    expect(nextAges(emptyAges(), check('changed', 0, 1, T0 + H + CLOCK_SKEW_MS / 2))).toEqual({ changes: 1, ageMs: 0, unchangedMs: 0 });
  });

  it('stops believing it, for good, once it contradicts a check', () => {
    // the text changed, but there is no Last-Modified, or it is unreadable
    expect(nextAges(emptyAges(), check('changed', 0, 10, null))).toBeNull();
    expect(nextAges(emptyAges(), { ...check('changed', 0, 10, null), lastModified: 'yesterday-ish' })).toBeNull();
    // the text changed, but Last-Modified says nothing changed since the previous check
    expect(nextAges(emptyAges(), check('changed', 5, 10, T0 + 4 * H))).toBeNull();
    // Last-Modified later than the check (beyond clock skew)
    expect(nextAges(emptyAges(), check('changed', 0, 10, T0 + 10 * H + 2 * CLOCK_SKEW_MS))).toBeNull();
    // the text did not change but Last-Modified moved (a dynamic page: the time of the request)
    expect(nextAges(emptyAges(), check('unchanged', 0, 10, T0 + 10 * H, T0))).toBeNull();
    // once not believed, never again
    expect(nextAges(null, check('not_modified', 0, 10, null))).toBeNull();
    expect(nextAges(null, check('changed', 0, 10, T0 + 5 * H))).toBeNull();
  });
});
