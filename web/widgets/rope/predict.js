// <attn-rope>'s logic: the predict stage of its "relative" view and the small sums the views label.
// RoPE's property: after rotating q by position i and k by position j, q·k depends on j − i only. The
// predict stage shows the score at one pair of positions and asks for the score at a pair shifted
// far along (past the trained length); the reveal shows the core's value beside the guess. Pure
// functions: every score comes from the widget's lab.rope + lab.attention calls.
import { PredictStages, revealNumber } from '../shared/predict.js';

/** Stage 0 predict (the guess), stage 1 the result. */
export const PREDICT = new PredictStages(['result'], 0);

/** The views, in the order the deck shows them: [value, tab name]. */
export const VIEWS = [['rotate', 'rotate q, k'], ['relative', 'q·k by position'], ['alibi', 'ALiBi biases'], ['extrapolate', 'longer than trained']];

/** |q|·|k|: no score can leave [−|q||k|, |q||k|] (Cauchy–Schwarz), rotated or not: the guess slider's range. */
export function scoreBound(q, k) {
  const n = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return n(q) * n(k);
}

/** The guess kept in [−bound, bound]; absent: 0 (no hint). */
export function fitGuess(guess, bound) {
  return Number.isFinite(guess) ? Math.max(-bound, Math.min(bound, guess)) : 0;
}

/** The reveal: the guess against the core's score at the shifted pair, as a share of the range 2·bound. */
export function revealScore({ guess, actual, bound }) {
  return revealNumber(fitGuess(guess, bound), actual, 2 * bound);
}

/** The score at (i, j) of a [n·n] score matrix. */
export const scoreAt = (scores, n, i, j) => scores[i * n + j];

/** Rotation angle of pair p at position m: m·base^(−2p/dim) (radians), as lab.rope applies it. */
export const angle = (m, p, dim, base) => m * base ** (-2 * p / dim);
