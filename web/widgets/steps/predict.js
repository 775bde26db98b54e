// <attn-steps>'s predict stage: before the softmax, the viewer drags a predicted attention row for
// one query (sliders over its keys); the next stage shows the computed row beside it and how far
// off it was (total-variation distance). Pure functions: the weights come from the core (the
// widget's lab.attention call), nothing here computes attention.
import { PredictStages, argmax, normalise, totalVariation, verdict } from '../shared/predict.js';

/** The widget's own stages (attn-steps.js draws them). */
export const STAGES = ['inputs', 'Q, K, V', 'scores', 'scaled', 'masked', 'softmax', 'output'];

/** The predict stage goes before the softmax: the scaled, masked scores are the inputs shown. */
export const PREDICT = new PredictStages(STAGES, 5);

/** TVD thresholds for the verdict: within 0.1 "close", within 0.3 "partly right". */
export const CLOSE = 0.1, FAR = 0.3;

/** The guess as `t` slider positions (0 … 100): the given ones kept, new keys at 50 (a uniform row to start from). */
export function fitGuess(guess, t) {
  return Array.from({ length: t }, (_, j) => (Array.isArray(guess) && Number.isFinite(guess[j]) ? Math.max(0, Math.min(100, guess[j])) : 50));
}

/** The query row the viewer predicts, kept inside the sequence. */
export const fitRow = (row, t) => Math.max(0, Math.min(t - 1, Number.isInteger(row) ? row : 0));

/**
 * The reveal: the guessed row (normalised), the computed row of `weights` [t·t] (from the core), the
 * total-variation distance between them, the key each puts most weight on (`tied`: the guess has
 * several), and a verdict.
 */
export function revealRow({ guess, weights, row, t }) {
  const computed = Array.from(weights.slice(row * t, (row + 1) * t));
  const p = normalise(fitGuess(guess, t));
  const tvd = totalVariation(p, computed);
  const topGuess = argmax(p), tied = p.filter((x) => x === p[topGuess]).length > 1;
  return { guess: p, computed, tvd, top: argmax(computed), topGuess, tied, verdict: verdict(tvd, CLOSE, FAR) };
}
