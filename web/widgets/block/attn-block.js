// <attn-block>: data flowing through one Transformer encoder block — multi-head attention, Add & Norm,
// the feed-forward network, Add & Norm — with LayerNorm after each sub-layer (post-LN, the original
// paper) or before it (pre-LN, GPT and the notebook's Block).
//
// Attributes: norm ("post" | "pre"), activation ("gelu" | "relu"), mask ("none" | "causal"), tokens
// (a sentence), d-model, heads, ffn-ratio, seed, hash-key. Events: attn-state-change.
// Numbers: lab.encoderBlock (every intermediate it returns).
import { html, nothing } from 'lit';
import { AttnWidget } from '../shared/widget.js';
import { blockInput, blockWeights } from './logic.js';
import { parseTokens } from '../steps/logic.js';
import '../shared/heatmap.js';
import '../shared/tex.js';

const FORMULAS = {
  post: 'y = \\mathrm{LN}_1\\big(x + \\mathrm{MHA}(x)\\big),\\qquad \\mathrm{out} = \\mathrm{LN}_2\\big(y + \\mathrm{FFN}(y)\\big)',
  pre: 'y = x + \\mathrm{MHA}\\big(\\mathrm{LN}_1(x)\\big),\\qquad \\mathrm{out} = y + \\mathrm{FFN}\\big(\\mathrm{LN}_2(y)\\big)',
};

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
  };

  static stateSchema = {
    norm: { type: 'enum', values: ['post', 'pre'] },
    activation: { type: 'enum', values: ['gelu', 'relu'] },
    mask: { type: 'enum', values: ['none', 'causal'] },
    tokens: { type: 'text', maxChars: 120 },
    dModel: { type: 'int', min: 2, max: 16 },
    heads: { type: 'int', min: 1, max: 8 },
    ffnRatio: { type: 'int', min: 1, max: 4 },
    seed: { type: 'int', min: 0, max: 1e9 },
  };

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
  }

  renderWidget(lab) {
    if (typeof lab.encoderBlock !== 'function') return html`<p class="error">This build of attnlab has no lab.encoderBlock yet.</p>`;
    const toks = parseTokens(this.tokens);
    if (!toks.length) return html`<p class="error">Type a sentence.</p>`;
    const t = toks.length, D = this.dModel, H = D % this.heads ? 1 : this.heads, F = D * this.ffnRatio;
    const x = blockInput(this.seed, t, D);
    const r = lab.encoderBlock({ x, t, dModel: D, heads: H, dFF: F, norm: this.norm, activation: this.activation, mask: this.mask, weights: blockWeights(this.seed, D, F) });
    const dims = Array.from({ length: D }, (_, j) => `d${j + 1}`), hid = Array.from({ length: F }, (_, j) => String(j + 1));
    const hm = (cls, label, values, cols = D, colLabels = dims, cmap = 'auto') => html`<attn-heatmap class=${cls} .label=${label} .values=${values}
      .rows=${t} .cols=${cols} .rowLabels=${toks} .colLabels=${colLabels} .colormap=${cmap} max-width=${cols > D ? 420 : 260} cell-size="30"></attn-heatmap>`;
    const arrow = html`<span class="arrow" aria-hidden="true" style="align-self:center;font-size:1.6em;color:#57606a">→</span>`;
    const heads = Array.from({ length: H }, (_, h) => hm(`attn-weights head${h + 1}`, `head ${h + 1} weights`, r.attnWeights.subarray(h * t * t, (h + 1) * t * t), t, toks, 'sequential'));
    const post = this.norm === 'post';
    return html`
      <attn-tex class="formula" display .expr=${FORMULAS[this.norm] + `,\\qquad \\mathrm{FFN}(y) = \\mathrm{${this.activation === 'gelu' ? 'GELU' : 'ReLU'}}(yW_1 + b_1)W_2 + b_2`}></attn-tex>
      <attn-tex .expr=${'\\mathrm{LN}(z) = \\gamma \\odot \\frac{z - \\mu(z)}{\\sqrt{\\sigma^2(z) + \\epsilon}} + \\beta \\quad \\text{(per token, over its } d_{model} \\text{ features)}'}></attn-tex>
      <div class="controls">
        <label>LayerNorm <select class="norm" @change=${(e) => this.setState({ norm: e.target.value })}>
          <option value="post" ?selected=${post}>post-LN (paper)</option><option value="pre" ?selected=${!post}>pre-LN (GPT)</option></select></label>
        <label>activation <select class="activation" @change=${(e) => this.setState({ activation: e.target.value })}>
          ${['gelu', 'relu'].map((a) => html`<option value=${a} ?selected=${a === this.activation}>${a.toUpperCase()}</option>`)}</select></label>
        <label>mask <select class="mask" @change=${(e) => this.setState({ mask: e.target.value })}>
          ${['none', 'causal'].map((m) => html`<option value=${m} ?selected=${m === this.mask}>${m}</option>`)}</select></label>
        <label>heads <select class="heads" @change=${(e) => this.setState({ heads: Number(e.target.value) })}>
          ${[1, 2, 4].filter((h) => D % h === 0).map((h) => html`<option value=${h} ?selected=${h === H}>${h}</option>`)}</select></label>
        <label>tokens <input type="text" class="tokens" .value=${this.tokens} maxlength="120" @change=${(e) => this.setState({ tokens: e.target.value })}></label>
        <label>seed <input type="number" class="seed" min="0" .value=${String(this.seed)} @change=${(e) => this.setState({ seed: Math.max(0, Math.trunc(Number(e.target.value)) || 0) })}></label>
      </div>
      <p class="note">d<sub>model</sub> = ${D}, ${H} head${H > 1 ? 's' : ''}, d<sub>ff</sub> = ${F} (ratio ${this.ffnRatio}); X and the weights are seeded random (seed ${this.seed}). Read left to right, top to bottom.</p>
      <h3>Attention sub-layer</h3>
      <div class="row">
        ${hm('x', 'x (input)', x)}${arrow}
        ${post ? nothing : html`${hm('norm1', 'LN₁(x)', r.norm1)}${arrow}`}
        ${heads}${arrow}${hm('attn-out', 'MHA output', r.attnOut)}${arrow}
        ${hm('residual1', 'x + MHA (Add)', r.residual1)}
        ${post ? html`${arrow}${hm('norm1', 'LN₁ (Norm) = y', r.norm1)}` : nothing}
      </div>
      <h3>Feed-forward sub-layer</h3>
      <div class="row">
        ${post ? nothing : html`${hm('norm2', 'LN₂(y)', r.norm2)}${arrow}`}
        ${hm('ffn-hidden', `hidden: ${this.activation.toUpperCase()}(·W₁ + b₁)`, r.ffnHidden, F, hid)}${arrow}
        ${hm('ffn-out', 'FFN output', r.ffnOut)}${arrow}
        ${hm('residual2', 'y + FFN (Add)', r.residual2)}
        ${post ? html`${arrow}${hm('norm2', 'LN₂ (Norm)', r.norm2)}` : nothing}
        ${arrow}${hm('output', 'block output', r.output)}
      </div>`;
  }
}
