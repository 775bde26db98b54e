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
