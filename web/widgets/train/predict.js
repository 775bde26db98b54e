// <attn-train>'s predict stage: guess the loss after an ablation. The trained model is shown (stage 3,
// the induction head), the heads to switch off are named (ablate, or a click on a map) and the held-out
// sequence's loss with every head is given; the viewer slides a guess for the loss without those heads.
// The next stage reveals the loss the core computes with the head mask (inspect's tokenLosses, their
// mean: the sequence's loss) beside the guess, with how far off it was. Pure functions.
import { PredictStages, revealNumber } from '../shared/predict.js';

/**
 * The widget's own stages with "predict" inserted before the ablation's result: 0–3 the training stages
 * as before, 4 predict (the trained model, the loss without the heads hidden), 5 the result.
 */
export const PREDICT = new PredictStages(['untrained', 'loss falls', 'previous-token head', 'induction head', 'ablated'], 4);

/** The guess slider's range (nats) and step: wide enough for a zeroed head's loss past a uniform guess. */
export const GUESS_RANGE = Object.freeze([0, 8]);
export const GUESS_STEP = 0.05;

/** The guess kept in the range on the slider's grid; absent: the loss with every head (where the viewer starts). */
export function fitGuess(guess, start) {
  const [lo, hi] = GUESS_RANGE, g = Number.isFinite(guess) ? guess : Number.isFinite(start) ? start : (lo + hi) / 2;
  return Math.max(lo, Math.min(hi, Math.round(g / GUESS_STEP) * GUESS_STEP));
}

/**
 * The reveal: the guessed loss against the core's loss without the heads (`actual`), off by
 * |guess − actual|, as a share of the slider's range.
 */
export function revealLoss({ guess, start, actual }) {
  return revealNumber(fitGuess(guess, start), actual, GUESS_RANGE[1] - GUESS_RANGE[0]);
}

/** A uniform guess's loss over the tokens that can come next: ln of their number. */
export const uniformLoss = (n) => (n > 0 ? Math.log(n) : NaN);
