// <attn-positional>: positional encodings side by side.
//   - sinusoidal PE (position × dimension) with base and d_model controls,
//   - PE(pos)·PE(pos+k) against k (from two starting positions: it depends on k only),
//   - learned, RoPE and ALiBi at a length beyond the trained one: the learned table has no rows there
//     (the API's Error is shown as the lesson); RoPE and ALiBi extend because they depend on i − j.
//
// Attributes: base, d-model, length (absent: 48 on a page, as many as fill the box on a slide), trained,
// view-length, head, seed, view (slide layout: "heatmap" | "curves" | "dot" | "learned"), hash-key, and
// the shared layout / controls / fit-height. Events: attn-state-change.
// On a slide one view fills the box (default: the heatmap, positions along x), picked by `view` or the
// compact view tabs.
// Numbers: lab.positionalEncoding, lab.rope, lab.alibi, and dot products through lab.attention
// (scores = q·k with scale 1).
import { html, css, nothing } from 'lit';
import { packPanels } from '../shared/fit.js';
import { heatmapSize } from '../shared/heatmap.js';
import { AttnWidget } from '../shared/widget.js';
import { uniformMatrix } from '../shared/rng.js';
import { plot } from '../shared/plot.js';
import '../shared/heatmap.js';
import '../shared/tex.js';
import { NOT_TRAINED, learnedReadout } from './logic.js';
import { drawInParts, drawn } from '../shared/parts.js';

export class AttnPositional extends AttnWidget {
  static properties = {
    base: { type: Number },
    dModel: { type: Number, attribute: 'd-model' },
    length: { type: Number },
    trained: { type: Number },
    viewLength: { type: Number, attribute: 'view-length' },
    head: { type: Number },
    seed: { type: Number },
    /** Slide layout: the one view that fills the box. */
    view: { type: String, reflect: true },
    /** The part of the page's first draw drawn so far (parts.js; null: all). */
    _drawPart: { state: true },
  };

  static stateSchema = {
    base: { type: 'num', min: 2, max: 1e6 },
    dModel: { type: 'int', min: 2, max: 128 },
    length: { type: 'int', min: 2, max: 128 },
    trained: { type: 'int', min: 2, max: 64 },
    viewLength: { type: 'int', min: 2, max: 96 },
    head: { type: 'int', min: 1, max: 8 },
    seed: { type: 'int', min: 0, max: 1e9 },
    view: { type: 'enum', values: ['heatmap', 'curves', 'dot', 'learned'] },
  };

  static checkState(s) {
    return s.dModel !== undefined && s.dModel % 2 ? 'd_model must be even' : '';
  }

  // The learned table's Error is the lesson, not a failure: amber, not red.
  static styles = [AttnWidget.styles, css`.lesson { max-width: 260px; background: #fff8c5; border: 1px solid #d4a72c; padding: 6px 10px; border-radius: 6px; }
    .slide-head { display: flex; flex-direction: column; gap: 4px; }
    .slide-head .controls { margin: 0; gap: 4px 12px; font-size: 16px; }
    .slide-head .formula { margin: 0; padding: 0 8px; }
    .views { display: flex; flex-wrap: wrap; gap: 4px; }
    .views button { font-size: 15px; padding: 1px 10px; border-radius: 999px; }
    .views button[aria-pressed='true'] { background: #0969da; border-color: #0969da; color: #fff; font-weight: 600; }
    .slide-main { margin-top: 6px; display: flex; flex-direction: column; gap: 4px; }
    .slide-row { display: flex; gap: 16px; align-items: flex-start; }
    .wrap.slide .lesson { max-width: none; margin: 0; padding: 2px 10px; font-size: 16px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }`];

  static VIEWS = [['heatmap', 'PE heatmap'], ['curves', 'PE curves'], ['dot', 'PE·PE(+k)'], ['learned', 'beyond trained length']];

  constructor() {
    super();
    this.base = 10000;
    this.dModel = 32;
    this.length = null;  // 48 on a page; on a slide, as many positions as fill the box
    this.trained = 16;
    this.viewLength = 24;
    this.head = 1;
    this.seed = 1;
    this.view = 'heatmap';
    this._headH = 0;
  }

  /** PE(pos)·PE(pos + k) for k = 0 … K, from the core (attention scores with scale 1). */
  #dots(lab, pe, D, pos, K) {
    const q = pe.subarray(pos * D, (pos + 1) * D), k = pe.subarray(pos * D, (pos + K + 1) * D);
    return lab.attention({ q, k, v: new Float32Array(K + 1), tq: 1, tk: K + 1, dk: D, dv: 1, scale: 1 }).scores;
  }

  /** The learned map's readout for trained length T (one function per T: a new one per render would redraw the map). */
  #learnedReadout(T) {
    if (this._learnedReadout?.T !== T) this._learnedReadout = { T, fn: learnedReadout(T) };
    return this._learnedReadout.fn;
  }

  /** The learned table, RoPE scores and ALiBi bias at N positions (trained length T), from the core. */
  #beyond(lab, D, N, T) {
    return { ...this.#learned(lab, D, N, T), ...this.#rope(lab, D, N), ...this.#alibi(lab, N) };
  }

  /** The learned table at N positions (trained length T): the rows it has, and the API's Error past T. */
  #learned(lab, D, N, T) {
    const table = uniformMatrix(this.seed, T * D);  // stands in for a trained table
    let learned, learnedError = '';
    try {
      learned = lab.positionalEncoding({ kind: 'learned', table, maxLength: T, dModel: D, length: N });
    } catch (e) {
      learnedError = e.message;
      // The rows the table has; positions past T have none (NaN: drawn grey, "no row").
      learned = new Float32Array(N * D).fill(NaN);
      learned.set(lab.positionalEncoding({ kind: 'learned', table, maxLength: T, dModel: D, length: Math.min(N, T) }));
    }
    return { learned, learnedError };
  }

  /** RoPE's scores q_i·k_j for one content vector at N positions. */
  #rope(lab, D, N) {
    const u = uniformMatrix(this.seed + 1, D);  // the same content vector at every position
    const rows = new Float32Array(N * D);
    for (let i = 0; i < N; i++) rows.set(u, i * D);
    const rot = lab.rope({ x: rows, t: N, dim: D, base: this.base });
    const ropeScores = lab.attention({ q: rot, k: rot, v: new Float32Array(N), tq: N, tk: N, dk: D, dv: 1, scale: 1 / Math.sqrt(D) }).scores;
    return { ropeScores };
  }

  /** ALiBi's bias for the widget's head at N positions (of 8 heads). */
  #alibi(lab, N) {
    const H = 8, h = Math.min(H, Math.max(1, this.head));
    const alibi = lab.alibi({ heads: H, tq: N });
    return { h, slope: alibi.slopes[h - 1], bias: alibi.bias.subarray((h - 1) * N * N, h * N * N) };
  }

  #peFormula() {
    const b = this.base;
    return `PE_{(pos,\\,2i)} = \\sin\\!\\left(\\dfrac{pos}{${b}^{2i/d}}\\right),\\quad PE_{(pos,\\,2i+1)} = \\cos\\!\\left(\\dfrac{pos}{${b}^{2i/d}}\\right)`;
  }

  static DOT_FORMULA = 'PE_{pos}\\cdot PE_{pos+k} = \\sum_i \\cos\\!\\big(k\\,\\omega_i\\big),\\ \\ \\omega_i = base^{-2i/d}';

  /** A few even (sine) dimensions, fast to slow: about d/16, d/8, d/4, d/2 (even, distinct, > 0). */
  static curveDims(D) {
    const js = [...new Set([D / 16, D / 8, D / 4, D / 2].map((x) => 2 * Math.round(x / 2)))].filter((j) => j > 0 && j < D);
    return js.length < 3 ? [0, ...js] : js;
  }

  get #currentView() {
    return AttnPositional.VIEWS.some(([v]) => v === this.view) ? this.view : 'heatmap';
  }

  /** Slide layout: one view filling the box; the view tabs (and d_model) as the compact controls. */
  #renderSlide(lab, D) {
    const { width, height } = this.box;
    const view = this.#currentView, base = this.base, wide = width >= 640;
    const h = Math.max(60, height - (this._headH || 70) - 8);
    const posLabels = (n) => Array.from({ length: n }, (_, i) => String(i));
    const dims = Array.from({ length: D }, (_, j) => String(j));
    const pick = (v) => { this.view = v; this.stateChanged(); };
    // Tabs when they fit on one line with d_model, else a select.
    const views = wide
      ? html`<div class="views" role="group" aria-label="view">${AttnPositional.VIEWS.map(([v, name]) => html`<button type="button" class=${`view-${v}`}
        aria-pressed=${String(v === view)} @click=${() => pick(v)}>${name}</button>`)}</div>`
      : html`<label>view <select class="view" @change=${(e) => pick(e.target.value)}>${AttnPositional.VIEWS.map(([v, name]) => html`<option value=${v}
        ?selected=${v === view}>${name}</option>`)}</select></label>`;
    const controls = this.controlsMode === 'none' ? nothing : html`<div class="controls">${views}
      <label>d<sub>model</sub> <select class="d-model" @change=${(e) => this.setState({ dModel: Number(e.target.value) })}>
        ${[8, 16, 32, 64, 128].map((d) => html`<option value=${d} ?selected=${d === D}>${d}</option>`)}</select></label></div>`;
    let formula, body;
    if (view === 'heatmap') {
      // Positions along x (as a sentence runs), dimensions down: as many positions as fill the width.
      const L = this.length ?? this.#fillLength(D, width, h);
      const pe = lab.positionalEncoding({ kind: 'sinusoidal', length: L, dModel: D, base });
      const peT = new Float32Array(L * D);
      for (let p = 0; p < L; p++) for (let j = 0; j < D; j++) peT[j * L + p] = pe[p * D + j];
      formula = wide ? this.#peFormula()
        : `PE_{(pos,\\,2i)},\\ PE_{(pos,\\,2i+1)} = \\sin, \\cos\\big(pos \\cdot ${base}^{-2i/d}\\big)`;
      body = html`<attn-heatmap class="sinusoidal" label=${wide ? `sinusoidal PE: rows = dimension (0 … ${D - 1}), columns = position (0 … ${L - 1})` : 'PE: rows = dimension, columns = position'}
        .values=${peT} .rows=${D} .cols=${L} .rowLabels=${dims} .colLabels=${posLabels(L)} colormap="diverging" .vmin=${-1} .vmax=${1}
        compact .cellSize=${60} .fitWidth=${width} .fitHeight=${h}></attn-heatmap>`;
    } else if (view === 'curves') {
      const L = this.length ?? 64;
      const pe = lab.positionalEncoding({ kind: 'sinusoidal', length: L, dModel: D, base });
      const js = AttnPositional.curveDims(D);
      formula = `PE_{(pos,\\,2i)} = \\sin(pos\\,\\omega_i),${wide ? '\\quad' : '\\ '} \\omega_i = ${base}^{-2i/d}${wide ? ':\\ \\text{dimension } 2i \\text{ repeats every } 2\\pi/\\omega_i \\text{ positions}' : ''}`;
      const labels = js.map((j) => `${wide ? 'dimension' : 'dim'} ${j}: ω = ${(base ** (-j / D)).toPrecision(2)}`);
      // The legend under the plot: items of ~0.55 em per character plus the swatch, 12 px apart.
      const lines = Math.ceil(labels.reduce((a, l) => a + l.length * 9 + 30, 0) / width);
      body = plot({ xLabel: 'position pos', yLabel: 'PE(pos, dimension)', width, height: h - 8 - lines * 24 - (lines - 1) * 12, fontSize: 16, yDomain: [-1.05, 1.05],
        series: js.map((j, k) => ({ points: Array.from({ length: L }, (_, p) => [p, pe[p * D + j]]), label: labels[k] })) });
      body = html`<div class="curves">${body}</div>`;
    } else if (view === 'dot') {
      const K = Math.min(40, (this.length ?? 48) - 1), p2 = 8;
      const peLong = lab.positionalEncoding({ kind: 'sinusoidal', length: p2 + K + 1, dModel: D, base });
      const d0 = this.#dots(lab, peLong, D, 0, K), d8 = this.#dots(lab, peLong, D, p2, K);
      formula = wide ? `${AttnPositional.DOT_FORMULA}:\\ \\text{the same curve from any } pos` : 'PE_{pos}\\cdot PE_{pos+k} = \\sum_i \\cos\\big(k\\,\\omega_i\\big)';
      body = html`<div class="dots">${plot({ xLabel: 'offset k', yLabel: 'PE(pos)·PE(pos+k)', width, height: h - 28, fontSize: 16,
        series: [{ points: Array.from(d0, (y, k) => [k, y]), label: 'pos = 0' }, { points: Array.from(d8, (y, k) => [k, y]), label: `pos = ${p2}`, dash: '6 4' }] })}</div>`;
    } else {
      const N = this.viewLength, T = this.trained, b = this.#beyond(lab, D, N, T);
      formula = `${wide ? `\\text{trained on } ${T} \\text{ positions, used on } ${N}:\\quad ` : ''}\\langle R_i q, R_j k\\rangle = \\langle q, R_{j-i} k\\rangle,\\quad s_{ij} \\mathrel{+}= -m_h\\,|i-j|`;
      const lessonH = b.learnedError ? 30 : 0;
      const panels = [
        { cls: 'learned-pe', label: `learned: no rows past ${T} (grey)`, values: b.learned, rows: N, cols: D, rowLabels: posLabels(N), colLabels: dims,
          readoutFor: this.#learnedReadout(T), missingText: NOT_TRAINED },
        { cls: 'rope', label: 'RoPE q_i·k_j', values: b.ropeScores, rows: N, cols: N, rowLabels: posLabels(N), colLabels: posLabels(N), mark: T },
        { cls: 'alibi', label: `ALiBi bias, head ${b.h}`, values: b.bias, rows: N, cols: N, rowLabels: posLabels(N), colLabels: posLabels(N), mark: T },
      ].map((p) => ({ ...p, compact: true, legend: true, weight: 1, shareRows: true }));
      // A narrow box: the learned table and RoPE, or the learned table alone, when three do not fit.
      let layout;
      for (const ps of [panels, panels.slice(0, 2), panels.slice(0, 1)]) {
        layout = packPanels(ps, width, h - lessonH, { gap: 16, rowGap: 4, maxCell: 60 });
        if (layout.fits && layout.cell >= 6) break;
      }
      body = html`${layout.rows.map((row) => html`<div class="slide-row">${row.map((p) => html`<attn-heatmap class=${p.cls} .label=${p.label}
          .values=${p.values} .rows=${p.rows} .cols=${p.cols} .rowLabels=${p.rowLabels} .colLabels=${p.colLabels} colormap="diverging"
          .mark=${p.mark ?? null} compact .cellSize=${60} .legendPos=${p.legendPos ?? 'right'} .fitWidth=${p.fitWidth} .fitHeight=${p.fitHeight}
          .readoutFor=${p.readoutFor ?? null} .missingText=${p.missingText ?? ''}></attn-heatmap>`)}</div>`)}
        ${b.learnedError ? html`<p class="lesson learned-error" role="status" style=${`max-width:${width}px`}>Learned table past ${T}: “${b.learnedError}”</p>` : nothing}`;
    }
    return html`<div class="slide-head">${controls}<attn-tex class="formula current" .expr=${formula}></attn-tex></div>
      <div class=${`slide-main view-${view}`}>${body}</div>`;
  }

  /** Slide layout without a `length`: the positions that fill `w` at the largest cell the height allows (16 … 128). */
  #fillLength(D, w, h) {
    const dims = Array.from({ length: D }, (_, j) => String(j));
    const opts = (cols) => ({ rows: D, cols, rowLabels: dims, colLabels: ['100'], label: 'x', compact: true, legend: true, minFont: 16 });
    for (let c = 40; c >= 4; c--) {
      const one = heatmapSize(opts(1), c);
      if (one.height + 2 > h) continue;
      return Math.max(16, Math.min(128, Math.floor((w - 4 - (one.width - c)) / c)));
    }
    return 48;
  }

  /** The page's first draw: the encoding with its dot products, then the learned table, RoPE and ALiBi, a task each. */
  labReady() {
    drawInParts(this, 4);
  }

  /**
   * The page's numbers (and the maps' labels), kept while the settings stay: a render that draws the
   * next part of the first draw, or a re-layout, gives the maps drawn before the same arrays (not redrawn).
   * Each map's numbers are computed when its part is first drawn (the learned table, RoPE, ALiBi: parts
   * 1, 2, 3), not all in the first part's task.
   */
  #pageNumbers(lab, D) {
    const page = this.#pageEncoding(lab, D), { N, T } = page;
    if (drawn(this, 1)) page.learned ??= this.#learned(lab, D, N, T);
    if (drawn(this, 2)) page.rope ??= this.#rope(lab, D, N);
    if (drawn(this, 3)) page.alibi ??= this.#alibi(lab, N);
    return { ...page, ...page.learned, ...page.rope, ...page.alibi };
  }

  /** The encoding and its dot products (part 0), with the labels. */
  #pageEncoding(lab, D) {
    const L = this.length ?? 48, base = this.base, N = this.viewLength, T = this.trained;
    const key = `${base}|${D}|${L}|${N}|${T}|${this.seed}|${this.head}`;
    if (this._page?.key === key) return this._page;
    const pe = lab.positionalEncoding({ kind: 'sinusoidal', length: L, dModel: D, base });
    const K = Math.min(40, L - 1), p2 = 8;
    const peLong = lab.positionalEncoding({ kind: 'sinusoidal', length: p2 + K + 1, dModel: D, base });
    const d0 = this.#dots(lab, peLong, D, 0, K), d8 = this.#dots(lab, peLong, D, p2, K);
    const posLabels = (n) => Array.from({ length: n }, (_, i) => String(i));
    // Side by side at viewLength (> trained: beyond what a model would have seen).
    this._page = { key, L, N, T, p2, pe, d0, d8, dims: Array.from({ length: D }, (_, j) => String(j)), posL: posLabels(L), posN: posLabels(N) };
    return this._page;
  }

  renderWidget(lab) {
    const D = this.dModel - (this.dModel % 2);
    if (this.slideLayout) return this.#renderSlide(lab, D);
    const { L, N, T, p2, pe, d0, d8, dims, posL, posN, learned, learnedError, ropeScores, h, slope, bias } = this.#pageNumbers(lab, D);
    const base = this.base;
    // Cells of at least 6 px keep the axis labels (every n-th) at long lengths, as far as the page allows.
    // The column's width as the widget measured it (widget.js), not this.clientWidth: reading that here laid
    // out the whole page in the middle of its first draw (~30 ms of CPU at 4x throttle). ≈ clientWidth − 40.
    const avail = this._pageWidth ? this._pageWidth - 6 : 900;
    const nnWidth = Math.max(300, Math.min(6 * N + 110, avail));
    const learnedWidth = Math.max(260, Math.min(6 * D + 110, avail));
    const f = this.fields;
    const numIn = (cls, label, key, min, max, step = 1, shown = this[key]) => html`<label>${label} <input type="number" class=${cls} min=${min} max=${max} step=${step}
      .value=${String(shown)} aria-invalid=${f.invalid(cls)} aria-describedby=${f.describedBy(cls)}
      @change=${(e) => { const v = f.number(cls, e.target, { min, max, integer: step === 1, name: `${label} (still ${shown})` }); if (v !== null) this.setState({ [key]: v }); }}></label>${f.message(cls)}`;

    // The maps' cells (no numbers in them at these sizes) as one image each, with the same white lines
    // between them: 1536 + 768 + 2 × 576 SVG rects were most of the widget's drawing and of each repaint.
    return html`
      <attn-tex class="formula" display .expr=${this.#peFormula()}></attn-tex>
      <div class="controls">
        ${numIn('base', 'base', 'base', 2, 1e6, 'any')}
        <label>d<sub>model</sub> <select class="d-model" @change=${(e) => this.setState({ dModel: Number(e.target.value) })}>
          ${[8, 16, 32, 64, 128].map((d) => html`<option value=${d} ?selected=${d === D}>${d}</option>`)}</select></label>
        ${numIn('length', 'positions', 'length', 2, 128, 1, L)}
      </div>
      <div class="row">
        <attn-heatmap class="sinusoidal" label="sinusoidal PE (rows: position, columns: dimension)" .values=${pe} .rows=${L} .cols=${D}
          .rowLabels=${posL} .colLabels=${dims} colormap="diverging" max-width="520" cell-size="16" raster></attn-heatmap>
        <div>
          ${plot({ title: 'PE(pos)·PE(pos+k): depends on k only', xLabel: 'offset k', yLabel: 'dot product', width: this.pageFit(400), height: 250,
            series: [{ points: Array.from(d0, (y, k) => [k, y]), label: 'pos = 0' }, { points: Array.from(d8, (y, k) => [k, y]), label: `pos = ${p2}`, dash: '6 4' }] })}
          <attn-tex .expr=${AttnPositional.DOT_FORMULA}></attn-tex>
        </div>
      </div>
      <h3>Beyond the trained length</h3>
      <div class="controls">${numIn('trained', 'trained length', 'trained', 2, 64)}${numIn('view-length', 'sequence length', 'viewLength', 2, 96)}
        ${numIn('head', 'ALiBi head', 'head', 1, 8)}</div>
      <p class="note">Dashed lines (RoPE, ALiBi) and the grey rows of the learned table: the trained length (${T}). The learned table is random here (seed ${this.seed}), standing in for a trained one.</p>
      <div class="row">
        ${drawn(this, 1) ? html`<div class="learned"><attn-heatmap class="learned-pe" label=${N > T ? `learned (table lookup): no rows past ${T}` : 'learned (table lookup)'} .values=${learned} .rows=${N} .cols=${D}
            .rowLabels=${posN} .colLabels=${dims} colormap="diverging" max-width=${learnedWidth} raster
            .readoutFor=${this.#learnedReadout(T)} .missingText=${NOT_TRAINED}></attn-heatmap>
          ${learnedError ? html`<p class="lesson learned-error" role="status">No rows past ${T}: the API says “${learnedError}”</p>` : nothing}</div>` : nothing}
        ${drawn(this, 2) ? html`<div><attn-heatmap class="rope" label="RoPE: q_i·k_j for one content vector" .values=${ropeScores} .rows=${N} .cols=${N}
            .rowLabels=${posN} .colLabels=${posN} max-width=${nnWidth} .mark=${T} raster></attn-heatmap>
          <attn-tex .expr=${'\\langle R_i q, R_j k\\rangle = \\langle q, R_{j-i} k\\rangle'}></attn-tex></div>` : nothing}
        ${drawn(this, 3) ? html`<div><attn-heatmap class="alibi" label=${`ALiBi bias, head ${h} (slope ${slope.toPrecision(3)})`} .values=${bias} .rows=${N} .cols=${N}
            .rowLabels=${posN} .colLabels=${posN} max-width=${nnWidth} .mark=${T} raster></attn-heatmap>
          <attn-tex .expr=${'\\text{score}_{ij} \\mathrel{+}= -m_h\\,|i-j|'}></attn-tex></div>` : nothing}
      </div>`;
  }
}
