// Shared by the Vitest suites: tolerances and the one float comparison, golden files, float64 references,
// seeded random inputs.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';

// ---- Tolerances: every float comparison in tests/unit is expectClose(actual, expected, what, tol) --
// Element by element |actual − expected| ≤ max(tol.abs, tol.rel·max(|expected|, tol.scale[i])); equal
// values (±Infinity included) always pass, a NaN or an infinity that is not matched always fails. Pick
// the preset that says why two numbers may differ; a new kind of comparison gets a new named preset here.
export const TOL = {
  // A float32 result against an independent float64 or PyTorch reference (goldens, formulas).
  ref: { rel: 1e-4, abs: 1e-6 },
  // Two float32 computations of the same O(1) value that differ only in rounding order (permuted keys,
  // Σ weights = 1, a rotation keeping lengths, one head vs the same head inside multi-head).
  reorder: { rel: 0, abs: 5e-7 },
  // The same, at any magnitude: a few float32 ulps (2^-23 ≈ 1.2e-7 each) relative to the value.
  ulps: { rel: 1e-6, abs: 0 },
  // Sums over ~10^5 float32 terms (a 100,000-key row): the rounding error grows with the count.
  long: { rel: 1e-3, abs: 1e-7 },
  // Denormal operands carry fewer significant bits; relative only (the values are ~1e-40).
  denormal: { rel: 1e-3, abs: 0 },
  // A whole float32 model (forward and backward, ~20 ops deep) against a float64 reference, per TENSOR
  // (expectCloseTensor): max|actual − expected| ≤ rel·max|expected|. A logit or gradient near 0 is a
  // sum of large terms that cancel and carries their absolute rounding error, so it is measured
  // against its tensor's scale, not its own (tests/cpp/tolerance.h kModel, the same number).
  model: { rel: 1e-4, abs: 0 },
  // Two float32 runs of a few training steps (the model and torch in float32), per tensor as `model`:
  // gradients agree to ~1e-6 and Adam's m̂/√v̂ barely moves with them (tolerance.h kTrainSteps).
  trainSteps: { rel: 1e-5, abs: 0 },
};
// A parameter whose exact gradient is 0 (b_K: softmax ignores a constant added to every key) gets
// float32 rounding noise, which Adam normalises: each step moves it by at most this × lr, not by a
// reproducible amount (tests/cpp/tolerance.h kAdamNoiseStep says where 1.01 comes from).
export const ADAM_NOISE_STEP = 1.01;

// -Infinity is stored as the string "-Infinity" in the JSON goldens.
const revive = (_k, v) => (v === '-Infinity' ? -Infinity : v);

export function golden(name) {
  return JSON.parse(readFileSync(new URL(`../golden/${name}.json`, import.meta.url), 'utf8'), revive);
}

export function maskArg(m) {
  if (m && typeof m === 'object' && 'additive' in m) return Float32Array.from(m.additive);
  return m;
}

// The one tolerance check (numbers or arrays); one expect for the worst element, so a 100,000-long row
// stays fast. Returns the worst error as a fraction of its bound.
export function expectClose(actual, expected, what = '', tol = TOL.ref) {
  const a = typeof actual === 'number' ? [actual] : actual, e = typeof expected === 'number' ? [expected] : expected;
  expect(a.length, `${what}: length`).toBe(e.length);
  const { rel = 0, abs = 0, scale } = tol;
  let worst = 0, at = -1;
  for (let i = 0; i < e.length; i++) {
    const x = a[i], y = e[i];
    let err;
    if (x === y) err = 0;
    else if (!Number.isFinite(x) || !Number.isFinite(y)) err = Infinity;
    else err = Math.abs(x - y) / Math.max(abs, rel * Math.max(Math.abs(y), scale ? scale[i] : 0));
    if (err > worst) { worst = err; at = i; }
  }
  expect(worst, `${what}: worst error at [${at}]: ${a[at]} vs ${e[at]}, ${worst.toPrecision(3)}× the tolerance`).toBeLessThanOrEqual(1);
  return worst;
}

// One tensor against its reference, relative to the tensor's own scale max|expected| (or `floor` when
// larger: a reference that is exactly 0 is measured against another scale). TOL.model, TOL.trainSteps.
export function expectCloseTensor(actual, expected, what, tol, floor = 0) {
  let scale = floor;
  for (let i = 0; i < expected.length; i++) scale = Math.max(scale, Math.abs(expected[i]));
  return expectClose(actual, expected, what, { ...tol, scale: new Float64Array(expected.length).fill(scale) });
}

// A sum of float32 terms is accurate relative to Σ|terms| (its condition), not to its own size: the
// residual x + MHA(x) of two O(1) values can be 0.003, where one float32 rounding of an operand is
// already 1e-7 absolute. So sums are compared within TOL.ref of scale[i] = Σ|terms| (absSum, absMatmul).
export const expectCloseScaled = (actual, expected, scale, what) => expectClose(actual, expected, what, { ...TOL.ref, scale });
export const absSum = (a, b) => Float64Array.from(a, (v, i) => Math.abs(v) + Math.abs(b[i]));
// Σ_k |x[i,k]|·|W[k,j]| + |b[j]|: the condition of y = x·W + b.
export function absMatmul(x, w, b, m, k, n) {
  const out = matmul(x.map(Math.abs), w.map(Math.abs), m, k, n);
  return Float64Array.from(out, (v, i) => v + (b ? Math.abs(b[i % n]) : 0));
}
export function transpose(a, rows, cols) {
  const t = new Array(a.length);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) t[j * rows + i] = a[i * cols + j];
  return t;
}

// softmax(scale·q·kᵀ + mask)·v in float64, rows whose keys are all masked → weights 0, output 0.
export function attentionF64({ q, k, v, tq, tk, dk, dv, mask, scale = 1 / Math.sqrt(dk) }) {
  const weights = new Float64Array(tq * tk), output = new Float64Array(tq * dv);
  for (let i = 0; i < tq; i++) {
    const s = new Float64Array(tk);
    let mx = -Infinity;
    for (let j = 0; j < tk; j++) {
      let dot = 0;
      for (let p = 0; p < dk; p++) dot += q[i * dk + p] * k[j * dk + p];
      s[j] = dot * scale + (mask ? mask[i * tk + j] : 0);
      mx = Math.max(mx, s[j]);
    }
    if (mx === -Infinity) continue;
    let sum = 0;
    for (let j = 0; j < tk; j++) sum += (s[j] = Math.exp(s[j] - mx));
    for (let j = 0; j < tk; j++) {
      weights[i * tk + j] = s[j] / sum;
      for (let c = 0; c < dv; c++) output[i * dv + c] += weights[i * tk + j] * v[j * dv + c];
    }
  }
  return { weights, output };
}

// A golden encoder/decoder case (tests/golden/blocks.json) → the block call's options.
export const encoderArgs = (c) => ({ x: c.x, t: c.t, dModel: c.dModel, heads: c.heads, dFF: c.dFF, norm: c.norm, activation: c.activation, mask: c.mask, eps: c.eps, weights: c.weights });
export const decoderArgs = (c) => ({ x: c.x, t: c.t, memory: c.memory, tm: c.tm, dModel: c.dModel, heads: c.heads, dFF: c.dFF, norm: c.norm, activation: c.activation, eps: c.eps, weights: c.weights });

// [rows·cols] plain arrays → Float32Array of A·B, computed in float64 (an independent reference).
export function matmul(a, b, m, k, n) {
  const c = new Float32Array(m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += a[i * k + p] * b[p * n + j];
      c[i * n + j] = s;
    }
  return c;
}

export function seededRandom(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32 * 2 - 1;
  };
}

export function randomArray(n, rand, scale = 1) {
  return Float32Array.from({ length: n }, () => rand() * scale);
}
