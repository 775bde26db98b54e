// <attn-multihead>: heads side by side — per-head Q/K/V and weights, the concatenation, W_O, output.
//
// Attributes: preset ("cat-sat" | "custom"), heads, d-model, stage (0 inputs, 1 per-head Q/K/V,
// 2 per-head weights, 3 concat, 4 output; absent = all), mask ("none" | "causal"), seed, hash-key.
// Properties: tokens, x, wq, wk, wv, wo (flat row-major; W [dModel·dModel], x·W).
// Events: attn-state-change { state }.
// Numbers: lab.multiHeadAttention (the per-head panels are column slices of its results).
import { html, nothing } from 'lit';
import { AttnWidget, optionalInt } from '../shared/widget.js';
import { uniformMatrix } from '../shared/rng.js';
import { parseTokens, resize } from '../steps/logic.js';
import { CAT_SAT, headChoices, headSlice } from './logic.js';
import '../shared/heatmap.js';
import '../shared/matrix-editor.js';
import '../shared/tex.js';

const MAX_T = 8, MAX_D = 8;
const STAGES = ['inputs', 'per-head Q, K, V', 'per-head weights', 'concat', 'output'];

export class AttnMultihead extends AttnWidget {
  static properties = {
    preset: { type: String, reflect: true },
    heads: { type: Number, reflect: true },
    dModel: { type: Number, attribute: 'd-model', reflect: true },
    stage: { converter: optionalInt, reflect: true },
    mask: { type: String },
    seed: { type: Number },
    tokens: { attribute: false },
    x: { attribute: false }, wq: { attribute: false }, wk: { attribute: false }, wv: { attribute: false }, wo: { attribute: false },
  };

  static stateSchema = {
    preset: { type: 'enum', values: ['cat-sat', 'custom'] },
    heads: { type: 'int', min: 1, max: MAX_D },
    dModel: { type: 'int', min: 1, max: MAX_D },
    mask: { type: 'enum', values: ['none', 'causal'] },
    seed: { type: 'int', min: 0, max: 1e9 },
    tokens: { type: 'strings', maxLength: MAX_T, maxChars: 16 },
    x: { type: 'nums', maxLength: MAX_T * MAX_D, min: -1000, max: 1000 },
    wq: { type: 'nums', maxLength: MAX_D * MAX_D, min: -1000, max: 1000 },
    wk: { type: 'nums', maxLength: MAX_D * MAX_D, min: -1000, max: 1000 },
    wv: { type: 'nums', maxLength: MAX_D * MAX_D, min: -1000, max: 1000 },
    wo: { type: 'nums', maxLength: MAX_D * MAX_D, min: -1000, max: 1000 },
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

  constructor() {
    super();
    this.preset = 'cat-sat';
    this.stage = null;
    this.mask = 'none';
    this.seed = 1;
    this._loadedPreset = null;
  }

  applyState(state) {
    super.applyState(state);
    this._loadedPreset = this.preset;
  }

  #loadPreset() {
    this._loadedPreset = this.preset;
    if (this.preset !== 'cat-sat' && this.x) return;
    const p = CAT_SAT;
    Object.assign(this, { tokens: [...p.tokens], dModel: p.dModel, heads: this.heads && p.dModel % this.heads === 0 ? this.heads : p.heads,
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


  compute(lab) {
    const t = this.tokens.length, D = this.dModel, H = this.heads;
    return lab.multiHeadAttention({ x: this.x, tq: t, dModel: D, heads: H, wq: this.wq, wk: this.wk, wv: this.wv, wo: this.wo, mask: this.mask });
  }

  renderWidget(lab) {
    const r = this.compute(lab);
    const { tokens, dModel: D, heads: H } = this, t = tokens.length, dk = D / H;
    const dims = (n, p = 'd') => Array.from({ length: n }, (_, j) => `${p}${j + 1}`);
    const concatLabels = Array.from({ length: D }, (_, j) => `h${Math.floor(j / dk) + 1}·${(j % dk) + 1}`);
    const hm = (cls, label, values, rows, cols, rowLabels, colLabels, cmap = 'auto') => html`<attn-heatmap class=${cls} .label=${label}
      .values=${values} .rows=${rows} .cols=${cols} .rowLabels=${rowLabels} .colLabels=${colLabels} .colormap=${cmap} max-width="300"></attn-heatmap>`;
    const ed = (key, label, rows, cols, rowLabels, colLabels) => html`<attn-matrix-editor class=${key} .label=${label} .values=${this[key]}
      .rows=${rows} .cols=${cols} .rowLabels=${rowLabels} .colLabels=${colLabels} @attn-matrix-change=${(e) => this.#edit({ [key]: e.detail.values })}></attn-matrix-editor>`;
    const perHead = (fn) => Array.from({ length: H }, (_, h) => fn(h));
    return html`
      <attn-tex class="formula" display .expr=${`\\mathrm{head}_h = \\mathrm{softmax}\\!\\left(\\frac{Q_h K_h^\\top}{\\sqrt{d_k}}\\right)V_h,\\quad \\mathrm{MultiHead}(X) = \\mathrm{Concat}(\\mathrm{head}_1,\\dots,\\mathrm{head}_{${H}})\\,W_O,\\quad d_k = d_{model}/h = ${dk}`}></attn-tex>
      <div class="controls">
        <label>example <select class="preset" @change=${(e) => { this.preset = e.target.value; this.#loadPreset(); this.stateChanged(); }}>
          <option value="cat-sat" ?selected=${this.preset === 'cat-sat'}>the / cat / sat</option><option value="custom" ?selected=${this.preset === 'custom'}>my own</option></select></label>
        <label>tokens <input type="text" class="tokens" .value=${tokens.join(' ')} @change=${(e) => {
          const tk = parseTokens(e.target.value);
          if (tk.length) this.#edit({ tokens: tk, x: resize(this.x, t, D, tk.length, D, this.seed + 10) });
        }}></label>
        <label>d<sub>model</sub> <select class="d-model" @change=${(e) => { const D1 = Number(e.target.value); this.#resize(D, D1); this.#edit({ dModel: D1, heads: D1 % H ? 1 : H }); }}>
          ${[2, 4, 6, 8].map((d) => html`<option value=${d} ?selected=${d === D}>${d}</option>`)}</select></label>
        <label>heads <select class="heads" @change=${(e) => this.#edit({ heads: Number(e.target.value) })}>
          ${headChoices(D).map((h) => html`<option value=${h} ?selected=${h === H}>${h}</option>`)}</select></label>
        <label>mask <select class="mask" @change=${(e) => this.#edit({ mask: e.target.value })}>
          ${['none', 'causal'].map((m) => html`<option value=${m} ?selected=${m === this.mask}>${m}</option>`)}</select></label>
        <label>seed <input type="number" class="seed" min="0" .value=${String(this.seed)} @change=${(e) => { this.seed = Math.max(0, Math.trunc(Number(e.target.value)) || 0); this.stateChanged(); }}></label>
        <button type="button" class="randomise" @click=${() => { const s = this.seed; this.#edit({ x: uniformMatrix(s, t * D), wq: uniformMatrix(s + 1, D * D), wk: uniformMatrix(s + 2, D * D), wv: uniformMatrix(s + 3, D * D), wo: uniformMatrix(s + 4, D * D) }); }}>Randomise</button>
      </div>
      ${this.stageBar(STAGES)}
      <div class="stage s0"><h3>0 · Inputs: X and the weights (head h owns d<sub>k</sub> columns of each W: labels h·j)</h3>
        <div class="row">${ed('x', 'X', t, D, tokens, dims(D))}${ed('wq', 'W_Q', D, D, dims(D), concatLabels)}${ed('wk', 'W_K', D, D, dims(D), concatLabels)}
          ${ed('wv', 'W_V', D, D, dims(D), concatLabels)}${ed('wo', 'W_O', D, D, concatLabels, dims(D))}</div></div>
      ${this.shows(1) ? html`<div class="stage s1"><h3>1 · Per head: Q<sub>h</sub>, K<sub>h</sub>, V<sub>h</sub></h3>
        <attn-tex .expr=${'Q_h = X W_Q^{(h)},\\quad K_h = X W_K^{(h)},\\quad V_h = X W_V^{(h)}'}></attn-tex>
        <div class="row">${perHead((h) => html`<div class="head">
          ${hm(`q head${h + 1}`, `Q${h + 1}`, headSlice(r.q, t, D, h, dk), t, dk, tokens, dims(dk))}
          ${hm(`k head${h + 1}`, `K${h + 1}`, headSlice(r.k, t, D, h, dk), t, dk, tokens, dims(dk))}
          ${hm(`v head${h + 1}`, `V${h + 1}`, headSlice(r.v, t, D, h, dk), t, dk, tokens, dims(dk))}</div>`)}</div></div>` : nothing}
      ${this.shows(2) ? html`<div class="stage s2"><h3>2 · Per-head attention weights</h3>
        <div class="row">${perHead((h) => hm(`weights head${h + 1}`, `head ${h + 1} weights`, r.weights.subarray(h * t * t, (h + 1) * t * t), t, t, tokens, tokens, 'sequential'))}</div></div>` : nothing}
      ${this.shows(3) ? html`<div class="stage s3"><h3>3 · Concatenate the heads’ outputs</h3>
        <attn-tex .expr=${'\\mathrm{Concat}(\\mathrm{head}_1,\\dots,\\mathrm{head}_h) \\in \\mathbb{R}^{t \\times d_{model}}'}></attn-tex>
        ${hm('concat', 'Concat(heads)', r.heads, t, D, tokens, concatLabels)}</div>` : nothing}
      ${this.shows(4) ? html`<div class="stage s4"><h3>4 · Mix the heads: ·W<sub>O</sub></h3>
        ${hm('output', 'output', r.output, t, D, tokens, dims(D))}</div>` : nothing}`;
  }
}
