// <attn-kernel-regression>: Nadaraya–Watson kernel regression as attention (the deck's example).
// The query x asks every training input x_i (the keys) how similar it is, the similarities are
// normalised by a softmax, and the prediction is the weighted mean of the y_i (the values).
//
// Attributes: bandwidth, kernel ("gaussian" | "dot"), query (x), points, seed, hash-key.
// Events: attn-state-change. Numbers: lab.kernelRegression.
import { html } from 'lit';
import { AttnWidget } from '../shared/widget.js';
import { plot } from '../shared/plot.js';
import { fmt } from '../shared/format.js';
import { X_RANGE, dataset, grid } from './logic.js';
import '../shared/heatmap.js';
import '../shared/tex.js';

export class AttnKernelRegression extends AttnWidget {
  static properties = {
    bandwidth: { type: Number },
    kernel: { type: String },
    query: { type: Number },
    points: { type: Number },
    seed: { type: Number },
  };

  static stateSchema = {
    bandwidth: { type: 'num', min: 0.001, max: 100 },
    kernel: { type: 'enum', values: ['gaussian', 'dot'] },
    query: { type: 'num', min: X_RANGE[0], max: X_RANGE[1] },
    points: { type: 'int', min: 3, max: 60 },
    seed: { type: 'int', min: 0, max: 1e9 },
  };

  constructor() {
    super();
    this.bandwidth = 0.5;
    this.kernel = 'gaussian';
    this.query = 4.25;
    this.points = 20;
    this.seed = 1;
  }

  renderWidget(lab) {
    if (typeof lab.kernelRegression !== 'function')
      return html`<p class="error">This build of attnlab has no lab.kernelRegression yet.</p>`;
    const data = dataset(this.points, this.seed);
    const xs = Float32Array.from(data, (p) => p[0]), ys = Float32Array.from(data, (p) => p[1]);
    const g = grid(141);
    const args = { xs, ys, bandwidth: this.bandwidth, kernel: this.kernel };
    const curve = lab.kernelRegression({ ...args, queries: g }).predictions;
    const at = lab.kernelRegression({ ...args, queries: Float32Array.of(this.query) });
    const yhat = at.predictions[0];
    const logBw = Math.log10(this.bandwidth);
    const f = this.kernel === 'gaussian' ? '-(x - x_i)^2' : 'x\\,x_i';
    return html`
      <attn-tex class="formula" display .expr=${`\\hat y(x) = \\sum_{i=1}^{n} \\underbrace{\\frac{\\exp\\big(f(x, x_i)/h\\big)}{\\sum_j \\exp\\big(f(x, x_j)/h\\big)}}_{\\alpha_i(x)\\,=\\,\\mathrm{softmax}_i} y_i,\\qquad f(x, x_i) = ${f},\\quad h = ${fmt(this.bandwidth, 3)}`}></attn-tex>
      <div class="controls">
        <label>bandwidth h <input type="range" class="bandwidth" min="-2" max="1.5" step="0.05" .value=${String(logBw)}
          aria-valuetext=${fmt(this.bandwidth, 3)} @input=${(e) => this.setState({ bandwidth: Number((10 ** Number(e.target.value)).toPrecision(3)) })}> ${fmt(this.bandwidth, 3)}</label>
        <label>query x <input type="range" class="query" min=${X_RANGE[0]} max=${X_RANGE[1]} step="0.05" .value=${String(this.query)}
          @input=${(e) => this.setState({ query: Number(e.target.value) })}> ${fmt(this.query, 2)}</label>
        <label>kernel <select class="kernel" @change=${(e) => this.setState({ kernel: e.target.value })}>
          <option value="gaussian" ?selected=${this.kernel === 'gaussian'}>Gaussian: −(x − xᵢ)²</option>
          <option value="dot" ?selected=${this.kernel === 'dot'}>dot product: x·xᵢ</option></select></label>
        <label>points <input type="number" class="points" min="3" max="60" .value=${String(this.points)}
          @change=${(e) => { const v = Math.round(Number(e.target.value)); if (v >= 3 && v <= 60) this.setState({ points: v }); }}></label>
        <label>seed <input type="number" class="seed" min="0" .value=${String(this.seed)} @change=${(e) => this.setState({ seed: Math.max(0, Math.trunc(Number(e.target.value)) || 0) })}></label>
      </div>
      <div class="row">
        ${plot({ title: `prediction ŷ(${fmt(this.query, 2)}) = ${fmt(yhat, 3)}`, xLabel: 'x', yLabel: 'y', width: 520, height: 300,
          series: [{ points: data, kind: 'dots', label: 'training pairs (xᵢ, yᵢ): keys and values', r: 3.5 },
            { points: Array.from(g, (x, i) => [x, curve[i]]), label: 'ŷ(x): attention output at every query', color: '#e69f00' },
            { points: [[this.query, yhat]], kind: 'dots', r: 7, color: '#d55e00', label: 'the query', labels: ['ŷ'] }] })}
        <p class="note prediction" role="status">At x = ${fmt(this.query, 2)} the weights below average the yᵢ into ŷ = <strong>${fmt(yhat, 4)}</strong>.
          A small bandwidth trusts only the nearest points (wiggly curve); a large one averages everything (flat curve).</p>
      </div>
      <attn-heatmap class="weights" label="attention weights αᵢ(x) of the query over the training points" .values=${at.weights} .rows=${1} .cols=${xs.length}
        .rowLabels=${[`x=${fmt(this.query, 2)}`]} .colLabels=${Array.from(xs, (x) => fmt(x, 2))} colormap="sequential" max-width="900" cell-size="40"></attn-heatmap>`;
  }
}
