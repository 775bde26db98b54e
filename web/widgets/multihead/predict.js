// <attn-multihead>'s predict stage: before the per-head weights, the viewer picks, for each head, the
// token one query will attend to most; the next stage shows each head's computed weights beside the
// picks, with how far off each pick was (the weight the top key gets minus the weight of the pick).
// Pure functions; the weights come from the widget's lab.multiHeadAttention call.
import { PredictStages, argmax } from '../shared/predict.js';

/** The widget's own stages (long names for the page, short ones for the slide strip). */
export const STAGES = ['inputs', 'per-head Q, K, V', 'per-head weights', 'concat', 'output'];
export const SHORT_STAGES = ['inputs', 'Q, K, V', 'weights', 'concat', 'output'];

/** The predict stage goes before the weights: the per-head Q, K, V are the inputs shown. */
export const PREDICT = new PredictStages(STAGES, 2);
export const PREDICT_SHORT = new PredictStages(SHORT_STAGES, 2);

/** One pick per head, each a key index in [0, t) or -1 (not picked yet). */
export function fitPicks(picks, heads, t) {
  return Array.from({ length: heads }, (_, h) => {
    const p = Array.isArray(picks) ? picks[h] : undefined;
    return Number.isInteger(p) && p >= 0 && p < t ? p : -1;
  });
}

/**
 * The reveal for query `row`: per head the top key of its computed row, the pick, their weights and
 * the gap (weight of the top key − weight of the pick; 0 when the pick is the top key, the top key's
 * weight when nothing was picked), and how many heads were picked right.
 */
export function revealPicks({ picks, weights, heads, t, row }) {
  const per = Array.from({ length: heads }, (_, h) => {
    const a = Array.from(weights.slice(h * t * t + row * t, h * t * t + (row + 1) * t));
    const top = argmax(a), pick = fitPicks(picks, heads, t)[h];
    const pickWeight = pick < 0 ? 0 : a[pick];
    return { row: a, top, pick, topWeight: a[top], pickWeight, gap: a[top] - pickWeight, right: pick >= 0 && a[pick] === a[top] };
  });
  return { heads: per, right: per.filter((p) => p.right).length };
}
