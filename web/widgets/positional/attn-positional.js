// <attn-positional>: positional encodings side by side.
//   - sinusoidal PE (position × dimension) with base and d_model controls,
//   - PE(pos)·PE(pos+k) against k (from two starting positions: it depends on k only),
//   - learned, RoPE and ALiBi at a length beyond the trained one: the learned table has no rows there
//     (the API's Error is shown as the lesson); RoPE and ALiBi extend because they depend on i − j.
//
// Attributes: base, d-model, length, trained, view-length, seed, hash-key. Events: attn-state-change.
// Numbers: lab.positionalEncoding, lab.rope, lab.alibi, and dot products through lab.attention
// (scores = q·k with scale 1).
import { html, css, nothing } from 'lit';
import { AttnWidget } from '../shared/widget.js';
import { uniformMatrix } from '../shared/rng.js';
import { plot } from '../shared/plot.js';
import '../shared/heatmap.js';
import '../shared/tex.js';

export class AttnPositional extends AttnWidget {
  static properties = {
    base: { type: Number },
    dModel: { type: Number, attribute: 'd-model' },
    length: { type: Number },
    trained: { type: Number },
    viewLength: { type: Number, attribute: 'view-length' },
    head: { type: Number },
    seed: { type: Number },
  };

  static stateSchema = {
    base: { type: 'num', min: 2, max: 1e6 },
    dModel: { type: 'int', min: 2, max: 128 },
    length: { type: 'int', min: 2, max: 128 },
    trained: { type: 'int', min: 2, max: 64 },
    viewLength: { type: 'int', min: 2, max: 96 },
    head: { type: 'int', min: 1, max: 8 },
    seed: { type: 'int', min: 0, max: 1e9 },
  };

  static checkState(s) {
    return s.dModel !== undefined && s.dModel % 2 ? 'd_model must be even' : '';
  }

  // The learned table's Error is the lesson, not a failure: amber, not red.
  static styles = [AttnWidget.styles, css`.lesson { max-width: 260px; background: #fff8c5; border: 1px solid #d4a72c; padding: 6px 10px; border-radius: 6px; }`];

  constructor() {
    super();
    this.base = 10000;
    this.dModel = 32;
    this.length = 48;
    this.trained = 16;
    this.viewLength = 24;
    this.head = 1;
    this.seed = 1;
  }

  /** PE(pos)·PE(pos + k) for k = 0 … K, from the core (attention scores with scale 1). */
  #dots(lab, pe, D, pos, K) {
    const q = pe.subarray(pos * D, (pos + 1) * D), k = pe.subarray(pos * D, (pos + K + 1) * D);
    return lab.attention({ q, k, v: new Float32Array(K + 1), tq: 1, tk: K + 1, dk: D, dv: 1, scale: 1 }).scores;
  }

  renderWidget(lab) {
    const D = this.dModel - (this.dModel % 2), L = this.length, base = this.base;
    const pe = lab.positionalEncoding({ kind: 'sinusoidal', length: L, dModel: D, base });
    const K = Math.min(40, L - 1), p2 = 8;
    const peLong = lab.positionalEncoding({ kind: 'sinusoidal', length: p2 + K + 1, dModel: D, base });
    const d0 = this.#dots(lab, peLong, D, 0, K), d8 = this.#dots(lab, peLong, D, p2, K);
    const dims = Array.from({ length: D }, (_, j) => String(j));
    const posLabels = (n) => Array.from({ length: n }, (_, i) => String(i));

    // Side by side at viewLength (> trained: beyond what a model would have seen).
    const N = this.viewLength, T = this.trained;
    const table = uniformMatrix(this.seed, T * D);  // stands in for a trained table
    let learned = null, learnedError = '';
    try {
      learned = lab.positionalEncoding({ kind: 'learned', table, maxLength: T, dModel: D, length: N });
    } catch (e) {
      learnedError = e.message;
      learned = lab.positionalEncoding({ kind: 'learned', table, maxLength: T, dModel: D, length: Math.min(N, T) });
    }
    const u = uniformMatrix(this.seed + 1, D);  // the same content vector at every position
    const rows = new Float32Array(N * D);
    for (let i = 0; i < N; i++) rows.set(u, i * D);
    const rot = lab.rope({ x: rows, t: N, dim: D, base });
    const ropeScores = lab.attention({ q: rot, k: rot, v: new Float32Array(N), tq: N, tk: N, dk: D, dv: 1, scale: 1 / Math.sqrt(D) }).scores;
    const H = 8, h = Math.min(H, Math.max(1, this.head));
    const alibi = lab.alibi({ heads: H, tq: N });
    const bias = alibi.bias.subarray((h - 1) * N * N, h * N * N);
    const numIn = (cls, label, key, min, max, step = 1, extra = '') => html`<label>${label} <input type="number" class=${cls} min=${min} max=${max} step=${step}
      .value=${String(this[key])} @change=${(e) => { const v = Number(e.target.value); if (v >= min && v <= max) this.setState({ [key]: step === 1 ? Math.round(v) : v }); }}>${extra}</label>`;

    return html`
      <attn-tex class="formula" display .expr=${`PE_{(pos,\\,2i)} = \\sin\\!\\left(\\frac{pos}{${base}^{2i/d_{model}}}\\right),\\quad PE_{(pos,\\,2i+1)} = \\cos\\!\\left(\\frac{pos}{${base}^{2i/d_{model}}}\\right)`}></attn-tex>
      <div class="controls">
        ${numIn('base', 'base', 'base', 2, 1e6, 'any')}
        <label>d<sub>model</sub> <select class="d-model" @change=${(e) => this.setState({ dModel: Number(e.target.value) })}>
          ${[8, 16, 32, 64, 128].map((d) => html`<option value=${d} ?selected=${d === D}>${d}</option>`)}</select></label>
        ${numIn('length', 'positions', 'length', 2, 128)}
      </div>
      <div class="row">
        <attn-heatmap class="sinusoidal" label="sinusoidal PE (rows: position, columns: dimension)" .values=${pe} .rows=${L} .cols=${D}
          .rowLabels=${posLabels(L)} .colLabels=${dims} colormap="diverging" max-width="520" cell-size="16"></attn-heatmap>
        <div>
          ${plot({ title: 'PE(pos)·PE(pos+k): depends on k only', xLabel: 'offset k', yLabel: 'dot product', width: 400, height: 250,
            series: [{ points: Array.from(d0, (y, k) => [k, y]), label: 'pos = 0' }, { points: Array.from(d8, (y, k) => [k, y]), label: `pos = ${p2}`, dash: '6 4' }] })}
          <attn-tex .expr=${'PE_{pos}\\cdot PE_{pos+k} = \\sum_i \\cos\\!\\big(k\\,\\omega_i\\big),\\ \\ \\omega_i = base^{-2i/d_{model}}'}></attn-tex>
        </div>
      </div>
      <h3>Beyond the trained length</h3>
      <div class="controls">${numIn('trained', 'trained length', 'trained', 2, 64)}${numIn('view-length', 'sequence length', 'viewLength', 2, 96)}
        ${numIn('head', 'ALiBi head', 'head', 1, 8)}</div>
      <p class="note">Dashed lines: the trained length (${T}). The learned table is random here (seed ${this.seed}), standing in for a trained one.</p>
      <div class="row">
        <div class="learned"><attn-heatmap class="learned-pe" label="learned (table lookup)" .values=${learned} .rows=${Math.min(N, T)} .cols=${D}
            .rowLabels=${posLabels(N)} .colLabels=${dims} colormap="diverging" max-width="260" .mark=${T}></attn-heatmap>
          ${learnedError ? html`<p class="lesson learned-error" role="status">No rows past ${T}: the API says “${learnedError}”</p>` : nothing}</div>
        <div><attn-heatmap class="rope" label="RoPE: q_i·k_j for one content vector" .values=${ropeScores} .rows=${N} .cols=${N}
            .rowLabels=${posLabels(N)} .colLabels=${posLabels(N)} max-width="300" .mark=${T}></attn-heatmap>
          <attn-tex .expr=${'\\langle R_i q, R_j k\\rangle = \\langle q, R_{j-i} k\\rangle'}></attn-tex></div>
        <div><attn-heatmap class="alibi" label=${`ALiBi bias, head ${h} (slope ${alibi.slopes[h - 1].toPrecision(3)})`} .values=${bias} .rows=${N} .cols=${N}
            .rowLabels=${posLabels(N)} .colLabels=${posLabels(N)} max-width="300" .mark=${T}></attn-heatmap>
          <attn-tex .expr=${'\\text{score}_{ij} \\mathrel{+}= -m_h\\,|i-j|'}></attn-tex></div>
      </div>`;
  }
}
