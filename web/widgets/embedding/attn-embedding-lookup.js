// Two widgets for the decks' embedding and output-projection slides (registered by ./index.js, which
// slides/shared/widgets.js imports), computed by the attnlab WebAssembly core and drawn with the
// widgets' shared heatmap:
//
//   <attn-embedding-lookup>   nn.Embedding as one-hot · W: pick a token; lab.embedding returns row i
//                             of W, which is what the one-hot product picks out.
//   <attn-output-projection>  the tied output layer p = softmax(h·Wᵀ) (lab.outputHead): a logit is
//                             the dot product of h with that word's embedding row. h is the hidden
//                             state after a context of "the cat sat on the mat" that predicts the word
//                             after it (computed by gradient descent through lab.outputHead: logic.js),
//                             not the embedding of the context's last word.
//
// Attribute `token`: the lookup's vocabulary index; the output layer's context, the position (0 … 4) of
// its last word in the sentence (default 1: "the cat"). Event: attn-state-change { state }.
// Like every attn-* widget (AttnWidget): `layout` (page | slide | auto), `controls` (full | compact |
// none: the token buttons are the only control, hidden by none). In slide layout the maps fill the box
// the slide gives (the arrangement — a grid or one row — with the largest cells wins).
import { html, css, nothing } from 'lit';
import { AttnWidget } from '../shared/widget.js';
import { widgetStyles } from '../shared/styles.js';
import { uniformMatrix } from '../shared/rng.js';
import { heatmapGeometry, heatmapSize } from '../shared/heatmap.js';
import { fmt } from '../shared/format.js';
import { VOCAB, V, D, W_SEED, SENTENCE, CONTEXTS, WEIGHT_DECAY, contextText, nextWordState } from './logic.js';

// A fixed, seeded embedding table W [V, D] (values in [−1, 1), one decimal: easy to read aloud).
const W = uniformMatrix(W_SEED, V * D);
const DIMS = Array.from({ length: D }, (_, j) => `d${j + 1}`);

// W and h (a row of W) share one diverging colour scale, symmetric around 0.
const W_MAX = Math.max(...Array.from(W, Math.abs));
// Heatmap options shared by every map in slide layout; minFont (labels, captions) is set per render
// so that labels reach ~16 px on screen whatever the deck's scale (reveal.js shrinks its 1280×800 canvas).
const FIT = { compact: true, minFont: 16 };
const GAP = 16;  // px between maps

/** The largest cell in [lo, hi] for which `fits(cell)` holds (fits is monotone), or lo. */
function largestCell(fits, lo = 8, hi = 110) {
  if (!fits(lo)) return lo;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid; else hi = mid - 1;
  }
  return lo;
}

/**
 * Slide layout of maps in lines (each line: maps side by side, `extra` px of signs between them): the
 * largest cell for which every line fits `width` and the lines together fit `height`.
 * Returns { cell, fits, lines: [[{ ...panel, fitWidth, fitHeight }]] }.
 */
function packLines(lines, width, height, extra = () => 0) {
  const sizeOf = (line, c) => line.map((p) => heatmapSize({ ...FIT, ...p }, c));
  const fits = (c) => {
    let h = GAP * (lines.length - 1);
    for (const [k, line] of lines.entries()) {
      const s = sizeOf(line, c);
      if (s.reduce((a, z) => a + z.width + 3, 0) + GAP * (line.length - 1) + extra(k, c) > width) return false;
      h += Math.max(...s.map((z) => z.height + 3));
    }
    return h <= height;
  };
  const cell = largestCell(fits);
  return { cell, fits: fits(cell), lines: lines.map((line) => sizeOf(line, cell).map((z, i) => ({ ...line[i], fitWidth: z.width + 3, fitHeight: z.height + 3 }))) };
}

/**
 * The arrangement to draw: the one with the largest cells among those that fit, but one that shows
 * every map (complete) wins while its cells still carry numbers (≥ 44 px: numbers of 16 px or more).
 */
function choose(candidates) {
  const score = (c) => (c.fits ? 1e6 : 0) + (c.complete && c.cell >= 44 ? 1e4 : 0) + (c.complete ? 0.5 : 0) + c.cell;
  return candidates.reduce((best, c) => (score(c) > score(best) ? c : best));
}

/** One heatmap of a slide layout (cells of `cell` px, the whole figure in its fit box). */
function fitMap(p, cell) {
  return html`<attn-heatmap class=${p.cls ?? ''} compact label=${p.label} .values=${p.values} rows=${p.rows} cols=${p.cols}
    .rowLabels=${p.rowLabels} .colLabels=${p.colLabels} colormap=${p.colormap} digits=${p.digits}
    .vmin=${p.vmin ?? null} .vmax=${p.vmax ?? null} .legend=${p.legend ?? true} legend-pos=${p.legendPos ?? 'right'}
    ?no-row-labels=${!!p.noRowLabels} cell-size=${cell} min-font=${FIT.minFont} .fitWidth=${p.fitWidth} .fitHeight=${p.fitHeight}
    style=${p.style ?? ''}></attn-heatmap>`;
}

class EmbeddingBase extends AttnWidget {
  static properties = {
    token: { type: Number, reflect: true },
    _controlsHeight: { state: true },
  };

  static stateSchema = { token: { type: 'int', min: 0, max: V - 1 } };

  static styles = [widgetStyles, css`
    .tokens { display: flex; gap: 6px; flex-wrap: wrap; align-items: center; margin-bottom: 8px; }
    .tokens button[aria-pressed='true'] { background: #0969da; color: #fff; border-color: #0969da; }
    .eq { font-size: 1.3em; align-self: center; }
    .wrap.slide .tokens { margin-bottom: 6px; }
    .wrap.slide .tokens button { padding: 1px 10px; }
    .fit-line { display: flex; flex-wrap: nowrap; gap: ${GAP}px; align-items: flex-start; }
    .fit-lines { display: flex; flex-direction: column; gap: ${GAP}px; align-items: flex-start; }
    .fit-line .eq { width: 24px; text-align: center; align-self: center; }
  `];

  constructor() {
    super();
    this.token = 1;
    this._controlsHeight = 40;  // the token buttons: one line of 18 px buttons until measured
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
    this.stateChanged();
  }

  tokenButtons(prefix, shown = '') {
    if (this.controlsMode === 'none') return nothing;
    return html`<div class="tokens controls-tokens" role="group" aria-label=${prefix}>${shown ? html`<span aria-hidden="true">${shown}</span>` : nothing}${VOCAB.map((w, i) => html`
      <button type="button" aria-pressed=${String(i === this.index)} @click=${() => this.pick(i)}>${w}</button>`)}</div>`;
  }

  /** The box left for the maps in slide layout: the widget's box less the token buttons. */
  get mapBox() {
    const scale = this.getBoundingClientRect().width / (this.offsetWidth || 1);
    FIT.minFont = scale > 0.05 ? Math.min(20, Math.max(16, Math.ceil(16 / scale))) : 16;
    const { width, height } = this.box;
    const buttons = this.controlsMode === 'none' ? 0 : this._controlsHeight;
    return { width: width - 2, height: height - buttons - 4 };
  }

  updated(changed) {
    super.updated?.(changed);
    // The token buttons wrap in a narrow box: the maps get what they leave (re-measured each render).
    const t = this.slideLayout && this.renderRoot.querySelector('.tokens');
    if (t) {
      const h = Math.ceil(t.getBoundingClientRect().height / (this.getBoundingClientRect().width / (this.offsetWidth || 1) || 1)) + 6;
      if (Math.abs(h - this._controlsHeight) > 2) this._controlsHeight = h;
    }
  }

  renderWidget(lab) {
    return this.slideLayout ? this.renderSlide(lab) : this.renderBody(lab);
  }
}

export class AttnEmbeddingLookup extends EmbeddingBase {
  /** Slide layout: eᵢ, W and the picked row as large as the box allows. */
  renderSlide(lab) {
    const i = this.index;
    const oneHot = VOCAB.map((_, j) => (j === i ? 1 : 0));
    const row = Array.from(lab.embedding({ table: W, vocab: V, dModel: D, ids: [i] }));  // [1, D] = e_iᵀ·W
    const { width, height } = this.mapBox;
    // The one-hot vector is all 0 and one 1: its numbers say it, a colour legend would add nothing.
    const e = { cls: 'onehot', label: 'eᵢ', values: oneHot, colormap: 'sequential', vmin: 0, vmax: 1, digits: 0, legend: false };
    const w = { cls: 'table', label: 'W (V × D)', values: Array.from(W), rows: V, cols: D, rowLabels: VOCAB, colLabels: DIMS,
      colormap: 'diverging', vmin: -W_MAX, vmax: W_MAX, digits: 1 };
    const r = { cls: 'result', label: `eᵢᵀW = row “${VOCAB[i]}”`, values: row, rows: 1, cols: D, rowLabels: [VOCAB[i]], colLabels: DIMS,
      colormap: 'diverging', vmin: -W_MAX, vmax: W_MAX, digits: 1 };
    const eCol = { ...e, rows: V, cols: 1, rowLabels: VOCAB, colLabels: [''] };
    // In arrangements where the result sits next to W it shares W's colours and W's legend.
    const rNear = { ...r, legend: false };
    const sign = 24 + GAP;  // an "=" or "·" between maps
    const candidates = [
      // eᵢ as a column beside W (its 1 on the picked row), the result under W, column for column;
      { kind: 'grid', complete: true, ...packLines([[eCol, { ...w, noRowLabels: true }], [rNear]], width, height) },
      // … or the result beside W, on the picked row's height;
      { kind: 'side', complete: true, ...packLines([[eCol, { ...w, noRowLabels: true }, rNear]], width, height, () => sign) },
      // … or one line, eᵢᵀ · W = row (a wide, low box);
      { kind: 'line', complete: true, ...packLines([[{ ...e, label: 'eᵢᵀ', rows: 1, cols: V, rowLabels: [VOCAB[i]], colLabels: VOCAB }, w, r]],
        width, height, () => 2 * sign) },
      // … or, in a small box, eᵢ and W, the picked row's numbers in W's caption.
      { kind: 'pair', complete: false, ...packLines([[eCol, { ...w, noRowLabels: true,
        label: `eᵢᵀW = (${row.map((x) => fmt(x, 1)).join(', ')})` }]], width, height) },
    ];
    const use = choose(candidates), cell = use.cell;
    const geo = (p) => heatmapGeometry({ ...FIT, ...p, cell });
    let maps;
    if (use.kind === 'line') {
      const [a, b, c] = use.lines[0];
      maps = html`<div class="fit-line">${fitMap(a, cell)}<span class="eq">·</span>${fitMap(b, cell)}<span class="eq">=</span>${fitMap(c, cell)}</div>`;
    } else if (use.kind === 'side') {
      const [a, b, c] = use.lines[0], g = geo(c);
      const y = i * cell, eqTop = g.figureHeight - g.h + g.top + cell / 2 - 14;  // "=" beside the picked row
      maps = html`<div class="fit-line">${fitMap(a, cell)}${fitMap(b, cell)}<span class="eq" style=${`align-self:flex-start;margin-top:${y + eqTop}px`}>=</span>${fitMap({ ...c, style: `margin-top:${y}px` }, cell)}</div>`;
    } else if (use.kind === 'pair') {
      const [a, b] = use.lines[0];
      maps = html`<div class="fit-line">${fitMap(a, cell)}${fitMap(b, cell)}</div>`;
    } else {
      const [[a, b], [c]] = use.lines;
      const indent = Math.max(0, a.fitWidth + GAP + geo(b).left - geo(c).left);  // the result's cells under W's
      maps = html`<div class="fit-lines"><div class="fit-line">${fitMap(a, cell)}${fitMap(b, cell)}</div>
        ${fitMap({ ...c, style: `margin-left:${indent}px` }, cell)}</div>`;
    }
    return html`${this.tokenButtons('token to embed', 'token:')}${maps}`;
  }

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
          colormap="diverging" .vmin=${-W_MAX} .vmax=${W_MAX} cell-size="34" digits="1"></attn-heatmap>
        <span class="eq">=</span>
        <attn-heatmap class="result" label="eᵢᵀ·W" .values=${Array.from(row)} rows="1" cols=${D} .rowLabels=${[VOCAB[i]]}
          .colLabels=${DIMS} colormap="diverging" .vmin=${-W_MAX} .vmax=${W_MAX} cell-size="34" digits="1"></attn-heatmap>
      </div>
      <p class="note">The product picks out row “${VOCAB[i]}” of W: an embedding layer is a lookup, and a linear layer
        (no bias) on one-hot inputs.</p>`;
  }
}

export class AttnOutputProjection extends EmbeddingBase {
  static stateSchema = { token: { type: 'int', min: 0, max: CONTEXTS - 1 } };

  /** The context's last position in the sentence (0 … 4), clamped. */
  get index() {
    return Math.min(CONTEXTS - 1, Math.max(0, Math.trunc(Number(this.token) || 0)));
  }

  /** The hidden state after the context and its output (logic.js), computed once per context. */
  state(lab) {
    const i = this.index;
    if (this._stateFor?.lab !== lab || this._stateFor.i !== i) this._stateFor = { lab, i, r: nextWordState(lab, W, i) };
    return this._stateFor.r;
  }

  /** The context buttons: the sentence's words, the pressed one ends the context (the later ones greyed). */
  tokenButtons(prefix, shown = '') {
    if (this.controlsMode === 'none') return nothing;
    const i = this.index;
    return html`<div class="tokens controls-tokens" role="group" aria-label=${prefix}>${shown ? html`<span aria-hidden="true">${shown}</span>` : nothing}${SENTENCE.slice(0, CONTEXTS).map((w, j) => html`
      <button type="button" class=${j > i ? 'later' : ''} aria-pressed=${String(j === i)} aria-label=${`context “${contextText(j)}”`} @click=${() => this.pick(j)}>${VOCAB[w]}</button>`)}<span class="next" aria-hidden="true">→ ?</span></div>`;
  }

  static styles = [EmbeddingBase.styles, css`
    .tokens button.later { opacity: 0.55; }
    .tokens .next { font-weight: 600; }
  `];

  /** Slide layout: h, its logits and the probabilities, stacked (or in one line when the box is wide and low). */
  renderSlide(lab) {
    const ctx = contextText(this.index);
    const r = this.state(lab);  // h after the context, logits, probs [1, V]
    const h = Array.from(r.h);
    const hMax = Math.max(W_MAX, ...h.map(Math.abs));
    const { width, height } = this.mapBox;
    const hp = { cls: 'h', label: `h after “${ctx}”`, values: h, rows: 1, cols: D, colLabels: DIMS, colormap: 'diverging', vmin: -hMax, vmax: hMax,
      digits: 2, noRowLabels: true };
    const lp = { cls: 'logits', label: 'logits h·Wᵀ', values: Array.from(r.logits), rows: 1, cols: V, colLabels: VOCAB,
      colormap: 'diverging', digits: 2, noRowLabels: true };
    const pp = { cls: 'probs', label: 'p(next word) = softmax(h·Wᵀ)', values: Array.from(r.probs), rows: 1, cols: V, colLabels: VOCAB,
      colormap: 'sequential', vmin: 0, vmax: 1, digits: 2, noRowLabels: true };
    const use = choose([
      { kind: 'stack', complete: true, ...packLines([[hp], [lp], [pp]], width, height) },
      { kind: 'line', complete: true, ...packLines([[hp, lp, pp]], width, height) },
      // A small box: the logits and probabilities only (h named in the buttons' line).
      { kind: 'stack', complete: false, ...packLines([[lp], [pp]], width, height) },
    ]);
    const maps = use.kind === 'line'
      ? html`<div class="fit-line">${use.lines[0].map((p) => fitMap(p, use.cell))}</div>`
      : html`<div class="fit-lines">${use.lines.map(([p]) => fitMap(p, use.cell))}</div>`;
    return html`${this.tokenButtons('context: the hidden state h after these words', 'context:')}${maps}`;
  }

  renderBody(lab) {
    const ctx = contextText(this.index);
    const r = this.state(lab);
    const hMax = Math.max(W_MAX, ...Array.from(r.h, Math.abs));
    return html`${this.tokenButtons('context: the hidden state h after these words')}
      <div class="row">
        <attn-heatmap class="h" label=${`h after “${ctx}”`} .values=${r.h} rows="1" cols=${D} .colLabels=${DIMS} colormap="diverging" .vmin=${-hMax} .vmax=${hMax} cell-size="34" digits="2"></attn-heatmap>
        <attn-heatmap class="logits" label="logits h·Wᵀ" .values=${Array.from(r.logits)} rows="1" cols=${V} .colLabels=${VOCAB}
          colormap="diverging" cell-size="40" digits="2"></attn-heatmap>
        <attn-heatmap class="probs" label="p(next word) = softmax(h·Wᵀ)" .values=${Array.from(r.probs)} rows="1" cols=${V}
          .colLabels=${VOCAB} colormap="sequential" .vmin=${0} .vmax=${1} cell-size="40" digits="2"></attn-heatmap>
      </div>
      <p class="note">h is the decoder's state after “${ctx}”: the state that makes the next word, “${VOCAB[r.next]}”, likely
        (here the h minimising −log p(${VOCAB[r.next]}) + ${WEIGHT_DECAY / 2}‖h‖², found by gradient descent), not the embedding of
        “${VOCAB[SENTENCE[this.index]]}”. With tied weights each logit is the dot product of h with that word's embedding row —
        the same computation as an attention score.</p>`;
  }
}
