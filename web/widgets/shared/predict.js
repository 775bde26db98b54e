// Predict, then reveal: what the stepping widgets share for their `predict` stage.
//
// A widget with `predict` set inserts one stage, "predict", before the stage that shows a result:
// there the inputs are drawn and the result is hidden while the viewer commits to a guess; the next
// stage draws the computed result beside the guess with how far off it was. Decks step it like any
// other stage (the stage numbers after the insertion move up by one).
//
// This file holds the pure parts (stage arithmetic, distances: tested in Node beside it, in
// shared.test.js's sibling predict.test.js) and the few Lit pieces every predict stage draws (a
// row of sliders, a choice of tokens, a number slider, the reveal line), so that the five widgets
// look and behave alike: keyboard-operable native controls, each with its own accessible name, at
// least 24 × 24 CSS px, the reveal announced in a polite live region.
import { html, css, nothing } from 'lit';
import { fmt } from './format.js';

/**
 * The stage arithmetic of a widget whose own stages are `names` when a "predict" stage is inserted at
 * index `at` (the guess is made before stage `at` of the widget's own stages is shown).
 */
export class PredictStages {
  constructor(names, at) {
    if (!(Number.isInteger(at) && at >= 0 && at <= names.length)) throw new Error(`PredictStages: at ${at} is not a stage index`);
    this.ownNames = [...names];
    this.at = at;
    this.names = [...names.slice(0, at), 'predict', ...names.slice(at)];
  }

  /** The last stage index with the predict stage inserted. */
  get last() { return this.names.length - 1; }

  /** 'before' (the inputs are still being built), 'guess' (result hidden) or 'reveal' (result beside the guess). null stage = all = reveal. */
  phase(stage) {
    if (stage === null || stage === undefined) return 'reveal';
    const s = Math.max(0, Math.min(this.last, stage));
    return s < this.at ? 'before' : s === this.at ? 'guess' : 'reveal';
  }

  /**
   * The widget's own stage to draw at `stage`: the same before the predict stage, the stage before
   * the result while guessing (the inputs of the result; -1 when the result is the first stage),
   * one lower after it. null stays null (everything).
   */
  own(stage) {
    if (stage === null || stage === undefined) return null;
    const s = Math.max(0, Math.min(this.last, stage));
    return s < this.at ? s : s === this.at ? this.at - 1 : s - 1;
  }

  /** The stage with the predict stage inserted that shows the widget's own stage `s` (null: null). */
  fromOwn(s) {
    if (s === null || s === undefined) return null;
    return s < this.at ? s : s + 1;
  }
}

/** Slider positions (≥ 0, any scale) as a probability row; all zero → uniform. */
export function normalise(values) {
  const v = Array.from(values, (x) => (Number.isFinite(x) && x > 0 ? x : 0));
  const sum = v.reduce((a, b) => a + b, 0);
  return sum > 0 ? v.map((x) => x / sum) : v.map(() => 1 / v.length);
}

/** Total-variation distance between two probability rows: ½ Σ |p_j − q_j|, in [0, 1]. */
export function totalVariation(p, q) {
  if (p.length !== q.length) throw new Error(`totalVariation: rows of ${p.length} and ${q.length} values`);
  let s = 0;
  for (let j = 0; j < p.length; j++) s += Math.abs(p[j] - q[j]);
  return s / 2;
}

/** Index of the largest value (the first on ties); -1 for an empty row. */
export function argmax(row) {
  let best = -1;
  for (let j = 0; j < row.length; j++) if (best < 0 || row[j] > row[best]) best = j;
  return best;
}

/** A verdict in words for a distance d on a scale where `close` and `far` are the thresholds. */
export function verdict(d, close, far) {
  return d <= close ? 'close' : d <= far ? 'partly right' : 'far off';
}

/**
 * A guessed number against the computed one: the absolute error, the error as a share of `span`
 * (the quantity's visible range, so "how far off" reads the same at any scale), and a verdict
 * (within 5 % of the span "close", within 15 % "partly right").
 */
export function revealNumber(guess, actual, span) {
  const error = Math.abs(guess - actual), share = span > 0 ? error / span : 0;
  return { guess, actual, error, share, verdict: verdict(share, 0.05, 0.15) };
}

export const predictStyles = css`
  .predict { display: flex; flex-direction: column; gap: 6px; }
  .predict .ask { margin: 0; font-size: 18px; font-weight: 600; }
  .predict .guess-rows { display: grid; grid-template-columns: max-content minmax(120px, 1fr) 4.2em; gap: 2px 10px; align-items: center; }
  .predict .guess-rows .key, .predict .guess-rows output { font-size: 18px; }
  .predict input[type='range'] { min-height: 28px; min-width: 120px; margin: 0; accent-color: #8250df; }
  .predict output { font-variant-numeric: tabular-nums; }
  .predict .choices { display: flex; flex-wrap: wrap; gap: 6px 10px; align-items: center; font-size: 18px; }
  .predict .choices button { min-height: 32px; min-width: 32px; font-size: 18px; padding: 2px 12px; border-radius: 6px; }
  .predict .choices button[aria-pressed='true'] { background: #8250df; border-color: #8250df; color: #fff; font-weight: 600; }
  .predict .actions { display: flex; flex-wrap: wrap; gap: 8px; }
  .predict .actions button { min-height: 32px; font-size: 16px; padding: 2px 12px; }
  .predict table.compare { align-self: flex-start; border-collapse: collapse; font-size: 18px; font-variant-numeric: tabular-nums; }
  .predict table.compare th, .predict table.compare td { padding: 2px 10px; text-align: right; border-bottom: 1px solid #d0d7de; }
  .predict table.compare th[scope='row'] { text-align: left; font-weight: 600; }
  .predict table.compare tr.yours td { color: #8250df; font-weight: 600; }
  .predict table.compare td { white-space: nowrap; }
  input.predict-toggle { margin: 0 4px 0 0; }  /* 24 × 24 px as every checkbox (styles.js) */
  .predict .verdict { margin: 0; font-size: 18px; }
  .predict .verdict strong { font-size: 20px; }
  .predict .badge { display: inline-block; padding: 0 8px; border-radius: 999px; background: #fbefff; color: #6639ba; font-weight: 600; font-size: 16px; }
`;

/**
 * A row of sliders, one per key: the viewer drags (or moves with the arrow keys) how much weight each
 * key gets; the row is shown normalised beside them. `values` are raw slider positions 0 … 100.
 */
export function guessRow({ keys, values, query, onInput }) {
  const p = normalise(values);
  return html`<div class="guess-rows" role="group" aria-label=${`predicted attention weights of “${query}”`}>${keys.map((k, j) => html`
    <span class="key" aria-hidden="true">${k}</span>
    <input type="range" class="guess-weight" min="0" max="100" step="1" .value=${String(values[j])}
      aria-label=${`predicted weight of key “${k}” for query “${query}”`} aria-valuetext=${`${k}: ${fmt(p[j], 2)}`}
      @input=${(e) => onInput(j, Number(e.target.value))}>
    <output class="guess-p" aria-hidden="true">${fmt(p[j], 2)}</output>`)}</div>`;
}

/** Toggle buttons, one per choice; `value` is the chosen index (-1: none yet). */
export function guessChoice({ label, ariaLabel = label, choices, value, onPick, cls = 'guess-choice' }) {
  return html`<div class="choices" role="group" aria-label=${ariaLabel}><span aria-hidden="true">${label}</span>${choices.map((c, j) => html`
    <button type="button" class=${cls} aria-pressed=${String(j === value)} @click=${() => onPick(j)}>${c}</button>`)}</div>`;
}

/** One number guessed on a slider (min … max, step), its value printed beside it. */
export function guessNumber({ label, value, min, max, step, digits = 2, onInput, cls = 'guess-number' }) {
  return html`<div class="guess-rows"><span class="key" aria-hidden="true">${label}</span>
    <input type="range" class=${cls} min=${min} max=${max} step=${step} .value=${String(value)}
      aria-label=${label} aria-valuetext=${fmt(value, digits)} @input=${(e) => onInput(Number(e.target.value))}>
    <output class="guess-value" aria-hidden="true">${fmt(value, digits)}</output></div>`;
}

/** The reveal's one-line verdict, announced politely to screen readers. */
export function revealLine(text, detail = '') {
  return html`<p class="verdict" role="status" aria-live="polite">${text}${detail ? html` <span class="detail">${detail}</span>` : nothing}</p>`;
}
