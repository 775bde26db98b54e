import { expect, test } from 'vitest';
import { attentionFlops, lengths } from './logic.js';
import { fitProportional } from '../shared/stats.js';

test('lengths double from 16', () => {
  expect(lengths(128)).toEqual([16, 32, 64, 128]);
  expect(lengths(100)).toEqual([16, 32, 64]);
});

test('flop model: quadratic in T at fixed D, and a fit recovers a known rate', () => {
  expect(attentionFlops(2, 1) / attentionFlops(1, 1)).toBeCloseTo((16 + 16) / (4 + 8), 12);
  // T ≫ D: the T² term dominates.
  expect(attentionFlops(2048, 64) / attentionFlops(1024, 64)).toBeGreaterThan(3.5);
  const Ts = lengths(1024), ms = Ts.map((T) => attentionFlops(T, 64) / 1e7);
  expect(fitProportional(Ts.map((T) => attentionFlops(T, 64)), ms)).toBeCloseTo(1e-7, 15);
});
