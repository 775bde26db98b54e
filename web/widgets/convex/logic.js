// Convex-combination widget logic: permuting tokens (rows of V, rows and columns of A).

/** A' = P·A·Pᵀ for the permutation perm (new token i is old token perm[i]); A is [t·t]. */
export function permuteSquare(a, perm) {
  const t = perm.length;
  return perm.flatMap((pi) => perm.map((pj) => a[pi * t + pj]));
}

/** V' = P·V: row i of the result is row perm[i] of v ([t·cols]). */
export function permuteRows(v, perm, cols) {
  return perm.flatMap((p) => Array.from({ length: cols }, (_, j) => v[p * cols + j]));
}

/** True when perm is a permutation of 0 … t−1. */
export function isPermutation(perm, t) {
  return Array.isArray(perm) && perm.length === t && [...perm].sort((a, b) => a - b).every((x, i) => x === i);
}
