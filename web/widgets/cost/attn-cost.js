// <attn-cost>: how attention's cost grows with T, measured in this page.
// Times lab.multiHeadAttention at T = 16 … max-t (output only when the API offers
// `intermediates: false`), spreading the work over many short tasks so the page stays responsive,
// and fits time ≈ c·(4T²D + 8TD²) (the flop count) by least squares in relative error.
//
// Attributes: d-model, heads, max-t, autorun, hash-key. Events: attn-state-change; attn-cost-complete
// { results } when a run finishes. Times are this machine's; nothing here is a test assertion.
import { html, nothing } from 'lit';
import { AttnWidget } from '../shared/widget.js';
import { uniformMatrix } from '../shared/rng.js';
import { fitProportionalRelative } from '../shared/stats.js';
import { plot } from '../shared/plot.js';
import { fmt } from '../shared/format.js';
import { attentionFlops, lengths } from './logic.js';
import '../shared/tex.js';

const SLICE_MS = 20;      // longest stretch of work between two yields to the page
const MIN_TIME_MS = 120;  // time spent measuring each T
const WARMUP_MS = 400;    // V8 compiles WASM in tiers: run a while before timing
const yieldToPage = () => new Promise((ok) => setTimeout(ok, 0));

export class AttnCost extends AttnWidget {
  static properties = {
    dModel: { type: Number, attribute: 'd-model' },
    heads: { type: Number },
    maxT: { type: Number, attribute: 'max-t' },
    autorun: { type: Boolean },
    _results: { state: true },
    _progress: { state: true },
    _running: { state: true },
  };

  static stateSchema = {
    dModel: { type: 'int', min: 8, max: 512 },
    heads: { type: 'int', min: 1, max: 16 },
    maxT: { type: 'int', min: 16, max: 4096 },
  };

  static checkState(s) {
    return s.dModel && s.heads && s.dModel % s.heads ? 'heads must divide d_model' : '';
  }

  constructor() {
    super();
    this.dModel = 64;
    this.heads = 4;
    this.maxT = 1024;
    this.autorun = false;
    this._results = [];
    this._progress = 0;
    this._running = false;
    this._runId = 0;
  }

  labReady() {
    if (this.autorun) this.run();
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this._runId++;  // stops a run in progress
  }

  #outputOnly(lab) {
    if (this._outputOnly !== undefined) return this._outputOnly;
    try {
      const w = new Float32Array(4);
      lab.multiHeadAttention({ x: new Float32Array(2), tq: 1, dModel: 2, heads: 1, wq: w, wk: w, wv: w, wo: w, intermediates: false });
      this._outputOnly = true;
    } catch {
      this._outputOnly = false;
    }
    return this._outputOnly;
  }

  /** Times every T, yielding to the page between slices of work. */
  async run() {
    const lab = this._lab;
    if (!lab || this._running) return;
    const id = ++this._runId, D = this.dModel, H = this.dModel % this.heads ? 1 : this.heads;
    const Ts = lengths(this.maxT), outputOnly = this.#outputOnly(lab);
    const f32 = (seed, n) => Float32Array.from(uniformMatrix(seed, n));  // typed arrays: no per-call conversion
    const w = { wq: f32(1, D * D), wk: f32(2, D * D), wv: f32(3, D * D), wo: f32(4, D * D) };
    const opt = outputOnly ? { intermediates: false } : {};
    this._running = true;
    this._results = [];
    this._progress = 0;
    try {
      const warm = { x: f32(5, 64 * D), tq: 64, dModel: D, heads: H, ...w, ...opt };
      for (let spent = 0; spent < WARMUP_MS;) {
        await yieldToPage();
        if (id !== this._runId) return;
        const t0 = performance.now();
        while (performance.now() - t0 < SLICE_MS) lab.multiHeadAttention(warm);
        spent += performance.now() - t0;
      }
      for (const [n, T] of Ts.entries()) {
        const args = { x: f32(5, T * D), tq: T, dModel: D, heads: H, ...w, ...opt };
        lab.multiHeadAttention(args);  // warm-up: memory growth, first touch
        let calls = 0, spent = 0;
        while (spent < MIN_TIME_MS || calls < 3) {
          await yieldToPage();
          if (id !== this._runId) return;
          const t0 = performance.now();
          let inSlice = 0;
          do {
            lab.multiHeadAttention(args);
            calls++;
            inSlice = performance.now() - t0;
          } while (inSlice < SLICE_MS && spent + inSlice < MIN_TIME_MS);
          spent += inSlice;
        }
        this._results = [...this._results, { T, ms: spent / calls, calls, flops: attentionFlops(T, D) }];
        this._progress = (n + 1) / Ts.length;
      }
      this.dispatchEvent(new CustomEvent('attn-cost-complete', { detail: { results: this._results, outputOnly }, bubbles: true, composed: true }));
    } finally {
      if (id === this._runId) this._running = false;
    }
  }

  #set(patch) {
    Object.assign(this, patch);
    this._runId++;
    this._running = false;
    this._results = [];
    this.stateChanged();
  }

  renderWidget(lab) {
    const res = this._results, D = this.dModel;
    const c = res.length ? fitProportionalRelative(res.map((r) => r.flops), res.map((r) => r.ms)) : NaN;
    const done = !this._running && res.length > 0;
    return html`
      <attn-tex class="formula" display .expr=${`\\text{time}(T) \\approx c\\,\\big(\\underbrace{4T^2 d}_{QK^\\top,\\ AV} + \\underbrace{8T d^2}_{\\text{projections}}\\big) = O(T^2 d + T d^2),\\quad d = ${D}`}></attn-tex>
      <div class="controls">
        <label>d<sub>model</sub> <select class="d-model" @change=${(e) => this.#set({ dModel: Number(e.target.value) })}>
          ${[32, 64, 128, 256].map((d) => html`<option value=${d} ?selected=${d === D}>${d}</option>`)}</select></label>
        <label>heads <select class="heads" @change=${(e) => this.#set({ heads: Number(e.target.value) })}>
          ${[1, 2, 4, 8].map((h) => html`<option value=${h} ?selected=${h === this.heads}>${h}</option>`)}</select></label>
        <label>largest T <select class="max-t" @change=${(e) => this.#set({ maxT: Number(e.target.value) })}>
          ${[128, 256, 512, 1024, 2048].map((t) => html`<option value=${t} ?selected=${t === this.maxT}>${t}</option>`)}</select></label>
        <button type="button" class="run" ?disabled=${this._running} @click=${() => this.run()}>${res.length ? 'Measure again' : 'Measure'}</button>
        ${this._running ? html`<button type="button" class="stop" @click=${() => { this._runId++; this._running = false; }}>Stop</button>` : nothing}
        <progress max="1" .value=${this._progress} aria-label="measurement progress"></progress>
        <span role="status">${this._running ? `timing T = ${lengths(this.maxT)[res.length] ?? ''}…` : done ? html`<span class="done">done</span>` : ''}</span>
      </div>
      <p class="note">${this.#outputOnly(lab) ? 'Output only (intermediates: false).' : 'With every intermediate (scores and weights per head).'}
        After ${WARMUP_MS} ms of warm-up, each T is timed for at least ${MIN_TIME_MS} ms in slices of ≤ ${SLICE_MS} ms, so the page stays usable while it runs. Small T is dominated by per-call overhead, not flops.</p>
      ${res.length ? html`<div class="row">
        ${plot({ title: 'time per multi-head attention call', xLabel: 'sequence length T', yLabel: 'ms', logX: true, logY: true, width: 440, height: 280,
          series: [{ points: res.map((r) => [r.T, r.ms]), kind: 'dots', label: 'measured' },
            { points: res.map((r) => [r.T, c * r.flops]), label: `fit c·(4T²d + 8Td²), c = ${(c * 1e6).toPrecision(3)} ns per flop (${(1e-6 / c).toPrecision(3)} GFLOP/s)`, color: '#e69f00' }] })}
        <table class="plain timings"><caption>measured in this page</caption>
          <tr><th>T</th><th>ms / call</th><th>fit (ms)</th><th>GFLOP/s</th><th>calls</th></tr>
          ${res.map((r) => html`<tr><td>${r.T}</td><td>${fmt(r.ms, 4)}</td><td>${fmt(c * r.flops, 4)}</td><td>${fmt(r.flops / r.ms / 1e6, 2)}</td><td>${r.calls}</td></tr>`)}
        </table></div>` : nothing}`;
  }
}
