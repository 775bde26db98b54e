// <attn-rope>: rotary position embeddings (RoPE) and ALiBi, the two relative schemes, as slide figures.
//
// Attributes: view ("rotate" | "relative" | "alibi" | "extrapolate"), base (10000), heads (ALiBi, 8),
// trained (the trained length the extrapolation view compares with, 16), predict with stage (on the
// "relative" view: 0 guesses the score at a pair of positions shifted far along, 1 reveals it),
// hash-key, and the shared layout / controls / fit-height. Without predict, `stage` (0 … 3, as decks step
// it) picks the view in VIEWS order. Events: attn-state-change.
// Views: rotate — one q/k pair rotated by its position (arrows on the unit circle, angle m·θ);
// relative — q_i·k_j over positions i, j after RoPE: constant along each diagonal (depends on j − i
// only); alibi — each head's bias −m_h·|i − j| against the distance, one slope per head; extrapolate —
// the weights a query gives its keys from ALiBi alone at the trained length and at four times it.
// Numbers: lab.rope, lab.alibi, lab.attention (scores with scale 1; ALiBi through alibiSlope).
import { html, svg, css, nothing } from 'lit';
import { AttnWidget, optionalInt } from '../shared/widget.js';
import { widgetStyles } from '../shared/styles.js';
import { plot, SERIES_COLORS } from '../shared/plot.js';
import { fmt } from '../shared/format.js';
import { guessNumber, predictStyles, revealLine } from '../shared/predict.js';
import { PREDICT, VIEWS, angle, fitGuess, revealScore, scoreAt, scoreBound } from './predict.js';
import '../shared/heatmap.js';
import '../shared/tex.js';

/** The content vectors rotated in every view (d = 8: four pairs). */
const Q = [0.9, -0.3, 0.5, 0.8, -0.6, 0.2, 0.4, -0.7], K = [0.3, 0.7, -0.8, 0.1, 0.5, 0.6, -0.2, 0.4], DIM = 8;
/** The relative view's positions, the pair shown and the pair asked about (shifted by SHIFT). */
const N = 6, SHOWN = [2, 0], SHIFT = 20;

export class AttnRope extends AttnWidget {
  static properties = {
    view: { type: String, reflect: true },
    base: { type: Number },
    heads: { type: Number },
    trained: { type: Number },
    /** Predict, then reveal (relative view): stage 0 guesses, stage 1 shows. */
    predict: { type: Boolean, reflect: true },
    stage: { converter: optionalInt, reflect: true },
    guess: { type: Number },
  };

  static stateSchema = {
    view: { type: 'enum', values: VIEWS.map(([v]) => v) },
    base: { type: 'num', min: 2, max: 1e6 },
    heads: { type: 'int', min: 1, max: 16 },
    trained: { type: 'int', min: 4, max: 64 },
    predict: { type: 'bool' },
    stage: { type: 'int', min: 0, max: 3 },
    guess: { type: 'num', min: -100, max: 100 },
  };

  static styles = [widgetStyles, predictStyles, css`
    .slide-head { display: flex; flex-direction: column; gap: 4px; }
    .slide-head .formula { margin: 0; padding: 0 8px; }
    .views { display: flex; flex-wrap: wrap; gap: 4px; }
    .views button { font-size: 16px; min-height: 28px; padding: 1px 10px; border-radius: 999px; }
    .views button[aria-pressed='true'] { background: #0969da; border-color: #0969da; color: #fff; font-weight: 600; }
    .body { display: flex; gap: 16px; align-items: flex-start; margin-top: 6px; }
    .body .side { flex: 1 1 0; min-width: 0; font-size: 18px; }
    .side p { margin: 0 0 8px; }
    .num { font-variant-numeric: tabular-nums; font-weight: 600; }
    svg text { font-family: system-ui, sans-serif; }
  `];

  constructor() {
    super();
    this.view = 'rotate';
    this.base = 10000;
    this.heads = 8;
    this.trained = 16;
    this.predict = false;
    this.stage = null;
    this.guess = null;
  }

  /** The view: without predict, a `stage` (as decks step it) picks VIEWS[stage]; else the `view` attribute. */
  get #view() {
    if (!this.predict && Number.isInteger(this.stage) && VIEWS[this.stage]) return VIEWS[this.stage][0];
    return VIEWS.some(([v]) => v === this.view) ? this.view : 'rotate';
  }

  /** q_i·k_j after RoPE for positions 0 … n−1 (rows i: queries), from the core. */
  #ropeScores(lab, n) {
    const rows = (v) => Float32Array.from({ length: n * DIM }, (_, i) => v[i % DIM]);
    const rq = lab.rope({ x: rows(Q), t: n, dim: DIM, base: this.base }), rk = lab.rope({ x: rows(K), t: n, dim: DIM, base: this.base });
    return lab.attention({ q: rq, k: rk, v: new Float32Array(n), tq: n, tk: n, dk: DIM, dv: 1, scale: 1 }).scores;
  }

  #rotate(lab, w, h) {
    // Pair 0 (θ = 1 rad per position) of q, rotated to positions 0 … 5, and k at position 0.
    const M = 6, x = Float32Array.from({ length: M * 2 }, (_, i) => Q[i % 2]);
    const r = lab.rope({ x, t: M, dim: 2, base: this.base });
    const size = Math.max(160, Math.min(w * 0.55, h)), c = size / 2, R = size / 2 - 34, norm = Math.hypot(Q[0], Q[1]);
    const arrows = Array.from({ length: M }, (_, m) => {
      const ex = c + (R * r[2 * m]) / norm, ey = c - (R * r[2 * m + 1]) / norm;
      const lx = c + ((R + 20) * r[2 * m]) / norm, ly = c - ((R + 20) * r[2 * m + 1]) / norm;
      return svg`<line x1=${c} y1=${c} x2=${ex} y2=${ey} stroke=${SERIES_COLORS[m % SERIES_COLORS.length]} stroke-width="4"></line>
        <text x=${lx} y=${ly} font-size="18" text-anchor="middle" dominant-baseline="middle">${m}</text>`;
    });
    const svgEl = html`<svg width=${size} height=${size} role="img" aria-label=${`q's first pair rotated to positions 0 to ${M - 1}, one radian per position`}>
      <circle cx=${c} cy=${c} r=${R} fill="none" stroke="#d0d7de" stroke-width="2"></circle>${arrows}</svg>`;
    const table = html`<div class="side"><p>Pair (q₀, q₁) = (${fmt(Q[0], 2)}, ${fmt(Q[1], 2)}) turned by m·θ₀, θ₀ = ${fmt(angle(1, 0, DIM, this.base), 2)} rad:</p>
      <table class="plain" aria-label="rotated pair by position"><tr><th>m</th><th>R<sub>m</sub>q (pair 0)</th></tr>
      ${Array.from({ length: M }, (_, m) => html`<tr><td>${m}</td><td class="num">(${fmt(r[2 * m], 2)}, ${fmt(r[2 * m + 1], 2)})</td></tr>`)}</table>
      <p>Pair p turns by θ<sub>p</sub> = base<sup>−2p/d</sup> per position: pair 3 of d = 8 by ${fmt(angle(1, 3, DIM, this.base), 4)} rad.</p></div>`;
    // The pairs as matrices, not \binom: a binomial typesets its entries a size smaller, so q's
    // subscripts were a third size down (10.5 px on a 1280×720 slide).
    const pair = '\\begin{pmatrix}q_{2p}\\\\ q_{2p+1}\\end{pmatrix}';
    return { formula: `R_m${pair} = \\begin{pmatrix}\\cos m\\theta_p & -\\sin m\\theta_p\\\\ \\sin m\\theta_p & \\cos m\\theta_p\\end{pmatrix}${pair},\\quad \\theta_p = base^{-2p/d}`,
      body: html`${svgEl}${table}` };
  }

  #relative(lab, w, h) {
    const [i0, j0] = SHOWN, i1 = i0 + SHIFT, j1 = j0 + SHIFT, n = i1 + 1;
    const s = this.#ropeScores(lab, n), bound = scoreBound(Q, K);
    const shown = scoreAt(s, n, i0, j0), asked = scoreAt(s, n, i1, j1);
    const phase = this.predict ? PREDICT.phase(this.stage) : null;
    const top = Math.max(...Array.from(s, Math.abs));  // one colour range: the largest |score| shown
    const small = Float32Array.from({ length: N * N }, (_, k) => s[Math.floor(k / N) * n + (k % N)]);
    const labels = Array.from({ length: N }, (_, k) => String(k));
    const side = Math.min(420, Math.round(w * 0.42));
    const map = html`<attn-heatmap class="rope-scores" label=${`q_i·k_j after RoPE, positions 0–${N - 1}`} .values=${small} .rows=${N} .cols=${N}
      .rowLabels=${labels} .colLabels=${labels} colormap="diverging" .vmin=${-top} .vmax=${top} compact .digits=${2} .cellSize=${60}
      .fitWidth=${w - side - 16} .fitHeight=${h} .highlightRows=${[i0]} .highlightCols=${[j0]}></attn-heatmap>`;
    const g = fitGuess(this.guess, bound);
    const toStage = (st) => { this.stage = st; this.stateChanged(); };
    let panel;
    if (phase === 'guess') {
      panel = html`<div class="predict guess"><p>The score at (i, j) = (${i0}, ${j0}) is <span class="num shown">${fmt(shown, 3)}</span>.</p>
        <p class="ask">Predict the score at (${i1}, ${j1}): ${SHIFT} positions further, past a trained length of ${this.trained}.</p>
        ${guessNumber({ label: `q·k at (${i1}, ${j1})`, value: g, min: -Math.ceil(bound * 20) / 20, max: Math.ceil(bound * 20) / 20, step: 0.05,
          onInput: (v) => { this.guess = v; this.stateChanged(); } })}
        ${this.slideLayout ? nothing : html`<div class="actions"><button type="button" class="reveal" @click=${() => toStage(1)}>Reveal</button></div>`}</div>`;
    } else {
      const r = revealScore({ guess: this.guess, actual: asked, bound });
      panel = html`<div class=${this.predict ? 'predict reveal' : 'side'}>
        <p>(${i0}, ${j0}): <span class="num shown">${fmt(shown, 3)}</span> · (${i1}, ${j1}): <span class="num asked">${fmt(asked, 3)}</span>.
          Every diagonal is constant: the score depends on j − i only, so it holds at positions never trained.</p>
        ${this.predict ? revealLine(html`your guess <strong class="yours">${fmt(r.guess, 2)}</strong>: off by <strong class="error">${fmt(r.error, 2)}</strong> (${r.verdict})`) : nothing}
        ${this.predict && !this.slideLayout ? html`<div class="actions"><button type="button" class="predict-again" @click=${() => toStage(0)}>Predict again</button></div>` : nothing}</div>`;
    }
    // The guess stage hides the identity that gives the answer away, and the map.
    return { formula: phase === 'guess' ? `\\langle R_{${i1}}\\,q,\\ R_{${j1}}\\,k\\rangle = \\;?` : '\\langle R_i q,\\ R_j k\\rangle = q^\\top R_{j-i}\\, k',
      body: html`${phase === 'guess' ? nothing : map}<div class="side" style=${phase === 'guess' ? '' : `max-width:${side}px`}>${panel}</div>` };
  }

  #alibi(lab, w, h) {
    const H = this.heads, L = 16, a = lab.alibi({ heads: H, tq: L });
    // Row L−1 (the last query) against its keys: bias −m_h·(L−1−j), drawn against the distance.
    const series = Array.from(a.slopes, (m, hh) => ({ points: Array.from({ length: L }, (_, d) => [d, a.bias[hh * L * L + (L - 1) * L + (L - 1 - d)]]),
      label: `head ${hh + 1}: m = ${m >= 0.01 ? fmt(m, 3) : m.toExponential(1)}`, color: SERIES_COLORS[hh % SERIES_COLORS.length], dash: hh >= SERIES_COLORS.length ? '6 4' : undefined }));
    return { formula: 's_{ij} \\mathrel{+}= -\\,m_h\\,|i-j|,\\qquad m_h = 2^{-8h/H}',
      body: html`<div class="plot">${plot({ xLabel: 'distance |i − j|', yLabel: 'bias', width: w, height: h - 36 * Math.ceil(series.length / 4), fontSize: 18, series })}</div>` };
  }

  #extrapolate(lab, w, h) {
    // ALiBi alone (content scores 0): the last query's weights over the keys nearest it, at the trained
    // length T and at 4T. The profile near the query is the same: nothing depends on the absolute length.
    const T = this.trained, m = lab.alibi({ heads: this.heads, tq: 1 }).slopes[Math.min(2, this.heads - 1)];
    const row = (len) => {
      const z = new Float32Array(len);
      const r = lab.attention({ q: [0], k: z, v: z, tq: 1, tk: len, dk: 1, dv: 1, scale: 1, alibiSlope: m });
      return r.weights;
    };
    let wT, w4;
    try { wT = row(T); w4 = row(4 * T); } catch (e) { return { formula: '', body: html`<p class="error">${e.message}</p>` }; }
    // lab.attention's ALiBi distance is |i − j| with the query at position 0: key j is j positions away.
    // Relative to the nearest key (α_j / α_0): the normaliser cancels, the profile is the same at any length.
    const pts = (ws) => Array.from(ws, (x, j) => [j, x / ws[0]]).slice(0, 2 * T);
    return { formula: `\\alpha_j / \\alpha_0 = e^{-m\\,|i-j|},\\ m = ${fmt(m, 3)}:\\ \\text{the same at length } ${T} \\text{ and } ${4 * T}`,
      body: html`<div class="plot">${plot({ xLabel: 'distance from the query', yLabel: 'α_j / α_0', width: w, height: h - 40, fontSize: 18, yDomain: [0, 1.05],
        series: [{ points: pts(wT), label: `length ${T} (trained)`, color: SERIES_COLORS[0] }, { points: pts(w4), label: `length ${4 * T}`, color: SERIES_COLORS[5], dash: '6 4' }] })}</div>` };
  }

  renderWidget(lab) {
    const view = this.#view, box = this.slideLayout ? this.box : { width: this.pageFit(900), height: 420 };
    const h = Math.max(120, box.height - (this.slideLayout ? (this._headH || 70) : 70) - 16);
    const tabs = this.controlsMode === 'none' ? nothing : html`<div class="views" role="group" aria-label="view">${VIEWS.map(([v, name]) => html`<button type="button"
      class=${`view-${v}`} aria-pressed=${String(v === view)} @click=${() => this.setState({ view: v, stage: this.predict ? this.stage : null })}>${name}</button>`)}
      ${view === 'relative' && this.controlsMode === 'full' ? html`<label><input type="checkbox" class="predict-toggle" .checked=${!!this.predict}
        @change=${(e) => this.setState({ predict: e.target.checked, stage: e.target.checked ? 0 : null })}> predict first (self-check)</label>` : nothing}</div>`;
    const v = { rotate: () => this.#rotate(lab, box.width, h), relative: () => this.#relative(lab, box.width, h),
      alibi: () => this.#alibi(lab, box.width, h), extrapolate: () => this.#extrapolate(lab, box.width, h) }[view]();
    return html`<div class="slide-head">${tabs}<attn-tex class="formula current" .expr=${v.formula}></attn-tex></div>
      <div class=${`body view-${view}`}>${v.body}</div>`;
  }
}
