import { expect, test } from 'vitest';
import { isPermutation, permuteRows, permuteSquare } from './logic.js';

test('permuting tokens permutes A on both sides and V by rows', () => {
  const A = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  expect(permuteSquare(A, [2, 0, 1])).toEqual([8, 6, 7, 2, 0, 1, 5, 3, 4]);
  expect(permuteRows([1, 2, 3, 4, 5, 6], [2, 0, 1], 2)).toEqual([5, 6, 1, 2, 3, 4]);
  expect(permuteSquare(A, [0, 1, 2])).toEqual(A);
});

test('isPermutation', () => {
  expect(isPermutation([1, 0, 2], 3)).toBe(true);
  expect(isPermutation([1, 1, 2], 3)).toBe(false);
  expect(isPermutation([0, 1], 3)).toBe(false);
});
