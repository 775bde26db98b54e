// Axis ticks at round numbers (1, 2, 5 × 10^k), or on a log axis at powers of ten — with 1–3 or
// 1–2–5 steps inside a decade when the axis spans too few decades to show two powers.
// lo/hi are in axis units (log10 of the value on a log axis); returns tick values (not logged).
export function niceTicks(lo, hi, count = 5, log = false) {
  if (!(hi > lo)) return [];
  if (log) return logTicks(lo, hi, count);
  const raw = (hi - lo) / count, mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((f) => f * mag).find((s) => s >= raw) ?? 10 * mag;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : Number(v.toPrecision(12)));
  return out;
}

// Candidates from sparse to dense: every s-th power of ten (s large enough for `count`), every power,
// then 1 and 3, 1–2–5, 1–9 within each decade. The densest with at most `count` ticks wins if it has
// two or more; else the sparsest with two or more (an axis of less than a decade); else round numbers
// on the values themselves (an axis spanning a factor below ~1.1).
function logTicks(lo, hi, count) {
  const e0 = Math.floor(lo + 1e-9), e1 = Math.ceil(hi - 1e-9);
  const inside = (v) => { const l = Math.log10(v); return l >= lo - 1e-9 && l <= hi + 1e-9; };
  const within = (mantissas) => {
    const out = [];
    for (let e = e0; e <= e1; e++) for (const m of mantissas) { const v = Number((m * 10 ** e).toPrecision(12)); if (inside(v)) out.push(v); }
    return out;
  };
  const powers = within([1]), cands = [];
  for (let s = Math.ceil(powers.length / Math.max(1, count)); s > 1; s--) {
    const first = Math.ceil(Math.log10(powers[0]) / s) * s;  // multiples of s (10⁰, 10³, 10⁶ …): stable as the range moves
    cands.push(powers.filter((v) => (Math.round(Math.log10(v)) - first) % s === 0));
  }
  cands.push(powers, within([1, 3]), within([1, 2, 5]), within([1, 2, 3, 4, 5, 6, 7, 8, 9]));
  const fits = cands.filter((c) => c.length >= 2 && c.length <= Math.max(2, count));
  if (fits.length) return fits[fits.length - 1];
  const some = cands.find((c) => c.length >= 2);
  if (some) return some;
  return niceTicks(10 ** lo, 10 ** hi, count).filter((v) => v > 0);
}

/**
 * A horizontal colour bar's three labels (its min, middle and max, drawn start-, middle- and end-
 * anchored) that fit under a bar `width` px long at `font` px (a digit ~0.64 em, as in DejaVu Sans,
 * '.' and '-' about half that; 0.4 em between neighbours): as they are; else with trailing zeros
 * dropped ("-1.00 0.00 1.00" → "-1 0 1", the same numbers); else the ends only (middle null). Two
 * narrow maps side by side on a slide had their labels run together ("-1.000.001.00").
 */
export function barLabels([lo, mid, hi], width, font) {
  const w = (t) => { let em = 0; for (const c of t) em += c === '.' ? 0.32 : c === '-' ? 0.36 : 0.64; return em * font; };
  const gap = 0.4 * font;
  const fits = (a, m, b) => width / 2 >= Math.max(w(a), w(b)) + w(m) / 2 + gap;
  if (fits(lo, mid, hi)) return [lo, mid, hi];
  const trim = (t) => (/^-?\d+\.\d*0$/.test(t) ? t.replace(/\.?0+$/, '') : t);
  const [a, m, b] = [lo, mid, hi].map(trim);
  return fits(a, m, b) ? [a, m, b] : [a, null, b];
}
