import { expect, test } from 'vitest';
import { dkList, sampleQK } from './logic.js';
import { mean, variance } from '../shared/stats.js';

test('samples are seeded, sized, and standard normal', () => {
  const a = sampleQK(1, 64, 64), b = sampleQK(1, 64, 64);
  expect(a.q).toEqual(b.q);
  expect(a.q).toHaveLength(64 * 64);
  expect(sampleQK(2, 64, 64).q).not.toEqual(a.q);
  const all = [...a.q, ...a.k];  // 8192 values: within 5 standard errors
  expect(Math.abs(mean(all))).toBeLessThan(5 / Math.sqrt(all.length));
  expect(Math.abs(variance(all) - 1)).toBeLessThan(5 * Math.sqrt(2 / all.length));
});

test('d_k list', () => {
  expect(dkList(3)).toEqual([1, 2, 4, 8]);
});
