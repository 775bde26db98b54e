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
