// The anti-diagonal score (reverse task) beside its code: scored on the reversed half only, and for a
// head in layer 1 or later on the stripe one key to the right as well (the digit a previous-token head
// of layer 0 has moved there) — the stripe a trained 2-layer model's layer-1 head draws.
import { expect, test } from 'vitest';
import { reverseHeadScore, reverseScore } from './scores.js';

/** A causal [t·t] map whose row i puts all its weight on key pick(i) (clamped to [0, i]). */
function mapOf(t, pick) {
  const a = new Float32Array(t * t);
  for (let i = 0; i < t; i++) a[i * t + Math.max(0, Math.min(i, pick(i)))] = 1;
  return a;
}

test('a clean anti-diagonal on the reversed half scores 1 whatever the first half does', () => {
  const t = 16, n = 8;
  const anti = (i) => (i >= n ? t - 1 - i : 0);        // first half: all on key 0
  expect(reverseScore(mapOf(t, anti), t)).toBe(1);
  const anti2 = (i) => (i >= n ? t - 1 - i : i);        // first half: on itself
  expect(reverseScore(mapOf(t, anti2), t)).toBe(1);
});

test('the stripe one key to the right: 0 at shift 0, 1 at shift 1; a layer-1 head gets the better, a layer-0 head not', () => {
  const t = 16, n = 8;
  const right = mapOf(t, (i) => (i >= n ? t - i : i));  // key 2n − i: the token after the digit to copy
  expect(reverseScore(right, t)).toBe(0);
  expect(reverseScore(right, t, 1, { shift: 1 })).toBe(1);
  expect(reverseHeadScore(right, t, 1, 1)).toBe(1);
  expect(reverseHeadScore(right, t, 1, 0)).toBe(0);
  expect(() => reverseScore(right, t, 1, { shift: 2 })).toThrow('reverseScore: shift is 2, expected 0 or 1');
});
