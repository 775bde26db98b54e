import { describe, expect, it } from 'vitest';
import { thousands } from './trained-view.js';

describe('thousands', () => {
  it('writes whole numbers as toLocaleString("en-US") does', () => {
    for (const n of [0, 7, 999, 1000, 4326, 12000, 99999, 100000, 1234567, -1, -1000, -987654, 2 ** 31]) {
      expect(thousands(n)).toBe(n.toLocaleString('en-US'));
    }
  });
});
