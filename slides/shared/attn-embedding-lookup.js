// Two slides-only widgets for the deck's embedding and output-projection slides, computed by the
// attnlab WebAssembly core and drawn with the widgets' shared heatmap:
//
//   <attn-embedding-lookup>   nn.Embedding as one-hot · W: pick a token; lab.embedding returns row i
//                             of W, which is what the one-hot product picks out.
//   <attn-output-projection>  the tied output layer p = softmax(h·Wᵀ) (lab.outputHead): a logit is
//                             the dot product of h with that word's embedding row.
//
// Attribute `token` (index into the vocabulary, default 1). Event: attn-state-change { state }.
import { LitElement, html, css } from 'lit';
import { getLab, supportsWasmSimd } from '../../web/widgets/shared/lab.js';
import { widgetStyles } from '../../web/widgets/shared/styles.js';
import { uniformMatrix } from '../../web/widgets/shared/rng.js';
import '../../web/widgets/shared/heatmap.js';

const VOCAB = ['the', 'cat', 'sat', 'on', 'mat'];
const V = VOCAB.length, D = 4;
// A fixed, seeded embedding table W [V, D] (values in [−1, 1), one decimal: easy to read aloud).
const W = uniformMatrix(11, V * D);
const DIMS = Array.from({ length: D }, (_, j) => `d${j + 1}`);

class EmbeddingBase extends LitElement {
  static properties = {
    token: { type: Number, reflect: true },
    _lab: { state: true },
    _failure: { state: true },
  };

  static styles = [widgetStyles, css`
    .tokens { display: flex; gap: 6px; flex-wrap: wrap; margin-bottom: 8px; }
    .tokens button[aria-pressed='true'] { background: #0969da; color: #fff; border-color: #0969da; }
    .eq { font-size: 1.3em; align-self: center; }
  `];

  constructor() {
    super();
    this.token = 1;
    this._lab = null;
    this._failure = '';
  }

  connectedCallback() {
    super.connectedCallback();
    if (!supportsWasmSimd()) this._failure = 'This browser has no WebAssembly SIMD: attnlab cannot run here.';
    else getLab().then((lab) => { this._lab = lab; }, (e) => { this._failure = `attnlab could not start: ${e.message}`; });
  }

  /** The chosen token index, clamped to the vocabulary. */
  get index() {
    return Math.min(V - 1, Math.max(0, Math.trunc(Number(this.token) || 0)));
  }

  getState() {
    return { token: this.index };
  }

  applyState(state) {
    if (Number.isInteger(state?.token)) this.token = state.token;
  }

  pick(i) {
    this.token = i;
    this.dispatchEvent(new CustomEvent('attn-state-change', { detail: { state: this.getState() }, bubbles: true, composed: true }));
  }

  tokenButtons(prefix) {
    return html`<div class="tokens" role="group" aria-label=${prefix}>${VOCAB.map((w, i) => html`
      <button type="button" aria-pressed=${String(i === this.index)} @click=${() => this.pick(i)}>${w}</button>`)}</div>`;
  }

  render() {
    if (this._failure) return html`<div class="wrap"><p class="failure" role="alert">${this._failure}</p></div>`;
    if (!this._lab) return html`<div class="wrap"><p class="loading" role="status">Loading the WebAssembly core…</p></div>`;
    return html`<div class="wrap">${this.renderBody(this._lab)}</div>`;
  }
}

export class AttnEmbeddingLookup extends EmbeddingBase {
  renderBody(lab) {
    const i = this.index;
    const oneHot = VOCAB.map((_, j) => (j === i ? 1 : 0));
    const row = lab.embedding({ table: W, vocab: V, dModel: D, ids: [i] });  // [1, D] = e_iᵀ·W
    return html`${this.tokenButtons('token to embed')}
      <div class="row">
        <attn-heatmap label="one-hot eᵢ" .values=${oneHot} rows="1" cols=${V} .colLabels=${VOCAB} .rowLabels=${[VOCAB[i]]}
          colormap="sequential" cell-size="34" digits="0"></attn-heatmap>
        <span class="eq">·</span>
        <attn-heatmap label="W (V × D)" .values=${W} rows=${V} cols=${D} .rowLabels=${VOCAB} .colLabels=${DIMS}
          colormap="diverging" cell-size="34" digits="1"></attn-heatmap>
        <span class="eq">=</span>
        <attn-heatmap class="result" label="eᵢᵀ·W" .values=${Array.from(row)} rows="1" cols=${D} .rowLabels=${[VOCAB[i]]}
          .colLabels=${DIMS} colormap="diverging" cell-size="34" digits="1"></attn-heatmap>
      </div>
      <p class="note">The product picks out row “${VOCAB[i]}” of W: an embedding layer is a lookup, and a linear layer
        (no bias) on one-hot inputs.</p>`;
  }
}

export class AttnOutputProjection extends EmbeddingBase {
  renderBody(lab) {
    const i = this.index;
    const h = W.slice(i * D, (i + 1) * D);  // a decoder state close to the embedding of the chosen token
    const r = lab.outputHead({ h, rows: 1, table: W, vocab: V, dModel: D });  // logits, probs [1, V]
    return html`${this.tokenButtons('decoder state h equal to the embedding of')}
      <div class="row">
        <attn-heatmap label="h" .values=${h} rows="1" cols=${D} .colLabels=${DIMS} colormap="diverging" cell-size="34" digits="1"></attn-heatmap>
        <attn-heatmap class="logits" label="logits h·Wᵀ" .values=${Array.from(r.logits)} rows="1" cols=${V} .colLabels=${VOCAB}
          colormap="diverging" cell-size="40" digits="2"></attn-heatmap>
        <attn-heatmap class="probs" label="p = softmax(h·Wᵀ)" .values=${Array.from(r.probs)} rows="1" cols=${V}
          .colLabels=${VOCAB} colormap="sequential" cell-size="40" digits="2"></attn-heatmap>
      </div>
      <p class="note">With tied weights the logit of each word is the dot product of h with that word's embedding row —
        the same computation as an attention score: the most similar embedding gets the most probability.</p>`;
  }
}

if (!customElements.get('attn-embedding-lookup')) customElements.define('attn-embedding-lookup', AttnEmbeddingLookup);
if (!customElements.get('attn-output-projection')) customElements.define('attn-output-projection', AttnOutputProjection);
