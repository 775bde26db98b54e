// Axis ticks at round numbers (1, 2, 5 × 10^k), or at powers of ten on a log axis.
// lo/hi are in axis units (log10 of the value on a log axis); returns tick values (not logged).
export function niceTicks(lo, hi, count = 5, log = false) {
  if (!(hi > lo)) return [];
  if (log) {
    const out = [];
    for (let e = Math.ceil(lo - 1e-9); e <= Math.floor(hi + 1e-9); e++) out.push(10 ** e);
    return out.length >= 2 ? out : [10 ** lo, 10 ** hi];
  }
  const raw = (hi - lo) / count, mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((f) => f * mag).find((s) => s >= raw) ?? 10 * mag;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : Number(v.toPrecision(12)));
  return out;
}
