// <attn-cross>: cross-attention between two sentences of different lengths. Queries come from the
// target sentence (the decoder), keys and values from the source (the encoder): the weights matrix
// is t_target × t_source, an alignment.
//
// Attributes: source, target (sentences), sharpness, heads, weight-range ("fixed": weights coloured on
// [0, 1], default; "map": each map's own range), hash-key, and AttnWidget's layout / controls /
// fit-height. Events: attn-state-change.
// Slide layout: the formula, the alignment map(s) as large as the box allows with the source and target
// words as labels; compact controls = the two sentences (controls="none": none).
// Numbers: lab.multiHeadAttention with `context` (the toy embeddings are inputs, see logic.js).
//
// `trained`: instead of the toy sentences, the cross-attention of a tiny encoder–decoder trained on
// number words → digits (tools/pretrain_cross.cc), from its shipped snapshots (trained-view.js):
// attributes number (1000–9999, default 4326), snapshot (index of a shipped snapshot: the scrubber) and
// stage (0–4, the deck's clicks: untrained, steps 100, 300, 600, the end of the run).
import { html, css, nothing } from 'lit';
import { AttnWidget } from '../shared/widget.js';
import { widgetStyles } from '../shared/styles.js';
import { MAX_SENTENCE_CHARS, parseTokens } from '../shared/tokens.js';
import { DICTIONARY, embed, isKnown, scaledIdentity } from './logic.js';
import { chunks, choose } from '../shared/pack.js';
import { optionalInt } from '../shared/widget.js';
import { TrainedView } from './trained-view.js';
import '../shared/heatmap.js';
import '../shared/tex.js';
import { drawInParts, drawn } from '../shared/parts.js';

const D = 16;
/** A word's label in the page's maps: "?" marks a word the toy dictionary does not know. */
const mark = (w) => (isKnown(w) ? w : `${w}?`);

export class AttnCross extends AttnWidget {
  static properties = {
    source: { type: String },
    target: { type: String },
    sharpness: { type: Number },
    heads: { type: Number },
    weightRange: { type: String, attribute: 'weight-range' },
    trained: { type: Boolean, reflect: true },
    number: { type: Number },
    snapshot: { converter: optionalInt },
    stage: { converter: optionalInt, reflect: true },
    /** The part of the page's first draw drawn so far (parts.js; null: all). */
    _drawPart: { state: true },
  };

  static styles = [widgetStyles, css`
    .slide-head { display: flex; flex-direction: column; gap: 4px; }
    .slide-head .controls { margin: 0; gap: 4px 16px; font-size: 16px; }
    .slide-head .controls label.sentence { flex: 1 1 16em; min-width: 0; }
    .slide-head .controls input[type='text'] { flex: 1 1 auto; min-width: 4em; width: auto; max-width: none; }
    .slide-head .formula { margin: 0; padding: 2px 8px; text-align: center; white-space: nowrap; }
    .slide-main { display: flex; flex-direction: column; align-items: center; gap: 10px; margin-top: 8px; }
    .prow { display: flex; gap: 12px; align-items: center; justify-content: center; }
    input[type='range'] { width: 8em; vertical-align: middle; }
    .slide-head.trained { gap: 2px; }
    .topline { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 16px; }
    .topline .stagestrip { margin: 0; font-size: inherit; }
    .scrub { display: inline-flex; align-items: center; gap: 8px; }
    .scrub input[type='range'] { width: 10em; }
    .scrub output { min-width: 3.2em; font-variant-numeric: tabular-nums; }
    .caption { margin: 4px 0; display: flex; flex-wrap: wrap; gap: 2px 18px; }
    .caption .ok { color: #1a7f37; }
    .caption .bad { color: #cf222e; }`];

  static stateSchema = {
    source: { type: 'text', maxChars: MAX_SENTENCE_CHARS, nonBlank: true },  // free text, shown as text (never HTML)
    target: { type: 'text', maxChars: MAX_SENTENCE_CHARS, nonBlank: true },
    sharpness: { type: 'num', min: 0.1, max: 20 },
    heads: { type: 'int', min: 1, max: 4 },
    number: { type: 'int', min: 1000, max: 9999 },  // trained mode: the number whose words are the source
    snapshot: { type: 'int', min: 0, max: 63 },      // trained mode: the shipped snapshot shown
  };

  constructor() {
    super();
    this.source = 'the black cat sat on the mat';
    this.target = 'le chat noir est assis sur le tapis';
    this.sharpness = 10;
    this.heads = 1;
    this.weightRange = 'fixed';
    this._headH = 90;
    this.trained = false;
    this.number = 4326;
    this.snapshot = null;
    this.stage = null;
    this._trainedView = null;
  }

  /** The page's first draw (toy sentences): the formula, controls and notes, then the computed map(s) (parts.js). */
  labReady() {
    if (!this.trained) drawInParts(this, 2);
  }

  /** Trained mode: the shipped run loads first (widget.js keeps the placeholder's height meanwhile). */
  get firstDrawPending() {
    const v = this._trainedView;
    return this.trained && (!v || (!v.run && !v.error));
  }

  willUpdate(changed) {
    super.willUpdate(changed);
    // A deck's click (a new stage) shows that stage's snapshot, not the one scrubbed to before.
    if (changed.has('stage') && changed.get('stage') !== undefined) this.snapshot = null;
  }

  /**
   * On a slide the shown snapshot follows the deck's clicks: a scrubbed one is not shared state (a
   * presenter/audience sync re-applying it would undo the next click).
   */
  getState() {
    const s = super.getState();
    if (this.slideLayout) delete s.snapshot;
    if (!this.trained) { delete s.number; delete s.snapshot; }
    return s;
  }

  /** Screen px per CSS px (a deck scales its canvas); a change re-renders (updated()). */
  screenScale() {
    const w = this.offsetWidth, s = w ? this.getBoundingClientRect().width / w : 1;
    this._scale = s > 0.05 ? Math.round(s * 100) / 100 : 1;
    return this._scale;
  }

  updated(changed) {
    super.updated(changed);
    if (!this.trained || !this.slideLayout || !this.offsetWidth) return;
    const s = Math.round((this.getBoundingClientRect().width / this.offsetWidth) * 100) / 100;
    if (this._scale && Math.abs(s - this._scale) > 0.02) this.requestUpdate();
  }

  /** A sentence field: an empty one is refused (the last alignment stays), a long one cut to 8 words with a note. */
  #sentence(key, label) {
    const f = this.fields;
    return html`<label class="sentence">${label} <input type="text" class=${key} .value=${this[key]}
      aria-invalid=${f.invalid(key)} aria-describedby=${f.describedBy(key)}
      @change=${(e) => { const tk = f.tokens(key, e.target.value, { maxTokens: 8, name: `${key} sentences` }); if (tk) this.setState({ [key]: tk.join(' ') }); }}></label>${f.message(key)}`;
  }

  #sentences() {
    return html`${this.#sentence('source', 'source (keys, values)')}${this.#sentence('target', 'target (queries)')}`;
  }

  #tuning(H) {
    return html`<label>sharpness (W<sub>Q</sub> = s·I) <input type="range" class="sharpness" min="0.1" max="20" step="0.1" .value=${String(this.sharpness)}
          @input=${(e) => this.setState({ sharpness: Number(e.target.value) })}> ${this.sharpness}</label>
        <label>heads <select class="heads" @change=${(e) => this.setState({ heads: Number(e.target.value) })}>
          ${[1, 2, 4].map((h) => html`<option value=${h} ?selected=${h === H}>${h}</option>`)}</select></label>`;
  }

  /** Slide layout: controls (the sentences), the formula, the alignment map(s) filling the rest. */
  #renderSlide(r, src, tgt, H) {
    const n = tgt.length * src.length, fixed = this.weightRange !== 'map';
    const maps = Array.from({ length: H }, (_, h) => ({
      cls: `alignment head${h + 1}`, label: H > 1 ? `head ${h + 1}: target × source` : 'A: target × source',
      values: r.weights.subarray(h * n, (h + 1) * n), rows: tgt.length, cols: src.length, rowLabels: tgt, colLabels: src, group: 'A',
      colormap: 'sequential', vmin: fixed ? 0 : null, vmax: fixed ? 1 : null,
    }));
    const arrangements = [];
    for (let k = 1; k <= H; k++) if (H % k === 0) arrangements.push(chunks(maps, k).map((panels) => ({ panels })));
    const { width, height } = this.box;
    const pick = choose([arrangements], width, Math.max(60, height - this._headH - 8), { maxCell: 110, enough: 45 });
    const mode = this.controlsMode;
    // Queries from the target, keys (and values) from the source; the projections only where there is room.
    const formula = `A = \\mathrm{softmax}\\big(Q_{tgt}\\,K_{src}^\\top / \\sqrt{d_k}\\big) \\in \\mathbb{R}^{${tgt.length}\\times ${src.length}}`
      + (width >= 640 ? ',\\quad Q_{tgt} = X_{tgt}W_Q,\\quad K_{src} = X_{src}W_K' : '');
    const controls = mode === 'none' ? nothing : html`<div class="controls">${this.#sentences()}${mode === 'full' ? this.#tuning(H) : nothing}</div>`;
    return html`<div class="slide-head">${controls}
        <attn-tex class="formula" .expr=${formula}></attn-tex></div>
      <div class="slide-main">${pick.rows.map((rw, i) => html`<div class="prow">${rw.panels.map((p, j) => html`<attn-heatmap class=${p.cls} .label=${p.label}
        .values=${p.values} .rows=${p.rows} .cols=${p.cols} .rowLabels=${p.rowLabels} .colLabels=${p.colLabels} .colormap=${p.colormap}
        .vmin=${p.vmin} .vmax=${p.vmax} .legend=${p.legend} .digits=${2} .cellSize=${110} compact
        .fitWidth=${pick.fit.sizes[i][j].fitWidth} .fitHeight=${pick.fit.sizes[i][j].fitHeight}></attn-heatmap>`)}</div>`)}</div>`;
  }

  /** Which words the toy dictionary does not know (marked "?" in the maps), and the words it knows. */
  #unknownNote(src, tgt) {
    const unknown = [...new Set([...src, ...tgt].filter((w) => !isKnown(w)))];
    const known = Object.entries(DICTIONARY).map(([c, ws]) => `${c} (${ws.join(', ')})`).join(' · ');
    return html`<p class="note dictionary">${unknown.length
      ? html`<strong>Not in the toy dictionary</strong> (marked ?): ${unknown.map((w) => `“${w}”`).join(', ')}. Such a word gets a random vector of its own,
        so its row or column is no translation: a high weight there is chance, not meaning.`
      : 'Every word is in the toy dictionary.'}</p>
      <details class="dictionary-words"><summary>Words the toy dictionary knows</summary><p class="note">${known}</p></details>`;
  }

  renderWidget(lab) {
    if (this.trained) return (this._trainedView ??= new TrainedView(this)).render(lab);
    const src = parseTokens(this.source), tgt = parseTokens(this.target);
    // Not reachable by editing (an empty sentence is refused at its field) nor by a link (nonBlank):
    // only a script setting the property. The controls stay.
    if (!src.length || !tgt.length) return html`${this.controlsMode === 'none' ? nothing : html`<div class="controls">${this.#sentences()}</div>`}
      <p class="error">Type a source and a target sentence.</p>`;
    const H = [1, 2, 4].includes(this.heads) ? this.heads : 1;
    const r = !this.slideLayout && !drawn(this, 1) ? null : lab.multiHeadAttention({
      x: embed(tgt, D), tq: tgt.length, context: embed(src, D), tk: src.length, dModel: D, heads: H,
      wq: scaledIdentity(D, this.sharpness), wk: scaledIdentity(D), wv: scaledIdentity(D), wo: scaledIdentity(D),
    });
    if (this.slideLayout) return this.#renderSlide(r, src, tgt, H);
    const n = tgt.length * src.length, fixed = this.weightRange !== 'map';
    // The \quad after "=" is where a phone may break the formula (tex.js pageParts): with its first
    // break after "W_V," only, "CrossAttention(…) = softmax(…) X_src W_V," was set at 0.58 of its size at
    // 390 px (subscripts 6–8 px).
    return html`
      <attn-tex class="formula" display .expr=${'\\mathrm{CrossAttention}(X_{tgt}, X_{src}) = \\quad \\mathrm{softmax}\\!\\left(\\frac{(X_{tgt}W_Q)(X_{src}W_K)^\\top}{\\sqrt{d_k}}\\right) X_{src}W_V,\\qquad A \\in \\mathbb{R}^{t_{tgt}\\times t_{src}}'}></attn-tex>
      ${this.controlsMode === 'none' ? nothing : html`<div class="controls">${this.#sentences()}</div>
      ${this.controlsMode === 'full' ? html`<div class="controls">${this.#tuning(H)}</div>` : nothing}`}
      <p class="note">Toy embeddings (d = ${D}): a word and its translation share a vector, so each target word’s query finds its source word; a word with no counterpart (“est”) spreads its attention. At most 8 words per sentence.</p>
      ${this.#unknownNote(src, tgt)}
      ${r ? html`<div class="row">${Array.from({ length: H }, (_, h) => html`<attn-heatmap class=${`alignment head${h + 1}`} label=${H > 1 ? `head ${h + 1}: target × source` : 'target (rows) × source (columns)'}
        .values=${r.weights.subarray(h * n, (h + 1) * n)} .rows=${tgt.length} .cols=${src.length} .rowLabels=${tgt.map(mark)} .colLabels=${src.map(mark)}
        colormap="sequential" .vmin=${fixed ? 0 : null} .vmax=${fixed ? 1 : null} max-width=${H > 1 ? 320 : 460}></attn-heatmap>`)}</div>` : nothing}`;
  }
}
