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

/**
 * n values uniform in [lo, hi), rounded to `digits` decimals (editable, readable matrices): the numbers
 * of mulberry32(seed), one per entry. One loop with mulberry32's step written out: a widget's first
 * draw runs this cold, in V8's interpreter, where Array.from({ length: n }, fn) read each index of the
 * array-like and made two closure calls per entry, and stored each entry as a boxed number.
 */
export function uniformMatrix(seed, n, lo = -1, hi = 1, digits = 1) {
  let a = seed >>> 0;
  const p = 10 ** digits, out = [];
  const length = Math.max(Math.trunc(+n) || 0, 0);  // Array.from's ToLength, and its error past 2^32 - 1
  if (length > 0xffffffff) throw new RangeError('Invalid array length');
  const imul = Math.imul, round = Math.round;
  for (let i = 0; i < length; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    out[i] = round((lo + (hi - lo) * (((t ^ (t >>> 14)) >>> 0) / 4294967296)) * p) / p;
  }
  return out;
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
