// <attn-heatmap>: a labelled matrix as coloured cells, with
//   - the value under the pointer or the keyboard cursor (focus the map, move with the arrow keys),
//   - an accessible table of every number behind it (in a <details>, read by screen readers; a large
//     one built when opened), and a description of the map that says what range its values span,
//   - export of the picture as SVG or PNG.
//   - a colour legend beside the cells (the range the colours stand for),
//   - fit mode (`fit-width`/`fit-height`, used on slides): cells grow to fill the box and numbers are
//     drawn as large as the cells allow (at least `min-font` px, else fewer decimals, else none).
// Events: `attn-cell-toggle` { row, col } when `clickable` and a cell is clicked or Enter/Space is
// pressed on the cursor cell (the step-by-step widget edits its mask this way).
// `attn-cell-hover` { row, col } (bubbles, composed) whenever the cell under the pointer or the
// keyboard cursor changes (col null: the row's label), detail null when the pointer leaves / focus goes.
// Linked highlighting (set by the widget around the map): `highlightRows`, `highlightCols`,
// `rowWeights`, and `readoutFor(row, col)` for a readout that shows the cell's arithmetic.
import { LitElement, html, svg, css, nothing } from 'lit';
import { node, placed } from './markup.js';
import { scaleFor, css as rgbCss, textOn } from './colormap.js';
import { BIG, fmt } from './format.js';
import { cutChars } from './tokens.js';
import { barLabels } from './ticks.js';

const FONT = 'system-ui, -apple-system, Segoe UI, Roboto, sans-serif';

const labelText = (labels, i) => String(labels?.[i] ?? i);
// The attribute names of each kind of element drawn as nodes (markup.js): one array per kind, so a
// render whose elements are of the same kinds as the last one's only writes the values that changed.
const CELL = ['x', 'y', 'width', 'height', 'fill', 'stroke', 'stroke-width'];
const NUM = ['class', 'x', 'y', 'fill', 'font-size', 'text-anchor', 'dominant-baseline', 'font-family'];
const ROW_LABEL = ['x', 'y', 'font-size', 'text-anchor', 'dominant-baseline', 'fill', 'font-family'];
const COL_LABEL_TURNED = ['transform', 'font-size', 'fill', 'font-family'];
const COL_LABEL = ['x', 'y', 'font-size', 'text-anchor', 'fill', 'font-family'];
const LEGEND = ['class', 'aria-hidden'], NONE = Object.freeze([]), GRADIENT = ['id', 'x1', 'y1', 'x2', 'y2'], STOP = ['offset', 'stop-color'];
const BAR = ['x', 'y', 'width', 'height', 'fill', 'stroke', 'stroke-width'];
const BAR_LABEL_BELOW = ['x', 'y', 'font-size', 'text-anchor', 'fill', 'font-family'];
const BAR_LABEL = ['x', 'y', 'font-size', 'dominant-baseline', 'fill', 'font-family'];
const SCOPE = ['scope'], SR_ONLY = ['class'];
// A closed numbers table of more cells than this is built when it is opened: closed, it is neither shown
// nor read out, yet building and updating its cells was much of drawing a large map. Smaller ones (up to
// 24 × 24) are built with the map: the e2e suites read their numbers without opening them.
const CLOSED_TABLE_CELLS = 576;
let rasterCanvas = null;
/** The first n (default: all) items of a and b are the same (NaN the same as NaN). */
const sameItems = (a, b, n = Math.max(a.length, b.length)) => {
  if (a.length < n || b.length < n) return false;
  for (let k = 0; k < n; k++) if (!Object.is(a[k], b[k])) return false;
  return true;
};
const GLYPH_W = 0.68;
// A table header never empty (a map drawn without labels still names its rows and columns to a
// screen reader: by position).
const headerText = (label, i) => (label === '' || label === undefined || label === null ? String(i) : label);  // a wide label glyph's width, in font sizes

/**
 * The layout of a heatmap figure: cell size, label and legend space, total size. With `fit`
 * ({ width, height }) the cell is the largest that keeps the whole figure (caption included) inside it;
 * `cell` forces a cell size (widgets use it to ask how big a map would be: heatmapSize()).
 */
export function heatmapGeometry({ rows, cols, rowLabels, colLabels, label = '', compact = false, legend = true,
  legendPos = 'right', noRowLabels = false, cellSize = 44, maxWidth = 420, minFont = 16, fit = null, cell: forced = 0, avail = 0 }) {
  const ls = fit || forced ? Math.max(14, Math.min(20, minFont)) : 12, cw = GLYPH_W * ls;  // label font, a wide glyph's width
  const rl = Math.max(1, ...Array.from({ length: rows }, (_, i) => Math.min(10, labelText(rowLabels, i).length)));
  const cl = Math.max(1, ...Array.from({ length: cols }, (_, j) => Math.min(10, labelText(colLabels, j).length)));
  const below = legend && legendPos === 'bottom';
  const legendW = legend && !below ? 30 + 3.2 * ls : 0;  // bar, gap and a label like "-0.54"
  const legendH = below ? 14 + ls + 10 : 0;  // a horizontal bar under the cells, labels under it
  const rowLabelW = noRowLabels ? 4 : 8 + cw * rl;
  const captionH = fit || forced ? (label || compact ? Math.ceil(ls * 1.25) + 2 : 0) : 0;
  // Column labels turn (−60°) when they are wider than a cell; then they need more height.
  const rotates = (c) => cl * cw + 4 > c && cl > 2;
  const topFor = (c, labels) => (labels ? (rotates(c) ? 8 + 0.6 * ls * cl + 0.5 * ls : ls + 8) : legend ? ls / 2 + 2 : 4);
  let cell;
  if (forced) cell = forced;
  else if (fit) {
    // Rotated column labels lean right: past the last column when no legend is beside the cells.
    const lean = below && cl > 2 ? 0.5 * cw * cl + 4 + ls / 2 : 0;
    const w = fit.width - rowLabelW - legendW - 4 - lean;
    const cellFor = (top) => Math.floor(Math.min(w / Math.max(1, cols), (fit.height - captionH - top - 4 - legendH - (legend && !below ? ls / 2 : 0)) / Math.max(1, rows)));
    cell = cellFor(topFor(1e9, true));
    if (rotates(cell)) cell = cellFor(topFor(0, true));
    cell = Math.max(4, Math.min(cellSize, cell));
  } else {
    cell = Math.max(4, Math.min(cellSize, Math.floor((maxWidth - 8 * rl - legendW) / Math.max(1, cols))));
    // Page layout: never wider than the column the widget has (a phone): the whole figure, labels and legend included.
    if (avail > 0) cell = Math.max(4, Math.min(cell, Math.floor((avail - (noRowLabels ? 4 : rowLabelW) - legendW - 2) / Math.max(1, cols))));
  }
  // Labels at any cell size: small cells label every n-th row/column (a 128 × 128 encoding keeps its axes).
  const showLabels = cell >= 2;
  const left = showLabels ? rowLabelW : 4;
  const rotate = rotates(cell);
  const top = topFor(cell, showLabels);
  const gridW = cell * cols, gridH = cell * rows;
  const barW = Math.max(gridW, 7 * ls);  // room for three labels under a horizontal bar
  const overhang = rotate && showLabels ? Math.max(0, 0.5 * cw * cl + 4 + ls / 2 - cell / 2) : 0;
  const w = below ? left + Math.max(gridW + 2 + overhang, barW) : left + gridW + 2 + Math.max(legendW, overhang);
  const h = below ? top + gridH + 2 + legendH : top + Math.max(gridH, legend ? 3 * ls : 0) + 2 + (legend ? ls / 2 : 0);
  // The colour bar's numbers: on a slide (fit mode) at the label font, as a number must be read there
  // (≥ 18 px glyph box at 1280×720; at 0.9 of it they were 17.4 px in Slidev, 16.8 in reveal.js).
  const lf = fit || forced ? ls : 0.9 * ls;
  return { cell, left, top, rotate, showLabels, noRowLabels, cl, ls, lf, cw, below, barW, legendX: below ? left : left + gridW + 16,
    legendY: top + gridH + 8, w, h, figureHeight: h + captionH };
}

/**
 * Fit mode: the largest font (px) for a number of `chars` characters in a `cell` px cell — at most 0.4 of
 * the cell high (a 1–3 character number: "0", "0.4") and 0.58 em per character across, 6 px of margin.
 */
export const numberFont = (cell, chars) => Math.min(30, Math.round(cell * 0.4), Math.floor((cell - 6) / (0.58 * chars)));

/** Width and height (px) of a heatmap figure drawn with square cells of `cell` px (fit mode type sizes). */
export function heatmapSize(opts, cell) {
  const g = heatmapGeometry({ ...opts, cell });
  return { width: Math.ceil(g.w), height: Math.ceil(g.figureHeight) };
}

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
    /** Cells as one raster image even when they are few and large (a map redrawn several times a
     *  second, e.g. while a model trains): white lines between them as the vector cells have. */
    raster: { type: Boolean },
    /** Draw the colour legend (default true). */
    legend: { type: Boolean },
    /** 'right' (a vertical bar beside the cells) or 'bottom' (a horizontal bar under them). */
    legendPos: { type: String, attribute: 'legend-pos' },
    /** No row labels (a map beside another with the same rows, e.g. K beside Q). */
    noRowLabels: { type: Boolean, attribute: 'no-row-labels' },
    /** Fit mode: the whole figure (caption, cells, legend) fits this box; cells grow to fill it. */
    fitWidth: { type: Number, attribute: 'fit-width' },
    fitHeight: { type: Number, attribute: 'fit-height' },
    /** Smallest font (px) for numbers in cells in fit mode; smaller cells drop decimals, then numbers. */
    minFont: { type: Number, attribute: 'min-font' },
    /** No export / numbers row: the value under the cursor replaces the caption (slides). */
    compact: { type: Boolean },
    /** Linked highlighting: rows / columns to outline (the other cells are dimmed). */
    highlightRows: { attribute: false },
    highlightCols: { attribute: false },
    /** Per-row emphasis 0–1 (e.g. the weights A_ij mixing the rows of V): outline width and dimming follow it. */
    rowWeights: { attribute: false },
    /** (row, col, { compact }) → text: replaces the "row, col: value" readout (col is null on a row label); absent or empty: the default. */
    readoutFor: { attribute: false },
    missingText: { attribute: false },  // what a NaN cell reads in the readout and the numbers table ('': the number, NaN)
    _cursor: { state: true },
    _screenScale: { state: true },
    _avail: { state: true },
    _numbersOpen: { state: true },
  };

  static styles = css`
    :host { display: inline-block; vertical-align: top; max-width: 100%; }
    figure { margin: 0; }
    figcaption { font-weight: 600; margin-bottom: 2px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    :host([compact]) figcaption { line-height: 1.25; }
    figcaption .value { font-weight: 400; font-variant-numeric: tabular-nums; }
    /* A vertical swipe that starts on a map scrolls the page (a sideways drag reads the cells). The
       svg never overflows its column: when even the smallest cells are too wide, it scales down. */
    svg { display: block; max-width: 100%; height: auto; touch-action: pan-y pinch-zoom; }
    svg:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
    .readout { min-height: 1.4em; font-variant-numeric: tabular-nums; font-size: 0.92em; color: #24292f; }
    .tools { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; font-size: 0.85em; }
    .tablebox { max-width: 100%; overflow-x: auto; }
    button { font: inherit; padding: 1px 8px; border: 1px solid #8c959f; border-radius: 6px; background: #f6f8fa; cursor: pointer; }
    /* Touch targets at least 24 × 24 CSS px (WCAG 2.2 target size): the export buttons and the "numbers" toggle. */
    button { min-height: 24px; min-width: 24px; box-sizing: border-box; }
    summary { line-height: 24px; cursor: pointer; }
    button:focus-visible, summary:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
    details { font-size: 0.85em; min-width: 0; max-width: 100%; }
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
    this.raster = false;
    this.legendPos = 'right';
    this.noRowLabels = false;
    this.fitWidth = 0;
    this.fitHeight = 0;
    this.minFont = 16;
    this.compact = false;
    this.highlightRows = null;
    this.highlightCols = null;
    this.rowWeights = null;
    this.readoutFor = null;
    this.missingText = '';
    this._cursor = null;
    this._screenScale = 1;
  }

  get #fit() { return this.fitWidth > 0 && this.fitHeight > 0; }

  // Page layout: the width of the widget's column (its .wrap), watched, so a map on a phone takes at
  // most that width (cells shrink) instead of widening the page.
  connectedCallback() {
    super.connectedCallback();
    const column = this.closest('.wrap');
    if (!column || typeof ResizeObserver === 'undefined') return;
    // The widget around us has measured the same column (AttnWidget's page width): start from it, so
    // the first render has the right cells and the observer's first report changes nothing (was: every
    // map drawn twice as a page loads).
    const known = this.getRootNode()?.host?._pageWidth;
    if (this._avail === undefined && known > 0) this._avail = known;
    this._columnObserver = new ResizeObserver(() => {
      const cs = getComputedStyle(column);
      const w = Math.floor(column.clientWidth - (parseFloat(cs.paddingLeft) || 0) - (parseFloat(cs.paddingRight) || 0));
      if (w > 0 && Math.abs(w - (this._avail ?? 0)) >= 1) this._avail = w;
    });
    this._columnObserver.observe(column);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this._columnObserver?.disconnect();
    this._columnObserver = null;
  }

  #rowLabel(i) { return labelText(this.rowLabels, i); }
  #colLabel(j) { return labelText(this.colLabels, j); }

  #geometry() {
    return this.#widened(this.#baseGeometry());
  }

  // A colour bar's labels longer than the room heatmapGeometry leaves: "-1.0e24" beside the cells widens
  // the figure. Three labels like "-0.77 0.00 0.77" under a small map's bar (they ran together on a slide)
  // lengthen the bar into the figure's empty room only — under the row labels, then to its right edge —
  // never widening it: a wider figure takes room from its neighbours on a slide and shrinks their numbers.
  #widened(g) {
    const extra = this.legend ? this._legendExtra ?? 0 : 0;
    if (extra > 0 && g.below) {
      const left = Math.min(extra, Math.max(0, g.legendX - 4));
      g.legendX -= left;
      g.barW += Math.min(extra, left + Math.max(0, g.w - 2 - (g.legendX + left + g.barW)));
    } else if (extra > 0) g.w += extra;
    return g;
  }

  /** Extra width (px) the colour bar's labels need beyond geometry `g`'s: beside the bar the longest, under it all three side by side. */
  #legendOverflow(g, scale) {
    if (!this.legend) return 0;
    const lengths = [0, 0.5, 1].map((t) => this.#legendLabel(scale, t).length);
    if (g.below) return Math.max(0, Math.ceil((lengths[0] + lengths[1] + lengths[2]) * 0.6 * g.lf + g.ls - g.barW));
    const need = g.legendX + 20 + Math.max(...lengths) * 0.6 * g.lf + 2;
    return Math.max(0, Math.ceil(need - g.w));
  }

  #baseGeometry() {
    return heatmapGeometry({
      rows: this.rows, cols: this.cols, rowLabels: this.rowLabels, colLabels: this.colLabels, label: this.label,
      compact: this.compact, legend: this.legend, legendPos: this.legendPos, noRowLabels: this.noRowLabels, cellSize: this.cellSize, maxWidth: this.maxWidth, minFont: this.minFont,
      fit: this.#fit ? { width: this.fitWidth, height: this.fitHeight } : null, avail: this.#fit ? 0 : this._avail ?? 0,
    });
  }

  /** Numbers in cells: the decimals and font size that fit a cell, or null when none fit. */
  #numberStyle(cell, v) {
    let longest = 1;
    // Characters before the decimals: "−∞" is 2, a big number's exponent form ("-1e24" + decimals) its own length.
    for (let i = 0; i < Math.min(v.length, this.rows * this.cols); i++) {
      const x = v[i], a = Math.abs(x);
      longest = Math.max(longest, !Number.isFinite(x) ? 2 : a >= BIG ? fmt(x, 0).length : String(Math.trunc(a)).length + (x < 0 ? 1 : 0));
    }
    // On a slide the deck scales the canvas: numbers must reach an 18 px glyph box (≈ 1.16 em) on screen.
    const minFont = this.#fit ? Math.min(26, Math.max(this.minFont, Math.ceil(18.5 / (1.16 * this._screenScale)))) : 10;
    // Page layout: 2 decimals from 34 px cells, 1 decimal down to 28 px (a block's 30 px cells show numbers).
    if (!this.#fit && cell < 28) return null;
    for (let d = this.digits; d >= 0; d--) {
      const chars = longest + (d ? d + 1 : 0);
      const font = this.#fit ? numberFont(cell, chars) : Math.min(cell >= 44 ? 12 : 10, Math.floor((cell - 6) / (0.58 * chars)));
      if (font >= minFont) return { digits: d, font };
      if (d <= Math.min(1, this.digits)) break;  // fewer than one decimal says too little
    }
    return null;
  }

  render() {
    const { rows, cols } = this;
    const v = this.values ?? [];
    if (!rows || !cols || v.length < rows * cols) return html`<figure><figcaption>${this.label}</figcaption></figure>`;
    const domain = Number.isFinite(this.vmin) && Number.isFinite(this.vmax) ? [this.vmin, this.vmax] : null;
    const scale = scaleFor(v, this.colormap, domain);
    this._legendExtra = 0;
    const g = this.#geometry();
    this._legendExtra = this.#legendOverflow(g, scale);
    this.#widened(g);
    const numbers = this.#numberStyle(g.cell, v);
    const veil = this.#veil();  // linked highlighting: cells outside it fade towards white (their numbers stay readable)
    let cells = [];
    // Many small cells without numbers (a 128 × 128 encoding): one raster image instead of thousands
    // of SVG rects, so a repaint stays short. Same colours; labels, legend and cursor stay vectors.
    const raster = !numbers && (this.raster || (g.cell <= 10 && rows * cols > 1024)) && typeof document !== 'undefined';
    if (raster) cells.push(svg`<image class="cells" x=${g.left} y=${g.top} width=${cols * g.cell} height=${rows * g.cell} preserveAspectRatio="none"
      image-rendering="optimizeSpeed" style="image-rendering: pixelated" href=${this.#raster(v, scale, veil)}></image>`);
    if (raster && g.cell > 10) {  // the vector cells' 1 px white borders, as one path
      const x1 = g.left + cols * g.cell, y1 = g.top + rows * g.cell;
      const d = [...Array.from({ length: rows + 1 }, (_, i) => `M${g.left} ${g.top + i * g.cell}H${x1}`), ...Array.from({ length: cols + 1 }, (_, j) => `M${g.left + j * g.cell} ${g.top}V${y1}`)].join('');
      cells.push(svg`<path class="cell-lines" d=${d} stroke="#fff" stroke-width="1" fill="none"></path>`);
    }
    // The vector cells as nodes (markup.js): made when the map's shape is new, else only the colours and
    // numbers that changed are written (a Lit template instance per rect and
    // per number, then a new template per update, were most of a map's update).
    if (!raster) {
      const list = [], size = String(g.cell), edge = g.cell > 10 ? '1' : '0', font = numbers ? String(numbers.font) : '';
      for (let i = 0; i < rows; i++) {
        for (let j = 0; j < cols; j++) {
          const x = v[i * cols + j], a = veil?.(i, j) ?? 0, rgb = a ? scale.color(x).map((k) => Math.round(k + (255 - k) * a)) : scale.color(x);
          const px = g.left + j * g.cell, py = g.top + i * g.cell;
          list.push(node('rect', CELL, [String(px), String(py), size, size, rgbCss(rgb), '#fff', edge]));
          if (numbers)
            list.push(node('text', NUM, ['num', String(px + g.cell / 2), String(py + g.cell / 2), textOn(rgb), font, 'middle', 'central', FONT], fmt(x, numbers.digits)));
        }
      }
      cells = placed(list);
    }
    let labels = nothing;
    if (g.showLabels) {
      // Small cells: a label per row/column in a smaller font while it stays ≥ 14 px on screen (every
      // token matters: labelling every other one of a repeated sequence halves its period to the eye),
      // else every n-th row/column so labels do not overlap.
      const least = Math.max(10, Math.ceil(14 / this._screenScale));
      // What one column label needs along the row at `font`: its height when turned, else its width.
      const span = (font) => (g.rotate ? font + 1 : g.cl * GLYPH_W * font + 4);
      const shrunk = Math.min(g.ls, g.cell - 1);
      const rowFont = shrunk >= least ? shrunk : g.ls;
      let colFont = g.ls;
      if (span(colFont) > g.cell) for (let f = Math.floor(g.ls) - 1; f >= least; f--) if (span(f) <= g.cell) { colFont = f; break; }
      const rowEvery = Math.ceil((rowFont + 1) / g.cell);
      const colEvery = Math.ceil(span(colFont) / g.cell);
      // As nodes, like the cells (a label is text: a token may be anything typed).
      const list = [];
      for (let i = 0; i < rows && !g.noRowLabels; i += rowEvery)
        list.push(node('text', ROW_LABEL, [String(g.left - 5), String(g.top + (i + 0.5) * g.cell), String(rowFont), 'end', 'central', '#24292f', FONT], cutChars(this.#rowLabel(i), 10)));
      for (let j = 0; j < cols; j += colEvery) {
        const cx = g.left + (j + 0.5) * g.cell, text = cutChars(this.#colLabel(j), 10);
        list.push(g.rotate
          ? node('text', COL_LABEL_TURNED, [`translate(${cx + 4},${g.top - 4}) rotate(-60)`, String(colFont), '#24292f', FONT], text)
          : node('text', COL_LABEL, [String(cx), String(g.top - 6), String(colFont), 'middle', '#24292f', FONT], text));
      }
      labels = placed(list);
    }
    const c = this._cursor;
    const cursor = !c ? nothing : c.col === null
      ? svg`<rect x=${g.left + 1} y=${g.top + c.row * g.cell + 1} width=${cols * g.cell - 2} height=${g.cell - 2} fill="none" stroke="#d1242f" stroke-width="2.5"></rect>`
      : svg`<rect x=${g.left + c.col * g.cell + 1} y=${g.top + c.row * g.cell + 1} width=${g.cell - 2} height=${g.cell - 2} fill="none" stroke="#d1242f" stroke-width="2.5"></rect>`;
    const m = this.mark;
    const mark = m > 0 && (m < rows || m < cols) ? svg`<g stroke="#d1242f" stroke-width="2" stroke-dasharray="5 3">
        ${m < rows ? svg`<line x1=${g.left} x2=${g.left + cols * g.cell} y1=${g.top + m * g.cell} y2=${g.top + m * g.cell}></line>` : nothing}
        ${m < cols ? svg`<line y1=${g.top} y2=${g.top + rows * g.cell} x1=${g.left + m * g.cell} x2=${g.left + m * g.cell}></line>` : nothing}</g>` : nothing;
    const custom = c ? this.readoutFor?.(c.row, c.col, { compact: this.compact }) : '';
    const readout = !c ? '' : custom || (c.col === null
      ? `${this.#rowLabel(c.row)}: ${Array.from({ length: cols }, (_, j) => fmt(v[c.row * cols + j], 4)).join(' ')}`
      : `${this.#rowLabel(c.row)}, ${this.#colLabel(c.col)}: ${fmt(v[c.row * cols + c.col], 4)}`);
    // Compact (slides): an arithmetic readout takes the caption's line alone, its type shrunk to fit.
    // A large closed numbers table is not built: the map itself says what range its values span.
    const range = this.compact ? '' : this.#range(v);
    const capFont = custom ? Math.max(12, Math.min(g.ls, Math.floor(g.w / (0.56 * readout.length)))) : g.ls;
    const caption = this.compact
      ? html`<figcaption style=${`font-size:${g.ls}px;line-height:${Math.ceil(g.ls * 1.25)}px;margin-bottom:2px;max-width:${g.w}px`} title=${custom || nothing}>${custom ? nothing : this.label}${readout
        ? html`${custom ? nothing : ' '}<span class="value" aria-live="polite" style=${custom ? `font-size:${capFont}px` : nothing}>${custom ? '' : '· '}${readout}</span>` : nothing}</figcaption>`
      : this.label ? html`<figcaption>${this.label}</figcaption>` : nothing;
    return html`<figure>
      ${caption}
      <svg xmlns="http://www.w3.org/2000/svg" width=${g.w} height=${g.h} viewBox="0 0 ${g.w} ${g.h}" role="img" tabindex="0"
        aria-label="${this.label} heatmap, ${rows} by ${cols}; arrow keys read the values" aria-describedby=${range ? 'range' : nothing}
        @pointermove=${this.#onPointer} @pointerleave=${() => { if (!this.matches(':focus-within')) this._cursor = null; }}
        @click=${this.#onClick} @keydown=${this.#onKey} @focus=${() => { this._cursor ??= { row: 0, col: 0 }; }}
        @blur=${() => { this._cursor = null; }}>
        <rect width=${g.w} height=${g.h} fill="#fff"></rect>${labels}${cells}${this.#highlights(g)}${mark}${cursor}${this.legend ? this.#legend(g, scale) : nothing}
      </svg>
      ${range ? html`<span id="range" hidden>${range}</span>` : nothing}
      ${this.compact ? nothing : html`<div class="readout" aria-live="polite">${readout}</div>
      <div class="tools">
        <button type="button" @click=${() => this.exportSvg()} aria-label="Export ${this.label} as SVG">SVG</button>
        <button type="button" @click=${() => this.exportPng()} aria-label="Export ${this.label} as PNG">PNG</button>
        <details ?open=${this._numbersOpen} @toggle=${(e) => { this._numbersOpen = e.target.open; }}><summary>numbers</summary><div class="tablebox"
          tabindex=${this._numbersOpen ? '0' : nothing} role="region" aria-label="${this.label} numbers">${this._numbersOpen || rows * cols <= CLOSED_TABLE_CELLS ? this.#table() : nothing}</div></details>
      </div>`}
      ${this.compact ? html`<div class="sr-only">${this.#table()}</div>` : nothing}
    </figure>`;
  }

  /** "values from a to b" (4 decimals, as the table shows them), over the finite values; '' when none is. */
  #range(v) {
    let lo = Infinity, hi = -Infinity;
    for (let k = 0; k < this.rows * this.cols; k++) {
      const x = v[k];
      if (x < lo && x > -Infinity) lo = x;
      if (x > hi && x < Infinity) hi = x;
    }
    return lo <= hi ? `values from ${fmt(lo, 4)} to ${fmt(hi, 4)}` : '';
  }

  /** The highlighted rows, columns and row weights that are valid for this map's size. */
  #hl() {
    const { rows, cols } = this;
    const ok = (n) => (k) => Number.isInteger(k) && k >= 0 && k < n;
    const hr = (this.highlightRows ?? []).filter(ok(rows)), hc = (this.highlightCols ?? []).filter(ok(cols));
    const rw = this.rowWeights?.length >= rows ? this.rowWeights : null;
    return { hr, hc, rw, w: (i) => Math.max(0, Math.min(1, Number(rw[i]) || 0)) };
  }

  /** (i, j) → how far cell (i, j) fades to white (0: not at all), or null when nothing is highlighted. */
  #veil() {
    const { hr, hc, rw, w } = this.#hl();
    if (!hr.length && !hc.length && !rw) return null;
    return (i, j) => (hr.includes(i) || hc.includes(j) ? 0 : rw ? 0.7 * (1 - w(i)) : 0.6);
  }

  /**
   * Linked highlighting: highlighted rows / columns outlined, weighted rows outlined with a width and
   * opacity that follow the weight (the other cells fade: #veil). Class `hl`: left out of exports.
   */
  #highlights(g) {
    const { rows, cols } = this;
    const { hr, hc, rw, w } = this.#hl();
    if (!hr.length && !hc.length && !rw) return nothing;
    // A dark line with a white one inside it: visible on every colour of both scales.
    const box = (cls, x, y, width, height, data, sw = 3, opacity = 1) => svg`<rect class=${`hl ${cls}`} data-index=${data} x=${x} y=${y} width=${width} height=${height}
      fill="none" stroke="#1f2328" stroke-width=${sw} stroke-opacity=${opacity}></rect><rect class="hl" x=${x + sw / 2 + 0.5} y=${y + sw / 2 + 0.5}
      width=${Math.max(0, width - sw - 1)} height=${Math.max(0, height - sw - 1)} fill="none" stroke="#fff" stroke-width="1" stroke-opacity=${opacity}></rect>`;
    const lines = [];
    if (rw) for (let i = 0; i < rows; i++) if (w(i) > 0.005) lines.push(box('hl-weight', g.left + 1, g.top + i * g.cell + 1, cols * g.cell - 2, g.cell - 2, i, 1 + 4 * w(i), 0.35 + 0.65 * w(i)));
    for (const i of hr) lines.push(box('hl-row', g.left + 1, g.top + i * g.cell + 1, cols * g.cell - 2, g.cell - 2, i));
    for (const j of hc) lines.push(box('hl-col', g.left + j * g.cell + 1, g.top + 1, g.cell - 2, rows * g.cell - 2, j));
    return svg`<g class="highlights" aria-hidden="true">${lines}</g>`;
  }

  /** The cells as a PNG data URL, one pixel per cell (drawn scaled up, pixelated). The last one is
   *  kept: a render for another reason (a caption, the cursor) does not encode the same picture again. */
  #raster(v, scale, veil) {
    const { rows, cols } = this, c = this._rasterLast;
    // A checksum as well: a values array changed in place gets a new picture.
    let s1 = 0, s2 = 0;
    for (let i = 0; i < rows * cols; i++) { s1 += v[i]; s2 += v[i] * ((i % 97) + 1); }
    const key = `${rows}|${cols}|${this.colormap}|${scale.min}|${scale.max}|${s1}|${s2}`;
    if (!veil && c && c.v === v && c.key === key) return c.url;
    // One canvas for every map's picture (drawn and encoded at once, nothing kept in it): a new canvas
    // and its 2D context per picture cost more than drawing it.
    const canvas = (rasterCanvas ??= document.createElement('canvas'));
    canvas.width = cols;  // (clears it)
    canvas.height = rows;
    const ctx = canvas.getContext('2d');
    if (!ctx) return '';
    const img = ctx.createImageData(cols, rows), d = img.data;
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const o = 4 * (i * cols + j), c = scale.color(v[i * cols + j]), a = veil?.(i, j) ?? 0;
        d[o] = Math.round(c[0] + (255 - c[0]) * a);
        d[o + 1] = Math.round(c[1] + (255 - c[1]) * a);
        d[o + 2] = Math.round(c[2] + (255 - c[2]) * a);
        d[o + 3] = 255;
      }
    }
    ctx.putImageData(img, 0, 0);
    const url = canvas.toDataURL('image/png');
    this._rasterLast = veil ? null : { v, key, url };
    return url;
  }

  /** The colour bar's label at t ∈ [0, 1] of the scale (~1e24: "1.0e24", never a cut "1.0000…"). */
  #legendLabel(scale, t) {
    const value = scale.min + (scale.max - scale.min) * t, a = Math.abs(scale.max - scale.min);
    return fmt(value, a >= BIG ? 1 : a >= 100 ? 0 : a >= 10 ? 1 : 2);
  }

  /** The colour bar: what the colours stand for, from the scale's min to its max. */
  #legend(g, scale) {
    const stops = Array.from({ length: 11 }, (_, i) => i / 10);
    const at = (t) => scale.min + (scale.max - scale.min) * t;
    const label = (t) => this.#legendLabel(scale, t);
    const stopNodes = stops.map((t) => node('stop', STOP, [String(t), rgbCss(scale.color(at(t)))]));
    // As nodes, like the cells: a new scale writes its colours and numbers only.
    const legend = (id, gradient, bar, texts) => placed([node('g', LEGEND, ['legend', 'true'], [
      node('defs', NONE, NONE, [node('linearGradient', GRADIENT, [id, ...gradient], stopNodes)]), node('rect', BAR, bar), ...texts])]);
    if (g.below) {
      const x = g.legendX, y = g.legendY, w = g.barW;
      // Under a narrow bar the labels lose their trailing zeros, then the middle one (barLabels).
      const texts = barLabels([0, 0.5, 1].map(label), w, g.lf);
      return legend('legend-gradient-h', ['0', '0', '1', '0'], [String(x), String(y), String(w), '12', 'url(#legend-gradient-h)', '#8c959f', '0.5'],
        [0, 0.5, 1].flatMap((t, i) => texts[i] === null ? [] : [node('text', BAR_LABEL_BELOW, [String(x + w * t), String(y + 14 + g.ls * 0.8), String(g.lf), t === 0 ? 'start' : t === 1 ? 'end' : 'middle', '#24292f', FONT], texts[i])]));
    }
    const h = Math.max(3 * g.ls, g.cell * this.rows), x = g.legendX, y = g.top;
    return legend('legend-gradient', ['0', '1', '0', '0'], [String(x), String(y), '14', String(h), 'url(#legend-gradient)', '#8c959f', '0.5'],
      [0, 0.5, 1].map((t) => node('text', BAR_LABEL, [String(x + 20), String(y + h * (1 - t)), String(g.lf), 'central', '#24292f', FONT], label(t))));
  }

  updated(changed) {
    if (changed.has('_cursor')) {
      const a = changed.get('_cursor') ?? null, b = this._cursor;
      if ((a?.row ?? -1) !== (b?.row ?? -1) || (a?.col ?? -1) !== (b?.col ?? -1))
        this.dispatchEvent(new CustomEvent('attn-cell-hover', { detail: b ? { row: b.row, col: b.col } : null, bubbles: true, composed: true }));
    }
    if (!this.#fit) return;
    // Screen pixels per CSS pixel (Slidev and reveal.js scale the slide): re-checked on each render
    // and when the deck rescales (the ResizeObserver of the widget around us re-renders us).
    const el = this.renderRoot.querySelector('svg');
    const s = el && el.getBoundingClientRect().width / (Number(el.getAttribute('width')) || 1);
    if (s > 0.05 && Math.abs(s - this._screenScale) > 0.02) this._screenScale = s;
  }

  #table() {
    const { rows, cols, values: v } = this;
    // A render for the cursor or a highlight: the same numbers and labels, the same table (not 1536
    // numbers formatted again to find nothing changed). Compared by content: an array may be changed in place.
    const m = this._tableMemo, labels = [...Array.from({ length: rows }, (_, i) => this.rowLabels?.[i]), ...Array.from({ length: cols }, (_, j) => this.colLabels?.[j])];
    if (m && m.rows === rows && m.cols === cols && m.label === this.label && m.missing === this.missingText
      && sameItems(m.labels, labels) && sameItems(m.values, v, rows * cols)) return m.result;
    // The header row and the body as nodes (markup.js): made for a new shape, not a Lit template
    // instance per cell (a 48 × 32 map's table was most of its first draw); new numbers are written
    // into the cells already there.
    const head = [node('th', SCOPE, ['col'], [node('span', SR_ONLY, ['sr-only'], 'row \\ column')])], body = [];
    for (let j = 0; j < cols; j++) head.push(node('th', SCOPE, ['col'], headerText(this.#colLabel(j), j)));
    for (let i = 0; i < rows; i++) {
      const row = [node('th', SCOPE, ['row'], headerText(this.#rowLabel(i), i))];
      for (let j = 0; j < cols; j++) row.push(node('td', NONE, NONE, this.missingText && Number.isNaN(v[i * cols + j]) ? this.missingText : fmt(v[i * cols + j], 4)));
      body.push(node('tr', NONE, NONE, row));
    }
    const result = html`<table>
      <caption class="sr-only">${this.label}</caption>
      <thead>${placed([node('tr', NONE, NONE, head)])}</thead>
      <tbody>${placed(body)}</tbody>
    </table>`;
    this._tableMemo = { rows, cols, label: this.label, missing: this.missingText, labels, values: Array.from({ length: rows * cols }, (_, k) => v[k]), result };
    return result;
  }

  #cellAt(e) {
    const g = this.#geometry(), r = e.currentTarget.getBoundingClientRect();
    const s = r.width > 0 ? g.w / r.width : 1;  // the svg may be drawn smaller than its size (max-width: 100%)
    const col = Math.floor(((e.clientX - r.left) * s - g.left) / g.cell), row = Math.floor(((e.clientY - r.top) * s - g.top) / g.cell);
    if (row >= 0 && row < this.rows && col < 0 && g.showLabels && !g.noRowLabels) return { row, col: null };  // the row's label
    return row >= 0 && row < this.rows && col >= 0 && col < this.cols ? { row, col } : null;
  }

  #onPointer(e) {
    const c = this.#cellAt(e);
    if (c) this._cursor = c;
  }

  #onClick(e) {
    const c = this.#cellAt(e);
    if (c && c.col !== null && this.clickable) this.#toggle(c);
  }

  #toggle(c) {
    this.dispatchEvent(new CustomEvent('attn-cell-toggle', { detail: { ...c }, bubbles: true, composed: true }));
  }

  #onKey(e) {
    const c0 = this._cursor ?? { row: 0, col: 0 }, c = { row: c0.row, col: c0.col ?? 0 };
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
    el.removeAttribute('aria-describedby');  // its text is not in the file
    el.querySelectorAll('rect[fill="none"], .highlights').forEach((r) => r.remove());
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
