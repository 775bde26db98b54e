// Why-scale widget logic: the random queries and keys (seeded per d_k, so a link reproduces them).
import { gaussian, mulberry32 } from '../shared/rng.js';

/** n queries and n keys [n·d] with independent N(0, 1) entries. */
export function sampleQK(seed, d, n) {
  const g = gaussian(mulberry32(seed * 7919 + d));
  // A plain loop (Float32Array.from with a map function is several times slower): the same numbers.
  const fill = (a) => { for (let i = 0; i < a.length; i++) a[i] = g(); return a; };
  const q = fill(new Float32Array(n * d));
  return { q, k: fill(new Float32Array(n * d)) };
}

/** d_k = 1, 2, 4, … 2^maxPow. */
export const dkList = (maxPow) => Array.from({ length: maxPow + 1 }, (_, i) => 2 ** i);
