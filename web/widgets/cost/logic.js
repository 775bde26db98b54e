// Cost widget logic: the sequence lengths to time, the cost models of what is timed, and the lines a
// log–log plot of time against T is read with.
//   'attention' — the attention core softmax(QKᵀ/√d)·V of one head, Q, K, V of T × d: QKᵀ and A·V are
//                 2·T²·d flops each (4T²d), no projections (what the slide's O(t_x·t_y·d_k + t_x·t_y·d_v) counts);
//   'multihead' — one multi-head attention forward, O(T²·D + T·D²): the core (4T²D) plus the four
//                 projections x·W_Q/K/V and ·W_O, 2·T·D² each (8TD²).

import { padRange, plotInner } from '../shared/fit-boxes.js';

/** T = 16, 32, … up to maxT (powers of two). */
export function lengths(maxT, minT = 16) {
  const out = [];
  for (let t = minT; t <= maxT; t *= 2) out.push(t);
  return out;
}

/**
 * The log T axis of a plot `width` px wide at `fontSize`: from 16 to maxT, widened so that the end tick
 * labels are not cut, with ticks at the lengths timed (16, 32, 64 …; plot() keeps every 2nd … when
 * they do not fit).
 */
export function tAxis(maxT, width, fontSize) {
  const Ts = lengths(maxT), inner = plotInner(width, 100, fontSize).width;
  const half = (String(Ts[Ts.length - 1]).length * 0.62 * fontSize) / 2;
  const [lo, hi] = padRange(Math.log10(Ts[0]), Math.log10(Ts[Ts.length - 1]), inner, Math.max(6, half - 30), Math.max(6, half - 8));
  return { xDomain: [10 ** lo, 10 ** hi], xTicks: Ts };
}

/** Multiply–add count of one multi-head attention forward (x·W_Q/K/V, QKᵀ, A·V, ·W_O), as flops. */
export function attentionFlops(T, D) {
  return 4 * T * T * D + 8 * T * D * D;
}

/** Flops of the attention core alone (QKᵀ and A·V of one head, d columns): no projections. */
export function coreFlops(T, d) {
  return 4 * T * T * d;
}

/** The flop count of what `op` times. */
export const flopsOf = (op, T, d) => (op === 'attention' ? coreFlops(T, d) : attentionFlops(T, d));

/**
 * Reference slopes for a log–log plot: lines ∝ T^p (p = 1, 2) through the point (T, ms) of the largest
 * T, over every measured T — where the measured curve runs parallel to the T² line, time grows as T².
 * Returns [{ power, points: [[T, ms], …] }].
 */
export function referenceSlopes(results, powers = [1, 2]) {
  if (!results.length) return [];
  const last = results.reduce((a, r) => (r.T > a.T ? r : a));
  return powers.map((power) => ({ power, points: results.map((r) => [r.T, last.ms * (r.T / last.T) ** power]) }));
}

/** The slope of log(ms) against log(T) between the two largest T (2: quadratic). */
export function lastSlope(results) {
  if (results.length < 2) return NaN;
  const s = [...results].sort((a, b) => a.T - b.T), a = s[s.length - 2], b = s[s.length - 1];
  return Math.log(b.ms / a.ms) / Math.log(b.T / a.T);
}
