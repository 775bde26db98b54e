// <attn-heatmap>: a labelled matrix as coloured cells, with
//   - the value under the pointer or the keyboard cursor (focus the map, move with the arrow keys),
//   - an accessible table of every number behind it (in a <details>, read by screen readers),
//   - export of the picture as SVG or PNG.
//   - a colour legend beside the cells (the range the colours stand for),
//   - fit mode (`fit-width`/`fit-height`, used on slides): cells grow to fill the box and numbers are
//     drawn as large as the cells allow (at least `min-font` px, else fewer decimals, else none).
// Events: `attn-cell-toggle` { row, col } when `clickable` and a cell is clicked or Enter/Space is
// pressed on the cursor cell (the step-by-step widget edits its mask this way).
import { LitElement, html, svg, css, nothing } from 'lit';
import { scaleFor, css as rgbCss, textOn } from './colormap.js';
import { fmt } from './format.js';

const FONT = 'system-ui, -apple-system, Segoe UI, Roboto, sans-serif';

export class AttnHeatmap extends LitElement {
  static properties = {
    /** Row-major values, [rows·cols]. */
    values: { attribute: false },
    rows: { type: Number },
    cols: { type: Number },
    /** Title above the map (also the table caption and the export file name). */
    label: { type: String },
    rowLabels: { attribute: false },
    colLabels: { attribute: false },
    /** 'auto' (diverging when values have both signs), 'sequential' (viridis) or 'diverging'. */
    colormap: { type: String },
    /** Decimals printed inside cells (the table and the readout always show 4). */
    digits: { type: Number },
    /** Largest cell edge in px; cells shrink to fit `max-width`. */
    cellSize: { type: Number, attribute: 'cell-size' },
    maxWidth: { type: Number, attribute: 'max-width' },
    /** Cells react to clicks / Enter (emit attn-cell-toggle). */
    clickable: { type: Boolean },
    /** Draw a dashed line after this many rows and columns (e.g. a trained length). */
    mark: { type: Number },
    /** Fixed colour range (e.g. 0 and 1 for attention weights); absent: the values' own range. */
    vmin: { type: Number },
    vmax: { type: Number },
    /** Draw the colour legend (default true). */
    legend: { type: Boolean },
    /** Fit mode: the whole figure (caption, cells, legend) fits this box; cells grow to fill it. */
    fitWidth: { type: Number, attribute: 'fit-width' },
    fitHeight: { type: Number, attribute: 'fit-height' },
    /** Smallest font (px) for numbers in cells in fit mode; smaller cells drop decimals, then numbers. */
    minFont: { type: Number, attribute: 'min-font' },
    /** No export / numbers row: the value under the cursor replaces the caption (slides). */
    compact: { type: Boolean },
    _cursor: { state: true },
  };

  static styles = css`
    :host { display: inline-block; vertical-align: top; }
    figure { margin: 0; }
    figcaption { font-weight: 600; margin-bottom: 2px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    :host([compact]) figcaption { line-height: 1.25; }
    figcaption .value { font-weight: 400; font-variant-numeric: tabular-nums; }
    svg { display: block; touch-action: none; }
    svg:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
    .readout { min-height: 1.4em; font-variant-numeric: tabular-nums; font-size: 0.92em; color: #24292f; }
    .tools { display: flex; gap: 6px; align-items: center; font-size: 0.85em; }
    button { font: inherit; padding: 1px 8px; border: 1px solid #8c959f; border-radius: 6px; background: #f6f8fa; cursor: pointer; }
    button:focus-visible, summary:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
    details { font-size: 0.85em; }
    table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin-top: 4px; }
    th, td { border: 1px solid #d0d7de; padding: 1px 6px; text-align: right; }
    .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  `;

  constructor() {
    super();
    this.values = [];
    this.rows = 0;
    this.cols = 0;
    this.label = '';
    this.colormap = 'auto';
    this.digits = 2;
    this.cellSize = 44;
    this.maxWidth = 420;
    this.clickable = false;
    this.vmin = null;
    this.vmax = null;
    this.legend = true;
    this.fitWidth = 0;
    this.fitHeight = 0;
    this.minFont = 16;
    this.compact = false;
    this._cursor = null;
  }

  get #fit() { return this.fitWidth > 0 && this.fitHeight > 0; }

  /** Label font size (px): larger on slides. */
  get #labelSize() { return this.#fit ? Math.max(14, Math.min(20, this.minFont)) : 12; }

  #rowLabel(i) { return this.rowLabels?.[i] ?? String(i); }
  #colLabel(j) { return this.colLabels?.[j] ?? String(j); }

  #geometry() {
    const ls = this.#labelSize, cw = 0.6 * ls;  // label font and an average glyph width
    const rl = Math.max(1, ...Array.from({ length: this.rows }, (_, i) => String(this.#rowLabel(i)).length));
    const cl = Math.max(1, ...Array.from({ length: this.cols }, (_, j) => String(this.#colLabel(j)).length));
    const legendW = this.legend ? 16 + 6 + cw * 5 + 6 : 0;
    const rowLabelW = 8 + cw * Math.min(rl, 10);
    let cell;
    if (this.#fit) {
      const caption = this.label || this.compact ? ls * 1.25 + 4 : 0;
      const colLabelH = ls + 8;  // the first guess: horizontal column labels
      const w = this.fitWidth - rowLabelW - legendW - 4, h = this.fitHeight - caption - colLabelH - 4;
      cell = Math.max(4, Math.min(this.cellSize, Math.floor(w / Math.max(1, this.cols)), Math.floor(h / Math.max(1, this.rows))));
    } else {
      cell = Math.max(4, Math.min(this.cellSize, Math.floor((this.maxWidth - 8 * Math.min(rl, 10) - legendW) / Math.max(1, this.cols))));
    }
    const showLabels = cell >= 6;
    const left = showLabels ? rowLabelW : 4;
    const rotate = cl * cw + 4 > cell && cl > 2;  // the same fit test as the label spacing below
    const top = showLabels ? (rotate ? 8 + 0.55 * ls * Math.min(cl, 10) : ls + 8) : 4;
    const gridW = cell * this.cols, gridH = cell * this.rows;
    return { cell, left, top, rotate, showLabels, cl, ls, cw, legendX: left + gridW + 16, w: left + gridW + 2 + legendW, h: top + Math.max(gridH, this.legend ? 3 * ls : 0) + 2 + (this.legend ? ls / 2 : 0) };
  }

  /** Numbers in cells: the decimals and font size that fit a cell, or null when none fit. */
  #numberStyle(cell, v) {
    let longest = 1;
    for (let i = 0; i < Math.min(v.length, this.rows * this.cols); i++) longest = Math.max(longest, Math.abs(v[i]) >= 1e6 ? 12 : String(Math.trunc(Math.abs(v[i]))).length + (v[i] < 0 ? 1 : 0));
    const minFont = this.#fit ? this.minFont : 10;
    const maxFont = this.#fit ? Math.min(30, Math.round(cell * 0.36)) : cell >= 44 ? 12 : 10;
    if (!this.#fit && cell < 34) return null;
    for (let d = this.digits; d >= 0; d--) {
      const chars = longest + (d ? d + 1 : 0);
      const font = Math.min(maxFont, Math.floor((cell - 6) / (0.58 * chars)));
      if (font >= minFont) return { digits: d, font };
      if (!this.#fit) break;
      if (d <= Math.min(1, this.digits)) break;  // fewer than one decimal says too little
    }
    return null;
  }

  render() {
    const { rows, cols } = this;
    const v = this.values ?? [];
    if (!rows || !cols || v.length < rows * cols) return html`<figure><figcaption>${this.label}</figcaption></figure>`;
    const g = this.#geometry();
    const domain = Number.isFinite(this.vmin) && Number.isFinite(this.vmax) ? [this.vmin, this.vmax] : null;
    const scale = scaleFor(v, this.colormap, domain);
    const numbers = this.#numberStyle(g.cell, v);
    const cells = [];
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const x = v[i * cols + j], rgb = scale.color(x);
        const px = g.left + j * g.cell, py = g.top + i * g.cell;
        cells.push(svg`<rect x=${px} y=${py} width=${g.cell} height=${g.cell} fill=${rgbCss(rgb)} stroke="#fff" stroke-width=${g.cell > 10 ? 1 : 0}></rect>`);
        if (numbers)
          cells.push(svg`<text class="num" x=${px + g.cell / 2} y=${py + g.cell / 2} fill=${textOn(rgb)} font-size=${numbers.font} text-anchor="middle" dominant-baseline="central" font-family=${FONT}>${fmt(x, numbers.digits)}</text>`);
      }
    }
    const labels = [];
    if (g.showLabels) {
      // Small cells: label every n-th row/column so labels do not overlap.
      const rowEvery = Math.ceil((g.ls + 1) / g.cell), colEvery = g.rotate ? Math.ceil((g.ls + 1) / g.cell) : Math.ceil((g.cl * g.cw + 4) / g.cell);
      for (let i = 0; i < rows; i += rowEvery)
        labels.push(svg`<text x=${g.left - 5} y=${g.top + (i + 0.5) * g.cell} font-size=${g.ls} text-anchor="end" dominant-baseline="central" fill="#24292f" font-family=${FONT}>${String(this.#rowLabel(i)).slice(0, 10)}</text>`);
      for (let j = 0; j < cols; j += colEvery) {
        const cx = g.left + (j + 0.5) * g.cell;
        labels.push(g.rotate
          ? svg`<text transform=${`translate(${cx + 4},${g.top - 4}) rotate(-60)`} font-size=${g.ls} fill="#24292f" font-family=${FONT}>${String(this.#colLabel(j)).slice(0, 10)}</text>`
          : svg`<text x=${cx} y=${g.top - 6} font-size=${g.ls} text-anchor="middle" fill="#24292f" font-family=${FONT}>${String(this.#colLabel(j)).slice(0, 10)}</text>`);
      }
    }
    const c = this._cursor;
    const cursor = c ? svg`<rect x=${g.left + c.col * g.cell + 1} y=${g.top + c.row * g.cell + 1} width=${g.cell - 2} height=${g.cell - 2} fill="none" stroke="#d1242f" stroke-width="2.5"></rect>` : nothing;
    const m = this.mark;
    const mark = m > 0 && (m < rows || m < cols) ? svg`<g stroke="#d1242f" stroke-width="2" stroke-dasharray="5 3">
        ${m < rows ? svg`<line x1=${g.left} x2=${g.left + cols * g.cell} y1=${g.top + m * g.cell} y2=${g.top + m * g.cell}></line>` : nothing}
        ${m < cols ? svg`<line y1=${g.top} y2=${g.top + rows * g.cell} x1=${g.left + m * g.cell} x2=${g.left + m * g.cell}></line>` : nothing}</g>` : nothing;
    const readout = c ? `${this.#rowLabel(c.row)}, ${this.#colLabel(c.col)}: ${fmt(v[c.row * cols + c.col], 4)}` : '';
    const caption = this.compact
      ? html`<figcaption style=${`font-size:${g.ls}px;max-width:${g.w}px`}>${this.label}${readout ? html` <span class="value" aria-live="polite">· ${readout}</span>` : nothing}</figcaption>`
      : this.label ? html`<figcaption>${this.label}</figcaption>` : nothing;
    return html`<figure>
      ${caption}
      <svg xmlns="http://www.w3.org/2000/svg" width=${g.w} height=${g.h} viewBox="0 0 ${g.w} ${g.h}" role="img" tabindex="0"
        aria-label="${this.label} heatmap, ${rows} by ${cols}; arrow keys read the values"
        @pointermove=${this.#onPointer} @pointerleave=${() => { if (!this.matches(':focus-within')) this._cursor = null; }}
        @click=${this.#onClick} @keydown=${this.#onKey} @focus=${() => { this._cursor ??= { row: 0, col: 0 }; }}
        @blur=${() => { this._cursor = null; }}>
        <rect width=${g.w} height=${g.h} fill="#fff"></rect>${labels}${cells}${mark}${cursor}${this.legend ? this.#legend(g, scale) : nothing}
      </svg>
      ${this.compact ? nothing : html`<div class="readout" aria-live="polite">${readout}</div>
      <div class="tools">
        <button type="button" @click=${() => this.exportSvg()} aria-label="Export ${this.label} as SVG">SVG</button>
        <button type="button" @click=${() => this.exportPng()} aria-label="Export ${this.label} as PNG">PNG</button>
        <details><summary>numbers</summary>${this.#table()}</details>
      </div>`}
      ${this.compact ? html`<div class="sr-only">${this.#table()}</div>` : nothing}
    </figure>`;
  }

  /** The colour bar: what the colours stand for, from the scale's min to its max. */
  #legend(g, scale) {
    const h = Math.max(3 * g.ls, g.cell * this.rows), x = g.legendX, y = g.top;
    const stops = Array.from({ length: 11 }, (_, i) => i / 10);
    const at = (t) => scale.min + (scale.max - scale.min) * t;
    const label = (t) => {
      const value = at(t), a = Math.abs(scale.max - scale.min);
      return fmt(value, a >= 100 ? 0 : a >= 10 ? 1 : 2);
    };
    return svg`<g class="legend" aria-hidden="true">
      <defs><linearGradient id="legend-gradient" x1="0" y1="1" x2="0" y2="0">
        ${stops.map((t) => svg`<stop offset=${t} stop-color=${rgbCss(scale.color(at(t)))}></stop>`)}</linearGradient></defs>
      <rect x=${x} y=${y} width="14" height=${h} fill="url(#legend-gradient)" stroke="#8c959f" stroke-width="0.5"></rect>
      ${[0, 0.5, 1].map((t) => svg`<text x=${x + 20} y=${y + h * (1 - t)} font-size=${g.ls * 0.9} dominant-baseline="central" fill="#24292f" font-family=${FONT}>${label(t)}</text>`)}
    </g>`;
  }

  #table() {
    const { rows, cols, values: v } = this;
    return html`<table>
      <caption class="sr-only">${this.label}</caption>
      <thead><tr><th></th>${Array.from({ length: cols }, (_, j) => html`<th scope="col">${this.#colLabel(j)}</th>`)}</tr></thead>
      <tbody>${Array.from({ length: rows }, (_, i) => html`<tr><th scope="row">${this.#rowLabel(i)}</th>${Array.from({ length: cols }, (_, j) => html`<td>${fmt(v[i * cols + j], 4)}</td>`)}</tr>`)}</tbody>
    </table>`;
  }

  #cellAt(e) {
    const g = this.#geometry(), r = e.currentTarget.getBoundingClientRect();
    const col = Math.floor((e.clientX - r.left - g.left) / g.cell), row = Math.floor((e.clientY - r.top - g.top) / g.cell);
    return row >= 0 && row < this.rows && col >= 0 && col < this.cols ? { row, col } : null;
  }

  #onPointer(e) {
    const c = this.#cellAt(e);
    if (c) this._cursor = c;
  }

  #onClick(e) {
    const c = this.#cellAt(e);
    if (c && this.clickable) this.#toggle(c);
  }

  #toggle(c) {
    this.dispatchEvent(new CustomEvent('attn-cell-toggle', { detail: { ...c }, bubbles: true, composed: true }));
  }

  #onKey(e) {
    const c = this._cursor ?? { row: 0, col: 0 };
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (moves[e.key]) {
      e.preventDefault();
      const [dr, dc] = moves[e.key];
      this._cursor = { row: Math.min(this.rows - 1, Math.max(0, c.row + dr)), col: Math.min(this.cols - 1, Math.max(0, c.col + dc)) };
    } else if ((e.key === 'Enter' || e.key === ' ') && this.clickable) {
      e.preventDefault();
      this.#toggle(c);
    }
  }

  /** The map as a standalone SVG document (no cursor). */
  svgText() {
    const el = this.renderRoot.querySelector('svg').cloneNode(true);
    el.removeAttribute('tabindex');
    el.querySelectorAll('rect[fill="none"]').forEach((r) => r.remove());
    return new XMLSerializer().serializeToString(el);
  }

  #download(blob, ext) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `${(this.label || 'heatmap').replace(/[^\w.-]+/g, '_')}.${ext}`;
    this.renderRoot.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }

  exportSvg() {
    this.#download(new Blob([this.svgText()], { type: 'image/svg+xml' }), 'svg');
  }

  /** PNG at 2x (sharp on slides). */
  async exportPng() {
    const svgEl = this.renderRoot.querySelector('svg');
    const w = Number(svgEl.getAttribute('width')), h = Number(svgEl.getAttribute('height'));
    const url = URL.createObjectURL(new Blob([this.svgText()], { type: 'image/svg+xml' }));
    try {
      const img = new Image();
      img.src = url;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = w * 2;
      canvas.height = h * 2;
      const ctx = canvas.getContext('2d');
      ctx.scale(2, 2);
      ctx.drawImage(img, 0, 0, w, h);
      const blob = await new Promise((ok) => canvas.toBlob(ok, 'image/png'));
      this.#download(blob, 'png');
    } finally {
      URL.revokeObjectURL(url);
    }
  }
}

if (!customElements.get('attn-heatmap')) customElements.define('attn-heatmap', AttnHeatmap);
