import { expect, test } from 'vitest';
import { NOT_TRAINED, learnedReadout } from './logic.js';

test('the learned table past its trained length reads "not trained", never NaN', () => {
  const r = learnedReadout(16);
  expect(r(23, 15)).toBe('pos 23, dim 15: not trained (the table has rows 0–15)');
  expect(r(16, null)).toBe('pos 16: not trained (the table has rows 0–15)');
  expect(r(15, 3)).toBe('');  // a trained row: the map's own readout of its value
  expect(NOT_TRAINED).toBe('not trained');
});
