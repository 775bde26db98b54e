// <attn-why-scale>: why attention divides by √d_k, measured live.
// Samples q, k ~ N(0, 1) at d_k = 1 … 2^max-pow, measures var[q·k] (≈ d_k) and var[q·k/√d_k] (≈ 1)
// over the core's scores, and how peaked the softmax weights get without the scale.
//
// Attributes: samples (queries = keys per d_k), keys (softmax width), dk (the d_k of the example row),
// max-pow, seed, weight-range, hash-key. Events: attn-state-change.
// Numbers: lab.attention (scores, scaled, weights); the widget only takes variances and maxima of them.
import { html, svg, css, nothing } from 'lit';
import { AttnWidget } from '../shared/widget.js';
import { dkList, sampleQK } from './logic.js';
import { mean, variance, rowEntropies } from '../shared/stats.js';
import { plot } from '../shared/plot.js';
import { widgetStyles } from '../shared/styles.js';
import { packRow } from '../shared/fit.js';
import { FitBoxes, SLIDE_CSS, mathLabel, padRange, plotInner } from '../shared/fit-boxes.js';
import { fmt } from '../shared/format.js';
import { drawInParts, drawn } from '../shared/parts.js';
import '../shared/heatmap.js';
import '../shared/tex.js';

export class AttnWhyScale extends AttnWidget {
  static properties = {
    samples: { type: Number },
    keys: { type: Number },
    dk: { type: Number },
    maxPow: { type: Number, attribute: 'max-pow' },
    seed: { type: Number },
    /** 'fixed' (default): weights coloured on [0, 1]; 'map': on the map's own range. */
    weightRange: { type: String, attribute: 'weight-range' },
    /** The part of the page's first draw drawn so far (parts.js; null: all). */
    _drawPart: { state: true },
  };

  static styles = [widgetStyles, css`
    ${SLIDE_CSS}
    .slide-body.column { flex-direction: column; gap: 8px; }
    .slide-body.column > attn-heatmap { flex: none; }
    .plots { flex: 1 1 0; min-height: 0; display: flex; gap: 16px; }
    .dot { display: inline-block; width: 10px; height: 10px; border-radius: 50%; vertical-align: 0; margin-right: 2px; }
    .legend attn-tex, .legend-line attn-tex { display: inline-block; padding: 4px 2px; vertical-align: middle; }
  `];

  /** The example d_k must be one the dropdown offers (a power of 2 up to 2^maxPow), or the link is refused. */
  static checkState(s, widget) {
    const dks = dkList(s.maxPow ?? widget?.maxPow ?? 10);
    return s.dk !== undefined && !dks.includes(s.dk) ? `dk ${s.dk} is not one of the choices (powers of 2 from 1 to ${dks[dks.length - 1]})` : '';
  }

  static stateSchema = {
    samples: { type: 'int', min: 8, max: 256 },
    keys: { type: 'int', min: 2, max: 32 },
    dk: { type: 'int', min: 1, max: 4096 },
    maxPow: { type: 'int', min: 2, max: 12 },
    seed: { type: 'int', min: 0, max: 1e9 },
  };

  constructor() {
    super();
    this.samples = 64;
    this.keys = 8;
    this.dk = 256;
    this.maxPow = 10;
    this.seed = 1;
    this.weightRange = 'fixed';
    this.boxes = new FitBoxes(this);
  }

  /** The measurements at one d_k, every number from lab.attention. */
  measure(lab, d, sampled = null) {
    const n = this.samples, m = Math.min(this.keys, n);
    const { q, k } = sampled ?? sampleQK(this.seed, d, n);
    const all = lab.attention({ q, k, v: new Float32Array(n), tq: n, tk: n, dk: d, dv: 1 });
    const few = k.subarray(0, m * d), v = new Float32Array(m);
    const scaled = lab.attention({ q, k: few, v, tq: n, tk: m, dk: d, dv: 1 });
    const raw = lab.attention({ q, k: few, v, tq: n, tk: m, dk: d, dv: 1, scale: 1 });
    const rowMax = (w) => mean(Array.from({ length: n }, (_, i) => Math.max(...w.subarray(i * m, (i + 1) * m))));
    return {
      d, varDot: variance(all.scores), varScaled: variance(all.scaled),
      maxRaw: rowMax(raw.weights), maxScaled: rowMax(scaled.weights),
      entRaw: mean(rowEntropies(raw.weights, n, m)), entScaled: mean(rowEntropies(scaled.weights, n, m)),
      exampleRaw: raw.weights.subarray(0, m), exampleScaled: scaled.weights.subarray(0, m),
    };
  }

  /** The measurements at every d_k (cached: a re-layout does not re-sample). */
  #rows(lab, dks) {
    const key = `${this.seed}|${this.samples}|${this.keys}|${dks.length}`;
    if (this._cache?.key !== key) {
      // 128 × 128 samples and more at eleven d_k take 100+ ms: then one d_k per task (each well under
      // 50 ms), the plots and the table filling in as they come, so the page never freezes. On a page
      // always (64 × 64 at eleven d_k was one task of ~0.5 s with the CPU throttled 4×, a phone's);
      // a slide at fewer samples draws at once.
      const incremental = (this.samples >= 128 || !this.slideLayout) && typeof window !== 'undefined';
      this._cache = { key, rows: incremental ? [] : dks.map((d) => this.measure(lab, d)) };
      if (incremental) this.#fill(lab, dks, this._cache);
    }
    return this._cache.rows;
  }

  async #fill(lab, dks, cache) {
    const tick = () => new Promise((ok) => setTimeout(ok, 0));
    for (const d of dks) {
      await tick();  // sampling and computing in separate tasks (at d_k = 1024 each takes ~10–25 ms)
      if (this._cache !== cache || !this.isConnected) return;
      const sampled = sampleQK(this.seed, d, this.samples);
      await tick();
      if (this._cache !== cache || !this.isConnected) return;
      cache.rows = [...cache.rows, this.measure(lab, d, sampled)];
      this.requestUpdate();
    }
  }

  #weightsRange() {
    return this.weightRange === 'map' ? { vmin: null, vmax: null } : { vmin: 0, vmax: 1 };
  }

  /** The two plots' series and axes: one colour per meaning in both (unscaled, scaled, theory). */
  #plots(rows, dks, m, legend) {
    const dk = mathLabel(svg`<tspan font-style="italic">d</tspan><tspan font-size="0.75em" dy="0.3em" font-style="italic">k</tspan>`, 'd_k');
    const lbl = (tex, text) => (legend ? html`${text} <attn-tex inline .expr=${tex}></attn-tex>` : undefined);
    const variance = { xLabel: dk, yLabel: 'variance', logX: true, logY: true,
      series: [{ points: dks.map((d) => [d, d]), label: lbl('d_k', 'theory'), color: THEORY, dash: '5 4' },
        { points: rows.map((r) => [r.d, r.varDot]), kind: 'dots', label: lbl('\\operatorname{Var}[q\\cdot k]', 'measured'), color: UNSCALED },
        { points: rows.map((r) => [r.d, r.varScaled]), kind: 'dots', label: lbl('\\operatorname{Var}[q\\cdot k/\\sqrt{d_k}]', 'measured'), color: SCALED }] };
    const peak = { xLabel: dk, yLabel: 'max weight', logX: true, yDomain: [0, 1],
      series: [{ points: rows.map((r) => [r.d, r.maxRaw]), label: lbl('q\\cdot k', 'without the scale:'), color: UNSCALED },
        { points: rows.map((r) => [r.d, r.maxScaled]), label: lbl('q\\cdot k/\\sqrt{d_k}', 'with the scale:'), color: SCALED },
        { points: dks.map((d) => [d, 1 / m]), label: lbl('1/t_k', 'uniform'), color: THEORY, dash: '5 4' }] };
    return { variance, peak };
  }

  /** The log d_k axis widened so the first and last tick labels are not cut at the figure's edges. */
  #xDomain(dks, width, fontSize) {
    const inner = plotInner(width, 100, fontSize).width;
    const half = (String(dks[dks.length - 1]).length * 0.62 * fontSize) / 2;
    const [lo, hi] = padRange(0, Math.log10(dks[dks.length - 1]), inner, 6, Math.max(6, half - 8));
    return [10 ** lo, 10 ** hi];
  }

  #dkControl(dks) {
    return html`<label>example d<sub>k</sub> <select class="dk" @change=${(e) => this.setState({ dk: Number(e.target.value) })}>
          ${dks.map((d) => html`<option value=${d} ?selected=${d === this.dk}>${d}</option>`)}</select></label>`;
  }

  #otherControls() {
    const f = this.fields;
    return html`<label>samples (queries × keys) <select class="samples" @change=${(e) => this.setState({ samples: Number(e.target.value) })}>
          ${[16, 32, 64, 128, 256].map((n) => html`<option value=${n} ?selected=${n === this.samples}>${n} × ${n}</option>`)}</select></label>
        <label>keys in the softmax <input type="number" class="keys" min="2" max="32" .value=${String(this.keys)}
          aria-invalid=${f.invalid('keys')} aria-describedby=${f.describedBy('keys')}
          @change=${(e) => { const v = f.number('keys', e.target, { min: 2, max: 32, integer: true, name: `keys in the softmax (still ${this.keys})` }); if (v !== null) this.setState({ keys: v }); }}></label>${f.message('keys')}
        <label>seed <input type="number" class="seed" min="0" .value=${String(this.seed)} aria-invalid=${f.invalid('seed')} aria-describedby=${f.describedBy('seed')}
          @change=${(e) => { const v = f.number('seed', e.target, { min: 0, max: 1e9, integer: true, name: 'seed' }); if (v !== null) this.setState({ seed: v }); }}></label>${f.message('seed')}
        <button type="button" class="resample" @click=${() => this.setState({ seed: this.seed + 1 })}>Sample again</button>`;
  }

  renderWidget(lab) {
    const dks = dkList(this.maxPow);
    const rows = this.#rows(lab, dks);
    // While the rows fill in, the example row stays the last one drawn (no extra sampling in this task);
    // the page's first part (parts.js) has no example maps: nothing sampled for them yet.
    const m = Math.min(this.keys, this.samples);
    const ex = drawn(this, 3) ? rows.find((r) => r.d === this.dk) ?? (rows.length < dks.length ? this._lastEx : null) ?? this.measure(lab, this.dk) : null;
    if (ex) this._lastEx = ex;
    return this.slideLayout ? this.#renderSlide(dks, rows, ex, m) : this.#renderPage(dks, rows, ex, m);
  }

  /**
   * The page's first draw: the controls and the variance plot, then the weights plot, the table, and the
   * example maps (their d_k sampled only then), a task each (parts.js).
   */
  labReady() {
    drawInParts(this, 4);
  }

  /** The first table fills a d_k per task after the parts: held at the placeholder's height until it is full. */
  get firstDrawPending() {
    return !!this._cache && this._cache.rows.length < dkList(this.maxPow).length;
  }

  /**
   * The page's two plots, kept while what they show stays (the rows, the keys, the width): a render for
   * the next part of the first draw or the table's example row does not lay out their axes again.
   */
  #pagePlots(rows, dks, m, W) {
    const memo = this._pagePlots;
    if (memo?.rows === rows && memo.m === m && memo.W === W && memo.dks.join() === dks.join()) return memo;
    const p = this.#plots(rows, dks, m, true), xDomain = this.#xDomain(dks, W, 12);
    this._pagePlots = { rows, dks, m, W, variance: plot({ title: 'variance of the scores', width: W, height: 260, xDomain, ...p.variance }),
      peak: plot({ title: `softmax over ${m} keys: mean largest weight`, width: W, height: 260, xDomain, ...p.peak }) };
    return this._pagePlots;
  }

  #renderPage(dks, rows, ex, m) {
    // (kept: a new label array would redraw both maps each time a d_k's row arrives)
    if (this._keyLabels?.length !== m) this._keyLabels = Array.from({ length: m }, (_, j) => `k${j + 1}`);
    const keyLabels = this._keyLabels;
    const { vmin, vmax } = this.#weightsRange();
    const plots = this.#pagePlots(rows, dks, m, this.pageFit(400));
    return html`
      <attn-tex class="formula" display .expr=${FULL_TEX}></attn-tex>
      <div class="controls">${this.#otherControls()}${this.#dkControl(dks)}
        <span class="sampling" role="status">${rows.length < dks.length ? html`sampling d<sub>k</sub> = ${dks[rows.length]}…` : ''}</span></div>
      <div class="row">
        ${plots.variance}
        ${drawn(this, 1) ? plots.peak : nothing}
      </div>
      ${drawn(this, 2) ? html`<h3>One query at d<sub>k</sub> = ${this.dk}</h3>
      ${ex ? html`<div class="row">
        <attn-heatmap class="example-raw" label="weights without the scale" .values=${ex.exampleRaw} .rows=${1} .cols=${m} .rowLabels=${['q']} .colLabels=${keyLabels} colormap="sequential" .vmin=${vmin} .vmax=${vmax}></attn-heatmap>
        <attn-heatmap class="example-scaled" label="weights with 1/√dₖ" .values=${ex.exampleScaled} .rows=${1} .cols=${m} .rowLabels=${['q']} .colLabels=${keyLabels} colormap="sequential" .vmin=${vmin} .vmax=${vmax}></attn-heatmap>
      </div>` : nothing}
      <p class="note">Without the scale a single key takes almost all the weight once d<sub>k</sub> is large: the softmax saturates, its gradient vanishes, and learning stalls.</p>
      <div class="scrollx" tabindex="0" role="region" aria-label="measurements table"><table class="plain measurements"><caption>measured from ${this.samples}×${this.samples} dot products per d<sub>k</sub> (seed ${this.seed})</caption>
        <tr><th>d<sub>k</sub></th><th>var[q·k]</th><th>var[q·k/√d<sub>k</sub>]</th><th>max weight, no scale</th><th>max weight, 1/√d<sub>k</sub></th><th>entropy, no scale</th><th>entropy, 1/√d<sub>k</sub></th></tr>
        ${rows.map((r) => html`<tr><td>${r.d}</td><td>${fmt(r.varDot, 2)}</td><td>${fmt(r.varScaled, 3)}</td><td>${fmt(r.maxRaw, 3)}</td><td>${fmt(r.maxScaled, 3)}</td><td>${fmt(r.entRaw, 3)}</td><td>${fmt(r.entScaled, 3)}</td></tr>`)}
      </table></div>` : nothing}`;
  }

  /**
   * Slide layout: the claim as a formula, the d_k picker, the two plots (one in a narrow box) filling
   * the box, and one query's weights at that d_k without and with the scale (one map, on [0, 1]).
   */
  #renderSlide(dks, rows, ex, m) {
    const box = this.box, fs = 16, ctl = this.controlsMode, narrow = box.width < 640;
    const body = this.boxes.get('body', { width: box.width, height: Math.max(140, box.height - 150) });
    const { vmin, vmax } = this.#weightsRange();
    const values = new Float32Array(2 * m);
    values.set(ex.exampleRaw, 0);
    values.set(ex.exampleScaled, m);
    const map = { rows: 2, cols: m, rowLabels: ['q·k', 'q·k/√dₖ'], colLabels: Array.from({ length: m }, (_, j) => `k${j + 1}`),
      label: `one query’s weights at dₖ = ${this.dk}`, compact: true, legendPos: 'right' };
    const packed = packRow([map], body.width, Math.max(80, Math.min(200, Math.round(body.height * (narrow ? 0.3 : 0.4)))), { maxCell: 70 });
    const fit = (packed.panels ?? packed)[0];
    const p = this.#plots(rows, dks, m, false);
    const panelH = body.height - fit.fitHeight - 8;
    const guess = { width: narrow ? body.width : Math.floor((body.width - 16) / 2), height: Math.max(100, panelH - 28) };
    const b1 = this.boxes.get('p1', guess), b2 = this.boxes.get('p2', guess);
    const sw = (color, dash) => html`<span class="line-swatch" style=${`border-color:${color};border-top-style:${dash ? 'dashed' : 'solid'}`}></span>`;
    const dot = (color) => html`<span class="dot" style=${`background:${color}`}></span>`;
    const r = rows.find((x) => x.d === this.dk) ?? ex;
    return html`<div class="slide-frame" style=${`height:${box.height}px`}>
      <attn-tex class="formula" .expr=${narrow ? SHORT_TEX : FULL_TEX}></attn-tex>
      ${ctl === 'none' ? nothing : html`<div class="controls">${this.#dkControl(dks)}${ctl === 'full' ? this.#otherControls() : nothing}</div>`}
      <div class="slide-body column" data-fit="body">
        <div class="plots">
          <div class="plot-panel grow">
            <div class="legend-line"><span>${dot(UNSCALED)} <attn-tex .expr=${'\\operatorname{Var}[q\\cdot k]'}></attn-tex></span>
              <span>${dot(SCALED)} <attn-tex .expr=${'\\operatorname{Var}[q\\cdot k/\\sqrt{d_k}]'}></attn-tex></span>
              <span>${sw(THEORY, true)} <attn-tex .expr=${'d_k'}></attn-tex></span></div>
            <div class="plotbox" data-fit="p1">${plot({ width: b1.width, height: b1.height, fontSize: fs, xDomain: this.#xDomain(dks, b1.width, fs), ...p.variance })}</div>
          </div>
          ${narrow ? nothing : html`<div class="plot-panel grow">
            <div class="legend-line"><span>max weight:</span><span>${sw(UNSCALED)} no scale</span><span>${sw(SCALED)} <attn-tex .expr=${'1/\\sqrt{d_k}'}></attn-tex></span>
              <span>${sw(THEORY, true)} uniform</span></div>
            <div class="plotbox" data-fit="p2">${plot({ width: b2.width, height: b2.height, fontSize: fs, xDomain: this.#xDomain(dks, b2.width, fs), ...p.peak })}</div>
          </div>`}
        </div>
        <attn-heatmap class="example weights" compact .label=${map.label} .values=${values} .rows=${2} .cols=${m} .rowLabels=${map.rowLabels}
          .colLabels=${map.colLabels} colormap="sequential" .vmin=${vmin} .vmax=${vmax} .fitWidth=${fit.fitWidth} .fitHeight=${fit.fitHeight} .cellSize=${70} .digits=${2}></attn-heatmap>
      </div>
      <p class="note status" role="status">At d<sub>k</sub> = ${this.dk} the largest of ${m} weights averages <strong style=${`color:${UNSCALED}`}>${fmt(r.maxRaw, 2)}</strong> without the scale,
        <strong style=${`color:${SCALED}`}>${fmt(r.maxScaled, 2)}</strong> with 1/√d<sub>k</sub> (uniform: ${fmt(1 / m, 2)}).</p>
    </div>`;
  }
}

/** One colour per meaning across both plots and the status line. */
const UNSCALED = '#d55e00', SCALED = '#0072b2', THEORY = '#8c959f';
const FULL_TEX = '{q\\cdot k = \\sum_{i} q_i k_i,\\quad q_i, k_i \\sim \\mathcal N(0,1) \\;\\Rightarrow\\; \\operatorname{Var}[q\\cdot k] = d_k,\\quad \\operatorname{Var}\\!\\left[q\\cdot k/\\sqrt{d_k}\\right] = 1}';
const SHORT_TEX = '{\\operatorname{Var}[q\\cdot k] = d_k,\\quad \\operatorname{Var}\\!\\left[q\\cdot k/\\sqrt{d_k}\\right] = 1}';
