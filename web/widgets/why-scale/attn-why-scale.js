// <attn-why-scale>: why attention divides by √d_k, measured live.
// Samples q, k ~ N(0, 1) at d_k = 1 … 2^max-pow, measures var[q·k] (≈ d_k) and var[q·k/√d_k] (≈ 1)
// over the core's scores, and how peaked the softmax weights get without the scale.
//
// Attributes: samples (queries = keys per d_k), keys (softmax width), dk (the d_k of the example row),
// max-pow, seed, hash-key. Events: attn-state-change.
// Numbers: lab.attention (scores, scaled, weights); the widget only takes variances and maxima of them.
import { html } from 'lit';
import { AttnWidget } from '../shared/widget.js';
import { dkList, sampleQK } from './logic.js';
import { mean, variance, rowEntropies } from '../shared/stats.js';
import { plot } from '../shared/plot.js';
import { fmt } from '../shared/format.js';
import '../shared/heatmap.js';
import '../shared/tex.js';

export class AttnWhyScale extends AttnWidget {
  static properties = {
    samples: { type: Number },
    keys: { type: Number },
    dk: { type: Number },
    maxPow: { type: Number, attribute: 'max-pow' },
    seed: { type: Number },
  };

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
  }

  /** The measurements at one d_k, every number from lab.attention. */
  measure(lab, d) {
    const n = this.samples, m = Math.min(this.keys, n);
    const { q, k } = sampleQK(this.seed, d, n);
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

  renderWidget(lab) {
    const dks = dkList(this.maxPow);
    const rows = dks.map((d) => this.measure(lab, d));
    const ex = this.measure(lab, this.dk), m = ex.exampleRaw.length;
    const keyLabels = Array.from({ length: m }, (_, j) => `k${j + 1}`);
    return html`
      <attn-tex class="formula" display .expr=${'q\\cdot k = \\sum_{i=1}^{d_k} q_i k_i,\\quad q_i, k_i \\sim \\mathcal N(0,1) \\;\\Rightarrow\\; \\operatorname{Var}[q\\cdot k] = d_k,\\quad \\operatorname{Var}\\!\\left[\\tfrac{q\\cdot k}{\\sqrt{d_k}}\\right] = 1'}></attn-tex>
      <div class="controls">
        <label>samples (queries × keys) <select class="samples" @change=${(e) => this.setState({ samples: Number(e.target.value) })}>
          ${[16, 32, 64, 128, 256].map((n) => html`<option value=${n} ?selected=${n === this.samples}>${n} × ${n}</option>`)}</select></label>
        <label>keys in the softmax <input type="number" class="keys" min="2" max="32" .value=${String(this.keys)}
          @change=${(e) => { const v = Math.round(Number(e.target.value)); if (v >= 2 && v <= 32) this.setState({ keys: v }); }}></label>
        <label>example d<sub>k</sub> <select class="dk" @change=${(e) => this.setState({ dk: Number(e.target.value) })}>
          ${dks.map((d) => html`<option value=${d} ?selected=${d === this.dk}>${d}</option>`)}</select></label>
        <label>seed <input type="number" class="seed" min="0" .value=${String(this.seed)} @change=${(e) => this.setState({ seed: Math.max(0, Math.trunc(Number(e.target.value)) || 0) })}></label>
        <button type="button" class="resample" @click=${() => this.setState({ seed: this.seed + 1 })}>Sample again</button>
      </div>
      <div class="row">
        ${plot({ title: 'variance of the scores', xLabel: 'd_k', yLabel: 'variance', logX: true, logY: true, width: 400, height: 260,
          series: [{ points: dks.map((d) => [d, d]), label: 'd_k (theory)', color: '#8c959f', dash: '5 4' },
            { points: rows.map((r) => [r.d, r.varDot]), kind: 'dots', label: 'measured var[q·k]' },
            { points: rows.map((r) => [r.d, r.varScaled]), kind: 'dots', label: 'measured var[q·k/√d_k]' }] })}
        ${plot({ title: `softmax over ${m} keys: mean largest weight`, xLabel: 'd_k', yLabel: 'max weight', logX: true, width: 400, height: 260, yDomain: [0, 1],
          series: [{ points: rows.map((r) => [r.d, r.maxRaw]), label: 'without scale (saturates)' },
            { points: rows.map((r) => [r.d, r.maxScaled]), label: 'with 1/√d_k' }, { points: dks.map((d) => [d, 1 / m]), label: 'uniform 1/t_k', color: '#8c959f', dash: '5 4' }] })}
      </div>
      <h3>One query at d<sub>k</sub> = ${this.dk}</h3>
      <div class="row">
        <attn-heatmap class="example-raw" label="weights without the scale" .values=${ex.exampleRaw} .rows=${1} .cols=${m} .rowLabels=${['q']} .colLabels=${keyLabels} colormap="sequential"></attn-heatmap>
        <attn-heatmap class="example-scaled" label="weights with 1/√d_k" .values=${ex.exampleScaled} .rows=${1} .cols=${m} .rowLabels=${['q']} .colLabels=${keyLabels} colormap="sequential"></attn-heatmap>
      </div>
      <p class="note">Without the scale a single key takes almost all the weight once d<sub>k</sub> is large: the softmax saturates, its gradient vanishes, and learning stalls.</p>
      <table class="plain measurements"><caption>measured from ${this.samples}×${this.samples} dot products per d<sub>k</sub> (seed ${this.seed})</caption>
        <tr><th>d<sub>k</sub></th><th>var[q·k]</th><th>var[q·k/√d<sub>k</sub>]</th><th>max weight, no scale</th><th>max weight, 1/√d<sub>k</sub></th><th>entropy, no scale</th><th>entropy, 1/√d<sub>k</sub></th></tr>
        ${rows.map((r) => html`<tr><td>${r.d}</td><td>${fmt(r.varDot, 2)}</td><td>${fmt(r.varScaled, 3)}</td><td>${fmt(r.maxRaw, 3)}</td><td>${fmt(r.maxScaled, 3)}</td><td>${fmt(r.entRaw, 3)}</td><td>${fmt(r.entScaled, 3)}</td></tr>`)}
      </table>`;
  }
}
