// <attn-block>: data flowing through one Transformer encoder block — multi-head attention, Add & Norm,
// the feed-forward network, Add & Norm — with LayerNorm after each sub-layer (post-LN, the original
// paper) or before it (pre-LN, GPT and the notebook's Block).
//
// Attributes: norm ("post" | "pre"), activation ("gelu" | "relu"), mask ("none" | "causal"), tokens
// (a sentence), d-model, heads, ffn-ratio, seed, stage (0 input, 1 attention, 2 add & norm 1, 3 FFN,
// 4 add & norm 2 = output; absent = all), emphasis ("add": on a slide, an Add & Norm stage shows the
// residual sum x + sub-layer(x) as its main map, for a slide about residual connections; default: the
// stage's result), weight-range ("fixed": weights on [0, 1]; "map"), hash-key,
// and the shared layout / controls / fit-height. Events: attn-state-change.
// On a slide the block is a flow strip (x → MHA → Add & Norm → FFN → Add & Norm, a thumbnail of each
// result, the current step highlighted) above the current step's matrices, as large as the box allows.
// Numbers: lab.encoderBlock (every intermediate it returns).
import { html, svg, css, nothing } from 'lit';
import { AttnWidget, optionalInt } from '../shared/widget.js';
import { packPanels, packRow } from '../shared/fit.js';
import { scaleFor, css as rgbCss } from '../shared/colormap.js';
import { blockInput, blockWeights } from './logic.js';
import { MAX_SENTENCE_CHARS, parseTokens } from '../shared/tokens.js';
import { drawInParts, drawn } from '../shared/parts.js';
import '../shared/heatmap.js';
import '../shared/tex.js';

const FORMULAS = {
  post: 'y = \\mathrm{LN}_1\\big(x + \\mathrm{MHA}(x)\\big),\\qquad \\mathrm{out} = \\mathrm{LN}_2\\big(y + \\mathrm{FFN}(y)\\big)',
  pre: 'y = x + \\mathrm{MHA}\\big(\\mathrm{LN}_1(x)\\big),\\qquad \\mathrm{out} = y + \\mathrm{FFN}\\big(\\mathrm{LN}_2(y)\\big)',
};

/** The stages a deck steps through (`stage` attribute), as the flow strip names them per norm placement. */
export const STAGES = ['input', 'attention', 'add & norm 1', 'FFN', 'add & norm 2 = output'];
const FLOW = {
  post: ['x', 'MHA', 'Add & Norm', 'FFN', 'Add & Norm = out'],
  pre: ['x', 'LN → MHA', 'Add', 'LN → FFN', 'Add = out'],
};

const LN = '\\mathrm{LN}(z) = \\gamma \\odot \\frac{z - \\mu(z)}{\\sqrt{\\sigma^2(z) + \\epsilon}} + \\beta';

/** The part of the page's first draw (labReady) at which stage i's first map comes: stages 1 and 3 take three parts. */
const PART = [0, 1, 4, 5, 8];

export class AttnBlock extends AttnWidget {
  static properties = {
    norm: { type: String },
    activation: { type: String },
    mask: { type: String },
    tokens: { type: String },
    dModel: { type: Number, attribute: 'd-model' },
    heads: { type: Number },
    ffnRatio: { type: Number, attribute: 'ffn-ratio' },
    seed: { type: Number },
    /** 0 input, 1 attention, 2 add & norm 1, 3 FFN, 4 add & norm 2 = output; absent = all. */
    stage: { converter: optionalInt, reflect: true },
    /** Attention weights on the fixed [0, 1] scale ('fixed', default) or on the map's own range ('map'). */
    weightRange: { type: String, attribute: 'weight-range' },
    /** 'add': an Add & Norm stage (slide layout) shows the residual sum as its main map; '' (default): the stage's result. */
    emphasis: { type: String },
    /** The part of the page's first draw drawn so far (parts.js; null: all). */
    _drawPart: { state: true },
  };

  static stateSchema = {
    norm: { type: 'enum', values: ['post', 'pre'] },
    activation: { type: 'enum', values: ['gelu', 'relu'] },
    mask: { type: 'enum', values: ['none', 'causal'] },
    tokens: { type: 'text', maxChars: MAX_SENTENCE_CHARS, nonBlank: true },
    dModel: { type: 'int', min: 2, max: 16 },
    heads: { type: 'int', min: 1, max: 8 },
    ffnRatio: { type: 'int', min: 1, max: 4 },
    seed: { type: 'int', min: 0, max: 1e9 },
    stage: { type: 'int', min: 0, max: 4 },  // "show up to" (absent: all)
  };

  static styles = [AttnWidget.styles, css`
    .slide-head { display: flex; flex-direction: column; gap: 4px; }
    .slide-head .topline { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 14px; }
    .slide-head .controls { margin: 0; gap: 4px 12px; font-size: 16px; }
    .slide-head .formula { margin: 0; padding: 0 8px; }
    .flow { display: flex; align-items: stretch; gap: 0; list-style: none; padding: 0; margin: 0; font-size: 15px; line-height: 1.2; }
    .flow li { display: flex; align-items: center; }
    .flow li.sep { color: #57606a; padding: 0 3px; font-size: 18px; }
    .flow button { display: flex; flex-direction: column; align-items: center; gap: 2px; padding: 2px 6px; border-radius: 8px;
      border: 1px solid #d0d7de; background: #fff; color: #24292f; white-space: nowrap; font-size: 15px; line-height: 1.2; }
    .flow button:disabled { cursor: default; }
    .flow .name { white-space: pre; text-align: center; }
    .flow .done button { background: #f6f8fa; }
    .flow .current button { border: 2px solid #0969da; background: #ddf4ff; font-weight: 600; }
    .flow .todo button { color: #8c959f; border-style: dashed; }
    .flow .todo svg { visibility: hidden; }
    .slide-main { display: flex; flex-direction: column; gap: 6px; margin-top: 6px; }
    .slide-row { display: flex; align-items: flex-start; }
    .slide-main .arrow { align-self: center; width: 28px; text-align: center; font-size: 24px; color: #57606a; flex: none; }
  `];

  static checkState(s) {
    return s.dModel && s.heads && s.dModel % s.heads ? 'heads must divide d_model' : '';
  }

  constructor() {
    super();
    this.norm = 'post';
    this.activation = 'gelu';
    this.mask = 'none';
    this.tokens = 'the cat sat on the mat';
    this.dModel = 8;
    this.heads = 2;
    this.ffnRatio = 4;
    this.seed = 1;
    this.stage = null;
    this.weightRange = 'fixed';
    this.emphasis = '';
    this._headH = 0;
  }

  /** Everything the widget shows, from lab.encoderBlock. */
  compute(lab) {
    // The same settings give the same object: a render that draws the next part of the first draw (or a
    // re-layout) hands the maps drawn before the same arrays, so they are not drawn again.
    const key = [this.tokens, this.dModel, this.heads, this.ffnRatio, this.seed, this.norm, this.activation, this.mask].join('|');
    if (this._computed?.key === key && this._computed.lab === lab) return this._computed.c;
    const toks = parseTokens(this.tokens);
    const t = toks.length, D = this.dModel, H = D % this.heads ? 1 : this.heads, F = D * this.ffnRatio;
    const x = blockInput(this.seed, t, D);
    const r = lab.encoderBlock({ x, t, dModel: D, heads: H, dFF: F, norm: this.norm, activation: this.activation, mask: this.mask, weights: blockWeights(this.seed, D, F) });
    const c = { toks, t, D, H, F, x, r };
    this._computed = { key, lab, c };
    return c;
  }

  /**
   * The page's first draw, a map (or the heads' maps) per task: the input; LN₁, the heads' weights and
   * the MHA output; the first Add & Norm; LN₂, the FFN's hidden layer and its output; the block's output
   * (PART: the first part of each stage). A stage's maps in one task took ~80 ms of CPU at 4x throttle.
   */
  labReady() {
    drawInParts(this, PART[4] + 1);
  }

  get #fixedWeights() { return this.weightRange !== 'map'; }

  #act() { return this.activation === 'gelu' ? 'GELU' : 'ReLU'; }

  /** The formula of stage `s` (slide layout: the highlighted one). */
  #stageFormula(s, c) {
    const post = this.norm === 'post', act = this.#act();
    if (post && this.emphasis === 'add' && s === 2) return '\\underbrace{x + \\mathrm{MHA}(x)}_{\\text{residual sum}}\\ \\to\\ y = \\mathrm{LN}_1\\big(x + \\mathrm{MHA}(x)\\big)';
    if (post && this.emphasis === 'add' && s === 4) return '\\underbrace{y + \\mathrm{FFN}(y)}_{\\text{residual sum}}\\ \\to\\ \\mathrm{out} = \\mathrm{LN}_2\\big(y + \\mathrm{FFN}(y)\\big)';
    const inner = post ? 'y' : '\\mathrm{LN}_2(y)';
    return [
      `x \\in \\mathbb{R}^{t \\times d_{model}}\\quad(t = ${c.t},\\ d_{model} = ${c.D}):\\ \\text{one row per token}`,
      `${post ? '\\mathrm{MHA}(x)' : '\\mathrm{MHA}\\big(\\mathrm{LN}_1(x)\\big)'} = \\mathrm{Concat}(\\mathrm{head}_1, \\dots, \\mathrm{head}_{${c.H}})\\,W_O,\\quad \\mathrm{head}_i = \\mathrm{softmax}\\Big(\\tfrac{Q_iK_i^\\top}{\\sqrt{d_k}}\\Big)V_i`,
      post ? `y = \\mathrm{LN}_1\\big(x + \\mathrm{MHA}(x)\\big),\\qquad ${LN}` : 'y = x + \\mathrm{MHA}\\big(\\mathrm{LN}_1(x)\\big)\\quad\\text{(the residual path skips the norm)}',
      `\\mathrm{FFN}(${inner}) = \\mathrm{${act}}\\big(${inner}\\,W_1 + b_1\\big)\\,W_2 + b_2,\\quad W_1 \\in \\mathbb{R}^{${c.D} \\times ${c.F}}`,
      post ? '\\mathrm{out} = \\mathrm{LN}_2\\big(y + \\mathrm{FFN}(y)\\big)' : '\\mathrm{out} = y + \\mathrm{FFN}\\big(\\mathrm{LN}_2(y)\\big)',
    ][s];
  }

  /** The matrices of stage `s` in slide layout: context maps (weight < 1) leading to the stage's result. */
  #stagePanels(s, c) {
    const { toks, t, D, H, F, x, r } = c, post = this.norm === 'post';
    const dims = Array.from({ length: D }, (_, j) => `d${j + 1}`), hid = Array.from({ length: F }, (_, j) => String(j + 1));
    const P = (cls, label, values, weight = 1, opts = {}) => ({ cls, label, values, rows: t, cols: D, rowLabels: toks, colLabels: dims, weight, ...opts });
    const heads = Array.from({ length: H }, (_, h) => P(`attn-weights head${h + 1}`, `head ${h + 1} weights`, r.attnWeights.subarray(h * t * t, (h + 1) * t * t), 0.45,
      { cols: t, colLabels: toks, probability: true }));
    const hidden = P('ffn-hidden', `${this.#act()}(·W₁ + b₁): t × ${F}`, r.ffnActivated, 0.4, { cols: F, colLabels: hid, keep: true });
    if (post && this.emphasis === 'add' && (s === 2 || s === 4)) {
      // The residual sum is the point: the sub-layer's output, then input + it (the Add), full size.
      return s === 2
        ? [P('x', 'x', x, 0.45), P('attn-out', 'MHA(x)', r.attnOut, 0.45), P('residual1', 'x + MHA(x): the residual sum', r.residual1)]
        : [P('norm1', 'y', r.norm1, 0.45), P('ffn-out', 'FFN(y)', r.ffnOut, 0.45), P('residual2', 'y + FFN(y): the residual sum', r.residual2)];
    }
    if (post) {
      return [
        [P('x', 'x (input)', x)],
        [...heads, P('attn-out', 'MHA(x)', r.attnOut)],
        [P('residual1', 'x + MHA(x) (Add)', r.residual1, 0.6), P('norm1', 'y = LN₁(·) (Norm)', r.norm1)],
        [P('norm1', 'y', r.norm1, 0.5), hidden, P('ffn-out', 'FFN(y)', r.ffnOut)],
        [P('residual2', 'y + FFN(y) (Add)', r.residual2, 0.6), P('norm2 output', 'LN₂(·) = block output', r.norm2)],
      ][s];
    }
    return [
      [P('x', 'x (input)', x)],
      [P('norm1', 'LN₁(x)', r.norm1, 0.5), ...heads, P('attn-out', 'MHA(LN₁(x))', r.attnOut)],
      [P('attn-out', 'MHA(LN₁(x))', r.attnOut, 0.6), P('residual1', 'y = x + MHA (Add)', r.residual1)],
      [P('norm2', 'LN₂(y)', r.norm2, 0.5), hidden, P('ffn-out', 'FFN(LN₂(y))', r.ffnOut)],
      [P('ffn-out', 'FFN(LN₂(y))', r.ffnOut, 0.6), P('residual2 output', 'y + FFN = block output', r.residual2)],
    ][s];
  }

  /** A tiny picture of a t × D result for the flow strip (colours only; the big maps carry the numbers). */
  #thumb(values, rows, cols, maxH = 30) {
    const cell = Math.max(1, Math.min(5, Math.floor(maxH / rows), Math.floor((maxH * 1.8) / cols)));
    const scale = scaleFor(values, 'diverging');
    const rects = [];
    for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++)
      rects.push(svg`<rect x=${j * cell} y=${i * cell} width=${cell} height=${cell} fill=${rgbCss(scale.color(values[i * cols + j]))}></rect>`);
    return html`<svg width=${cols * cell} height=${rows * cell} aria-hidden="true">${rects}</svg>`;
  }

  #flow(stage, c) {
    const { r, t, D, x } = c, post = this.norm === 'post';
    const results = [x, r.attnOut, post ? r.norm1 : r.residual1, r.ffnOut, post ? r.norm2 : r.residual2];
    // A narrow box: "Add & Norm" on two lines, smaller thumbnails.
    const narrow = this.box.width < 640;
    const names = (FLOW[this.norm] ?? FLOW.post).map((n) => (narrow ? n.replace(' = out', '').replace(/ (&|→) /, ' $1\n') : n));
    const interactive = this.controlsMode !== 'none';
    const items = [];
    names.forEach((name, i) => {
      if (i) items.push(html`<li class="sep" aria-hidden="true">→</li>`);
      const state = i === stage ? 'current' : i < stage ? 'done' : 'todo';
      items.push(html`<li class=${state} aria-current=${i === stage ? 'step' : 'false'}>
        <button type="button" ?disabled=${!interactive} title=${`${i} ${STAGES[i]}`} @click=${() => { this.stage = i; }}>
          <span class="name">${name}</span>${this.#thumb(results[i], t, D, narrow ? 20 : 30)}</button></li>`);
    });
    return html`<ol class="flow" aria-label="stages of the block">${items}</ol>`;
  }

  #controls(compact) {
    const post = this.norm === 'post';
    return html`
      <label>${compact ? 'norm' : 'LayerNorm'} <select class="norm" @change=${(e) => this.setState({ norm: e.target.value })}>
        <option value="post" ?selected=${post}>post-LN${compact ? '' : ' (paper)'}</option><option value="pre" ?selected=${!post}>pre-LN${compact ? '' : ' (GPT)'}</option></select></label>
      <label>${compact ? 'φ' : 'activation'} <select class="activation" @change=${(e) => this.setState({ activation: e.target.value })}>
        ${['gelu', 'relu'].map((a) => html`<option value=${a} ?selected=${a === this.activation}>${a.toUpperCase()}</option>`)}</select></label>`;
  }

  /** Slide layout: the flow strip, the current step's formula, its matrices as large as the box allows. */
  #renderSlide(c) {
    const stage = Math.max(0, Math.min(4, this.stage ?? 4));
    const panels = this.#stagePanels(stage, c).map((p) => ({ ...p, compact: true, legend: true, shareRows: true }));
    const { width, height } = this.box;
    const headH = this._headH || 110;
    // Arrows between the maps take the gaps; one row, or two when that gives bigger cells.
    const h = Math.max(60, height - headH - 8), opts = { gap: 28, rowGap: 6, maxCell: 110 };
    let layout = packPanels(panels, width, h, opts);
    // packPanels drops the context maps when they cost the result its size; the FFN's hidden layer
    // (t × d_ff, the point of that step) stays: then one row of all, legends beside or under.
    const shown = new Set(layout.rows.flat().map((p) => p.cls));
    if (panels.some((p) => p.keep && !shown.has(p.cls))) {
      layout = null;
      const mainCell = (r, ps) => Math.min(...r.panels.map((q, i) => (ps[i].weight >= 1 ? q.cell : Infinity)));
      for (const ps of [panels, panels.filter((p) => p.weight >= 1 || p.keep)]) {
        for (const legendPos of ['right', 'bottom']) {
          const prep = (row) => row.map((p, i) => ({ ...p, legendPos, noRowLabels: i > 0 && row[i - 1].rows === p.rows }));
          // One row, or (a narrow box) the kept map above the result.
          const splits = [[ps], [ps.slice(0, -1), ps.slice(-1)]];
          for (const split of splits) {
            const rows = split.map(prep), hh = (h - opts.rowGap * (rows.length - 1)) / rows.length;
            const rs = rows.map((row) => packRow(row, width, hh, { gap: opts.gap, maxCell: opts.maxCell }));
            const fits = rs.every((r) => r.fits), cell = Math.min(...rs.map((r, k) => mainCell(r, rows[k])));
            if (!layout || (fits && !layout.fits) || (fits === layout.fits && cell > layout.cell))
              layout = { rows: rows.map((row, k) => row.map((p, i) => ({ ...p, ...rs[k].panels[i] }))), cell, fits };
          }
        }
      }
    }
    const controls = this.controlsMode === 'none' ? nothing : html`<div class="controls">${this.#controls(true)}</div>`;
    const fixed = this.#fixedWeights;
    const row = (ps) => ps.map((p, i) => html`${i ? html`<span class="arrow" aria-hidden="true">→</span>` : nothing}<attn-heatmap class=${p.cls}
        .label=${p.label} .values=${p.values} .rows=${p.rows} .cols=${p.cols}
        .rowLabels=${p.rowLabels} .colLabels=${p.colLabels} .colormap=${p.probability ? 'sequential' : 'diverging'}
        .vmin=${p.probability && fixed ? 0 : null} .vmax=${p.probability && fixed ? 1 : null} .digits=${2} .cellSize=${110} compact
        .legendPos=${p.legendPos ?? 'right'} ?no-row-labels=${!!p.noRowLabels} .fitWidth=${p.fitWidth} .fitHeight=${p.fitHeight}></attn-heatmap>`);
    return html`<div class="slide-head"><div class="topline">${this.#flow(stage, c)}${controls}</div>
        <attn-tex class="formula current" .expr=${this.#stageFormula(stage, c)}></attn-tex></div>
      <div class="slide-main stage s${stage}">${layout.rows.map((ps) => html`<div class="slide-row">${row(ps)}</div>`)}</div>`;
  }

  renderWidget(lab) {
    if (typeof lab.encoderBlock !== 'function') return html`<p class="error">This build of attnlab has no lab.encoderBlock yet.</p>`;
    if (!parseTokens(this.tokens).length) return html`<p class="error">Type a sentence.</p>`;
    const c = this.compute(lab);
    if (this.slideLayout) return this.#renderSlide(c);
    const { toks, t, D, H, F, x, r } = c;
    // (kept with the numbers: new label arrays would redraw every map)
    c.dims ??= Array.from({ length: D }, (_, j) => `d${j + 1}`);
    c.hid ??= Array.from({ length: F }, (_, j) => String(j + 1));
    c.headWeights ??= Array.from({ length: H }, (_, h) => r.attnWeights.subarray(h * t * t, (h + 1) * t * t));
    const { dims, hid } = c;
    const fixed = this.#fixedWeights;
    const hm = (cls, label, values, cols = D, colLabels = dims, probability = false) => html`<attn-heatmap class=${cls} .label=${label} .values=${values}
      .rows=${t} .cols=${cols} .rowLabels=${toks} .colLabels=${colLabels} .colormap=${probability ? 'sequential' : 'diverging'}
      .vmin=${probability && fixed ? 0 : null} .vmax=${probability && fixed ? 1 : null} max-width=${cols > D ? 420 : 340} cell-size="30"></attn-heatmap>`;
    const arrow = html`<span class="arrow" aria-hidden="true" style="align-self:center;font-size:1.6em;color:#57606a">→</span>`;
    const heads = Array.from({ length: H }, (_, h) => hm(`attn-weights head${h + 1}`, `block · head ${h + 1} weights`, c.headWeights[h], t, toks, true));
    // A stage is drawn when it is shown and its part of the first draw has come (parts.js).
    const post = this.norm === 'post', s = (i, k = 0) => this.shows(i) && drawn(this, PART[i] + k), f = this.fields;
    return html`
      <attn-tex class="formula" display .expr=${FORMULAS[this.norm] + `,\\qquad \\mathrm{FFN}(y) = \\mathrm{${this.#act()}}(yW_1 + b_1)W_2 + b_2`}></attn-tex>
      <attn-tex class="formula" display .expr=${`${LN} \\quad \\text{(per token, over its } d_{model} \\text{ features)}`}></attn-tex>
      <div class="controls">
        ${this.#controls(false)}
        <label>mask <select class="mask" @change=${(e) => this.setState({ mask: e.target.value })}>
          ${['none', 'causal'].map((m) => html`<option value=${m} ?selected=${m === this.mask}>${m}</option>`)}</select></label>
        <label>heads <select class="heads" @change=${(e) => this.setState({ heads: Number(e.target.value) })}>
          ${[1, 2, 4].filter((h) => D % h === 0).map((h) => html`<option value=${h} ?selected=${h === H}>${h}</option>`)}</select></label>
        <label>tokens <input type="text" class="tokens" .value=${this.tokens} aria-invalid=${f.invalid('tokens')} aria-describedby=${f.describedBy('tokens')}
          @change=${(e) => { const tk = f.tokens('tokens', e.target.value, { maxTokens: 8 }); if (tk) this.setState({ tokens: tk.join(' ') }); }}></label>${f.message('tokens')}
        <label>seed <input type="number" class="seed" min="0" .value=${String(this.seed)} aria-invalid=${f.invalid('seed')} aria-describedby=${f.describedBy('seed')}
          @change=${(e) => { const v = f.number('seed', e.target, { min: 0, max: 1e9, integer: true, name: 'seed' }); if (v !== null) this.setState({ seed: v }); }}></label>${f.message('seed')}
      </div>
      ${this.stageBar(STAGES)}
      <p class="note">d<sub>model</sub> = ${D}, ${H} head${H > 1 ? 's' : ''}, d<sub>ff</sub> = ${F} (ratio ${this.ffnRatio}); X and the weights are seeded random (seed ${this.seed}). Read left to right, top to bottom.</p>
      <h3>Attention sub-layer</h3>
      <div class="row">
        ${hm('x', 'x (input)', x)}
        ${s(1) ? html`${arrow}${post ? nothing : html`${hm('norm1', 'LN₁(x)', r.norm1)}${arrow}`}` : nothing}${s(1, 1) ? html`${heads}${arrow}` : nothing}${s(1, 2) ? hm('attn-out', 'MHA output', r.attnOut) : nothing}
        ${s(2) ? html`${arrow}${hm('residual1', post ? 'x + MHA (Add)' : 'x + MHA (Add) = y', r.residual1)}
          ${post ? html`${arrow}${hm('norm1', 'LN₁ (Norm) = y', r.norm1)}` : nothing}` : nothing}
      </div>
      ${s(3) ? html`<h3>Feed-forward sub-layer</h3>
      <div class="row">
        ${post ? nothing : html`${hm('norm2', 'LN₂(y)', r.norm2)}${arrow}`}
        ${s(3, 1) ? html`${hm('ffn-hidden', `hidden: ${this.activation.toUpperCase()}(·W₁ + b₁)`, r.ffnActivated, F, hid)}${arrow}` : nothing}
        ${s(3, 2) ? hm('ffn-out', 'FFN output', r.ffnOut) : nothing}
        ${s(4) ? html`${arrow}${post
          ? html`${hm('residual2', 'y + FFN (Add)', r.residual2)}${arrow}${hm('norm2 output', 'LN₂ (Norm) = block output', r.norm2)}`
          : hm('residual2 output', 'y + FFN (Add) = block output', r.residual2)}` : nothing}
      </div>` : nothing}`;
  }
}
