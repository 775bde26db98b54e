// <attn-convex>: attention output as a convex combination of the values (the deck's "I am Sam").
// Each output row z_i = Σ_j A_ij v_j with A_ij ≥ 0, Σ_j A_ij = 1 lies inside the convex hull of the
// values. Permuting the tokens permutes the outputs the same way (permutation equivariance).
//
// Attributes: seed, hash-key. Properties: a [t·t], v [t·2], tokens, perm (new token i = old perm[i]).
// Events: attn-state-change. Numbers: lab.weightedSum.
import { html, css, nothing } from 'lit';
import { AttnWidget } from '../shared/widget.js';
import { cellList } from '../shared/hash.js';
import { widgetStyles } from '../shared/styles.js';
import { mulberry32 } from '../shared/rng.js';
import { convexHull } from '../shared/stats.js';
import { plot, SERIES_COLORS } from '../shared/plot.js';
import { fmt } from '../shared/format.js';
import { isPermutation, permuteRows, permuteSquare } from './logic.js';
import { FitBoxes, SLIDE_CSS, padRange, plotInner } from '../shared/fit-boxes.js';
import { packRow } from '../shared/fit.js';
import '../shared/heatmap.js';
import '../shared/matrix-editor.js';
import '../shared/tex.js';
import { drawInParts, drawn } from '../shared/parts.js';

// The Slidev deck's example: A·V = [[0.85, 0.65], [0.15, 1.2], [−0.35, 0.05]].
const I_AM_SAM = { tokens: ['I', 'am', 'Sam'], a: [0.6, 0.1, 0.3, 0.3, 0.5, 0.2, 0.2, 0.1, 0.7], v: [2, 1, -0.5, 2, -1, -0.5] };

export class AttnConvex extends AttnWidget {
  static properties = {
    a: { attribute: false },
    v: { attribute: false },
    tokens: { attribute: false },
    perm: { attribute: false },
    seed: { type: Number },
    /** 'fixed' (default): weights coloured on [0, 1]; 'map': on the matrix's own range. */
    weightRange: { type: String, attribute: 'weight-range' },
    /** The part of the page's first draw drawn so far (parts.js; null: all). */
    _drawPart: { state: true },
  };

  static styles = [widgetStyles, css`
    .matrices { display: flex; flex-direction: column; align-items: flex-start; }
    /* The notice takes the matrices' width: it never widens the column (the plot stays beside it). */
    .matrices .notice { width: 0; min-width: 100%; box-sizing: border-box; margin: 6px 0; }
    .dot { display: inline-block; width: 8px; height: 8px; border-radius: 50%; background: #57606a; vertical-align: 1px; }
    .dot.big { width: 12px; height: 12px; vertical-align: -1px; }
    ${SLIDE_CSS}
  `];

  static stateSchema = {
    a: cellList(9),
    v: cellList(6),
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
    this.weightRange = 'fixed';
    this.boxes = new FitBoxes(this);
  }

  #shuffle() {
    const u = mulberry32(this.seed++), p = [0, 1, 2];
    for (let i = 2; i > 0; i--) { const j = Math.floor(u() * (i + 1)); [p[i], p[j]] = [p[j], p[i]]; }
    this.setState({ perm: p });
  }

  /** Everything shown, from the core: the outputs, and those of the permuted tokens. */
  compute(lab) {
    const t = 3, { a, v, tokens, perm } = this;
    const out = lab.weightedSum({ weights: a, v, tq: t, tk: t, dv: 2 });
    const pa = permuteSquare(a, perm), pv = permuteRows(v, perm, 2), ptok = perm.map((p) => tokens[p]);
    const pout = lab.weightedSum({ weights: pa, v: pv, tq: t, tk: t, dv: 2 });
    const equivariant = perm.every((p, i) => Math.abs(pout[2 * i] - out[2 * p]) < 1e-5 && Math.abs(pout[2 * i + 1] - out[2 * p + 1]) < 1e-5);
    const notConvex = [0, 1, 2].filter((i) => { const r = a.slice(3 * i, 3 * i + 3); return r.some((x) => x < 0) || Math.abs(r[0] + r[1] + r[2] - 1) > 1e-3; });
    // V and Z share one diverging scale (Z lies inside V's hull, so inside its range).
    const range = Math.max(1e-6, ...v.map(Math.abs), ...Array.from(out, Math.abs));
    return { out, pa, pv, ptok, pout, equivariant, notConvex, range, permuted: perm.some((p, i) => p !== i) };
  }

  /** The hull, the values (large dots) and the outputs (small dots), with room for the dots' labels. */
  #plot(c, width, height, fontSize) {
    const { v, tokens } = this, out = c.out;
    const vp = [0, 1, 2].map((i) => [v[2 * i], v[2 * i + 1]]);
    const color = (i) => SERIES_COLORS[i];
    const series = [{ points: convexHull(vp), kind: 'polygon', color: '#8c959f', label: this.slideLayout ? undefined : 'convex hull of the values' },
      ...[0, 1, 2].map((i) => ({ points: [vp[i]], kind: 'dots', r: 6, color: color(i), labels: [`v(${tokens[i]})`] })),
      ...[0, 1, 2].map((i) => ({ points: [[out[2 * i], out[2 * i + 1]]], kind: 'dots', r: 4, color: color(i), labels: [`z(${tokens[i]})`] }))];
    // Labels sit right of and above their dot: leave that much room inside the frame.
    const xs = [...vp.map((p) => p[0]), out[0], out[2], out[4]], ys = [...vp.map((p) => p[1]), out[1], out[3], out[5]];
    const inner = plotInner(width, height, fontSize);
    const longest = Math.max(...tokens.map((s) => s.length)) + 3;
    const xDomain = padRange(Math.min(...xs), Math.max(...xs), inner.width, 10, 10 + longest * 0.62 * fontSize);
    const yDomain = padRange(Math.min(...ys), Math.max(...ys), inner.height, 10, 10 + fontSize);
    return plot({ title: this.slideLayout ? '' : 'values (large dots) and outputs (small dots)', xLabel: 'x', yLabel: 'y', width, height, series,
      equal: true, xDomain, yDomain, fontSize });
  }

  /** The page's first draw: the matrices, then the plot, then the permutation (parts.js), a task each. */
  labReady() {
    drawInParts(this, 3);
  }

  renderWidget(lab) {
    const c = this.compute(lab);
    return this.slideLayout ? this.#renderSlide(c) : this.#renderPage(c);
  }

  #permButtons(perm, ptok, short = false) {
    return html`<button type="button" class="swap" @click=${() => this.setState({ perm: [perm[1], perm[0], perm[2]] })}>${short ? 'Swap' : 'Swap first two'}</button>
      <button type="button" class="rotate" @click=${() => this.setState({ perm: [perm[1], perm[2], perm[0]] })}>Rotate</button>
      <button type="button" class="shuffle" @click=${() => this.#shuffle()}>Shuffle</button>
      <button type="button" class="reset" @click=${() => this.setState({ perm: [0, 1, 2] })}>${short ? 'Reset' : 'Original order'}</button>
      <span>order: <strong class="order">${ptok.join(' ')}</strong></span>`;
  }

  #notice(c) {
    return `Row ${c.notConvex.map((i) => this.tokens[i]).join(', ')} of A is not a probability vector (negative or not summing to 1): its output may leave the hull. Softmax always gives probability rows.`;
  }

  #renderPage(c) {
    const { a, v, tokens, perm } = this, { out, pa, ptok, pout, equivariant, notConvex } = c;
    const cols = ['x', 'y'];
    return html`
      <attn-tex class="formula" display .expr=${CONVEX_TEX}></attn-tex>
      <div class="row">
        <div class="matrices">
          <div class="row">
            <attn-matrix-editor class="a" label="A (weights)" .values=${a} .rows=${3} .cols=${3} .rowLabels=${tokens} .colLabels=${tokens} step="0.05"
              @attn-matrix-change=${(e) => this.setState({ a: e.detail.values })}></attn-matrix-editor>
            <attn-matrix-editor class="v" label="V (values)" .values=${v} .rows=${3} .cols=${2} .rowLabels=${tokens} .colLabels=${cols}
              @attn-matrix-change=${(e) => this.setState({ v: e.detail.values })}></attn-matrix-editor>
          </div>
          ${notConvex.length ? html`<p class="notice not-convex">${this.#notice(c)}</p>` : nothing}
          <attn-heatmap class="output" label="A·V (outputs z)" .values=${out} .rows=${3} .cols=${2} .rowLabels=${tokens} .colLabels=${cols}
            colormap="diverging" .vmin=${-c.range} .vmax=${c.range}></attn-heatmap>
        </div>
        ${drawn(this, 1) ? this.#plot(c, this.pageFit(420), 360, 12) : nothing}
      </div>
      ${drawn(this, 2) ? html`<h3>Permute the tokens</h3>
      <div class="controls">${this.#permButtons(perm, ptok)}</div>
      <attn-tex .expr=${PERM_TEX}></attn-tex>
      <div class="row">
        <attn-heatmap class="perm-a" label="A′ = PAPᵀ" .values=${Float32Array.from(pa)} .rows=${3} .cols=${3} .rowLabels=${ptok} .colLabels=${ptok}
          colormap="sequential" .vmin=${this.#wMin()} .vmax=${this.#wMax()}></attn-heatmap>
        <attn-heatmap class="perm-output" label="A′V′" .values=${pout} .rows=${3} .cols=${2} .rowLabels=${ptok} .colLabels=${cols}
          colormap="diverging" .vmin=${-c.range} .vmax=${c.range}></attn-heatmap>
        <p class="note equivariance" role="status">${equivariant ? 'Each token’s output moved with its token: the same rows as A·V, reordered.' : 'The permuted outputs differ from the reordered ones.'}
          ${perm.map((p, i) => html`<br>z′(${ptok[i]}) = (${fmt(pout[2 * i], 2)}, ${fmt(pout[2 * i + 1], 2)})`)}</p>
      </div>` : nothing}`;
  }

  // Weights: the fixed [0, 1] scale (a near-uniform row looks near-uniform), or the map's own range.
  #wMin() { return this.weightRange === 'map' ? null : 0; }
  #wMax() { return this.weightRange === 'map' ? null : 1; }

  /**
   * Slide layout: the formula (the permutation one, highlighted, once the tokens are permuted), the
   * permute buttons, then the plot and the matrices side by side filling the box, and one status line.
   */
  #renderSlide(c) {
    const { perm, tokens } = this, { pa, pv, ptok, pout, equivariant, notConvex, permuted } = c;
    const fs = 16, box = this.box;
    const body = this.boxes.get('body', { width: box.width, height: Math.max(120, box.height - 150) });
    const cols = ['x', 'y'];
    const P = permuted ? '′' : '';
    const panels = {
      a: { cls: 'weights perm-a', label: `A${P} (weights)`, values: Float32Array.from(pa), cols: 3, colLabels: ptok, colormap: 'sequential', vmin: this.#wMin(), vmax: this.#wMax() },
      v: { cls: 'v perm-v', label: `V${P} (values)`, values: Float32Array.from(pv), cols: 2, colLabels: cols, colormap: 'diverging', vmin: -c.range, vmax: c.range },
      z: { cls: 'output perm-output', label: `Z${P} = A${P}V${P}`, values: pout, cols: 2, colLabels: cols, colormap: 'diverging', vmin: -c.range, vmax: c.range },
    };
    // The plot as wide as it can be while all three matrices keep cells that hold "−0.50" at 16 px;
    // in a narrow box, while A and Z (or Z alone) keep readable cells.
    const gap = 16, hi = Math.min(Math.round(body.width * 0.56), Math.round(body.height * 1.5)), lo = Math.min(hi, 140);
    let plotW = lo, layout = null;
    for (const [sets, min] of [[[['a', 'v', 'z']], 54], [[['a', 'v', 'z'], ['a', 'z'], ['z']], 44]]) {
      for (let w = hi; w >= lo && !layout; w -= 10) {
        const l = arrangeMatrices(panels, ptok, body.width - w - gap, body.height, sets);
        if (l.cell >= min) { plotW = w; layout = l; }
      }
      if (layout) break;
    }
    layout ??= arrangeMatrices(panels, ptok, body.width - lo - gap, body.height, [['z']]);
    const plotBox = this.boxes.get('plot', { width: plotW, height: body.height - 26 });
    const hm = (p, f) => html`<attn-heatmap class=${p.cls} compact .label=${p.label} .values=${p.values} .rows=${3} .cols=${p.cols}
      .rowLabels=${ptok} .colLabels=${p.colLabels} .colormap=${p.colormap} .vmin=${p.vmin} .vmax=${p.vmax}
      .fitWidth=${f.fitWidth} .fitHeight=${f.fitHeight} .cellSize=${110} .digits=${2} .legendPos=${f.legendPos} .noRowLabels=${f.noRowLabels}></attn-heatmap>`;
    const ctl = this.controlsMode;
    return html`<div class="slide-frame" style=${`height:${box.height}px`}>
      <attn-tex class=${permuted ? 'formula current' : 'formula'} .expr=${permuted ? PERM_TEX : box.width < 600 ? CONVEX_SHORT_TEX : CONVEX_TEX}></attn-tex>
      ${ctl === 'none' ? nothing : html`<div class="controls">${this.#permButtons(perm, ptok, box.width < 560)}</div>`}
      ${ctl === 'full' ? html`<p class="note">Edit A and V in the page layout (layout="page").</p>` : nothing}
      <div class="slide-body" data-fit="body">
        <div class="plot-panel" style=${`width:${plotW}px`}>
          <div class="plotbox" data-fit="plot">${this.#plot(c, plotBox.width, plotBox.height, fs)}</div>
          <div class="legend-line"><span><span class="hull-swatch"></span> hull</span><span><span class="dot big"></span> values v</span><span><span class="dot"></span> outputs z</span></div>
        </div>
        <div class="mats">${layout.rows.map((row) => html`<div class="mat-row">${row.map(([k, f]) => hm(panels[k], f))}</div>`)}</div>
      </div>
      <p class=${notConvex.length ? 'notice not-convex status' : 'note equivariance status'} role="status">${notConvex.length ? this.#notice(c)
        : permuted ? (equivariant ? `Order ${ptok.join(' ')}: each token’s output z moved with its token — the same rows, reordered; the dots did not move.` : 'The permuted outputs differ from the reordered ones.')
          : `Order ${tokens.join(' ')}: every output z lies inside the hull of the values.`}</p>
    </div>`;
  }
}

// Braced: KaTeX does not break a group across lines (attn-tex shrinks it to fit instead).
const CONVEX_TEX = '{z_i = \\sum_j A_{ij}\\, v_j,\\qquad A_{ij} \\ge 0,\\ \\sum_j A_{ij} = 1 \\;\\Rightarrow\\; z_i \\in \\operatorname{conv}\\{v_1, \\dots, v_{t}\\}}';
const CONVEX_SHORT_TEX = '{z_i = \\sum_j A_{ij}\\, v_j \\in \\operatorname{conv}\\{v_1, \\dots, v_{t}\\}}';
const PERM_TEX = "{A' = PAP^\\top,\\quad V' = PV \\;\\Rightarrow\\; A'V' = P\\,(AV)}";

/**
 * The matrices A, V, Z in the box beside the plot: one row, A above V and Z, or one per row —
 * whichever gives the largest cells. Returns { cell, rows: rows of [key, { fitWidth, fitHeight, cell, … }] }.
 */
function arrangeMatrices(panels, rowLabels, width, height, sets) {
  const gap = 10;
  let best = null;
  // The first set of keys whose cells are readable (≥ 44 px), else the last set's best.
  for (const keys of sets) {
    const shapes = [[keys], ...(keys.length > 1 ? [[keys.slice(0, 1), keys.slice(1)]] : []), ...(keys.length > 2 ? [keys.map((k) => [k])] : [])];
    for (const rows of shapes) {
      for (const legendPos of ['right', 'bottom']) {
        const h = Math.floor((height - gap * (rows.length - 1)) / rows.length);
        const fitted = rows.map((row) => {
          // Maps beside each other share the token rows: labels once, on the first.
          const opts = row.map((k, i) => ({ rows: 3, cols: panels[k].cols, rowLabels, colLabels: panels[k].colLabels, label: panels[k].label,
            compact: true, legendPos, noRowLabels: i > 0 }));
          const r = packRow(opts, width, h, { gap: 12, maxCell: 90 });
          return (r.panels ?? r).map((f, i) => [row[i], { ...f, legendPos, noRowLabels: i > 0 }]);
        });
        const cell = Math.min(...fitted.flat().map(([, f]) => f.cell));
        if (!best || cell > best.cell) best = { cell, rows: fitted };
      }
    }
    if (best.cell >= 44) break;
    if (keys !== sets[sets.length - 1]) best = null;
  }
  return best;
}
