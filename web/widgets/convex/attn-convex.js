// <attn-convex>: attention output as a convex combination of the values (the deck's "I am Sam").
// Each output row z_i = Σ_j A_ij v_j with A_ij ≥ 0, Σ_j A_ij = 1 lies inside the convex hull of the
// values. Permuting the tokens permutes the outputs the same way (permutation equivariance).
//
// Attributes: seed, hash-key. Properties: a [t·t], v [t·2], tokens, perm (new token i = old perm[i]).
// Events: attn-state-change. Numbers: lab.weightedSum.
import { html, nothing } from 'lit';
import { AttnWidget } from '../shared/widget.js';
import { mulberry32 } from '../shared/rng.js';
import { convexHull } from '../shared/stats.js';
import { plot, SERIES_COLORS } from '../shared/plot.js';
import { fmt } from '../shared/format.js';
import { isPermutation, permuteRows, permuteSquare } from './logic.js';
import '../shared/heatmap.js';
import '../shared/matrix-editor.js';
import '../shared/tex.js';

// The Slidev deck's example: A·V = [[0.85, 0.65], [0.15, 1.2], [−0.35, 0.05]].
const I_AM_SAM = { tokens: ['I', 'am', 'Sam'], a: [0.6, 0.1, 0.3, 0.3, 0.5, 0.2, 0.2, 0.1, 0.7], v: [2, 1, -0.5, 2, -1, -0.5] };

export class AttnConvex extends AttnWidget {
  static properties = {
    a: { attribute: false },
    v: { attribute: false },
    tokens: { attribute: false },
    perm: { attribute: false },
    seed: { type: Number },
  };

  static stateSchema = {
    a: { type: 'nums', maxLength: 9, min: -100, max: 100 },
    v: { type: 'nums', maxLength: 6, min: -100, max: 100 },
    perm: { type: 'nums', maxLength: 3, min: 0, max: 2 },
    seed: { type: 'int', min: 0, max: 1e9 },
  };

  static checkState(s) {
    if (s.a && s.a.length !== 9) return 'A must be 3×3';
    if (s.v && s.v.length !== 6) return 'V must be 3×2';
    if (s.perm && !isPermutation(s.perm, 3)) return 'not a permutation';
    return '';
  }

  constructor() {
    super();
    this.tokens = [...I_AM_SAM.tokens];
    this.a = [...I_AM_SAM.a];
    this.v = [...I_AM_SAM.v];
    this.perm = [0, 1, 2];
    this.seed = 1;
  }

  #shuffle() {
    const u = mulberry32(this.seed++), p = [0, 1, 2];
    for (let i = 2; i > 0; i--) { const j = Math.floor(u() * (i + 1)); [p[i], p[j]] = [p[j], p[i]]; }
    this.setState({ perm: p });
  }

  renderWidget(lab) {
    const t = 3, { a, v, tokens, perm } = this;
    const out = lab.weightedSum({ weights: a, v, tq: t, tk: t, dv: 2 });
    const pa = permuteSquare(a, perm), pv = permuteRows(v, perm, 2), ptok = perm.map((p) => tokens[p]);
    const pout = lab.weightedSum({ weights: pa, v: pv, tq: t, tk: t, dv: 2 });
    const equivariant = perm.every((p, i) => Math.abs(pout[2 * i] - out[2 * p]) < 1e-5 && Math.abs(pout[2 * i + 1] - out[2 * p + 1]) < 1e-5);
    const notConvex = [0, 1, 2].filter((i) => { const r = a.slice(3 * i, 3 * i + 3); return r.some((x) => x < 0) || Math.abs(r[0] + r[1] + r[2] - 1) > 1e-3; });
    const vp = [0, 1, 2].map((i) => [v[2 * i], v[2 * i + 1]]);
    const color = (i) => SERIES_COLORS[i];
    const series = [{ points: convexHull(vp), kind: 'polygon', color: '#8c959f', label: 'convex hull of the values' },
      ...[0, 1, 2].map((i) => ({ points: [vp[i]], kind: 'dots', r: 6, color: color(i), labels: [`v(${tokens[i]})`] })),
      ...[0, 1, 2].map((i) => ({ points: [[out[2 * i], out[2 * i + 1]]], kind: 'dots', r: 4, color: color(i), labels: [`z(${tokens[i]})`] }))];
    const cols = ['x', 'y'];
    return html`
      <attn-tex class="formula" display .expr=${'z_i = \\sum_j A_{ij}\\, v_j,\\qquad A_{ij} \\ge 0,\\ \\sum_j A_{ij} = 1 \\;\\Rightarrow\\; z_i \\in \\operatorname{conv}\\{v_1, \\dots, v_{t}\\}'}></attn-tex>
      <div class="row">
        <div>
          <div class="row">
            <attn-matrix-editor class="a" label="A (weights)" .values=${a} .rows=${3} .cols=${3} .rowLabels=${tokens} .colLabels=${tokens} step="0.05"
              @attn-matrix-change=${(e) => this.setState({ a: e.detail.values })}></attn-matrix-editor>
            <attn-matrix-editor class="v" label="V (values)" .values=${v} .rows=${3} .cols=${2} .rowLabels=${tokens} .colLabels=${cols}
              @attn-matrix-change=${(e) => this.setState({ v: e.detail.values })}></attn-matrix-editor>
          </div>
          ${notConvex.length ? html`<p class="notice">Row ${notConvex.map((i) => tokens[i]).join(', ')} of A is not a probability vector (negative or not summing to 1): its output may leave the hull. Softmax always gives probability rows.</p>` : nothing}
          <attn-heatmap class="output" label="A·V (outputs z)" .values=${out} .rows=${3} .cols=${2} .rowLabels=${tokens} .colLabels=${cols}></attn-heatmap>
        </div>
        ${plot({ title: 'values (large dots) and outputs (small dots)', xLabel: 'x', yLabel: 'y', width: 420, height: 360, series, equal: true })}
      </div>
      <h3>Permute the tokens</h3>
      <div class="controls">
        <button type="button" class="swap" @click=${() => this.setState({ perm: [perm[1], perm[0], perm[2]] })}>Swap first two</button>
        <button type="button" class="rotate" @click=${() => this.setState({ perm: [perm[1], perm[2], perm[0]] })}>Rotate</button>
        <button type="button" class="shuffle" @click=${() => this.#shuffle()}>Shuffle</button>
        <button type="button" class="reset" @click=${() => this.setState({ perm: [0, 1, 2] })}>Original order</button>
        <span>order: <strong class="order">${ptok.join(' ')}</strong></span>
      </div>
      <attn-tex .expr=${"A' = PAP^\\top,\\quad V' = PV \\;\\Rightarrow\\; A'V' = P\\,(AV)"}></attn-tex>
      <div class="row">
        <attn-heatmap class="perm-a" label="A′ = PAPᵀ" .values=${Float32Array.from(pa)} .rows=${3} .cols=${3} .rowLabels=${ptok} .colLabels=${ptok} colormap="sequential"></attn-heatmap>
        <attn-heatmap class="perm-output" label="A′V′" .values=${pout} .rows=${3} .cols=${2} .rowLabels=${ptok} .colLabels=${cols}></attn-heatmap>
        <p class="note equivariance" role="status">${equivariant ? 'Each token’s output moved with its token: the same rows as A·V, reordered.' : 'The permuted outputs differ from the reordered ones.'}
          ${perm.map((p, i) => html`<br>z′(${ptok[i]}) = (${fmt(pout[2 * i], 2)}, ${fmt(pout[2 * i + 1], 2)})`)}</p>
      </div>`;
  }
}
