// <attn-cost>: how attention's cost grows with T, measured in this page.
// Times, at T = 16 … max-t, either one multi-head attention forward (op="multihead", the default:
// lab.multiHeadAttention, output only when the API offers `intermediates: false`; fit c·(4T²D + 8TD²),
// projections included) or the attention core alone (op="attention": lab.attention, softmax(QKᵀ/√d)·V
// of one head with Q, K, V of T × d, no projections; fit c·4T²d) — in a Web Worker with its own module
// (cost.worker.js; the page's thread only draws the results), or, without workers, on the page's
// thread in short slices (timing.js). The fit is least squares in relative error; the log–log plot
// has reference lines ∝ T and ∝ T² through the largest T. With op="attention" and d-model 64, the
// timings shipped in reference.js (labelled with where and when they were measured) are drawn until
// a live run has results: a slide is never blank, before its run or on its PDF page.
//
// Attributes: op, d-model, heads, max-t, autorun, in-page (time on the page's thread), hash-key.
// Events: attn-state-change; attn-cost-complete { results, outputOnly, where } when a run finishes. Times are this machine's; nothing here is a test assertion.
import { html, css, nothing } from 'lit';
import { AttnWidget } from '../shared/widget.js';
import { fitProportionalRelative } from '../shared/stats.js';
import { plot, SERIES_COLORS } from '../shared/plot.js';
import { widgetStyles } from '../shared/styles.js';
import { FitBoxes, SLIDE_CSS } from '../shared/fit-boxes.js';
import { fmt } from '../shared/format.js';
import { flopsOf, lastSlope, lengths, referenceSlopes, tAxis } from './logic.js';
import { REFERENCE } from './reference.js';
import { hasOutputOnly, timeLengths } from './timing.js';
import '../shared/tex.js';

const SLICE_MS = 20;      // longest stretch of work between two yields to the page
const MIN_TIME_MS = 120;  // time spent measuring each T
const WARMUP_MS = 400;    // V8 compiles WASM in tiers: run a while before timing
const yieldToPage = () => new Promise((ok) => setTimeout(ok, 0));

// Below this page width (a phone) the timings table shows the slide's three columns (T, ms / call,
// GFLOP/s): fit (ms) and calls are left to wider screens.
const NARROW_TABLE = 480;

export class AttnCost extends AttnWidget {
  static properties = {
    /** What is timed: 'multihead' (one multi-head attention forward, projections included) or 'attention' (the core alone). */
    op: { type: String },
    dModel: { type: Number, attribute: 'd-model' },
    heads: { type: Number },
    maxT: { type: Number, attribute: 'max-t' },
    autorun: { type: Boolean },
    /** Time on the page's thread, in slices (default: in a Web Worker where the runtime has one). */
    inPage: { type: Boolean, attribute: 'in-page' },
    _results: { state: true },
    _where: { state: true },
    _error: { state: true },
    _progress: { state: true },
    _running: { state: true },
  };

  static styles = [widgetStyles, css`
    ${SLIDE_CSS}
    .dot { display: inline-block; width: 10px; height: 10px; border-radius: 50%; background: #0072b2; margin-right: 2px; }  /* SERIES_COLORS[0], the measured dots */
    .side { flex: none; font-size: 16px; }
    .side table.plain :is(th, td) { padding: 1px 6px; }
    .side caption { text-align: left; font-weight: 600; }
  `];

  static stateSchema = {
    op: { type: 'enum', values: ['multihead', 'attention'] },
    dModel: { type: 'int', min: 8, max: 512 },
    heads: { type: 'int', min: 1, max: 16 },
    maxT: { type: 'int', min: 16, max: 4096 },
  };

  static checkState(s) {
    return s.dModel && s.heads && s.dModel % s.heads ? 'heads must divide d_model' : '';
  }

  constructor() {
    super();
    this.op = 'multihead';
    this.dModel = 64;
    this.heads = 4;
    this.maxT = 1024;
    this.autorun = false;
    this.inPage = false;
    this._where = null;  // where the last run timed: 'worker' or 'page'
    this._error = '';
    this._results = [];
    this._progress = 0;
    this._running = false;
    this._runId = 0;
    this.boxes = new FitBoxes(this);
  }

  labReady() {
    if (this.autorun) this.run();
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.#stop();  // stops a run in progress
    this.#stopWorker();
  }

  #outputOnly(lab) {
    this._outputOnly ??= hasOutputOnly(lab);
    return this._outputOnly;
  }

  /** The worker that times the calls (made on the first run), or null where there is none. */
  #worker() {
    if (this._worker !== undefined) return this._worker;
    try {
      this._worker = typeof Worker === 'function' && !this.inPage ? new Worker(new URL('./cost.worker.js', import.meta.url), { type: 'module' }) : null;
    } catch {
      this._worker = null;
    }
    return this._worker;
  }

  /** Ends the worker (a call in it cannot be interrupted: a stop or a new setting starts afresh). */
  #stopWorker() {
    this._worker?.terminate();
    this._worker = undefined;
  }

  /**
   * Times every T: in a Web Worker (one call at d_model 256, 8 heads, T = 2048 takes ~250 ms, which no
   * slice of the page's thread could hold), else on this thread in slices of ≤ SLICE_MS between yields.
   */
  async run() {
    const lab = this._lab;
    if (!lab || this._running) return;
    const id = ++this._runId, D = this.dModel, H = this.dModel % this.heads ? 1 : this.heads;
    const Ts = lengths(this.maxT), outputOnly = this.#outputOnly(lab);
    const op = this.#op;
    const job = { op, dModel: D, heads: H, Ts, outputOnly, warmupMs: WARMUP_MS, minTimeMs: MIN_TIME_MS, sliceMs: SLICE_MS };
    const add = (r) => {
      this._results = [...this._results, { T: r.T, ms: r.ms, calls: r.calls, flops: flopsOf(op, r.T, D) }];
      this._progress = this._results.length / Ts.length;
    };
    this._running = true;
    this._results = [];
    this._progress = 0;
    this._error = '';
    try {
      const worker = this.#worker();
      this._where = worker ? 'worker' : 'page';
      if (worker) {
        const ok = await new Promise((resolve) => {
          this._settle = resolve;
          worker.onmessage = (e) => {
            const m = e.data;
            if (m.id !== id || id !== this._runId) return;
            if (m.type === 'result') add(m);
            else if (m.type === 'done') resolve(true);
            else if (m.type === 'error') { this._error = m.message; resolve(false); }
          };
          worker.onerror = (e) => { e.preventDefault?.(); this._error = e.message || 'the timing worker could not start'; this.#stopWorker(); resolve(false); };
          worker.postMessage({ type: 'run', id, ...job });
        });
        this._settle = null;
        if (!ok || id !== this._runId) return;
      } else {
        await timeLengths(lab, job, { stopped: () => id !== this._runId, onResult: add, pause: yieldToPage });
        if (id !== this._runId) return;
      }
      this.dispatchEvent(new CustomEvent('attn-cost-complete', { detail: { results: this._results, outputOnly, where: this._where, op }, bubbles: true, composed: true }));
    } finally {
      if (id === this._runId) this._running = false;
    }
  }

  /** Stops a run in progress (its worker too). */
  #stop() {
    this._runId++;
    this._running = false;
    if (this._settle) { this.#stopWorker(); this._settle(false); this._settle = null; }
  }

  #set(patch) {
    Object.assign(this, patch);
    this.#stop();
    this._results = [];
    this.stateChanged();
  }

  #measureControls(full) {
    const res = this._results;
    // aria-disabled, not disabled, while it runs: a disabled button drops the keyboard focus (to the
    // page's start), and a run that finishes would leave a keyboard user nowhere.
    return html`<button type="button" class="run" aria-disabled=${String(this._running)} @click=${() => this.run()}>${res.length ? 'Measure again' : 'Measure'}</button>
        ${this._running ? html`<button type="button" class="stop" @click=${() => this.#stop()}>Stop</button>` : nothing}
        <progress max="1" .value=${this._progress} aria-label="measurement progress"></progress>
        <span role="status">${this._running ? `timing T = ${lengths(this.maxT)[res.length] ?? ''}…` : !this._running && res.length ? html`<span class="done">done</span>` : full ? '' : 'times this computer'}</span>`;
  }

  #settings(D) {
    return html`<label>time <select class="op" @change=${(e) => this.#set({ op: e.target.value })}>
          <option value="multihead" ?selected=${this.#op === 'multihead'}>multi-head forward (with projections)</option>
          <option value="attention" ?selected=${this.#op === 'attention'}>attention core (one head, no projections)</option></select></label>
        <label>d<sub>model</sub> <select class="d-model" @change=${(e) => this.#set({ dModel: Number(e.target.value) })}>
          ${[32, 64, 128, 256].map((d) => html`<option value=${d} ?selected=${d === D}>${d}</option>`)}</select></label>
        <label>heads <select class="heads" @change=${(e) => this.#set({ heads: Number(e.target.value) })}>
          ${[1, 2, 4, 8].map((h) => html`<option value=${h} ?selected=${h === this.heads}>${h}</option>`)}</select></label>
        <label>largest T <select class="max-t" @change=${(e) => this.#set({ maxT: Number(e.target.value) })}>
          ${[128, 256, 512, 1024, 2048].map((t) => html`<option value=${t} ?selected=${t === this.maxT}>${t}</option>`)}</select></label>`;
  }

  get #op() { return this.op === 'attention' ? 'attention' : 'multihead'; }

  /**
   * The timings to draw: this run's ('live'), else the shipped ones when they are of this op and
   * d_model ('shipped', reference.js), else none.
   */
  #shown() {
    if (this._results.length) return { res: this._results, source: 'live' };
    const D = this.dModel, op = this.#op;
    if (REFERENCE.op === op && REFERENCE.dModel === D && !this._error)
      return { res: REFERENCE.results.filter((r) => r.T <= this.maxT).map((r) => ({ ...r, flops: flopsOf(op, r.T, D) })), source: 'shipped' };
    return { res: [], source: null };
  }

  /** The fitted formula's name, as the legend and the slide say it. */
  get #fitName() { return this.#op === 'attention' ? 'c·4T²d' : 'c·(4T²d + 8Td²)'; }

  /**
   * The plot's series: measured times (dots), the fitted flop model (line) and the reference slopes
   * ∝ T and ∝ T² through the largest T (dashed, labelled at their small-T end).
   */
  #series(res, c, legend, fs = 12) {
    if (!res.length) return [{ points: [], kind: 'dots' }];
    const slopes = referenceSlopes(res).map(({ power, points }) => [
      { points, dash: '6 5', color: power === 2 ? '#57606a' : '#8c959f', label: legend ? (power === 2 ? '∝ T²' : '∝ T') : undefined, slope: power },
      // The label near the line's small-T end, above it (the fit runs just below the ∝ T² line).
      { points: [power === 2 ? [points[Math.min(1, points.length - 1)][0], points[Math.min(1, points.length - 1)][1] * 3] : [points[0][0], points[0][1] * 1.6]], kind: 'dots', r: 0.01, color: power === 2 ? '#57606a' : '#6e7781', labels: [power === 2 ? '∝ T²' : '∝ T'] }]).flat();
    return [...slopes,
      { points: res.map((r) => [r.T, r.ms]), kind: 'dots', label: legend ? 'measured' : undefined, color: SERIES_COLORS[0] },
      { points: res.map((r) => [r.T, c * r.flops]), label: legend ? `fit ${this.#fitName}, c = ${(c * 1e6).toPrecision(3)} ns per flop (${(1e-6 / c).toPrecision(3)} GFLOP/s)` : undefined, color: SERIES_COLORS[1] }];
  }

  renderWidget(lab) {
    const shown = this.#shown(), res = shown.res;
    const c = res.length ? fitProportionalRelative(res.map((r) => r.flops), res.map((r) => r.ms)) : NaN;
    return this.slideLayout ? this.#renderSlide(lab, shown, c) : this.#renderPage(lab, shown, c);
  }

  /** The time formula (LaTeX) of what is timed. */
  #formula(D, narrow, page) {
    if (this.#op === 'attention')
      return page ? `\\text{time}(T) \\approx c\\,\\underbrace{4T^2 d}_{QK^\\top,\\ AV} = O(T^2 d)\\ \\text{(no projections)},\\quad d = ${D}`
        : narrow ? `{\\text{time}(T) \\approx c \\cdot 4T^2 d\\ \\ \\text{(no projections)},\\ d = ${D}}` : `{\\text{time}(T) \\approx c \\cdot 4T^2 d\\ \\ (QK^\\top \\text{ and } AV\\text{, no projections}),\\quad d = ${D}}`;
    return page ? `\\text{time}(T) \\approx c\\,\\big(\\underbrace{4T^2 d}_{QK^\\top,\\ AV} + \\underbrace{8T d^2}_{\\text{projections}}\\big) = O(T^2 d + T d^2),\\quad d = ${D}`
      : narrow ? `{\\text{time}(T) \\approx c\\,(4T^2 d + 8T d^2),\\ d = ${D}}` : `{\\text{time}(T) \\approx c\\,\\big(4T^2 d + 8T d^2\\big) = O(T^2 d + T d^2),\\quad d = ${D}}`;
  }

  /** What one timed call is, in words. */
  get #callName() {
    return this.#op === 'attention' ? 'softmax(QKᵀ/√d)·V, one head' : 'multi-head attention call';
  }

  /** Where the drawn timings come from, in words. */
  #sourceText(source) {
    if (source === 'shipped') return `shipped timings: ${REFERENCE.where}, ${REFERENCE.date}`;
    return this._where === 'page' ? 'measured in this browser (page thread)' : 'measured in this browser';
  }

  #renderPage(lab, shown, c) {
    const D = this.dModel, { res, source } = shown, core = this.#op === 'attention';
    return html`
      <attn-tex class="formula" display .expr=${this.#formula(D, false, true)}></attn-tex>
      <div class="controls">${this.#settings(D)}${this.#measureControls(true)}</div>
      <p class="note">${core ? 'The attention core alone: lab.attention with Q, K, V of T × d (it returns its T × T scores and weights too).'
        : this.#outputOnly(lab) ? 'Output only (intermediates: false).' : 'With every intermediate (scores and weights per head).'}
        After ${WARMUP_MS} ms of warm-up, each T is timed for at least ${MIN_TIME_MS} ms${(this._where ?? (typeof Worker === 'function' && !this.inPage ? 'worker' : 'page')) === 'page'
          ? html` on this page's thread, in slices of ≤ ${SLICE_MS} ms (one call at a large T can take longer than a slice: the page may pause)`
          : ' in a background thread (a Web Worker), so the page stays usable while it runs'}. Small T is dominated by per-call overhead, not flops.
        Dashed: ∝ T and ∝ T² through the largest T.${source === 'shipped' ? html` <span class="source">Shown until you measure: ${this.#sourceText(source)}.</span>` : nothing}${this._error ? html` <span class="run-error" role="alert">The measurement stopped: ${this._error}</span>` : nothing}</p>
      ${res.length ? html`<div class="row">
        ${plot({ title: `time per call (${this.#callName})`, xLabel: 'sequence length T', yLabel: 'ms', logX: true, logY: true, width: this.pageFit(440), height: 280,
          ...tAxis(this.maxT, this.pageFit(440), 12), series: this.#series(res, c, true) })}
        ${this.#table(res, c, (this._pageWidth ?? Infinity) < NARROW_TABLE, source)}</div>` : nothing}`;
  }

  #table(res, c, compact = false, source = 'live') {
    return html`<table class="plain timings"><caption>${source === 'shipped' ? 'shipped (not this computer)' : 'measured in this page'}</caption>
      <tr><th>T</th><th>ms / call</th>${compact ? nothing : html`<th>fit (ms)</th>`}<th>GFLOP/s</th>${compact ? nothing : html`<th>calls</th>`}</tr>
      ${res.map((r) => html`<tr><td>${r.T}</td><td>${fmt(r.ms, compact ? 3 : 4)}</td>${compact ? nothing : html`<td>${fmt(c * r.flops, 4)}</td>`}<td>${fmt(r.flops / r.ms / 1e6, 2)}</td>${compact ? nothing : html`<td>${r.calls}</td>`}</tr>`)}
    </table>`;
  }

  /**
   * Slide layout: the cost formula, what is timed and where, the Measure button (the lecture's one live
   * control), the log–log plot filling the box with the reference slopes, and the timings beside it.
   * Before a live run (and on a PDF page) the shipped timings, labelled as such, when there are some.
   */
  #renderSlide(lab, shown, c) {
    const box = this.box, fs = 16, ctl = this.controlsMode, D = this.dModel, narrow = box.width < 640;
    const { res, source } = shown;
    const body = this.boxes.get('body', { width: box.width, height: Math.max(140, box.height - 150) });
    const tableW = narrow || !res.length ? 0 : 250;
    const legendH = narrow ? 52 : 28;  // the legend line wraps in a half-slide column
    const plotBox = this.boxes.get('plot', { width: body.width - tableW - (tableW ? 16 : 0), height: Math.max(100, body.height - legendH) });
    const Ts = lengths(this.maxT), slope = lastSlope(res);
    // No timings at all (another op or d_model than the shipped ones): the axes over the range that will be measured.
    const yDomain = res.length ? undefined : [1e-3, 1e2];
    return html`<div class="slide-frame" style=${`height:${box.height}px`}>
      <attn-tex class="formula" .expr=${this.#formula(D, narrow, false)}></attn-tex>
      ${ctl === 'none' ? nothing : html`<div class="controls">${ctl === 'full' ? this.#settings(D) : nothing}${this.#measureControls(false)}</div>`}
      <div class="slide-body" data-fit="body">
        <div class="plot-panel grow">
          <div class="legend-line">${res.length ? html`<span class="source"><span class="dot" style=${source === 'shipped' ? 'background:#57606a' : ''}></span> ${this.#sourceText(source)}</span>
            <span><span class="line-swatch" style=${`border-color:${SERIES_COLORS[1]}`}></span> fit ${this.#fitName}, ${fmt(1e-6 / c, 2)} GFLOP/s</span>
            ${Number.isFinite(slope) ? html`<span class="slope">slope ${fmt(slope, 1)} at T = ${res[res.length - 1].T}</span>` : nothing}`
            : html`<span>${this.#callName}, T = ${Ts[0]} … ${Ts[Ts.length - 1]}${ctl === 'none' ? '' : ': press Measure'}</span>`}</div>
          <div class="plotbox" data-fit="plot">${plot({ xLabel: 'sequence length T', yLabel: 'ms per call', logX: true, logY: true, width: plotBox.width, height: plotBox.height,
            fontSize: fs, ...tAxis(this.maxT, plotBox.width, fs), yDomain, series: this.#series(res, c, false, fs).map((s) => (source === 'shipped' && s.kind === 'dots' && !s.labels ? { ...s, color: '#57606a' } : s)) })}</div>
        </div>
        ${tableW ? html`<div class="side" style=${`width:${tableW}px`}>${this.#table(res, c, true, source)}</div>` : nothing}
      </div>
    </div>`;
  }
}
