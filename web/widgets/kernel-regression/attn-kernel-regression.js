// <attn-kernel-regression>: Nadaraya–Watson kernel regression as attention (the deck's example).
// The query x asks every training input x_i (the keys) how similar it is, the similarities are
// normalised by a softmax, and the prediction is the weighted mean of the y_i (the values).
//
// Attributes: bandwidth, kernel ("gaussian" | "dot"), query (x), points, seed, weight-range, hash-key,
// predict with stage (0: guess ŷ at the query, the curve and weights hidden; 1: ŷ revealed beside the
// guess: kernel-regression/predict.js).
// Events: attn-state-change. Numbers: lab.kernelRegression.
// Linked highlighting: each training point's size follows its weight αᵢ for the query — the selected
// one (slider), or the x under the pointer on the plot (a grey ŷ dot shows that query's prediction);
// hovering or focusing a cell of the weights strip rings its training point.
import { html, css, nothing } from 'lit';
import { AttnWidget } from '../shared/widget.js';
import { plot, SERIES_COLORS } from '../shared/plot.js';
import { widgetStyles } from '../shared/styles.js';
import { packRow } from '../shared/fit.js';
import { FitBoxes, SLIDE_CSS } from '../shared/fit-boxes.js';
import { fmt } from '../shared/format.js';
import { X_RANGE, dataset, describeState, grid } from './logic.js';
import '../shared/heatmap.js';
import '../shared/tex.js';
import { guessNumber, predictStyles, revealLine } from '../shared/predict.js';
import { PREDICT, fitGuess, guessRange, revealPrediction } from './predict.js';
import { optionalInt } from '../shared/widget.js';
import { drawInParts, drawn } from '../shared/parts.js';

export class AttnKernelRegression extends AttnWidget {
  static properties = {
    bandwidth: { type: Number },
    kernel: { type: String },
    query: { type: Number },
    points: { type: Number },
    seed: { type: Number },
    /** 'fixed' (default): weights coloured on [0, 1]; 'map': on the row's own range. */
    weightRange: { type: String, attribute: 'weight-range' },
    /** Predict, then reveal: stage 0 guesses ŷ(query), stage 1 shows it (absent: 1). */
    predict: { type: Boolean, reflect: true },
    stage: { converter: optionalInt, reflect: true },
    /** The guessed ŷ. */
    guess: { type: Number },
    _hoverX: { state: true },
    _hoverPoint: { state: true },
    /** The part of the page's first draw drawn so far (parts.js; null: all). */
    _drawPart: { state: true },
  };

  static styles = [widgetStyles, predictStyles, css`
    ${SLIDE_CSS}
    .slide-body.column { flex-direction: column; gap: 6px; }
    .slide-body.column > attn-heatmap { flex: none; }
    .dot { display: inline-block; width: 8px; height: 8px; border-radius: 50%; vertical-align: 1px; }
    .dot.big { width: 12px; height: 12px; vertical-align: -1px; }
    .controls input[type='range'] { width: 12em; max-width: 40vw; }
  `];

  static stateSchema = {
    bandwidth: { type: 'num', min: 0.001, max: 100 },
    kernel: { type: 'enum', values: ['gaussian', 'dot'] },
    query: { type: 'num', min: X_RANGE[0], max: X_RANGE[1] },
    points: { type: 'int', min: 3, max: 60 },
    seed: { type: 'int', min: 0, max: 1e9 },
    predict: { type: 'bool' },
    stage: { type: 'int', min: 0, max: 1 },
    guess: { type: 'num', min: -1000, max: 1000 },
  };

  constructor() {
    super();
    this.bandwidth = 0.5;
    this.kernel = 'gaussian';
    this.query = 4.25;
    this.points = 20;
    this.seed = 1;
    this.weightRange = 'fixed';
    this.boxes = new FitBoxes(this);
    this._hoverX = null;
    this._hoverPoint = null;
    this.predict = false;
    this.stage = null;
    this.guess = null;
  }

  /** With `predict`: 'guess' or 'reveal' (predict.js); null without. */
  get #phase() {
    return this.predict ? PREDICT.phase(this.stage) : null;
  }

  /** The page's first draw: the formula, the controls and the plot, then the weights' map (parts.js). */
  labReady() {
    drawInParts(this, 2);
  }

  /** compute(lab), kept while its inputs stay (the next part of the first draw computes nothing again). */
  #computed(lab) {
    const key = [this.points, this.seed, this.bandwidth, this.kernel, this.query, this._hoverX].join('|');
    if (this._computed?.key !== key || this._computed.lab !== lab) this._computed = { key, lab, c: this.compute(lab) };
    return this._computed.c;
  }

  /** Everything shown, from the core: the curve over the x range and the query's weights. */
  compute(lab) {
    const data = dataset(this.points, this.seed);
    const xs = Float32Array.from(data, (p) => p[0]), ys = Float32Array.from(data, (p) => p[1]);
    const g = grid(141);
    const args = { xs, ys, bandwidth: this.bandwidth, kernel: this.kernel };
    const curve = lab.kernelRegression({ ...args, queries: g }).predictions;
    const at = lab.kernelRegression({ ...args, queries: Float32Array.of(this.query) });
    const note = describeState({ kernel: this.kernel, bandwidth: this.bandwidth, query: this.query, xs, ys, weights: at.weights, grid: g, curve });
    const hov = this._hoverX === null ? null : lab.kernelRegression({ ...args, queries: Float32Array.of(this._hoverX) });
    return { data, xs, ys, g, curve, weights: at.weights, yhat: at.predictions[0], note,
      hover: hov && { x: this._hoverX, weights: hov.weights, yhat: hov.predictions[0] } };
  }

  #series(c, legend) {
    const range = guessRange(c.ys), g = fitGuess(this.guess, range);
    const guessDot = { points: [[this.query, g]], kind: 'dots', r: 7, color: '#8250df', labels: ['guess'] };
    // The guess stage: the pairs (all the same size: their weights would tell), the query's x, the guess.
    if (this.#phase === 'guess') return [{ points: c.data, kind: 'dots', label: legend ? 'training pairs (xᵢ, yᵢ)' : undefined, r: 3.5, color: SERIES_COLORS[0] },
      { points: [[this.query, range[0]], [this.query, range[1]]], color: '#d55e00', dash: '6 4', label: legend ? 'the query x' : undefined }, guessDot];
    // Point size follows the weight αᵢ of the hovered query (else the selected one): area ∝ αᵢ.
    const rs = Array.from((c.hover ?? c).weights, (a) => 2 + 9 * Math.sqrt(Math.max(0, a)));
    const p = this._hoverPoint;
    const ring = p !== null && p < c.data.length ? [{ points: [c.data[p]], kind: 'dots', r: rs[p] + 4, color: '#1f2328' }] : [];
    const hover = c.hover ? [{ points: [[c.hover.x, c.hover.yhat]], kind: 'dots', r: 6, color: '#6e7781', labels: [`ŷ(${fmt(c.hover.x, 2)}) = ${fmt(c.hover.yhat, 3)}`] }] : [];
    return [...ring, { points: c.data, kind: 'dots', label: legend ? 'training pairs (xᵢ, yᵢ): keys and values (area ∝ weight αᵢ)' : undefined, r: 3.5, rs, color: SERIES_COLORS[0] },
      ...hover,
      { points: Array.from(c.g, (x, i) => [x, c.curve[i]]), label: legend ? 'ŷ(x): attention output at every query' : undefined, color: SERIES_COLORS[1] },
      { points: [[this.query, c.yhat]], kind: 'dots', r: 7, color: '#d55e00', label: legend ? 'the query' : undefined, labels: ['ŷ'] },
      ...(this.predict ? [guessDot] : [])];
  }

  #formula(h) {
    const f = this.kernel === 'gaussian' ? '-(x - x_i)^2' : 'x\\,x_i';
    if (this.slideLayout && this.box.width < 640)
      return `{\\hat y(x) = \\sum_{i} \\mathrm{softmax}_i\\big(f(x, x_i)/h\\big)\\, y_i,\\ \\ f = ${f}}`;
    return this.slideLayout
      ? `{\\hat y(x) = \\sum_{i} \\alpha_i(x)\\, y_i,\\quad \\alpha_i(x) = \\mathrm{softmax}_i\\big(f(x, x_i)/h\\big),\\quad f(x, x_i) = ${f},\\ h = ${h}}`
      : `\\hat y(x) = \\sum_{i=1}^{n} \\underbrace{\\frac{\\exp\\big(f(x, x_i)/h\\big)}{\\sum_j \\exp\\big(f(x, x_j)/h\\big)}}_{\\alpha_i(x)\\,=\\,\\mathrm{softmax}_i} y_i,\\qquad f(x, x_i) = ${f},\\quad h = ${h}`;
  }

  #bandwidthControl() {
    return html`<label>bandwidth h <input type="range" class="bandwidth" min="-2" max="1.5" step="0.05" .value=${String(Math.log10(this.bandwidth))}
      aria-valuetext=${fmt(this.bandwidth, 3)} @input=${(e) => this.setState({ bandwidth: Number((10 ** Number(e.target.value)).toPrecision(3)) })}> ${fmt(this.bandwidth, 3)}</label>`;
  }

  #otherControls() {
    const f = this.fields;
    return html`<label>query x <input type="range" class="query" min=${X_RANGE[0]} max=${X_RANGE[1]} step="0.05" .value=${String(this.query)}
          @input=${(e) => this.setState({ query: Number(e.target.value) })}> ${fmt(this.query, 2)}</label>
        <label>kernel <select class="kernel" @change=${(e) => this.setState({ kernel: e.target.value })}>
          <option value="gaussian" ?selected=${this.kernel === 'gaussian'}>Gaussian: −(x − xᵢ)²</option>
          <option value="dot" ?selected=${this.kernel === 'dot'}>dot product: x·xᵢ</option></select></label>
        <label>points <input type="number" class="points" min="3" max="60" .value=${String(this.points)}
          aria-invalid=${f.invalid('points')} aria-describedby=${f.describedBy('points')}
          @change=${(e) => { const v = f.number('points', e.target, { min: 3, max: 60, integer: true, name: `points (still ${this.points})` }); if (v !== null) this.setState({ points: v }); }}></label>${f.message('points')}
        <label>seed <input type="number" class="seed" min="0" .value=${String(this.seed)} aria-invalid=${f.invalid('seed')} aria-describedby=${f.describedBy('seed')}
          @change=${(e) => { const v = f.number('seed', e.target, { min: 0, max: 1e9, integer: true, name: 'seed' }); if (v !== null) this.setState({ seed: v }); }}></label>${f.message('seed')}`;
  }

  /** The x under the pointer on the plot (the plot's x axis is X_RANGE), or null outside it. */
  #onPlotPointer(e, fontSize = 12) {
    const el = e.currentTarget.querySelector('svg');
    if (!el) return;
    const r = el.getBoundingClientRect(), W = Number(el.getAttribute('width')) || r.width, k = r.width / W;
    const ml = 32 + 2 * fontSize, inner = W - ml - 12;  // plot.js margins
    const t = ((e.clientX - r.left) / k - ml) / inner;
    const x = t >= 0 && t <= 1 ? Math.round((X_RANGE[0] + t * (X_RANGE[1] - X_RANGE[0])) * 20) / 20 : null;
    if (x !== this._hoverX) this._hoverX = x;
  }

  /** The predict stage (slider for ŷ) or its reveal (the guess beside the core's ŷ); nothing without predict. */
  #predictBlock(c, page = false) {
    const phase = this.#phase;
    if (!phase) return nothing;
    const range = guessRange(c.ys), g = fitGuess(this.guess, range);
    const toStage = (st) => { this.stage = st; this.stateChanged(); };
    if (phase === 'guess') {
      return html`<div class="predict guess"><p class="ask">Predict ŷ at x = ${fmt(this.query, 2)} (bandwidth h = ${fmt(this.bandwidth, 3)}): slide your guess (the purple dot)</p>
        ${guessNumber({ label: 'your ŷ', value: g, min: range[0], max: range[1], step: 0.05, onInput: (v) => { this.guess = v; this.stateChanged(); } })}
        ${page ? html`<div class="actions"><button type="button" class="reveal" @click=${() => toStage(1)}>Reveal ŷ</button></div>` : nothing}</div>`;
    }
    const r = revealPrediction({ guess: this.guess, yhat: c.yhat, ys: c.ys });
    return html`<div class="predict reveal">${revealLine(html`your ŷ <strong class="yours">${fmt(r.guess, 2)}</strong>, computed ŷ <strong class="computed">${fmt(r.actual, 3)}</strong>:
        off by <strong class="error">${fmt(r.error, 2)}</strong> (${fmt(100 * r.share, 0)} % of the yᵢ range, ${r.verdict})`)}
      ${page ? html`<div class="actions"><button type="button" class="predict-again" @click=${() => toStage(0)}>Predict again</button></div>` : nothing}</div>`;
  }

  /** Page, full controls: guess ŷ before seeing it (a self-check). */
  #predictToggle() {
    return html`<label><input type="checkbox" class="predict-toggle" .checked=${!!this.predict}
      @change=${(e) => { this.predict = e.target.checked; this.stage = this.predict ? 0 : null; this.stateChanged(); }}> predict first (self-check)</label>`;
  }

  #weightsRange() {
    return this.weightRange === 'map' ? { vmin: null, vmax: null } : { vmin: 0, vmax: 1 };
  }

  renderWidget(lab) {
    if (typeof lab.kernelRegression !== 'function')
      return html`<p class="error">This build of attnlab has no lab.kernelRegression yet.</p>`;
    const c = this.#computed(lab);
    return this.slideLayout ? this.#renderSlide(c) : this.#renderPage(c);
  }

  #renderPage(c) {
    const { vmin, vmax } = this.#weightsRange();
    return html`
      <attn-tex class="formula" display .expr=${this.#formula(fmt(this.bandwidth, 3))}></attn-tex>
      <div class="controls">${this.#bandwidthControl()}${this.#otherControls()}${this.#predictToggle()}</div>
      <div class="row">
        <div class="plot-hover" @pointermove=${(e) => this.#onPlotPointer(e)} @pointerleave=${() => { this._hoverX = null; }}>${plot({ title: this.#phase === 'guess' ? `predict ŷ(${fmt(this.query, 2)})` : `prediction ŷ(${fmt(this.query, 2)}) = ${fmt(c.yhat, 3)}`, xLabel: 'x', yLabel: 'y', width: this.pageFit(520), height: 300, xDomain: X_RANGE, series: this.#series(c, true) })}</div>
        ${this.#phase === 'guess' ? this.#predictBlock(c, true) : html`${this.#predictBlock(c, true)}<p class="note prediction" role="status">At x = ${fmt(this.query, 2)} the weights below average the yᵢ into ŷ = <strong>${fmt(c.yhat, 4)}</strong>.
          ${c.note.lead} ${c.note.rest}</p>`}
      </div>
      ${this.#phase === 'guess' || !drawn(this, 1) ? nothing : html`<attn-heatmap class="weights" @attn-cell-hover=${(e) => { this._hoverPoint = e.detail?.col ?? null; }} label="attention weights αᵢ(x) of the query over the training points" .values=${c.weights} .rows=${1} .cols=${c.xs.length}
        .rowLabels=${[`x=${fmt(this.query, 2)}`]} .colLabels=${Array.from(c.xs, (x) => fmt(x, 2))} colormap="sequential" .vmin=${vmin} .vmax=${vmax} max-width="900" cell-size="40"></attn-heatmap>`}`;
  }

  /**
   * Slide layout: the formula, the bandwidth slider, the curve filling the box, the query's weights
   * as one strip under it (on [0, 1]) and a line saying what the current kernel and bandwidth do.
   */
  #renderSlide(c) {
    const box = this.box, fs = 16, ctl = this.controlsMode;
    const body = this.boxes.get('body', { width: box.width, height: Math.max(140, box.height - 170) });
    const { vmin, vmax } = this.#weightsRange();
    const n = c.xs.length;
    const strip = { rows: 1, cols: n, rowLabels: ['α'], colLabels: Array.from(c.xs, (x) => fmt(x, 1)), label: `weights αᵢ(${fmt(this.query, 2)}) on the xᵢ`, compact: true, legendPos: 'right' };
    const packed = packRow([strip], body.width, Math.max(110, Math.min(150, Math.round(body.height * 0.4))), { maxCell: 80 });
    const fit = (packed.panels ?? packed)[0];
    const phase = this.#phase;
    const plotBox = this.boxes.get('plot', { width: body.width, height: Math.max(100, body.height - (phase === 'guess' ? 84 : fit.fitHeight) - 30) });
    return html`<div class="slide-frame" style=${`height:${box.height}px`}>
      <attn-tex class="formula" .expr=${this.#formula(fmt(this.bandwidth, 3))}></attn-tex>
      ${ctl === 'none' ? nothing : html`<div class="controls">${this.#bandwidthControl()}${ctl === 'full' ? this.#otherControls() : nothing}</div>`}
      <div class="slide-body column" data-fit="body">
        <div class="plot-panel grow">
          <div class="legend-line"><span><span class="dot" style=${`background:${SERIES_COLORS[0]}`}></span> (xᵢ, yᵢ): keys, values</span>
            ${phase === 'guess' ? nothing : html`<span><span class="line-swatch" style=${`border-color:${SERIES_COLORS[1]}`}></span> ŷ(x)</span>`}
            ${phase === 'guess' ? html`<span><span class="dot big" style="background:#8250df"></span> your guess at x = ${fmt(this.query, 2)}</span>`
              : html`<span><span class="dot big" style="background:#d55e00"></span> ŷ(${fmt(this.query, 2)}) = <strong>${fmt(c.yhat, 3)}</strong></span>`}</div>
          <div class="plotbox" data-fit="plot" @pointermove=${(e) => this.#onPlotPointer(e, fs)} @pointerleave=${() => { this._hoverX = null; }}>${plot({ xLabel: 'x', yLabel: 'y', width: plotBox.width, height: plotBox.height, fontSize: fs, xDomain: X_RANGE, series: this.#series(c, false) })}</div>
        </div>
        ${phase === 'guess' ? this.#predictBlock(c) : html`<attn-heatmap class="weights" @attn-cell-hover=${(e) => { this._hoverPoint = e.detail?.col ?? null; }} compact .label=${strip.label} .values=${c.weights} .rows=${1} .cols=${n} .rowLabels=${strip.rowLabels}
          .colLabels=${strip.colLabels} colormap="sequential" .vmin=${vmin} .vmax=${vmax} .fitWidth=${fit.fitWidth} .fitHeight=${fit.fitHeight} .cellSize=${80} .digits=${2}></attn-heatmap>`}
      </div>
      ${phase ? (phase === 'reveal' ? this.#predictBlock(c) : nothing) : html`<p class="note prediction status" role="status">${c.note.lead} ${c.note.rest}</p>`}
    </div>`;
  }
}
