// Block widget logic: the seeded input and weights of the example block (inputs, not maths).
import { uniformMatrix } from '../shared/rng.js';

/** Input x [t·D] in [−1, 1). */
export const blockInput = (seed, t, D) => uniformMatrix(seed, t * D, -1, 1, 2);

/** Weights scaled like a freshly initialised layer: uniform in ±1/√fan-in. D = d_model, F = d_ff. */
export function blockWeights(seed, D, F) {
  const u = (k, n, fanIn) => uniformMatrix(seed + k, n, -1, 1, 3).map((x) => x / Math.sqrt(fanIn));
  return { wq: u(1, D * D, D), wk: u(2, D * D, D), wv: u(3, D * D, D), wo: u(4, D * D, D), w1: u(5, D * F, D), b1: u(6, F, D), w2: u(7, F * D, F), b2: u(8, D, F) };
}
