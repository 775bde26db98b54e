// <attn-cross>: cross-attention between two sentences of different lengths. Queries come from the
// target sentence (the decoder), keys and values from the source (the encoder): the weights matrix
// is t_target × t_source, an alignment.
//
// Attributes: source, target (sentences), sharpness, heads, hash-key. Events: attn-state-change.
// Numbers: lab.multiHeadAttention with `context` (the toy embeddings are inputs, see logic.js).
import { html } from 'lit';
import { AttnWidget } from '../shared/widget.js';
import { parseTokens } from '../steps/logic.js';
import { embed, scaledIdentity } from './logic.js';
import '../shared/heatmap.js';
import '../shared/tex.js';

const D = 16;

export class AttnCross extends AttnWidget {
  static properties = {
    source: { type: String },
    target: { type: String },
    sharpness: { type: Number },
    heads: { type: Number },
  };

  static stateSchema = {
    source: { type: 'text', maxChars: 120 },  // free text, shown as text (never HTML)
    target: { type: 'text', maxChars: 120 },
    sharpness: { type: 'num', min: 0.1, max: 20 },
    heads: { type: 'int', min: 1, max: 4 },
  };

  constructor() {
    super();
    this.source = 'the black cat sat on the mat';
    this.target = 'le chat noir est assis sur le tapis';
    this.sharpness = 10;
    this.heads = 1;
  }

  renderWidget(lab) {
    const src = parseTokens(this.source), tgt = parseTokens(this.target);
    if (!src.length || !tgt.length) return html`<p class="error">Type a source and a target sentence.</p>`;
    const H = [1, 2, 4].includes(this.heads) ? this.heads : 1;
    const r = lab.multiHeadAttention({
      x: embed(tgt, D), tq: tgt.length, context: embed(src, D), tk: src.length, dModel: D, heads: H,
      wq: scaledIdentity(D, this.sharpness), wk: scaledIdentity(D), wv: scaledIdentity(D), wo: scaledIdentity(D),
    });
    const n = tgt.length * src.length;
    return html`
      <attn-tex class="formula" display .expr=${'\\mathrm{CrossAttention}(X_{tgt}, X_{src}) = \\mathrm{softmax}\\!\\left(\\frac{(X_{tgt}W_Q)(X_{src}W_K)^\\top}{\\sqrt{d_k}}\\right) X_{src}W_V,\\qquad A \\in \\mathbb{R}^{t_{tgt}\\times t_{src}}'}></attn-tex>
      <div class="controls">
        <label>source (keys, values) <input type="text" class="source" .value=${this.source} maxlength="120" @change=${(e) => this.setState({ source: e.target.value })}></label>
        <label>target (queries) <input type="text" class="target" .value=${this.target} maxlength="120" @change=${(e) => this.setState({ target: e.target.value })}></label>
      </div>
      <div class="controls">
        <label>sharpness (W<sub>Q</sub> = s·I) <input type="range" class="sharpness" min="0.1" max="20" step="0.1" .value=${String(this.sharpness)}
          @input=${(e) => this.setState({ sharpness: Number(e.target.value) })}> ${this.sharpness}</label>
        <label>heads <select class="heads" @change=${(e) => this.setState({ heads: Number(e.target.value) })}>
          ${[1, 2, 4].map((h) => html`<option value=${h} ?selected=${h === H}>${h}</option>`)}</select></label>
      </div>
      <p class="note">Toy embeddings (d = ${D}): a word and its translation share a vector, so each target word’s query finds its source word; a word with no counterpart (“est”) spreads its attention. At most 8 words per sentence.</p>
      <div class="row">${Array.from({ length: H }, (_, h) => html`<attn-heatmap class=${`alignment head${h + 1}`} label=${H > 1 ? `head ${h + 1}: target × source` : 'alignment: target (rows) × source (columns)'}
        .values=${r.weights.subarray(h * n, (h + 1) * n)} .rows=${tgt.length} .cols=${src.length} .rowLabels=${tgt} .colLabels=${src}
        colormap="sequential" max-width=${H > 1 ? 320 : 460}></attn-heatmap>`)}</div>`;
  }
}
