// How numbers are printed in every widget: fixed decimals (no "-0.0000"), −∞ for masked entries, and
// |x| ≥ 1e6 in exponent form with at most 2 decimals ("1.00e24", not 25 digits a cell or a colour bar cuts).
export const BIG = 1e6;
export function fmt(x, digits = 4) {
  if (x === -Infinity) return '−∞';
  if (x === Infinity) return '∞';
  if (Number.isNaN(x)) return 'NaN';
  if (Math.abs(x) >= BIG) return x.toExponential(Math.min(digits, 2)).replace('e+', 'e');
  const s = x.toFixed(digits);
  return s.startsWith('-') ? (Number(s) === 0 ? s.slice(1) : s) : s;
}
