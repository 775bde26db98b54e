// How numbers are printed in every widget: fixed decimals (no "-0.0000"), −∞ for masked entries.
export function fmt(x, digits = 4) {
  if (x === -Infinity) return '−∞';
  if (x === Infinity) return '∞';
  if (Number.isNaN(x)) return 'NaN';
  const s = x.toFixed(digits);
  return s.startsWith('-') ? (Number(s) === 0 ? s.slice(1) : s) : s;
}
