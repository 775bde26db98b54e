// uniformMatrix's numbers are the seeded matrices students share ("randomise (seed 7)") and the block,
// positional and embedding widgets' fixed inputs: its faster loop must give exactly the old numbers.
import { describe, expect, test } from 'vitest';
import { mulberry32, resize, uniformMatrix } from './rng.js';

// The implementation before the loop was written out (reference; copied as it was).
function uniformMatrixReference(seed, n, lo = -1, hi = 1, digits = 1) {
  const u = mulberry32(seed), p = 10 ** digits;
  return Array.from({ length: n }, () => Math.round((lo + (hi - lo) * u()) * p) / p);
}

// Same length and the same number in every entry, -0 and NaN included.
const expectSame = (got, want) => {
  expect(Array.isArray(got)).toBe(true);
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++) if (!Object.is(got[i], want[i])) expect([i, got[i]]).toEqual([i, want[i]]);
};

describe('uniformMatrix gives the numbers it gave before (Array.from over mulberry32)', () => {
  const seeds = [0, 1, 2, 7, 42, 1234, 0x6d2b79f5, 2 ** 31 - 1, 2 ** 32 - 1, 2 ** 32 + 5, -1, -7, 3.7, -2.5, NaN];
  const shapes = [[0, 0], [1, 1], [1, 3], [3, 4], [5, 8], [8, 8], [8, 32], [32, 8], [64, 64], [97, 13]];
  test('default range and digits, over seeds and shapes', () => {
    for (const seed of seeds) for (const [r, c] of shapes) expectSame(uniformMatrix(seed, r * c), uniformMatrixReference(seed, r * c));
  });
  test('other ranges and digits (the block widget takes 2 and 3 digits)', () => {
    const ranges = [[-1, 1, 0], [-1, 1, 2], [-1, 1, 3], [0, 1, 1], [-3, 5, 2], [2, -2, 1], [-0.5, 0.5, 4], [0, 0, 1], [-1, 1, -1]];
    for (const seed of [1, 7, 99, 31337]) for (const n of [0, 1, 40, 256, 1000])
      for (const [lo, hi, digits] of ranges) expectSame(uniformMatrix(seed, n, lo, hi, digits), uniformMatrixReference(seed, n, lo, hi, digits));
  });
  test('rounding keeps a negative zero where the old one did', () => {
    const got = uniformMatrix(3, 500, -0.04, 0.04, 1), want = uniformMatrixReference(3, 500, -0.04, 0.04, 1);
    expect(want.some((v) => Object.is(v, -0))).toBe(true);
    expectSame(got, want);
  });
  test('lengths the way Array.from reads them (fractions, strings, negatives, nothing)', () => {
    for (const n of [2.9, '5', -3, undefined, null, NaN, '', '7.5', true, 0.2]) expectSame(uniformMatrix(11, n), uniformMatrixReference(11, n));
  });
  test('lengths Array.from refuses are refused the same way', () => {
    for (const n of [2 ** 32, Infinity, 5n]) {
      let want, got;
      try { uniformMatrixReference(1, n); } catch (e) { want = e; }
      try { uniformMatrix(1, n); } catch (e) { got = e; }
      expect(want).toBeInstanceOf(Error);
      expect(got?.constructor).toBe(want.constructor);
      expect(got.message).toBe(want.message);
    }
  });
  test('resize fills new entries with the same numbers', () => {
    const old = uniformMatrixReference(5, 12);
    const fresh = uniformMatrixReference(9, 20);
    for (let i = 0; i < 3; i++) for (let j = 0; j < 4; j++) fresh[i * 5 + j] = old[i * 4 + j];
    expectSame(resize(old, 3, 4, 4, 5, 9), fresh);
  });
});
