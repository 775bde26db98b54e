// Shared by the Vitest suites: golden files, float comparison, and one module instance per file.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';

// Float32 results must match the references within 1e-4 relative (with a 1e-6 floor near zero).
export const REL_TOL = 1e-4;
export const ABS_FLOOR = 1e-6;

// -Infinity is stored as the string "-Infinity" in the JSON goldens.
const revive = (_k, v) => (v === '-Infinity' ? -Infinity : v);

export function golden(name) {
  return JSON.parse(readFileSync(new URL(`../golden/${name}.json`, import.meta.url), 'utf8'), revive);
}

export function maskArg(m) {
  if (m && typeof m === 'object' && 'additive' in m) return Float32Array.from(m.additive);
  return m;
}

// Largest normalised difference |a − b| / max(|b|, ABS_FLOOR/REL_TOL); also checks lengths and
// that −∞ lines up with −∞.
export function expectClose(actual, expected, what = '') {
  expect(actual.length, `${what}: length`).toBe(expected.length);
  let worst = 0, at = -1;
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i], b = expected[i];
    if (b === -Infinity || a === -Infinity) {
      expect(a, `${what}[${i}]`).toBe(b);
      continue;
    }
    expect(Number.isFinite(a), `${what}[${i}] = ${a} is not finite`).toBe(true);
    const err = Math.abs(a - b) / Math.max(Math.abs(b), ABS_FLOOR / REL_TOL);
    if (err > worst) { worst = err; at = i; }
  }
  expect(worst, `${what}: worst relative error at [${at}]: ${actual[at]} vs ${expected[at]}`).toBeLessThanOrEqual(REL_TOL);
  return worst;
}

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
