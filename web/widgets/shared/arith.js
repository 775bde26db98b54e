// Readouts that show a cell's arithmetic (linked highlighting): the operands as the core returned
// them, printed with at most 4 decimals (trailing zeros dropped: 0.8, not 0.8000), negative ones in
// parentheses, so "0.8·0.5 + (−0.2)·0.5" reads like the notes. Results are printed by the caller
// with fmt(x, 4), like every other number.
import { fmt } from './format.js';

/** One operand: ≤ 4 decimals without trailing zeros, a real minus sign, parentheses when negative. */
export function operand(x) {
  if (x === -Infinity) return '(−∞)';
  let s = fmt(x, 4);
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  if (s === '-0') s = '0';
  return s.startsWith('-') ? `(−${s.slice(1)})` : s;
}

/** a₀·b₀ + a₁·b₁ + … (the terms of a dot product). */
export function dotTerms(a, b) {
  return Array.from(a, (x, i) => `${operand(x)}·${operand(b[i])}`).join(' + ');
}
