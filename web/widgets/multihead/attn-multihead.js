// <attn-multihead>: heads side by side — per-head Q/K/V and weights, the concatenation, W_O, output.
//
// Attributes: preset ("cat-sat" | "custom"), heads, d-model, stage (0 inputs, 1 per-head Q/K/V,
// 2 per-head weights, 3 concat, 4 output; absent = all; with predict a "predict" stage 2 before the
// weights, so 0 … 5: multihead/predict.js), predict-row, mask ("none" | "causal"), seed,
// weight-range ("fixed": weights coloured on [0, 1], default; "map": each map's own range), hash-key,
// and AttnWidget's layout / controls / fit-height.
// Page layout: every stage up to `stage`, one below the other, with editors. Slide layout: the stage
// strip, the current stage's formula (highlighted) and only the current stage's matrices, as large as
// the box allows (0: X and the W's; 1: Q_h, K_h, V_h per head; 2: the heads' weights; 3: the concat with
// its head column groups; 4: Concat · W_O = output).
// Properties: tokens, x, wq, wk, wv, wo (flat row-major; W [dModel·dModel], x·W).
// Events: attn-state-change { state }.
// Linked highlighting: hovering or focusing a cell of a head's output columns in the concat (or any of a
// head's own maps) outlines that head's Q/K/V and weights panels, fades the other heads' panels, and
// outlines the head's columns of the concat.
// Numbers: lab.multiHeadAttention (the per-head panels are column slices of its results).
import { html, css, nothing } from 'lit';
import { AttnWidget, optionalInt } from '../shared/widget.js';
import { cellList } from '../shared/hash.js';
import { matrixRowStyles, widgetStyles } from '../shared/styles.js';
import { uniformMatrix } from '../shared/rng.js';
import { resize } from '../shared/rng.js';
import { CAT_SAT, headChoices, headSlice } from './logic.js';
import { geometryOf } from '../shared/pack.js';
import { pickSlide, slideFonts, slideLevels } from './slide.js';
import { drawInParts, drawn } from '../shared/parts.js';
import '../shared/heatmap.js';
import '../shared/matrix-editor.js';
import '../shared/tex.js';
import { guessChoice, predictStyles, revealLine } from '../shared/predict.js';
import { PREDICT, PREDICT_SHORT, fitPicks, revealPicks } from './predict.js';
import { fmt } from '../shared/format.js';

const MAX_T = 8, MAX_D = 8;
const STAGES = ['inputs', 'per-head Q, K, V', 'per-head weights', 'concat', 'output'];
/** The slide's stage strip: short names, so it stays one line in a half-width column. */
const SHORT_STAGES = ['inputs', 'Q, K, V', 'weights', 'concat', 'output'];
/** Head colours for the concat's column groups (Okabe–Ito). */
const HEAD_COLORS = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#000000', '#999999'];

export const slideStyles = css`
  .slide-head { display: flex; flex-direction: column; gap: 4px; }
  .slide-head .topline { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 16px; }
  .slide-head .stagestrip { margin: 0; }
  .slide-head .controls { margin: 0; gap: 4px 16px; font-size: 16px; }
  .slide-head .formula { margin: 0; padding: 2px 8px; text-align: center; white-space: nowrap; }
  .slide-main.stage { border-top: none; padding-top: 0; }
  .groups { font-size: 15px; }
  .groups span.linked { border-top-width: 7px; font-weight: 700; }
  attn-heatmap.faded { opacity: 0.5; transition: opacity 0.12s; }
  attn-heatmap.linked { outline: 3px solid #1f2328; outline-offset: 3px; border-radius: 2px; }
`;

/** The part of the page's first draw (labReady) at which stage i's first map comes: stage 1 takes three parts. */
const PART = [0, 2, 5, 6, 7];

export class AttnMultihead extends AttnWidget {
  static properties = {
    preset: { type: String, reflect: true },
    heads: { type: Number, reflect: true },
    dModel: { type: Number, attribute: 'd-model', reflect: true },
    stage: { converter: optionalInt, reflect: true },
    mask: { type: String },
    /** The part of the page's first draw drawn so far (parts.js; null: all). */
    _drawPart: { state: true },
    seed: { type: Number },
    weightRange: { type: String, attribute: 'weight-range' },
    _head: { state: true },
    tokens: { attribute: false },
    x: { attribute: false }, wq: { attribute: false }, wk: { attribute: false }, wv: { attribute: false }, wo: { attribute: false },
    /** Predict, then reveal: a "predict" stage before the per-head weights (stages 0 … 5, see predict.js). */
    predict: { type: Boolean, reflect: true },
    /** The query whose top key is predicted per head (0-based; default the last token). */
    predictRow: { type: Number, attribute: 'predict-row' },
    /** The picked key per head (-1: none). */
    picks: { attribute: false },
  };

  static stateSchema = {
    preset: { type: 'enum', values: ['cat-sat', 'custom'] },
    heads: { type: 'int', min: 1, max: MAX_D },
    dModel: { type: 'int', min: 1, max: MAX_D },
    mask: { type: 'enum', values: ['none', 'causal'] },
    seed: { type: 'int', min: 0, max: 1e9 },
    tokens: { type: 'strings', maxLength: MAX_T, maxChars: 16 },
    x: cellList(MAX_T * MAX_D),
    wq: cellList(MAX_D * MAX_D),
    wk: cellList(MAX_D * MAX_D),
    wv: cellList(MAX_D * MAX_D),
    wo: cellList(MAX_D * MAX_D),
    stage: { type: 'int', min: 0, max: 5 },  // "show up to" (absent: all; 5 with the predict stage)
    predict: { type: 'bool' },
    predictRow: { type: 'int', min: 0, max: MAX_T - 1 },
    picks: { type: 'nums', maxLength: MAX_D, min: -1, max: MAX_T - 1 },
  };

  static checkState(s) {
    if (s.dModel && s.heads && s.dModel % s.heads) return 'heads does not divide d_model';
    const keys = ['tokens', 'dModel', 'heads', 'x', 'wq', 'wk', 'wv', 'wo'];
    if (!['tokens', 'x', 'wq', 'wk', 'wv', 'wo'].some((k) => k in s)) return '';
    if (!keys.every((k) => k in s)) return 'incomplete matrices';
    const D = s.dModel, t = s.tokens.length;
    if (s.x.length !== t * D || [s.wq, s.wk, s.wv, s.wo].some((w) => w.length !== D * D)) return 'matrix sizes do not match';
    return '';
  }

  static styles = [widgetStyles, matrixRowStyles, slideStyles, predictStyles];

  constructor() {
    super();
    this.preset = 'cat-sat';
    this.stage = null;
    this.mask = 'none';
    this.seed = 1;
    this.weightRange = 'fixed';
    this._headH = 110;
    this._loadedPreset = null;
    this._head = null;
    this._hovers = new Map();
    this.predict = false;
    this.predictRow = null;
    this.picks = null;
  }

  applyState(state) {
    super.applyState(state);
    this._loadedPreset = this.preset;
  }

  /** A map's cursor moved (pointer or keyboard): the head it belongs to (concat: the column's head) is linked. */
  #hover(cls, e) {
    const d = e.detail, dk = this.dModel / this.heads;
    let h = null;
    if (d && cls === 'concat') h = d.col === null ? null : Math.floor(d.col / dk);
    else if (d) h = Number(/head(\d+)/.exec(cls)?.[1]) - 1;
    this._hovers.delete(cls);
    if (Number.isInteger(h) && h >= 0 && h < this.heads) this._hovers.set(cls, h);
    this._head = [...this._hovers.values()].pop() ?? null;
  }

  /** The linked-highlighting class of a map ('' / ' linked' / ' faded') and the concat's highlighted columns. */
  #linkClass(cls) {
    const m = /head(\d+)/.exec(cls);
    if (this._head === null || !m) return '';
    return Number(m[1]) - 1 === this._head ? ' linked' : ' faded';
  }

  #headCols() {
    if (this._head === null || this._head >= this.heads) return null;
    const dk = this.dModel / this.heads;
    return Array.from({ length: dk }, (_, j) => this._head * dk + j);
  }

  /** The preset's matrices; `all` (a student picking it): its head count and mask too, as the lecture has them. */
  #loadPreset(all = false) {
    this._loadedPreset = this.preset;
    if (this.preset !== 'cat-sat' && this.x) return;
    const p = CAT_SAT;
    if (all) this.mask = 'none';
    Object.assign(this, { tokens: [...p.tokens], dModel: p.dModel, heads: !all && this.heads && p.dModel % this.heads === 0 ? this.heads : p.heads,
      x: [...p.x], wq: [...p.wq], wk: [...p.wk], wv: [...p.wv], wo: [...p.wo] });
  }

  willUpdate(changed) {
    super.willUpdate(changed);
    if (!this.x || (changed.has('preset') && this.preset !== this._loadedPreset)) this.#loadPreset();
    // d-model given as an attribute with a different size than the matrices: resize them.
    const D0 = Math.round(Math.sqrt(this.wq.length));
    if (this.dModel !== D0 && this.dModel >= 1 && this.dModel <= MAX_D) this.#resize(D0, this.dModel);
    if (!(this.heads >= 1) || this.dModel % this.heads) this.heads = headChoices(this.dModel).includes(2) ? 2 : 1;
  }

  #resize(D0, D) {
    const t = this.tokens.length, s = this.seed;
    Object.assign(this, { x: resize(this.x, t, D0, t, D, s), wq: resize(this.wq, D0, D0, D, D, s + 1), wk: resize(this.wk, D0, D0, D, D, s + 2),
      wv: resize(this.wv, D0, D0, D, D, s + 3), wo: resize(this.wo, D0, D0, D, D, s + 4) });
  }

  #edit(patch) {
    Object.assign(this, patch);
    if (!('preset' in patch) && ['x', 'wq', 'wk', 'wv', 'wo', 'tokens', 'dModel'].some((k) => k in patch)) {
      this.preset = 'custom';
      this._loadedPreset = 'custom';
    }
    this.stateChanged();
  }


  /** With `predict`: the phase ('before' | 'guess' | 'reveal') and the widget's own stage to draw (predict.js). */
  get #predictView() {
    return this.predict ? { phase: PREDICT.phase(this.stage), own: PREDICT.own(this.stage) } : { phase: null, own: this.stage ?? null };
  }

  /** The widget's own stage i is shown (the predict stage hides the weights and what follows them). */
  shows(i) {
    const own = this.#predictView.own;
    return own === null || own === undefined || own >= i;
  }

  /** The query whose top key is predicted: predict-row, else the last token. */
  get #predictRowIndex() {
    const t = this.tokens.length;
    return Number.isInteger(this.predictRow) && this.predictRow >= 0 && this.predictRow < t ? this.predictRow : t - 1;
  }

  /** Page, full controls: predict each head's top key before seeing the weights (a self-check). */
  #predictToggle() {
    if (this.controlsMode !== 'full') return nothing;
    return html`<div class="controls"><label><input type="checkbox" class="predict-toggle" .checked=${!!this.predict}
      @change=${(e) => { this.predict = e.target.checked; this.stage = this.predict ? PREDICT.at : null; this.stateChanged(); }}>
      predict first (self-check)</label></div>`;
  }

  /**
   * The predict stage: per head, the token the query will attend to most (a toggle button per token);
   * at the reveal (the weights stage) each head's pick beside its computed top key and the gap.
   */
  #predictBlock(r, pv, own, page = false) {
    if (!this.predict || pv.phase === 'before' || pv.phase === null || (pv.phase === 'reveal' && !page && own !== 2)) return nothing;
    const { tokens, heads: H } = this, t = tokens.length, row = this.#predictRowIndex, picks = fitPicks(this.picks, H, t);
    const toStage = (s) => { this.stage = s; this.stateChanged(); };
    const q = tokens[row];
    if (pv.phase === 'guess') {
      // The current picks, not the ones this render saw: several clicks may arrive before the next render.
      const pick = (h, j) => { const p = fitPicks(this.picks, this.heads, this.tokens.length); p[h] = j; this.picks = p; this.stateChanged(); };
      const picker = page ? html`<label>query <select class="predict-row" @change=${(e) => { this.predictRow = Number(e.target.value); this.stateChanged(); }}>
        ${tokens.map((w, i) => html`<option value=${i} ?selected=${i === row}>${w}</option>`)}</select></label>` : nothing;
      return html`<div class="predict guess"><p class="ask">Predict: which token will “${q}” attend to most, in each head?</p>${picker}
        ${Array.from({ length: H }, (_, h) => guessChoice({ label: `head ${h + 1}`, ariaLabel: `head ${h + 1}: the token “${q}” attends to most`,
          choices: tokens, value: picks[h], onPick: (j) => pick(h, j), cls: `guess-choice head${h + 1}` }))}
        ${page ? html`<div class="actions"><button type="button" class="reveal" @click=${() => toStage(PREDICT.at + 1)}>Reveal the weights</button></div>` : nothing}</div>`;
    }
    const res = revealPicks({ picks, weights: r.weights, heads: H, t, row });
    return html`<div class="predict reveal"><table class="compare" aria-label=${`“${q}”: your pick per head and its computed top key`}>
        <tr><th scope="col">“${q}” →</th><th scope="col">your pick</th><th scope="col">top key</th><th scope="col">off by</th></tr>
        ${res.heads.map((h, i) => html`<tr class=${h.right ? 'right' : 'wrong'}><th scope="row">head ${i + 1}</th>
          <td class="yours">${h.pick < 0 ? '–' : `${tokens[h.pick]} ${fmt(h.pickWeight, 2)}`}</td><td>${tokens[h.top]} ${fmt(h.topWeight, 2)}</td><td class="gap">${fmt(h.gap, 2)}</td></tr>`)}</table>
      ${revealLine(html`<strong class="right-count">${res.right} of ${H}</strong> ${H === 1 ? 'head' : 'heads'} picked right`, '(off by: the top key’s weight minus your pick’s)')}
      ${page ? html`<div class="actions"><button type="button" class="predict-again" @click=${() => toStage(PREDICT.at)}>Predict again</button></div>` : nothing}</div>`;
  }

  compute(lab) {
    const t = this.tokens.length, D = this.dModel, H = this.heads;
    // The same inputs give the same result object: a render that draws the next part of the first draw
    // (or a re-layout) hands the maps drawn before the same arrays, so they are not drawn again.
    const key = [t, D, H, this.mask, ...[this.x, this.wq, this.wk, this.wv, this.wo].map((a) => (a ? Array.prototype.join.call(a, ',') : ''))].join('|');
    if (this._computed?.key === key && this._computed.lab === lab) return this._computed.r;
    const r = lab.multiHeadAttention({ x: this.x, tq: t, dModel: D, heads: H, wq: this.wq, wk: this.wk, wv: this.wv, wo: this.wo, mask: this.mask });
    this._computed = { key, lab, r };
    return r;
  }

  /**
   * The page's first draw, a task each: the controls with X, W_Q and W_K; W_V and W_O; the heads' Q, then
   * their K, then their V; the weights; the concatenation; the output (PART: each stage's first part).
   * A stage's maps in one task (or the five editors in one) took ~60–70 ms of CPU at 4x throttle.
   */
  labReady() {
    drawInParts(this, PART[4] + 1);
  }

  /** Labels and head slices kept between renders (new arrays would redraw the maps and editors). */
  #kept(key, make) {
    this._kept ??= new Map();
    if (!this._kept.has(key)) {
      if (this._kept.size > 64) this._kept.clear();
      this._kept.set(key, make());
    }
    return this._kept.get(key);
  }

  /** The controls: all of them ('full'), the head count only ('compact', the one a lecture changes live), or none. */
  #controls(mode) {
    if (mode === 'none') return nothing;
    const { tokens, dModel: D, heads: H } = this, t = tokens.length, f = this.fields;
    const heads = html`<label>heads <select class="heads" @change=${(e) => this.#edit({ heads: Number(e.target.value) })}>
      ${headChoices(D).map((h) => html`<option value=${h} ?selected=${h === H}>${h}</option>`)}</select></label>`;
    if (mode === 'compact') return html`<div class="controls">${heads}</div>`;
    return html`<div class="controls">
        <label>example <select class="preset" @change=${(e) => { this.preset = e.target.value; this.#loadPreset(true); this.stateChanged(); }}>
          <option value="cat-sat" ?selected=${this.preset === 'cat-sat'}>the / cat / sat</option><option value="custom" ?selected=${this.preset === 'custom'}>my own</option></select></label>
        <label>tokens <input type="text" class="tokens" .value=${tokens.join(' ')} aria-invalid=${f.invalid('tokens')} aria-describedby=${f.describedBy('tokens')} @change=${(e) => {
          const tk = f.tokens('tokens', e.target.value, { maxTokens: MAX_T });
          if (tk) this.#edit({ tokens: tk, x: resize(this.x, t, D, tk.length, D, this.seed + 10) });
        }}></label>${f.message('tokens')}
        <label>d<sub>model</sub> <select class="d-model" @change=${(e) => { const D1 = Number(e.target.value); this.#resize(D, D1); this.#edit({ dModel: D1, heads: D1 % H ? 1 : H }); }}>
          ${[2, 4, 6, 8].map((d) => html`<option value=${d} ?selected=${d === D}>${d}</option>`)}</select></label>
        ${heads}
        <label>mask <select class="mask" @change=${(e) => this.#edit({ mask: e.target.value })}>
          ${['none', 'causal'].map((m) => html`<option value=${m} ?selected=${m === this.mask}>${m}</option>`)}</select></label>
        <label>seed <input type="number" class="seed" min="0" .value=${String(this.seed)} aria-invalid=${f.invalid('seed')} aria-describedby=${f.describedBy('seed')}
          @change=${(e) => { const v = f.number('seed', e.target, { min: 0, max: 1e9, integer: true, name: 'seed' }); if (v !== null) { this.seed = v; this.stateChanged(); } }}></label>${f.message('seed')}
        <button type="button" class="randomise" @click=${() => { const s = this.seed; this.#edit({ x: uniformMatrix(s, t * D), wq: uniformMatrix(s + 1, D * D), wk: uniformMatrix(s + 2, D * D), wv: uniformMatrix(s + 3, D * D), wo: uniformMatrix(s + 4, D * D) }); }}>Randomise</button>
      </div>`;
  }

  /** Weights are probabilities: the fixed [0, 1] colour range unless weight-range="map". */
  get #fixedWeights() { return this.weightRange !== 'map'; }

  renderWidget(lab) {
    const r = this.compute(lab);
    if (this.slideLayout) return this.#renderSlide(r);
    const { tokens, dModel: D, heads: H } = this, t = tokens.length, dk = D / H;
    const dims = (n, p = 'd') => this.#kept(`dims|${p}|${n}`, () => Array.from({ length: n }, (_, j) => `${p}${j + 1}`));
    const concatLabels = this.#kept(`concat|${D}|${dk}`, () => Array.from({ length: D }, (_, j) => `h${Math.floor(j / dk) + 1}·${(j % dk) + 1}`));
    const slice = (name, h) => this.#kept(`${name}|${h}|${this._computed?.key}`, () => (name === 'weights' ? r.weights.subarray(h * t * t, (h + 1) * t * t) : headSlice(r[name], t, D, h, dk)));
    // A stage is drawn when it is shown and its part of the first draw has come (parts.js).
    const s = (i, k = 0) => this.shows(i) && drawn(this, PART[i] + k);
    const fixed = this.#fixedWeights;
    const hm = (cls, label, values, rows, cols, rowLabels, colLabels, prob = false) => html`<attn-heatmap class=${cls + this.#linkClass(cls)} .label=${label}
      .values=${values} .rows=${rows} .cols=${cols} .rowLabels=${rowLabels} .colLabels=${colLabels} .colormap=${prob ? 'sequential' : 'diverging'}
      .vmin=${prob && fixed ? 0 : null} .vmax=${prob && fixed ? 1 : null} max-width="300"
      .highlightCols=${cls === 'concat' ? this.#headCols() : null} @attn-cell-hover=${(e) => this.#hover(cls, e)}></attn-heatmap>`;
    const ed = (key, label, rows, cols, rowLabels, colLabels) => html`<attn-matrix-editor class=${key} .label=${label} .values=${this[key]}
      .rows=${rows} .cols=${cols} .rowLabels=${rowLabels} .colLabels=${colLabels} @attn-matrix-change=${(e) => this.#edit({ [key]: e.detail.values })}></attn-matrix-editor>`;
    const perHead = (fn) => Array.from({ length: H }, (_, h) => fn(h));
    return html`
      <attn-tex class="formula" display .expr=${`\\mathrm{head}_h = \\mathrm{softmax}\\!\\left(\\frac{Q_h K_h^\\top}{\\sqrt{d_k}}\\right)V_h,\\quad \\mathrm{MultiHead}(X) = \\mathrm{Concat}(\\mathrm{head}_1,\\dots,\\mathrm{head}_{${H}})\\,W_O,\\quad d_k = d_{model}/h = ${dk}`}></attn-tex>
      ${this.#controls(this.controlsMode)}
      ${this.#predictToggle()}${this.stageBar(this.predict ? PREDICT.names : STAGES)}
      <div class="stage s0"><h3>0 · Inputs: X and the weights (head h owns d<sub>k</sub> columns of each W: labels h·j)</h3>
        <div class="row">${ed('x', 'X', t, D, tokens, dims(D))}${ed('wq', 'W_Q', D, D, dims(D), concatLabels)}${ed('wk', 'W_K', D, D, dims(D), concatLabels)}
          ${drawn(this, 1) ? html`${ed('wv', 'W_V', D, D, dims(D), concatLabels)}${ed('wo', 'W_O', D, D, concatLabels, dims(D))}` : nothing}</div></div>
      ${s(1) ? html`<div class="stage s1"><h3>1 · Per head: Q<sub>h</sub>, K<sub>h</sub>, V<sub>h</sub></h3>
        <attn-tex .expr=${'Q_h = X W_Q^{(h)},\\quad K_h = X W_K^{(h)},\\quad V_h = X W_V^{(h)}'}></attn-tex>
        <div class="row">${perHead((h) => html`<div class="head">
          ${hm(`q head${h + 1}`, `Q${h + 1}`, slice('q', h), t, dk, tokens, dims(dk))}
          ${s(1, 1) ? hm(`k head${h + 1}`, `K${h + 1}`, slice('k', h), t, dk, tokens, dims(dk)) : nothing}
          ${s(1, 2) ? hm(`v head${h + 1}`, `V${h + 1}`, slice('v', h), t, dk, tokens, dims(dk)) : nothing}</div>`)}</div></div>` : nothing}
      ${this.#predictBlock(r, this.#predictView, 2, true)}
      ${s(2) ? html`<div class="stage s2"><h3>2 · Per-head attention weights</h3>
        <div class="row">${perHead((h) => hm(`weights head${h + 1}`, `head ${h + 1} weights`, slice('weights', h), t, t, tokens, tokens, true))}</div></div>` : nothing}
      ${s(3) ? html`<div class="stage s3"><h3>3 · Concatenate the heads’ outputs</h3>
        <attn-tex .expr=${'\\mathrm{Concat}(\\mathrm{head}_1,\\dots,\\mathrm{head}_h) \\in \\mathbb{R}^{t \\times d_{model}}'}></attn-tex>
        ${hm('concat', 'Concat(heads)', r.heads, t, D, tokens, concatLabels)}</div>` : nothing}
      ${s(4) ? html`<div class="stage s4"><h3>4 · Mix the heads: ·W<sub>O</sub></h3>
        ${hm('output', 'output', r.output, t, D, tokens, dims(D))}</div>` : nothing}`;
  }

  /** The formula of stage i (LaTeX). */
  #stageFormula(i) {
    const { tokens, dModel: D, heads: H } = this, t = tokens.length, dk = D / H;
    const heads = H === 1 ? 'Z_1' : H === 2 ? 'Z_1, Z_2' : `Z_1, \\dots, Z_{${H}}`;
    return [
      `X \\in \\mathbb{R}^{${t}\\times ${D}},\\quad W_Q, W_K, W_V, W_O \\in \\mathbb{R}^{${D}\\times ${D}},\\quad d_k = ${D}/${H} = ${dk}`,
      'Q_h = X W_Q^{(h)},\\quad K_h = X W_K^{(h)},\\quad V_h = X W_V^{(h)}',
      'A_h = \\mathrm{softmax}\\!\\left(\\frac{Q_h K_h^\\top}{\\sqrt{d_k}}\\right)',
      `Z_h = A_h V_h,\\qquad \\mathrm{Concat}(${heads}) \\in \\mathbb{R}^{${t}\\times ${D}}`,
      `\\mathrm{MultiHead}(X) = \\mathrm{Concat}(${heads})\\,W_O`,
    ][i];
  }

  /** Screen px per CSS px (a deck scales its canvas); a change re-renders (updated()). */
  #screenScale() {
    const w = this.offsetWidth, s = w ? this.getBoundingClientRect().width / w : 1;
    this._scale = s > 0.05 ? Math.round(s * 100) / 100 : 1;
    return this._scale;
  }

  updated(changed) {
    super.updated?.(changed);
    if (!this.slideLayout || !this.offsetWidth) return;
    const s = Math.round((this.getBoundingClientRect().width / this.offsetWidth) * 100) / 100;
    if (this._scale && Math.abs(s - this._scale) > 0.02) this.requestUpdate();
  }

  /** Slide layout: strip, compact controls, the stage's formula, the stage's matrices as large as fit. */
  #renderSlide(r) {
    const { tokens, dModel: D, heads: H } = this, t = tokens.length, dk = D / H;
    const pv = this.#predictView, stage = Math.max(0, Math.min(4, pv.own ?? 4));
    // Type sizes for the deck's scale (numbers with an 18 px glyph box on screen): a 1280×720 Slidev
    // canvas (×1.31) holds them in 37 px cells, reveal.js's (×1.05) in 44 px.
    const fonts = slideFonts(this.#screenScale());
    const levels = slideLevels(stage, { tokens, dModel: D, heads: H, x: this.x, wq: this.wq, wk: this.wk, wv: this.wv, wo: this.wo, r,
      phase: pv.phase, fixed: this.#fixedWeights, minFont: fonts.minFont, headSlice });
    const perHead = (fn) => Array.from({ length: H }, (_, h) => fn(h));
    const { width, height } = this.box;
    // Take the richest content whose maps reach cells that hold their numbers.
    const pick = pickSlide(levels, width, Math.max(60, height - this._headH - 8), fonts.minFont, { maxCell: 110 });
    const heatmap = (p, s) => html`<attn-heatmap class=${p.cls + this.#linkClass(p.cls)} .label=${p.label} .values=${p.values} .rows=${p.rows} .cols=${p.cols}
      .rowLabels=${p.rowLabels} .colLabels=${p.colLabels} .colormap=${p.colormap} .vmin=${p.vmin} .vmax=${p.vmax} .legend=${p.legend}
      .digits=${p.digits} .minFont=${p.minFont} .cellSize=${110} compact .fitWidth=${s.fitWidth} .fitHeight=${s.fitHeight}
      .highlightCols=${p.cls === 'concat' ? this.#headCols() : null} @attn-cell-hover=${(e) => this.#hover(p.cls, e)}></attn-heatmap>`;
    const groups = (p, s) => {
      const g = geometryOf(p, s.cell);
      return html`<div class="groups" style=${`width:${g.w}px`} aria-hidden="true">${perHead((h) => html`<span class=${h === this._head ? 'linked' : ''}
        style=${`left:${g.left + h * dk * g.cell + 2}px;width:${dk * g.cell - 4}px;border-color:${HEAD_COLORS[h % HEAD_COLORS.length]}`}>head ${h + 1}</span>`)}</div>`;
    };
    // The formula: inline KaTeX in display style, on one line (attn-tex shrinks it to the width).
    return html`<div class="slide-head"><div class="topline">${this.stageStrip(this.predict ? PREDICT_SHORT.names : SHORT_STAGES)}${this.#controls(this.controlsMode)}</div>
        <attn-tex class="formula current" .expr=${`\\displaystyle ${this.#stageFormula(stage)}`}></attn-tex>${this.#predictBlock(r, pv, stage)}</div>
      <div class=${`slide-main stage s${stage}`}>${pick.rows.map((rw, i) => html`<div class="prow">${rw.panels.map((p, j) => html`
        ${rw.ops?.[j] ? html`<span class=${rw.ops[j] === '|' ? 'op sep' : 'op'} aria-hidden="true">${rw.ops[j]}</span>` : nothing}
        ${p.groups ? html`<div class="panel">${heatmap(p, pick.fit.sizes[i][j])}${groups(p, pick.fit.sizes[i][j])}</div>` : heatmap(p, pick.fit.sizes[i][j])}`)}</div>`)}</div>`;
  }
}
