// Colour maps readable on a projector and by colour-blind viewers.
//   viridis: sequential (weights, encodings ≥ 0), perceptually uniform, lightness rises monotonically.
//   diverging: blue – white – orange for signed values (blue/orange stays distinct under the common
//   red–green colour-vision deficiencies), white at 0.

// matplotlib's viridis sampled at 0, 0.1, …, 1.
const VIRIDIS = ['#440154', '#482475', '#414487', '#355f8d', '#2a788e', '#21918c', '#22a884', '#44bf70',
  '#7ad151', '#bddf26', '#fde725'];
// −1 … 0 … +1
const DIVERGING = ['#1f5f9e', '#5b93c8', '#a9c8e6', '#f7f7f7', '#fbc99a', '#f0904a', '#b9520c'];

const hexToRgb = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
const VIRIDIS_RGB = VIRIDIS.map(hexToRgb);
const DIVERGING_RGB = DIVERGING.map(hexToRgb);

function sample(stops, t) {
  if (!Number.isFinite(t)) t = 0;
  t = Math.min(1, Math.max(0, t));
  const x = t * (stops.length - 1), i = Math.min(stops.length - 2, Math.floor(x)), f = x - i;
  return stops[i].map((c, k) => Math.round(c + (stops[i + 1][k] - c) * f));
}

/** viridis at t ∈ [0, 1] as [r, g, b] (0–255). */
export const viridis = (t) => sample(VIRIDIS_RGB, t);
/** blue–white–orange at s ∈ [−1, 1] as [r, g, b]. */
export const diverging = (s) => sample(DIVERGING_RGB, (s + 1) / 2);

/** WCAG relative luminance of an [r, g, b] colour (0 black … 1 white). */
export function luminance([r, g, b]) {
  const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** WCAG contrast ratio of two luminances. */
const contrast = (a, b) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
const DARK_TEXT = 0;  // black

/** Near-black or white, whichever has the higher contrast on this background (≥ 4.5:1 on every map colour). */
export const textOn = (rgb) => {
  const l = luminance(rgb);
  return contrast(l, DARK_TEXT) >= contrast(l, 1) ? '#000' : '#fff';
};

export const css = ([r, g, b]) => `rgb(${r} ${g} ${b})`;

/**
 * A colour scale over values: 'sequential' maps [min, max] onto viridis, 'diverging' maps
 * [−m, m] (m = max |value|) onto blue–white–orange, 'auto' picks diverging when values have both signs.
 * `domain` [lo, hi] fixes the range instead of the values' own (attention weights are probabilities:
 * [0, 1], so a near-uniform row looks near-uniform); values outside it take the end colours.
 * Non-finite values (masked −∞) get a neutral grey.
 */
export function scaleFor(values, kind = 'auto', domain = null) {
  let min = Infinity, max = -Infinity;
  if (domain && Number.isFinite(domain[0]) && Number.isFinite(domain[1]) && domain[1] > domain[0]) [min, max] = domain;
  else for (const v of values) if (Number.isFinite(v)) { if (v < min) min = v; if (v > max) max = v; }
  if (min === Infinity) { min = 0; max = 1; }
  if (kind === 'auto') kind = min < 0 && max > 0 ? 'diverging' : 'sequential';
  const MASKED = [200, 200, 200];
  if (kind === 'diverging') {
    const m = Math.max(Math.abs(min), Math.abs(max)) || 1;
    return { kind, min: -m, max: m, color: (v) => (Number.isFinite(v) ? diverging(v / m) : MASKED) };
  }
  const span = max - min || 1;
  return { kind, min, max, color: (v) => (Number.isFinite(v) ? viridis((v - min) / span) : MASKED) };
}
