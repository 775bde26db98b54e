// <attn-heatmap>: a labelled matrix as coloured cells, with
//   - the value under the pointer or the keyboard cursor (focus the map, move with the arrow keys),
//   - an accessible table of every number behind it (in a <details>, read by screen readers),
//   - export of the picture as SVG or PNG.
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
    _cursor: { state: true },
  };

  static styles = css`
    :host { display: inline-block; vertical-align: top; }
    figure { margin: 0; }
    figcaption { font-weight: 600; margin-bottom: 2px; }
    svg { display: block; touch-action: none; }
    svg:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
    .readout { min-height: 1.4em; font-variant-numeric: tabular-nums; font-size: 0.92em; color: #24292f; }
    .tools { display: flex; gap: 6px; align-items: center; font-size: 0.85em; }
    button { font: inherit; padding: 1px 8px; border: 1px solid #8c959f; border-radius: 6px; background: #f6f8fa; cursor: pointer; }
    button:focus-visible, summary:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
    details { font-size: 0.85em; }
    table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin-top: 4px; }
    th, td { border: 1px solid #d0d7de; padding: 1px 6px; text-align: right; }
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
    this._cursor = null;
  }

  #rowLabel(i) { return this.rowLabels?.[i] ?? String(i); }
  #colLabel(j) { return this.colLabels?.[j] ?? String(j); }

  #geometry() {
    const rl = Math.max(1, ...Array.from({ length: this.rows }, (_, i) => String(this.#rowLabel(i)).length));
    const cl = Math.max(1, ...Array.from({ length: this.cols }, (_, j) => String(this.#colLabel(j)).length));
    const cell = Math.max(4, Math.min(this.cellSize, Math.floor((this.maxWidth - 8 * Math.min(rl, 10)) / Math.max(1, this.cols))));
    const showLabels = cell >= 6;
    const left = showLabels ? 8 + 7.5 * Math.min(rl, 10) : 4;
    const rotate = cl * 7.5 + 4 > cell && cl > 2;  // the same fit test as the label spacing below
    const top = showLabels ? (rotate ? 8 + 6.5 * Math.min(cl, 10) : 20) : 4;
    return { cell, left, top, rotate, showLabels, cl, w: left + cell * this.cols + 2, h: top + cell * this.rows + 2 };
  }

  render() {
    const { rows, cols } = this;
    const v = this.values ?? [];
    if (!rows || !cols || v.length < rows * cols) return html`<figure><figcaption>${this.label}</figcaption></figure>`;
    const g = this.#geometry();
    const scale = scaleFor(v, this.colormap);
    const showNumbers = g.cell >= 34;
    const cells = [];
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const x = v[i * cols + j], rgb = scale.color(x);
        const px = g.left + j * g.cell, py = g.top + i * g.cell;
        cells.push(svg`<rect x=${px} y=${py} width=${g.cell} height=${g.cell} fill=${rgbCss(rgb)} stroke="#fff" stroke-width=${g.cell > 10 ? 1 : 0}></rect>`);
        if (showNumbers)
          cells.push(svg`<text x=${px + g.cell / 2} y=${py + g.cell / 2} fill=${textOn(rgb)} font-size=${g.cell >= 44 ? 12 : 10} text-anchor="middle" dominant-baseline="central" font-family=${FONT}>${fmt(x, this.digits)}</text>`);
      }
    }
    const labels = [];
    if (g.showLabels) {
      // Small cells: label every n-th row/column so labels do not overlap.
      const rowEvery = Math.ceil(13 / g.cell), colEvery = g.rotate ? Math.ceil(13 / g.cell) : Math.ceil((g.cl * 7.5 + 4) / g.cell);
      for (let i = 0; i < rows; i += rowEvery)
        labels.push(svg`<text x=${g.left - 5} y=${g.top + (i + 0.5) * g.cell} font-size="12" text-anchor="end" dominant-baseline="central" fill="#24292f" font-family=${FONT}>${String(this.#rowLabel(i)).slice(0, 10)}</text>`);
      for (let j = 0; j < cols; j += colEvery) {
        const cx = g.left + (j + 0.5) * g.cell;
        labels.push(g.rotate
          ? svg`<text transform=${`translate(${cx + 4},${g.top - 4}) rotate(-60)`} font-size="12" fill="#24292f" font-family=${FONT}>${String(this.#colLabel(j)).slice(0, 10)}</text>`
          : svg`<text x=${cx} y=${g.top - 6} font-size="12" text-anchor="middle" fill="#24292f" font-family=${FONT}>${String(this.#colLabel(j)).slice(0, 10)}</text>`);
      }
    }
    const c = this._cursor;
    const cursor = c ? svg`<rect x=${g.left + c.col * g.cell + 1} y=${g.top + c.row * g.cell + 1} width=${g.cell - 2} height=${g.cell - 2} fill="none" stroke="#d1242f" stroke-width="2.5"></rect>` : nothing;
    const m = this.mark;
    const mark = m > 0 && (m < rows || m < cols) ? svg`<g stroke="#d1242f" stroke-width="2" stroke-dasharray="5 3">
        ${m < rows ? svg`<line x1=${g.left} x2=${g.left + cols * g.cell} y1=${g.top + m * g.cell} y2=${g.top + m * g.cell}></line>` : nothing}
        ${m < cols ? svg`<line y1=${g.top} y2=${g.top + rows * g.cell} x1=${g.left + m * g.cell} x2=${g.left + m * g.cell}></line>` : nothing}</g>` : nothing;
    const readout = c ? `${this.#rowLabel(c.row)}, ${this.#colLabel(c.col)}: ${fmt(v[c.row * cols + c.col], 4)}` : '';
    return html`<figure>
      ${this.label ? html`<figcaption>${this.label}</figcaption>` : nothing}
      <svg xmlns="http://www.w3.org/2000/svg" width=${g.w} height=${g.h} viewBox="0 0 ${g.w} ${g.h}" role="img" tabindex="0"
        aria-label="${this.label} heatmap, ${rows} by ${cols}; arrow keys read the values"
        @pointermove=${this.#onPointer} @pointerleave=${() => { if (!this.matches(':focus-within')) this._cursor = null; }}
        @click=${this.#onClick} @keydown=${this.#onKey} @focus=${() => { this._cursor ??= { row: 0, col: 0 }; }}
        @blur=${() => { this._cursor = null; }}>
        <rect width=${g.w} height=${g.h} fill="#fff"></rect>${labels}${cells}${mark}${cursor}
      </svg>
      <div class="readout" aria-live="polite">${readout}</div>
      <div class="tools">
        <button type="button" @click=${() => this.exportSvg()} aria-label="Export ${this.label} as SVG">SVG</button>
        <button type="button" @click=${() => this.exportPng()} aria-label="Export ${this.label} as PNG">PNG</button>
        <details><summary>numbers</summary>${this.#table()}</details>
      </div>
    </figure>`;
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
