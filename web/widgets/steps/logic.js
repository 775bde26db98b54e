// The step-by-step widget's own logic: presets, resizing edited matrices, and turning the mask
// controls into the API's `mask` argument. No attention maths here (that is the core's).
// Resizing and the token limit are shared with the other widgets that take typed matrices and sentences.
export { resize } from '../shared/rng.js';
export { MAX_TOKENS, parseTokens } from '../shared/tokens.js';

/** The study notes' examples. W is [in, out]: Q = X·W_Q. */
export const PRESETS = {
  // "I / play / football": weights row 1 = 0.3233 0.3941 0.2826, output row 1 = 1.0137 0.2561.
  football: {
    tokens: ['I', 'play', 'football'], dIn: 3, dk: 2,
    x: [0.2, 0.4, 0.6, 0.8, 0.3, 0.3, 0.1, 0.2, 0.5],
    wq: [1, 0, 0, 1, 1, -1], wk: [0.5, -0.5, 1, 0, 0, 1], wv: [1, 1, 0.5, -0.5, 1, 0],
  },
  // "the / cat / sat", head 1 of the two-head example (d_model 4, d_k 2).
  'cat-sat': {
    tokens: ['the', 'cat', 'sat'], dIn: 4, dk: 2,
    x: [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0],
    wq: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], wk: [0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1],
    wv: [0.1, 0.1, 0.2, 0.2, 0.3, 0.3, 0.4, 0.4],
  },
};

export const MAX_DIM = 8;


/**
 * The API mask for the controls: 'none', 'causal', { window }, or an additive Float32Array [t·t]
 * for 'padding' (the last `padding` tokens are padding: no query may attend to them) and 'custom'
 * (keep[i·t + j] = 1 keeps key j for query i).
 */
export function maskArgument(kind, t, { window = 1, padding = 0, keep = null } = {}) {
  if (kind === 'causal') return 'causal';
  if (kind === 'window') return { window };
  if (kind === 'padding') {
    const m = new Float32Array(t * t);
    for (let i = 0; i < t; i++) for (let j = Math.max(0, t - padding); j < t; j++) m[i * t + j] = -Infinity;
    return m;
  }
  if (kind === 'custom') {
    const m = new Float32Array(t * t);
    for (let i = 0; i < t * t; i++) if (keep && keep[i] === 0) m[i] = -Infinity;
    return m;
  }
  return 'none';
}

/** Keep-flags (1 kept, 0 masked) read off the masked scores the core returned. */
export function keepFromScaled(scaled) {
  return Array.from(scaled, (s) => (s === -Infinity ? 0 : 1));
}

/**
 * One colour range for maps that are compared (the scores and the scaled scores): m = the largest
 * finite |value| over all of them, so each is drawn on [−m, m] and ÷√d_k visibly pales the colours.
 * Masked (−∞) entries do not count; all zero (or nothing finite): 1.
 */
export function sharedRange(...maps) {
  let m = 0;
  for (const values of maps) for (const v of values) if (Number.isFinite(v) && Math.abs(v) > m) m = Math.abs(v);
  return m || 1;
}

/** True when M hides nothing (no −∞ in the masked scores): the slide says so instead of drawing a block of zeros. */
export const maskIsEmpty = (scaled) => !Array.from(scaled).some((s) => s === -Infinity);
