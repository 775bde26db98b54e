// A small seeded random number generator, so "randomise (seed 7)" gives the same matrices for every
// student in the room. mulberry32: 32-bit state, good enough for teaching, not for cryptography.

/** Returns a function giving uniform numbers in [0, 1), determined by the integer seed. */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal samples (Box–Muller) from a uniform generator. */
export function gaussian(uniform) {
  let spare = null;
  return () => {
    if (spare !== null) { const s = spare; spare = null; return s; }
    let u = 0;
    while (u === 0) u = uniform();
    const r = Math.sqrt(-2 * Math.log(u)), th = 2 * Math.PI * uniform();
    spare = r * Math.sin(th);
    return r * Math.cos(th);
  };
}

/** n values uniform in [lo, hi), rounded to `digits` decimals (editable, readable matrices). */
export function uniformMatrix(seed, n, lo = -1, hi = 1, digits = 1) {
  const u = mulberry32(seed), p = 10 ** digits;
  return Array.from({ length: n }, () => Math.round((lo + (hi - lo) * u()) * p) / p);
}

/**
 * A [rows·cols] matrix resized to [newRows·newCols]: the overlapping block is kept, new entries are
 * seeded random values in [−1, 1) (so a resize is reproducible).
 */
export function resize(values, rows, cols, newRows, newCols, seed) {
  const fresh = uniformMatrix(seed, newRows * newCols);
  for (let i = 0; i < Math.min(rows, newRows); i++)
    for (let j = 0; j < Math.min(cols, newCols); j++) fresh[i * newCols + j] = values[i * cols + j];
  return fresh;
}
