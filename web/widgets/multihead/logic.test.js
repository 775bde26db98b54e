import { expect, test } from 'vitest';
import { CAT_SAT, headChoices, headSlice } from './logic.js';

test('head counts divide d_model', () => {
  expect(headChoices(4)).toEqual([1, 2, 4]);
  expect(headChoices(6)).toEqual([1, 2, 3, 6]);
});

test('headSlice takes head h’s columns', () => {
  const m = [1, 2, 3, 4, 5, 6, 7, 8];  // 2×4
  expect(Array.from(headSlice(m, 2, 4, 1, 2))).toEqual([3, 4, 7, 8]);
  // The preset's head-2 W_K rows are the notes' reconstruction.
  expect(Array.from(headSlice(CAT_SAT.wk, 4, 4, 1, 2), (x) => Number(x.toFixed(4)))).toEqual([0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]);
});
