import { describe, expect, test } from 'vitest';
import { dotTerms, operand } from './arith.js';

describe('arith: operands of a readout', () => {
  test('at most 4 decimals, trailing zeros dropped, negatives in parentheses with a real minus', () => {
    expect(operand(Math.fround(0.8))).toBe('0.8');
    expect(operand(-0.2)).toBe('(−0.2)');
    expect(operand(1)).toBe('1');
    expect(operand(0.32329)).toBe('0.3233');
    expect(operand(-0.00001)).toBe('0');
    expect(operand(-Infinity)).toBe('(−∞)');
  });
  test('the terms of a dot product', () => {
    expect(dotTerms(Float32Array.of(0.8, -0.2), [0.5, 0.5])).toBe('0.8·0.5 + (−0.2)·0.5');
  });
});
