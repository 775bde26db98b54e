// Kernel-regression widget logic: the data set. The deck's example kept three of its points,
// (1.36, 1.79), (3.40, −1.77) and (6.05, −2.17); the rest are seeded noisy samples of a smooth curve.
import { gaussian, mulberry32 } from '../shared/rng.js';

export const DECK_POINTS = [[1.36, 1.79], [3.4, -1.77], [6.05, -2.17]];
export const X_RANGE = [0, 7];

/** n points (x_i, y_i) sorted by x: the deck's three, then seeded samples of 2·sin(1.3x + 0.4) + noise. */
export function dataset(n, seed) {
  const u = mulberry32(seed), g = gaussian(mulberry32(seed + 1));
  const pts = DECK_POINTS.slice(0, Math.min(n, 3)).map((p) => [...p]);
  while (pts.length < n) {
    const x = X_RANGE[0] + (X_RANGE[1] - X_RANGE[0]) * u();
    pts.push([Math.round(x * 100) / 100, Math.round((2 * Math.sin(1.3 * x + 0.4) + 0.35 * g()) * 100) / 100]);
  }
  return pts.sort((a, b) => a[0] - b[0]);
}

/** m evenly spaced query points over the x range. */
export function grid(m) {
  return Float32Array.from({ length: m }, (_, i) => X_RANGE[0] + ((X_RANGE[1] - X_RANGE[0]) * i) / (m - 1));
}

/** 1 / Σ αᵢ²: how many points effectively share the weight (1: one point, n: all alike). */
export function effectivePoints(weights) {
  let s = 0;
  for (const w of weights) s += w * w;
  return s > 0 ? 1 / s : 0;
}

/**
 * The x from which the curve stays within `tol` (a fraction of the y range) of its last value, or
 * null when it does not settle: where the dot-product kernel's curve goes flat.
 */
export function flatFrom(grid, curve, ys, tol = 0.03) {
  const range = Math.max(...ys) - Math.min(...ys) || 1, last = curve[curve.length - 1];
  let i = curve.length - 1;
  while (i > 0 && Math.abs(curve[i - 1] - last) <= tol * range) i--;
  return i < curve.length - 1 - 4 ? grid[i] : null;
}

/**
 * What the curve and the query's weights show, in words, for the state they were computed in
 * (kernel, bandwidth): the weights (from the core) say how many points are averaged and which one
 * leads. Returns { lead, rest } (two sentences).
 */
export function describeState({ kernel, bandwidth, query, xs, ys, weights, grid: g, curve }) {
  const n = xs.length, neff = effectivePoints(weights);
  let top = 0;
  for (let i = 1; i < n; i++) if (weights[i] > weights[top]) top = i;
  let nearest = 0;
  for (let i = 1; i < n; i++) if (Math.abs(xs[i] - query) < Math.abs(xs[nearest] - query)) nearest = i;
  const f = (v, d = 2) => Number(v).toFixed(d).replace('-', '−');
  const pct = `${Math.round(weights[top] * 100)} %`;
  const one = neff < 1.5;
  const many = one ? 'one point' : `about ${f(neff, neff < 10 ? 1 : 0)} of the ${n} points`;
  const [carry, share] = one ? ['carries', 'takes'] : ['carry', 'share'];  // "one point carries", "about 3 points carry"
  if (kernel === 'dot') {
    const flat = flatFrom(g, curve, ys);
    const lead = `Dot-product kernel: the score x·xᵢ/h grows with xᵢ (for x > 0), so the weight goes to the largest xᵢ, not the nearest — here xᵢ = ${f(xs[top])} takes ${pct}.`;
    if (neff > 0.6 * n) return { lead, rest: `With h = ${f(bandwidth, 3)} the scores barely differ: ${many} ${share} the weight, ŷ is near the mean of the yᵢ (a flat curve).` };
    return { lead, rest: flat !== null ? `With h = ${f(bandwidth, 3)} the curve goes flat at y ≈ ${f(curve[curve.length - 1])} for x ≳ ${f(flat, 1)}: no wiggles, whatever the bandwidth.`
      : `With h = ${f(bandwidth, 3)} ${many} ${share} the weight.` };
  }
  const lead = `Gaussian kernel, h = ${f(bandwidth, 3)}: ${many} ${carry} the weight at x = ${f(query)}${top === nearest ? ', led by the nearest' : ''}.`;
  if (neff < 2.5) return { lead, rest: 'A small bandwidth trusts only the nearest points: the curve follows them (wiggly).' };
  if (neff > 0.6 * n) return { lead, rest: 'A large bandwidth averages almost everything: the curve is close to the mean of the yᵢ (flat).' };
  return { lead, rest: 'A moderate bandwidth: a local average over nearby points (a smooth curve).' };
}
