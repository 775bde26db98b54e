// Statistics over results the WASM core computed (entropy of a weights row, sample variance, a
// least-squares constant): reading the numbers, not re-implementing the attention maths.

/** Shannon entropy in nats of one probability row (0·log 0 = 0). */
export function entropy(p) {
  let h = 0;
  for (const x of p) if (x > 0) h -= x * Math.log(x);
  return h;
}

/** Entropy of each row of a [rows·cols] weights matrix. */
export function rowEntropies(w, rows, cols) {
  return Array.from({ length: rows }, (_, i) => entropy(w.subarray ? w.subarray(i * cols, (i + 1) * cols) : w.slice(i * cols, (i + 1) * cols)));
}

export function mean(xs) {
  let s = 0;
  for (const x of xs) s += x;
  return xs.length ? s / xs.length : NaN;
}

/** Unbiased sample variance. */
export function variance(xs) {
  const m = mean(xs);
  let s = 0;
  for (const x of xs) s += (x - m) ** 2;
  return xs.length > 1 ? s / (xs.length - 1) : NaN;
}

/** The c minimising Σ (y − c·x)²: fits y ≈ c·x (e.g. time ≈ c·(T²D + TD²)). */
export function fitProportional(xs, ys) {
  let sxy = 0, sxx = 0;
  for (let i = 0; i < xs.length; i++) { sxy += xs[i] * ys[i]; sxx += xs[i] * xs[i]; }
  return sxx > 0 ? sxy / sxx : NaN;
}

/**
 * The c minimising Σ ((y − c·x) / y)²: y ≈ c·x in relative error, so small and large y count alike
 * (timings spanning three decades).
 */
export function fitProportionalRelative(xs, ys) {
  let a = 0, b = 0;
  for (let i = 0; i < xs.length; i++) { a += xs[i] / ys[i]; b += (xs[i] / ys[i]) ** 2; }
  return b > 0 ? a / b : NaN;
}

/** Convex hull of 2-D points (Andrew's monotone chain), counter-clockwise, no repeated end point. */
export function convexHull(points) {
  const p = points.map((q, i) => [q[0], q[1], i]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (p.length < 3) return p.map((q) => [q[0], q[1]]);
  const cross = (o, a, b) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower = [], upper = [];
  for (const q of p) { while (lower.length >= 2 && cross(lower.at(-2), lower.at(-1), q) <= 0) lower.pop(); lower.push(q); }
  for (const q of p.slice().reverse()) { while (upper.length >= 2 && cross(upper.at(-2), upper.at(-1), q) <= 0) upper.pop(); upper.push(q); }
  return lower.slice(0, -1).concat(upper.slice(0, -1)).map((q) => [q[0], q[1]]);
}
