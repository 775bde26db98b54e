// <attn-steps>: scaled dot-product attention, one step at a time, on editable inputs.
//
// Attributes: preset ("football" | "cat-sat"), stage (0 inputs … 6 output; absent = all), mask
// ("none" | "causal" | "window" | "padding" | "custom"), window, padding, scale ("sqrt" | "none"),
// temperature, seed, predict (a "predict" stage before the softmax: stages 0 … 7), predict-row,
// weight-range ("fixed": weights coloured on [0, 1], default; "map": the map's own
// range), hash-key, and AttnWidget's layout / controls / fit-height.
// Page layout: every stage up to `stage`, one below the other, with editors. Slide layout: the stage
// strip, the current stage's formula, and the current stage's matrices (with the ones it is computed
// from, smaller) as large as the box allows.
// Properties: tokens, x, wq, wk, wv (flat row-major arrays), dIn, dk, keep (custom mask flags).
// Events: attn-state-change { state } after every edit.
// Every number shown comes from the WASM core: Q = X·W_Q through lab.weightedSum, the rest from
// lab.attention.
import { html, css, nothing } from 'lit';
import { guard } from 'lit/directives/guard.js';
import { AttnWidget, optionalInt } from '../shared/widget.js';
import { cellList } from '../shared/hash.js';
import { widgetStyles } from '../shared/styles.js';
import { project } from '../shared/lab.js';
import { rowEntropies } from '../shared/stats.js';
import { uniformMatrix } from '../shared/rng.js';
import { fmt } from '../shared/format.js';
import { MAX_DIM, MAX_TOKENS, PRESETS, keepFromScaled, maskArgument, maskIsEmpty, resize, sharedRange } from './logic.js';
import { packPanels } from '../shared/fit.js';
import { linkFrom, linkProps, readoutFor } from './link.js';
import '../shared/heatmap.js';
import '../shared/matrix-editor.js';
import { holdTypesetting } from '../shared/tex.js';
import { drawInParts, nextFrame } from '../shared/parts.js';
import { guessRow, predictStyles, revealLine } from '../shared/predict.js';
import { PREDICT, fitGuess, fitRow, revealRow } from './predict.js';

/**
 * The parts of a page's first draw (labReady): the last stage each draws. Part 0 the controls and the
 * inputs; Q_PART Q's map alone (the page's first numbers), the next K's and V's; then a stage per part;
 * the last part the softmax and the output (the weights and output maps always together).
 */
const PARTS = [0, 1, 1, 2, 3, 4, null];
const Q_PART = 1;

const STAGES = ['inputs', 'Q, K, V', 'scores', 'scaled', 'masked', 'softmax', 'output'];
/** The predict stage's formula: the softmax with its result asked for. */
const GUESS_FORMULA = 'A_{ij} = \\dfrac{\\exp(s_{ij})}{\\sum_{k} \\exp(s_{ik})} = \\;?';

// M holds two values, 0 (key visible: white) and −∞ (masked: grey): no colour bar, "0" and "−∞" in the cells.
const M_PANEL = { clickable: true, colormap: 'diverging', range: [-1, 1], legend: false, digits: 0 };

export class AttnSteps extends AttnWidget {
  static properties = {
    preset: { type: String, reflect: true },
    stage: { converter: optionalInt, reflect: true },
    mask: { type: String },
    window: { type: Number },
    padding: { type: Number },
    scale: { type: String },
    temperature: { type: Number },
    seed: { type: Number },
    weightRange: { type: String, attribute: 'weight-range' },
    _link: { state: true },
    /** The part of the page's first draw drawn so far (parts.js; null: all), see labReady and PARTS. */
    _drawPart: { state: true },
    tokens: { attribute: false },
    x: { attribute: false },
    wq: { attribute: false },
    wk: { attribute: false },
    wv: { attribute: false },
    dIn: { attribute: false },
    dk: { attribute: false },
    keep: { attribute: false },
    /** Predict, then reveal: a "predict" stage before the softmax (stages 0 … 7, see predict.js). */
    predict: { type: Boolean, reflect: true },
    /** The query whose row is predicted (0-based). */
    predictRow: { type: Number, attribute: 'predict-row' },
    /** The predicted row as slider positions 0 … 100 per key (normalised when shown). */
    guess: { attribute: false },
  };

  static stateSchema = {
    preset: { type: 'enum', values: ['football', 'cat-sat', 'custom'] },
    tokens: { type: 'strings', maxLength: MAX_TOKENS, maxChars: 16 },
    dIn: { type: 'int', min: 1, max: MAX_DIM },
    dk: { type: 'int', min: 1, max: MAX_DIM },
    x: cellList(MAX_TOKENS * MAX_DIM),
    wq: cellList(MAX_DIM * MAX_DIM),
    wk: cellList(MAX_DIM * MAX_DIM),
    wv: cellList(MAX_DIM * MAX_DIM),
    mask: { type: 'enum', values: ['none', 'causal', 'window', 'padding', 'custom'] },
    window: { type: 'int', min: 0, max: MAX_TOKENS },
    padding: { type: 'int', min: 0, max: MAX_TOKENS - 1 },
    keep: { type: 'nums', maxLength: MAX_TOKENS * MAX_TOKENS, min: 0, max: 1 },
    scale: { type: 'enum', values: ['sqrt', 'none'] },
    temperature: { type: 'num', min: 0.05, max: 20 },
    seed: { type: 'int', min: 0, max: 1e9 },
    stage: { type: 'int', min: 0, max: 7 },  // "show up to" (absent: all; 7 with the predict stage)
    predict: { type: 'bool' },
    predictRow: { type: 'int', min: 0, max: MAX_TOKENS - 1 },
    guess: { type: 'nums', maxLength: MAX_TOKENS, min: 0, max: 100 },
  };

  /** Sizes that must agree (the schema checks each value alone). */
  static checkState(s) {
    const t = s.tokens?.length, dIn = s.dIn, dk = s.dk;
    if (s.x || s.wq || s.wk || s.wv || s.tokens || s.dIn || s.dk) {
      if (!(t && dIn && dk && s.x && s.wq && s.wk && s.wv)) return 'incomplete matrices';
      if (s.x.length !== t * dIn) return 'X does not match the tokens';
      if ([s.wq, s.wk, s.wv].some((w) => w.length !== dIn * dk)) return 'a W has the wrong size';
    }
    if (s.keep && t && s.keep.length !== t * t) return 'the mask does not match the tokens';
    return '';
  }

  static styles = [widgetStyles, predictStyles, css`.entropy td, .entropy th { font-size: 0.9em; }
    .entropy tr.hl th, .entropy tr.hl td { background: #fff8c5; font-weight: 600; }
    .slide-head { display: flex; flex-direction: column; gap: 4px; }
    .slide-head .controls { margin: 0; gap: 4px 16px; font-size: 16px; }
    .slide-head .formula { margin: 0; padding: 0 8px; }
    .slide-main { display: flex; flex-direction: column; gap: 8px; margin-top: 8px; }
    .slide-row { display: flex; gap: 16px; align-items: flex-start; }
    .slide-main .arrow { align-self: center; font-size: 28px; color: #57606a; }
    input[type='range'] { width: 9em; vertical-align: middle; }
    .slide-main.with-side { flex-direction: row; gap: 16px; align-items: flex-start; }
    .slide-main .maps { display: flex; flex-direction: column; gap: 8px; }
    .predict input[type='range'] { width: 100%; }`];

  constructor() {
    super();
    this.preset = 'football';
    this.stage = null;
    this.mask = 'none';
    this.window = 1;
    this.padding = 1;
    this.scale = 'sqrt';
    this.temperature = 1;
    this.seed = 1;
    this.keep = null;
    this.weightRange = 'fixed';
    this._headH = 110;
    this._loadedPreset = null;
    this._link = null;
    this._hovers = new Map();
    this.predict = false;
    this.predictRow = 0;
    this.guess = null;
  }

  /**
   * The first draw on a page comes in parts, each in a task of its own: the controls and the inputs
   * (X and the W's: what a 1440 × 900 window shows of the widget, painted first, before the core is
   * asked for anything), then Q (the first computed numbers), K and V, the scores, the scaling, the
   * mask, and the softmax with the output (the weights and output maps always together), one frame apart.
   * Drawing all seven stages at once was the page's longest task (~0.6 s of CPU with the CPU throttled
   * 4×); the inputs with Q, K, V together were still ~0.3 s. A render that only draws the next part
   * reuses the core's results and leaves the drawn stages as they are (guard on _drawGen); edits
   * meanwhile draw what is drawn so far; a slide draws at once (parts.js).
   */
  labReady() {
    const parts = drawInParts(this, PARTS.length);
    // KaTeX (its code and the formulas' typesetting) waits until Q's numbers, the page's first, are
    // painted: at 4x CPU throttling it took ~0.1 s of CPU before them. The formulas keep their room.
    if (parts) holdTypesetting(parts[Q_PART].then(nextFrame));
  }

  /** The last stage drawn so far (null: every stage). */
  get #upTo() {
    const p = this._drawPart;
    return p === null || p === undefined ? null : PARTS[p];
  }

  applyState(state) {
    super.applyState(state);
    this._loadedPreset = this.preset;  // the restored matrices win over the preset's
  }

  #loadPreset(name) {
    const p = PRESETS[name];
    this._loadedPreset = name;
    if (!p) return;
    Object.assign(this, { tokens: [...p.tokens], dIn: p.dIn, dk: p.dk, x: [...p.x], wq: [...p.wq], wk: [...p.wk], wv: [...p.wv], keep: null });
    if (this.mask === 'custom') this.mask = 'none';
  }

  willUpdate(changed) {
    super.willUpdate(changed);
    if (this.preset !== this._loadedPreset && (changed.has('preset') || !this.x)) this.#loadPreset(this.preset);
    if (!this.x) this.#loadPreset('football');
    // Only the next part of the first draw (labReady): nothing shown changed. Anything else, or an
    // update asked for without a property (requestUpdate()), draws everything again.
    const nextPartOnly = changed.size > 0 && [...changed.keys()].every((k) => k === '_drawPart' || k === '_partial');
    this._reuse = nextPartOnly && !!this._computed;
    if (!nextPartOnly) this._drawGen = (this._drawGen ?? 0) + 1;
  }

  #edit(patch) {
    Object.assign(this, patch);
    if (!('preset' in patch) && ['x', 'wq', 'wk', 'wv', 'tokens', 'dIn', 'dk'].some((k) => k in patch)) {
      this.preset = 'custom';
      this._loadedPreset = 'custom';
    }
    this.stateChanged();
  }

  #randomise() {
    const { dIn, dk } = this, t = this.tokens.length, s = this.seed;
    this.#edit({ x: uniformMatrix(s, t * dIn), wq: uniformMatrix(s + 1, dIn * dk), wk: uniformMatrix(s + 2, dIn * dk), wv: uniformMatrix(s + 3, dIn * dk) });
  }

  #setTokens(tokens) {
    if (!tokens.length) return;
    const t0 = this.tokens.length, t = tokens.length;
    this.#edit({ tokens, x: resize(this.x, t0, this.dIn, t, this.dIn, this.seed + 10), keep: null, mask: this.mask === 'custom' ? 'none' : this.mask });
  }

  #setDims(dIn, dk) {
    if (!(Number.isInteger(dIn) && Number.isInteger(dk) && dIn >= 1 && dIn <= MAX_DIM && dk >= 1 && dk <= MAX_DIM)) return;
    const t = this.tokens.length, s = this.seed;
    this.#edit({
      dIn, dk, x: resize(this.x, t, this.dIn, t, dIn, s + 10),
      wq: resize(this.wq, this.dIn, this.dk, dIn, dk, s + 11), wk: resize(this.wk, this.dIn, this.dk, dIn, dk, s + 12),
      wv: resize(this.wv, this.dIn, this.dk, dIn, dk, s + 13),
    });
  }

  #toggleMask(e, scaled) {
    const t = this.tokens.length;
    const keep = this.mask === 'custom' && this.keep?.length === t * t ? [...this.keep] : keepFromScaled(scaled);
    const i = e.detail.row * t + e.detail.col;
    keep[i] = keep[i] ? 0 : 1;
    this.#edit({ mask: 'custom', keep });
  }


  /** A map's cursor moved (pointer or keyboard): the map whose cursor moved last sets the link. */
  #hover(cls, e) {
    this._hovers.delete(cls);
    const link = linkFrom(cls, e.detail);
    if (link) this._hovers.set(cls, link);
    this._link = [...this._hovers.values()].pop() ?? null;
  }

  /** Linked highlighting: each map's highlighted rows / columns / row weights and its arithmetic readout. */
  #links(c) {
    const out = {};
    for (const cls of ['q', 'k', 'v', 'scores', 'scaled', 'mask-m', 'masked', 'weights', 'output'])
      out[cls] = { ...linkProps(cls, this._link, c.r?.weights, c.t), readout: readoutFor(cls, c, this) };
    return out;
  }

  /** The formula of stage i (LaTeX), as the lecture writes it. */
  #stageFormula(i) {
    const sc = this.scale === 'none' ? '' : '\\sqrt{d_k}\\,';
    const denom = this.scale === 'none' && this.temperature === 1 ? '' : `${sc}\\tau`;
    const factor = fmt((this.scale === 'none' ? 1 : 1 / Math.sqrt(this.dk)) / this.temperature, 4);
    return [
      'X:\\ t \\times d_{model},\\quad W_Q, W_K, W_V:\\ d_{model} \\times d_k',
      'Q = XW_Q,\\quad K = XW_K,\\quad V = XW_V',
      'S = QK^\\top,\\qquad S_{ij} = q_i \\cdot k_j',
      denom ? `S / (${sc}\\tau) = S \\times ${factor}` : 'S \\text{ (unscaled)}',
      'S + M,\\qquad M_{ij} = \\begin{cases} 0 & \\text{key } j \\text{ visible} \\\\ -\\infty & \\text{masked} \\end{cases}',
      `A_{ij} = \\dfrac{\\exp(s_{ij})}{\\sum_{k} \\exp(s_{ik})}\\quad(\\tau = ${this.temperature})`,
      'Z = AV,\\qquad z_i = \\sum_j A_{ij} v_j',
    ][i];
  }

  /** Slide layout: strip, compact controls, the stage's formula, its matrices as large as fit. */
  #renderSlide(c) {
    const { tokens, dIn, dk } = this, t = tokens.length;
    const pv = this.#predictView, stage = Math.max(0, Math.min(6, pv.own ?? 6));
    const dims = (n) => Array.from({ length: n }, (_, j) => `d${j + 1}`);
    const probability = this.weightRange !== 'map';
    const P = (cls, label, values, rows, cols, colLabels, opts = {}) => ({ cls, label, values, rows, cols, colLabels, rowLabels: opts.rowLabels ?? tokens, weight: opts.weight ?? 1, ...opts });
    // The scores, the scaled scores and scaled + M are compared: one colour range for all three.
    const sr = { range: [-c.range, c.range] };
    const panels = [
      [P('x', 'X', this.x, t, dIn, dims(dIn)), P('wq', 'W_Q', this.wq, dIn, dk, dims(dk), { rowLabels: dims(dIn) }),
        P('wk', 'W_K', this.wk, dIn, dk, dims(dk), { rowLabels: dims(dIn) }), P('wv', 'W_V', this.wv, dIn, dk, dims(dk), { rowLabels: dims(dIn) })],
      [P('x', 'X', this.x, t, dIn, dims(dIn), { weight: 0.6 }), P('q', 'Q', c.q, t, dk, dims(dk)), P('k', 'K', c.k, t, dk, dims(dk)), P('v', 'V', c.v, t, dk, dims(dk))],
      [P('q', 'Q', c.q, t, dk, dims(dk), { weight: 0.6 }), P('k', 'K', c.k, t, dk, dims(dk), { weight: 0.6 }), P('scores', 'S = QKᵀ', c.unmasked.scores, t, t, tokens, sr)],
      [P('scores', 'S = QKᵀ', c.unmasked.scores, t, t, tokens, { weight: 0.6, ...sr }), P('scaled', 'scaled scores', c.unmasked.scaled, t, t, tokens, sr)],
      [P('mask-m', c.noMask ? 'no mask: M = 0 everywhere' : 'M: grey = −∞ (click a cell)', c.m, t, t, tokens, M_PANEL), P('masked', 'scaled + M', c.r.scaled, t, t, tokens, sr)],
      [P('masked', 'scaled + M', c.r.scaled, t, t, tokens, { weight: 0.6, ...sr }), P('weights', 'weights A', c.r.weights, t, t, tokens, { colormap: 'sequential', probability })],
      [P('weights', 'A', c.r.weights, t, t, tokens, { colormap: 'sequential', probability, weight: 0.7 }), P('v', 'V', c.v, t, dk, dims(dk), { weight: 0.7 }),
        P('output', 'output Z = AV', c.r.output, t, dk, dims(dk))],
    ][stage].filter((p) => (pv.phase === 'guess' ? p.cls === 'masked' : !(this.predict && pv.phase === 'reveal' && stage === 5 && this.box.width >= 700) || p.cls === 'weights')).map((p) => ({ ...p, compact: true, legend: p.legend ?? true, shareRows: true }));
    const { width, height } = this.box, links = this.#links(c);
    // The predict stage and its reveal: the sliders / comparison beside the maps when the box is wide, above them when not.
    const shown = this.predict && (pv.phase === 'guess' || (pv.phase === 'reveal' && stage === 5));
    const side = shown && width >= 700 ? Math.min(420, Math.round(width * 0.42)) : 0;
    const layout = packPanels(panels, width - (side ? side + 16 : 0), Math.max(60, height - this._headH - 8), { maxCell: 120 });
    const scaleFactor = (this.scale === 'none' ? 1 : 1 / Math.sqrt(dk)) / this.temperature;
    const controls = this.controlsMode === 'none' ? nothing : html`<div class="controls">
      <label>example <select class="preset" @change=${(e) => { this.preset = e.target.value; this.#loadPreset(e.target.value); this.stateChanged(); }}>
        ${[['football', 'I / play / football'], ['cat-sat', 'the / cat / sat'], ['custom', 'my own']].map(([v, l]) => html`<option value=${v} ?selected=${this.preset === v}>${l}</option>`)}
      </select></label>
      <label><input type="checkbox" class="scale" .checked=${this.scale !== 'none'} @change=${(e) => this.#edit({ scale: e.target.checked ? 'sqrt' : 'none' })}> ÷√d<sub>k</sub></label>
      <label>τ <input type="range" class="temperature" min="0.1" max="5" step="0.05" .value=${String(this.temperature)}
        aria-valuetext=${`temperature ${this.temperature}`} @input=${(e) => this.#edit({ temperature: Number(e.target.value) })}> ${fmt(this.temperature, 2)}</label>
      <label>mask <select class="mask" @change=${(e) => this.#edit({ mask: e.target.value })}>
        ${['none', 'causal', 'window', 'padding', 'custom'].map((m) => html`<option value=${m} ?selected=${this.mask === m}>${m === 'custom' ? 'hand-edited' : m}</option>`)}
      </select></label>
      <span class="note">scores × ${fmt(scaleFactor, 4)}</span></div>`;
    return html`<div class="slide-head">${this.stageStrip(this.predict ? PREDICT.names : STAGES)}${controls}
        <attn-tex class="formula current" .expr=${pv.phase === 'guess' ? GUESS_FORMULA : this.#stageFormula(stage)}></attn-tex>${side ? nothing : this.#predictBlock(c, pv, stage)}</div>
      <div class=${`slide-main stage s${stage}${side ? ' with-side' : ''}`}><div class="maps">${layout.rows.map((row) => html`<div class="slide-row">${row.map((p) => html`<attn-heatmap class=${p.cls}
        .label=${p.label} .values=${p.values} .rows=${p.rows} .cols=${p.cols} .rowLabels=${p.rowLabels} .colLabels=${p.colLabels}
        .colormap=${p.colormap ?? 'diverging'} .vmin=${p.probability ? 0 : p.range?.[0] ?? null} .vmax=${p.probability ? 1 : p.range?.[1] ?? null}
        .digits=${p.digits ?? 4} .cellSize=${120} compact .legend=${p.legend} .legendPos=${p.legendPos} ?no-row-labels=${p.noRowLabels} .fitWidth=${p.fitWidth} .fitHeight=${p.fitHeight} ?clickable=${!!p.clickable}
        @attn-cell-toggle=${p.clickable ? (e) => this.#toggleMask(e, c.r.scaled) : null}
        .highlightRows=${pv.phase === 'guess' ? [fitRow(this.predictRow, t)] : links[p.cls]?.rows} .highlightCols=${links[p.cls]?.cols} .rowWeights=${links[p.cls]?.weights} .readoutFor=${links[p.cls]?.readout}
        @attn-cell-hover=${(e) => this.#hover(p.cls, e)}></attn-heatmap>`)}</div>`)}</div>${side ? html`<div class="side" style=${`width:${side}px`}>${this.#predictBlock(c, pv, stage)}</div>` : nothing}</div>`;
  }

  /** With `predict`: the phase ('before' | 'guess' | 'reveal') and the widget's own stage to draw (predict.js). */
  get #predictView() {
    return this.predict ? { phase: PREDICT.phase(this.stage), own: PREDICT.own(this.stage) } : { phase: null, own: this.stage ?? null };
  }

  /** The widget's own stage i is shown (the predict stage hides the softmax and what follows it). */
  shows(i) {
    const own = this.#predictView.own;
    const upTo = this.#upTo;
    return (own === null || own === undefined || own >= i) && !(upTo !== null && i > upTo);
  }

  /** Page, full controls: predict the softmax before seeing it (a self-check). */
  #predictToggle() {
    if (this.controlsMode !== 'full') return nothing;
    return html`<div class="controls"><label><input type="checkbox" class="predict-toggle" .checked=${!!this.predict}
      @change=${(e) => { this.predict = e.target.checked; this.stage = this.predict ? PREDICT.at : null; this.stateChanged(); }}>
      predict first (self-check)</label></div>`;
  }

  /**
   * The predict stage: sliders for the predicted row of one query (the softmax hidden); at the reveal
   * (the softmax stage), the guess beside the core's row and their total-variation distance.
   */
  #predictBlock(c, pv, own, page = false) {
    if (!this.predict || pv.phase === 'before' || pv.phase === null || (pv.phase === 'reveal' && !page && own !== 5)) return nothing;
    const { tokens } = this, t = c.t, row = fitRow(this.predictRow, t), guess = fitGuess(this.guess, t);
    const toStage = (s) => { this.stage = s; this.stateChanged(); };
    if (pv.phase === 'guess') {
      // The current guess, not the one this render saw: several inputs may arrive before the next render.
      const set = (j, v) => { const g = fitGuess(this.guess, this.tokens.length); g[j] = v; this.guess = g; this.stateChanged(); };
      const picker = page ? html`<label>query <select class="predict-row" @change=${(e) => { this.predictRow = Number(e.target.value); this.stateChanged(); }}>
        ${tokens.map((w, i) => html`<option value=${i} ?selected=${i === row}>${w}</option>`)}</select></label>` : nothing;
      return html`<div class="predict guess"><p class="ask">Predict the softmax: how does “${tokens[row]}” share its attention?</p>${picker}
        ${guessRow({ keys: tokens, values: guess, query: tokens[row], onInput: set })}
        ${page ? html`<div class="actions"><button type="button" class="reveal" @click=${() => toStage(PREDICT.at + 1)}>Reveal the softmax</button></div>` : nothing}</div>`;
    }
    const r = revealRow({ guess, weights: c.r.weights, row, t });
    const top = r.tied ? `the top key is “${tokens[r.top]}”; your guess had no single top key` : r.top === r.topGuess ? `you put most on the top key, “${tokens[r.top]}”` : `the top key is “${tokens[r.top]}”, you put most on “${tokens[r.topGuess]}”`;
    return html`<div class="predict reveal"><table class="compare" aria-label=${`attention of “${tokens[row]}”: your guess and the softmax`}>
        <tr><th scope="col">“${tokens[row]}” →</th>${tokens.map((k) => html`<th scope="col">${k}</th>`)}</tr>
        <tr class="yours"><th scope="row">your guess</th>${r.guess.map((p) => html`<td>${fmt(p, 2)}</td>`)}</tr>
        <tr class="computed"><th scope="row">softmax</th>${r.computed.map((p) => html`<td>${fmt(p, 2)}</td>`)}</tr></table>
      ${revealLine(html`off by <strong class="tvd">${fmt(r.tvd, 2)}</strong> (total variation, ${r.verdict}): `, top)}
      ${page ? html`<div class="actions"><button type="button" class="predict-again" @click=${() => toStage(PREDICT.at)}>Predict again</button></div>` : nothing}</div>`;
  }

  /**
   * Everything the widget displays, from the core: Q, K and V, then (unless `projectionsOnly`) the
   * attention with and without the mask (#attend). The first part of a page's first draw (labReady)
   * shows only the inputs and Q, K, V: the attention waits for the next part, so the core's first
   * attention call (its first run compiles the code it uses) is not in the task of the first numbers.
   */
  compute(lab, { projectionsOnly = false } = {}) {
    const { tokens, dIn, dk } = this, t = tokens.length;
    const q = project(lab, this.x, this.wq, t, dIn, dk);
    const k = project(lab, this.x, this.wk, t, dIn, dk);
    const v = project(lab, this.x, this.wv, t, dIn, dk);
    const c = { t, q, k, v };
    return projectionsOnly ? c : this.#attend(lab, c);
  }

  /** `c` (Q, K, V of compute) with the attention: scores, weights, output, mask, colour range, entropies. */
  #attend(lab, c) {
    const { t, q, k, v } = c, dk = this.dk;
    const scale = (this.scale === 'none' ? 1 : 1 / Math.sqrt(dk)) / this.temperature;
    const base = { q, k, v, tq: t, tk: t, dk, dv: dk, scale };
    const mask = maskArgument(this.mask, t, { window: this.window, padding: this.padding, keep: this.keep });
    const unmasked = lab.attention(base);
    const r = lab.attention({ ...base, mask });
    const m = Float32Array.from(r.scaled, (s) => (s === -Infinity ? -Infinity : 0));
    const range = sharedRange(unmasked.scores, unmasked.scaled);
    return { ...c, unmasked, r, m, range, noMask: maskIsEmpty(r.scaled), entropies: rowEntropies(r.weights, t, t) };
  }

  renderWidget(lab) {
    // While the first draw shows no stage past the inputs, nothing is computed; past Q, K and V, only
    // they are (unless a map is hovered: a link highlights the other maps, and V's rows by their weights).
    const upTo = this.slideLayout || this._link ? null : this.#upTo;
    const need = upTo === null || upTo >= 2 ? 'all' : upTo === 1 ? 'projections' : 'none';
    let c = this._reuse ? this._computed : null;
    if (!c || (need !== 'none' && !c.q)) c = need === 'none' ? { t: this.tokens.length } : this.compute(lab, { projectionsOnly: need === 'projections' });
    if (need === 'all' && !c.r) c = this.#attend(lab, c);
    this._computed = c;
    if (this.slideLayout) return this.#renderSlide(c);
    const { tokens, dIn, dk } = this, t = tokens.length, f = this.fields;
    // Queries whose every key is masked: the core returns weights 0 and output 0 for them (no key to
    // average over), which must not read as "perfectly certain".
    const isBlind = c.r ? tokens.map((_, i) => c.r.scaled.subarray(i * t, (i + 1) * t).every((x) => x === -Infinity)) : tokens.map(() => false);
    const blind = tokens.filter((_, i) => isBlind[i]);
    const blindNote = blind.length ? html`<p class="note blind-rows" role="note">${blind.length === 1 ? 'Query' : 'Queries'} ${blind.map((w) => `“${w}”`).join(', ')}
      ${blind.length === 1 ? 'sees' : 'see'} no key: every key in ${blind.length === 1 ? 'its row is' : 'their rows is'} masked, so the softmax has nothing to share out.
      The core returns weights 0 (not a distribution: they sum to 0, not 1), an output row of 0 (an average of no values), and entropy 0 — which here means “nothing to attend to”, not “certain”.</p>` : nothing;
    const dims = (n) => Array.from({ length: n }, (_, j) => `d${j + 1}`);
    // Few tokens (the lecture's examples): big cells with 4 decimals, as the notes print them.
    const small = t <= 6;
    const links = this.#links(c);
    const sr = { range: [-(c.range ?? 1), c.range ?? 1] };  // scores, scaled, scaled + M: one colour range
    const hm = (cls, label, values, rows, cols, colLabels, extra = {}) => html`<attn-heatmap class=${cls} .label=${label} .values=${values}
      .rows=${rows} .cols=${cols} .rowLabels=${tokens} .colLabels=${colLabels} .colormap=${extra.colormap ?? 'diverging'}
      .vmin=${extra.probability && this.weightRange !== 'map' ? 0 : extra.range?.[0] ?? null} .vmax=${extra.probability && this.weightRange !== 'map' ? 1 : extra.range?.[1] ?? null}
      .digits=${extra.digits ?? (small ? 4 : 2)} .cellSize=${small ? 60 : 44} .legend=${extra.legend ?? true}
      ?clickable=${!!extra.clickable} @attn-cell-toggle=${extra.onToggle ?? null}
      .highlightRows=${links[cls]?.rows} .highlightCols=${links[cls]?.cols} .rowWeights=${links[cls]?.weights} .readoutFor=${links[cls]?.readout}
      @attn-cell-hover=${(e) => this.#hover(cls, e)}></attn-heatmap>`;
    const ed = (cls, label, key, rows, cols, rowLabels, colLabels) => html`<attn-matrix-editor class=${cls} .label=${label}
      .values=${this[key]} .rows=${rows} .cols=${cols} .rowLabels=${rowLabels} .colLabels=${colLabels}
      @attn-matrix-change=${(e) => this.#edit({ [key]: e.detail.values })}></attn-matrix-editor>`;
    const sc = this.scale === 'none' ? '' : '\\sqrt{d_k}\\,';
    const denom = this.scale === 'none' && this.temperature === 1 ? '' : `${sc}\\tau`;
    const frac = denom ? `\\frac{QK^\\top}{${denom}}` : 'QK^\\top';
    const kv = this._drawPart !== Q_PART;  // K's and V's maps (the first draw shows Q's alone first)
    return html`
      <attn-tex class="formula" display .expr=${`\\mathrm{Attention}(Q,K,V) = \\mathrm{softmax}\\!\\left(${frac} + M\\right)V,\\qquad \\tau = ${this.temperature}`}></attn-tex>
      <div class="controls">
        <label>example <select @change=${(e) => { this.preset = e.target.value; this.#loadPreset(e.target.value); this.stateChanged(); }}>
          ${[['football', 'I / play / football'], ['cat-sat', 'the / cat / sat'], ['custom', 'my own']].map(([v, l]) => html`<option value=${v} ?selected=${this.preset === v}>${l}</option>`)}
        </select></label>
        <label>tokens <input type="text" class="tokens" .value=${tokens.join(' ')} aria-invalid=${f.invalid('tokens')} aria-describedby=${f.describedBy('tokens')}
          @change=${(e) => { const tk = f.tokens('tokens', e.target.value, { maxTokens: MAX_TOKENS }); if (tk) this.#setTokens(tk); }}></label>${f.message('tokens')}
        <label>d<sub>model</sub> <input type="number" class="d-in" min="1" max=${MAX_DIM} .value=${String(dIn)} aria-invalid=${f.invalid('d-in')} aria-describedby=${f.describedBy('d-in')}
          @change=${(e) => { const v = f.number('d-in', e.target, { min: 1, max: MAX_DIM, integer: true, name: 'd_model' }); if (v !== null) this.#setDims(v, dk); }}></label>${f.message('d-in')}
        <label>d<sub>k</sub> <input type="number" class="d-k" min="1" max=${MAX_DIM} .value=${String(dk)} aria-invalid=${f.invalid('d-k')} aria-describedby=${f.describedBy('d-k')}
          @change=${(e) => { const v = f.number('d-k', e.target, { min: 1, max: MAX_DIM, integer: true, name: 'd_k' }); if (v !== null) this.#setDims(dIn, v); }}></label>${f.message('d-k')}
        <label>seed <input type="number" class="seed" min="0" .value=${String(this.seed)} aria-invalid=${f.invalid('seed')} aria-describedby=${f.describedBy('seed')}
          @change=${(e) => { const v = f.number('seed', e.target, { min: 0, max: 1e9, integer: true, name: 'seed' }); if (v !== null) { this.seed = v; this.stateChanged(); } }}></label>${f.message('seed')}
        <button type="button" class="randomise" @click=${() => this.#randomise()}>Randomise X, W</button>
      </div>
      <div class="controls">
        <label><input type="checkbox" class="scale" .checked=${this.scale !== 'none'} @change=${(e) => this.#edit({ scale: e.target.checked ? 'sqrt' : 'none' })}> scale by 1/√d<sub>k</sub></label>
        <label>temperature τ <input type="number" class="temperature" min="0.05" max="20" step="0.05" .value=${String(this.temperature)}
          aria-invalid=${f.invalid('temperature')} aria-describedby=${f.describedBy('temperature')}
          @input=${(e) => { const v = f.number('temperature', e.target, { min: 0.05, max: 20, name: `τ (still ${this.temperature})` }); if (v !== null) this.#edit({ temperature: v }); }}></label>${f.message('temperature')}
        <label>mask <select class="mask" @change=${(e) => this.#edit({ mask: e.target.value })}>
          ${['none', 'causal', 'window', 'padding', 'custom'].map((m) => html`<option value=${m} ?selected=${this.mask === m}>${m === 'custom' ? 'hand-edited' : m}</option>`)}
        </select></label>
        ${this.mask === 'window' ? html`<label>window w <input type="number" class="window" min="0" max=${t} .value=${String(this.window)}
          aria-invalid=${f.invalid('window')} aria-describedby=${f.describedBy('window')}
          @input=${(e) => { const v = f.number('window', e.target, { min: 0, max: t, integer: true, name: `the window (still ${this.window}; ${t} tokens)` }); if (v !== null) this.#edit({ window: v }); }}></label>${f.message('window')}` : nothing}
        ${this.mask === 'padding' ? html`<label>padding tokens <input type="number" class="padding" min="0" max=${t - 1} .value=${String(this.padding)}
          aria-invalid=${f.invalid('padding')} aria-describedby=${f.describedBy('padding')}
          @input=${(e) => { const v = f.number('padding', e.target, { min: 0, max: t - 1, integer: true, name: `padding (still ${this.padding}; with ${t} tokens at least one must be real)` }); if (v !== null) this.#edit({ padding: v }); }}></label>${f.message('padding')}` : nothing}
      </div>
      ${this.#predictToggle()}${this.stageBar(this.predict ? PREDICT.names : STAGES)}

      ${guard([this._drawGen], () => html`<div class="stage s0"><h3>0 · Inputs: X (one row per token) and the projections</h3>
        <p class="note">Type in a cell, drag it up/down, or use ↑/↓ (Shift: ×10).</p>
        <div class="row">${ed('x', 'X', 'x', t, dIn, tokens, dims(dIn))}${ed('wq', 'W_Q', 'wq', dIn, dk, dims(dIn), dims(dk))}
          ${ed('wk', 'W_K', 'wk', dIn, dk, dims(dIn), dims(dk))}${ed('wv', 'W_V', 'wv', dIn, dk, dims(dIn), dims(dk))}</div></div>`)}
      ${this.shows(1) ? guard([this._drawGen, kv], () => html`<div class="stage s1"><h3>1 · Queries, keys, values</h3>
        <attn-tex .expr=${'Q = XW_Q,\\quad K = XW_K,\\quad V = XW_V'}></attn-tex>
        <div class="row">${guard([this._drawGen], () => hm('q', 'Q', c.q, t, dk, dims(dk)))}${kv ? html`${hm('k', 'K', c.k, t, dk, dims(dk))}${hm('v', 'V', c.v, t, dk, dims(dk))}` : nothing}</div></div>`) : nothing}
      ${this.shows(2) ? guard([this._drawGen], () => html`<div class="stage s2"><h3>2 · Scores: every query against every key</h3>
        <attn-tex .expr=${'S = QK^\\top,\\quad S_{ij} = q_i \\cdot k_j'}></attn-tex>
        ${hm('scores', 'QKᵀ', c.unmasked.scores, t, t, tokens, sr)}</div>`) : nothing}
      ${this.shows(3) ? guard([this._drawGen], () => html`<div class="stage s3"><h3>3 · Scaled</h3>
        <attn-tex .expr=${denom ? `S / (${sc}\\tau) = S \\times ${fmt((this.scale === 'none' ? 1 : 1 / Math.sqrt(dk)) / this.temperature, 4)}` : 'S \\text{ (unscaled)}'}></attn-tex>
        ${hm('scaled', 'scaled scores', c.unmasked.scaled, t, t, tokens, sr)}</div>`) : nothing}
      ${this.shows(4) ? guard([this._drawGen], () => html`<div class="stage s4"><h3>4 · Mask</h3>
        <attn-tex .expr=${'M_{ij} = \\begin{cases} 0 & \\text{key } j \\text{ visible to query } i \\\\ -\\infty & \\text{masked} \\end{cases}'}></attn-tex>
        <p class="note">Click a cell of M (or focus it, move with the arrows and press Enter) to mask or unmask it.</p>
        <div class="row">${hm('mask-m', c.noMask ? 'no mask: M = 0 everywhere' : 'M (grey: −∞, white: 0)', c.m, t, t, tokens, { ...M_PANEL, onToggle: (e) => this.#toggleMask(e, c.r.scaled) })}
          ${hm('masked', 'scaled + M', c.r.scaled, t, t, tokens, sr)}</div></div>`) : nothing}
      ${this.#upTo !== null && this.#upTo < 5 ? nothing : this.#predictBlock(c, this.#predictView, 5, true)}
      ${this.shows(5) ? guard([this._drawGen], () => html`<div class="stage s5"><h3>5 · Softmax of each row: the attention weights</h3>
        <attn-tex .expr=${'A_{ij} = \\dfrac{\\exp(s_{ij})}{\\sum_{k} \\exp(s_{ik})},\\qquad H_i = -\\sum_j A_{ij}\\ln A_{ij} \\le \\ln t_k'}></attn-tex>
        <div class="row">${hm('weights', 'weights A', c.r.weights, t, t, tokens, { colormap: 'sequential', probability: true })}
          <table class="plain entropy"><caption>entropy per row (nats)</caption>
            <tr><th>query</th><th>H</th></tr>
            ${c.entropies.map((h, i) => html`<tr class=${this._link?.query === i ? 'hl' : ''}><th scope="row">${tokens[i]}</th><td>${fmt(h, 4)}${isBlind[i] ? html` <span class="no-key">(no key visible)</span>` : nothing}</td></tr>`)}
            <tr><th scope="row">max ln ${t}</th><td>${fmt(Math.log(t), 4)}</td></tr></table></div>${blindNote}</div>`) : nothing}
      ${this.shows(6) ? guard([this._drawGen], () => html`<div class="stage s6"><h3>6 · Output: each row is a weighted average of the values</h3>
        <attn-tex .expr=${'Z = AV,\\qquad z_i = \\sum_j A_{ij} v_j'}></attn-tex>
        ${hm('output', 'output AV', c.r.output, t, dk, dims(dk))}${this.shows(5) ? nothing : blindNote}</div>`) : nothing}`;
  }
}
