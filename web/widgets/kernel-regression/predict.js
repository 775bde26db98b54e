// <attn-kernel-regression>'s predict stage: the training pairs and the query x are shown, the curve,
// ŷ and the weights hidden; the viewer slides a guess for ŷ(x). Stage 1 reveals ŷ from the core
// (lab.kernelRegression) beside the guess, with how far off it was. Pure functions.
import { PredictStages, revealNumber } from '../shared/predict.js';

/** Stage 0 predict (the guess), stage 1 the result. */
export const PREDICT = new PredictStages(['result'], 0);

/** The slider's range for a guess: the training targets' range, padded by 10 %, on a 0.05 grid. */
export function guessRange(ys) {
  const lo = Math.min(...ys), hi = Math.max(...ys), pad = 0.1 * (hi - lo || 1);
  return [Math.floor((lo - pad) * 20) / 20, Math.ceil((hi + pad) * 20) / 20];
}

/** The guess kept inside the range; absent: the middle of it (no hint). */
export function fitGuess(guess, [lo, hi]) {
  return Number.isFinite(guess) ? Math.max(lo, Math.min(hi, guess)) : Math.round(((lo + hi) / 2) * 20) / 20;
}

/** The reveal: the guess against ŷ from the core, off by |guess − ŷ|, as a share of the targets' range. */
export function revealPrediction({ guess, yhat, ys }) {
  const range = guessRange(ys);
  return revealNumber(fitGuess(guess, range), yhat, Math.max(...ys) - Math.min(...ys));
}
