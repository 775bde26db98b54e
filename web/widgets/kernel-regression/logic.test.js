import { expect, test } from 'vitest';
import { DECK_POINTS, dataset, grid } from './logic.js';

test('the data set holds the deck’s points, sorted, reproducible', () => {
  const d = dataset(20, 3);
  expect(d).toHaveLength(20);
  for (const p of DECK_POINTS) expect(d).toContainEqual(p);
  for (let i = 1; i < d.length; i++) expect(d[i][0]).toBeGreaterThanOrEqual(d[i - 1][0]);
  expect(dataset(20, 3)).toEqual(d);
});

test('grid spans the range', () => {
  const g = grid(8);
  expect(g[0]).toBe(0);
  expect(g[7]).toBe(7);
});

import { describeState, effectivePoints, flatFrom } from './logic.js';

test('effective number of points', () => {
  expect(effectivePoints([1, 0, 0])).toBe(1);
  expect(effectivePoints([0.25, 0.25, 0.25, 0.25])).toBe(4);
});

test('the note reads the kernel and the weights: the dot kernel is not called wiggly', () => {
  const xs = [1, 2, 3, 4], ys = [1, -1, 2, 3], g = Float32Array.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  const flatCurve = [2, 2.9, 3, 3, 3, 3, 3, 3, 3, 3];
  const dot = describeState({ kernel: 'dot', bandwidth: 0.05, query: 2, xs, ys, weights: [0, 0, 0.01, 0.99], grid: g, curve: flatCurve });
  expect(dot.lead).toMatch(/largest xᵢ/);
  expect(dot.rest).toMatch(/flat/);
  expect(dot.rest).not.toMatch(/wiggly/);
  expect(flatFrom(g, flatCurve, ys)).toBe(1);  // 2.9 is within 3 % of the y range (4) of 3
  const gauss = describeState({ kernel: 'gaussian', bandwidth: 0.05, query: 2, xs, ys, weights: [0, 1, 0, 0], grid: g, curve: flatCurve });
  expect(gauss.rest).toMatch(/wiggly/);
  const wide = describeState({ kernel: 'gaussian', bandwidth: 50, query: 2, xs, ys, weights: [0.25, 0.25, 0.25, 0.25], grid: g, curve: flatCurve });
  expect(wide.rest).toMatch(/flat/);
});

test('one point carries the weight, several carry it (the verb agrees)', () => {
  const xs = [1, 2, 3, 4], ys = [1, -1, 2, 3], g = Float32Array.from([0, 1, 2, 3]), curve = [1, 1, 1, 1];
  const one = describeState({ kernel: 'gaussian', bandwidth: 0.05, query: 2, xs, ys, weights: [0, 1, 0, 0], grid: g, curve });
  expect(one.lead).toBe('Gaussian kernel, h = 0.050: one point carries the weight at x = 2.00, led by the nearest.');
  const all = describeState({ kernel: 'gaussian', bandwidth: 50, query: 2, xs, ys, weights: [0.25, 0.25, 0.25, 0.25], grid: g, curve });
  expect(all.lead).toMatch(/: about 4\.0 of the 4 points carry the weight at x = 2\.00/);
  const dotOne = describeState({ kernel: 'dot', bandwidth: 0.05, query: 2, xs, ys, weights: [0, 0, 0, 1], grid: g, curve: [0, 1, 2, 3] });
  expect(dotOne.rest).not.toMatch(/one point share /);
});
