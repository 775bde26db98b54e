// Cost widget logic: the sequence lengths to time and the cost model of one multi-head attention
// forward, O(T²·D + T·D²): QKᵀ and A·V are 2·T²·D flops each, the four projections 2·T·D² each.

/** T = 16, 32, … up to maxT (powers of two). */
export function lengths(maxT, minT = 16) {
  const out = [];
  for (let t = minT; t <= maxT; t *= 2) out.push(t);
  return out;
}

/** Multiply–add count of one multi-head attention forward (x·W_Q/K/V, QKᵀ, A·V, ·W_O), as flops. */
export function attentionFlops(T, D) {
  return 4 * T * T * D + 8 * T * D * D;
}
