// <attn-matrix-editor>: an editable matrix. Type a number in a cell, drag a cell up/down (or
// left/right; by mouse, pen or finger) to change it. Cells are coloured with the same scale as the
// heatmaps.
// Keyboard: the matrix is one Tab stop (a grid with a roving tabindex, like a heatmap's cursor):
// arrow keys move between cells, Home/End to the row's ends (Ctrl: the matrix's), typing replaces the
// cell's number, Enter or F2 edits it in place (←/→ then move the caret; Enter keeps, Escape undoes),
// Alt+↑/↓ adds/subtracts the step (Shift ×10).
// Event: `attn-matrix-change` { values } (a new array) on every valid edit.
import { LitElement, html, css } from 'lit';
import { scaleFor, css as rgbCss, textOn } from './colormap.js';
import { cellProblem } from './field.js';
import { CELL_LIMIT } from './hash.js';

export class AttnMatrixEditor extends LitElement {
  static properties = {
    /** Row-major numbers, [rows·cols]. */
    values: { attribute: false },
    rows: { type: Number },
    cols: { type: Number },
    label: { type: String },
    rowLabels: { attribute: false },
    colLabels: { attribute: false },
    /** Change per arrow key / per 8 px of drag. */
    step: { type: Number },
    /** The refused cell's reason, shown under the table: { index, text } or null. */
    _problem: { state: true },
    _active: { state: true },
  };

  static styles = css`
    :host { display: inline-block; vertical-align: top; }
    .cap { font-weight: 600; margin-bottom: 2px; }
    table { border-collapse: collapse; }
    th { font-weight: normal; font-size: 12px; color: #24292f; padding: 0 4px; }
    th[scope='row'] { text-align: right; }
    /* touch-action none on the cells only: a finger dragging a cell changes its number (the page scrolls
       from anywhere else, labels included). */
    input { width: var(--cell-w, 3.6em); font: inherit; font-size: 14px; text-align: right; font-variant-numeric: tabular-nums; border: 1px solid #fff;
      padding: 4px 3px; border-radius: 3px; cursor: ns-resize; touch-action: none; }
    .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
    input:focus { cursor: text; }
    input:focus-visible { outline: 3px solid #0969da; outline-offset: 0; }
    input[aria-invalid='true'] { outline: 2px solid #cf222e; }
    .cell-msg { margin: 2px 0 0; font-size: 12px; color: #a40e26; background: #ffebe9; border: 1px solid #cf222e; border-radius: 4px; padding: 1px 6px; max-width: 22em; }
  `;

  constructor() {
    super();
    this.values = [];
    this.rows = 0;
    this.cols = 0;
    this.label = '';
    this.step = 0.1;
    this._drag = null;
    this._problem = null;
    this._active = 0;      // the cell that holds the matrix's one Tab stop
    this._editing = false;  // Enter/F2 or typing: arrows ←/→ move the caret instead of the cell
  }

  #emit(values) {
    this.values = values;
    this.dispatchEvent(new CustomEvent('attn-matrix-change', { detail: { values }, bubbles: true, composed: true }));
  }

  #set(index, x) {
    const values = Array.from(this.values);
    // A drag or Alt+Shift step stops at the cell limit (a link restores no more than that either).
    values[index] = Math.round(Math.max(-CELL_LIMIT, Math.min(CELL_LIMIT, x)) * 1000) / 1000;
    this.#emit(values);
  }

  #onInput(e, index) {
    const text = e.target.value.trim().replace('−', '-');
    // The reason a value is refused, beside the red outline: in the cell's title and a message under
    // the table that the cell names (aria-describedby). The last good number stays in use.
    const problem = cellProblem(text);
    e.target.setAttribute('aria-invalid', String(!!problem));
    if (problem) {
      const why = `${problem}; still using ${this.values[index]}`;
      e.target.title = why;
      e.target.setAttribute('aria-describedby', 'cell-msg');
      this._problem = { index, text: why };
      return;
    }
    e.target.removeAttribute('title');
    e.target.removeAttribute('aria-describedby');
    if (this._problem?.index === index) this._problem = null;
    this.#set(index, Number(text));
  }

  /** Moves the matrix's Tab stop (and focus) to cell `k`. */
  #focusCell(k) {
    const n = this.rows * this.cols;
    if (!n) return;
    this._active = Math.max(0, Math.min(n - 1, k));
    this._editing = false;
    const inputs = this.renderRoot.querySelectorAll('input');
    inputs.forEach((el, i) => { el.tabIndex = i === this._active ? 0 : -1; });
    inputs[this._active]?.focus();
    inputs[this._active]?.select();
  }

  #onFocus(e, index) {
    this._active = index;
    if (!this._editing) e.target.select();
  }

  #onKey(e, index) {
    const { rows, cols } = this, i = Math.floor(index / cols), j = index % cols;
    if (e.altKey && (e.key === 'ArrowUp' || e.key === 'ArrowDown')) {
      e.preventDefault();
      const d = (e.key === 'ArrowUp' ? 1 : -1) * this.step * (e.shiftKey ? 10 : 1);
      this.#clearProblem(e.target, index);  // stepping from the last good number replaces the refused text
      this.#set(index, Number(this.values[index]) + d);
      return;
    }
    if (e.altKey || e.metaKey) return;
    if (this._editing) {
      if (e.key === 'Enter' || e.key === 'F2') { e.preventDefault(); this._editing = false; e.target.select(); }
      else if (e.key === 'Escape') {
        e.preventDefault();
        this._editing = false;
        if (this._before !== undefined) { e.target.value = String(this._before); this.#clearProblem(e.target, index); this.#set(index, this._before); }
        e.target.select();
      } else if (e.key === 'ArrowUp' || e.key === 'ArrowDown') { e.preventDefault(); this.#focusCell(index + (e.key === 'ArrowUp' ? -cols : cols) * ((e.key === 'ArrowUp' ? i > 0 : i < rows - 1) ? 1 : 0)); }
      return;
    }
    const to = {
      ArrowUp: i > 0 ? index - cols : index, ArrowDown: i < rows - 1 ? index + cols : index,
      ArrowLeft: j > 0 ? index - 1 : index, ArrowRight: j < cols - 1 ? index + 1 : index,
      Home: e.ctrlKey ? 0 : i * cols, End: e.ctrlKey ? rows * cols - 1 : i * cols + cols - 1,
    }[e.key];
    if (to !== undefined) { e.preventDefault(); this.#focusCell(to); return; }
    if (e.key === 'Enter' || e.key === 'F2') {
      e.preventDefault();
      this.#startEdit(index);
      const n = e.target.value.length;
      e.target.setSelectionRange(n, n);
    } else if (e.key.length === 1 && !e.ctrlKey) this.#startEdit(index);  // typing replaces the selected number
  }

  #clearProblem(input, index) {
    if (this._problem?.index === index) this._problem = null;
    input.setAttribute('aria-invalid', 'false');
    input.removeAttribute('title');
    input.removeAttribute('aria-describedby');
  }

  #startEdit(index) {
    this._editing = true;
    this._before = Number(this.values[index]);
  }

  #onDown(e, index) {
    if (e.button !== 0) return;
    this._drag = { index, x: e.clientX, y: e.clientY, start: Number(this.values[index]), active: false, id: e.pointerId };
    // Every move of this pointer comes here, even off the cell (a finger, or a fast mouse).
    if (e.pointerType !== 'mouse') e.target.setPointerCapture?.(e.pointerId);
  }

  #onMove(e) {
    const d = this._drag;
    if (!d || d.id !== e.pointerId) return;
    const dist = (e.clientX - d.x) - (e.clientY - d.y);  // right or up increases
    if (!d.active && Math.abs(dist) < 4) return;
    if (!d.active) {
      d.active = true;
      e.target.setPointerCapture?.(e.pointerId);
    }
    e.preventDefault();
    this.#set(d.index, d.start + Math.round(dist / 8) * this.step);
  }

  #onUp(e) {
    if (this._drag?.active) e.target.blur?.();
    else if (this._drag && e.type === 'pointerup') { this._editing = true; this._before = Number(this.values[this._drag.index]); }  // a click or tap: edit in place
    this._drag = null;
  }

  /** The cells' events, listened to once on the table: an event whose target is cell k's input goes to
   *  that cell's handler (what a listener on each input got; one listener per event type is cheaper to draw). */
  #onCell = (e) => {
    const t = e.target;
    if (t?.localName !== 'input' || t.dataset.k === undefined) return;
    const k = Number(t.dataset.k);
    switch (e.type) {
      case 'focusin': this.#onFocus(e, k); break;
      case 'focusout': this._editing = false; break;
      case 'change': case 'input': this.#onInput(e, k); break;
      case 'keydown': this.#onKey(e, k); break;
      case 'pointerdown': this.#onDown(e, k); break;
      case 'pointermove': this.#onMove(e); break;
      default: this.#onUp(e);  // pointerup, pointercancel
    }
  };

  #cellName(k) {
    const i = Math.floor(k / this.cols), j = k % this.cols;
    return `row ${this.rowLabels?.[i] ?? i + 1}, column ${this.colLabels?.[j] ?? j + 1}`;
  }

  /**
   * The cells' markup: built as one string when the matrix's shape or labels change (one parse, not a
   * Lit template instance with five parts per cell: a page's first draw of its four editors spent most
   * of its time there), then kept; the numbers, colours and the Tab stop are written into the cells
   * after each render (#sync), as Lit's bindings did: a cell's value only when it differs from the one
   * written last (a cell being typed in keeps its text). The markup goes into the table as parsed
   * (update()), not as a Lit template: Lit would walk every node of a new template for bindings (there
   * are none) and then clone it, for each new shape or labels.
   */
  #cells() {
    const { rows, cols } = this, esc = escapeHtml;
    const key = JSON.stringify([rows, cols, this.label, this.rowLabels ?? null, this.colLabels ?? null]);
    if (key === this._cellsKey) return this._cellsMarkup;
    const v = this.values ?? [], scale = scaleFor(v, 'diverging'), active = this.#activeCell();
    const written = [];
    let m = '';
    if (this.colLabels) {
      m += '<tr><th scope="col"><span class="sr-only">row \\ column</span></th>';
      for (let j = 0; j < cols; j++) m += `<th scope="col">${esc(this.colLabels[j])}</th>`;
      m += '</tr>';
    }
    for (let i = 0; i < rows; i++) {
      m += '<tr>';
      if (this.rowLabels) m += `<th scope="row">${esc(this.rowLabels[i])}</th>`;
      for (let j = 0; j < cols; j++) {
        const k = i * cols + j, value = String(v[k] ?? ''), style = cellStyle(scale, v[k]), tab = k === active ? '0' : '-1';
        written[k] = { value, style, tab };
        m += `<td><input type="text" inputmode="decimal" value="${esc(value)}" tabindex="${tab}" data-k="${k}" style="${style}"`
          + ` aria-label="${esc(`${this.label} row ${this.rowLabels?.[i] ?? i + 1}, column ${this.colLabels?.[j] ?? j + 1}`)}"></td>`;
      }
      m += '</tr>';
    }
    this._cellsKey = key;
    this._cellsMarkup = m;
    this._written = written;
    this._fresh = true;  // the markup holds the current numbers: nothing to write after this render
    return this._cellsMarkup;
  }

  #activeCell() {
    return Math.min(this._active, Math.max(0, this.rows * this.cols - 1));
  }

  /** Writes each cell's number, colour and tabindex that changed since they were last written. */
  #sync() {
    if (this._fresh) { this._fresh = false; return; }
    const v = this.values ?? [], scale = scaleFor(v, 'diverging'), active = this.#activeCell(), w = this._written ?? [];
    for (const input of this.renderRoot.querySelectorAll('input[data-k]')) {
      const k = Number(input.dataset.k), was = w[k] ?? {};
      const value = String(v[k] ?? ''), style = cellStyle(scale, v[k]), tab = k === active ? '0' : '-1';
      if (value !== was.value) input.value = value;
      if (style !== was.style) input.setAttribute('style', style);
      if (tab !== was.tab) input.setAttribute('tabindex', tab);
      w[k] = { value, style, tab };
    }
    this._written = w;
  }

  update(changed) {
    super.update(changed);
    // The cells' markup, when it changed (or the table is new): parsed once, its nodes moved into the table.
    const table = this.renderRoot.querySelector('table[role="grid"]');
    if (table && (this._cellsIn !== table || this._cellsShown !== this._cellsMarkup)) {
      const t = document.createElement('template');
      t.innerHTML = this._cellsMarkup;
      table.replaceChildren(t.content);
      this._cellsIn = table;
      this._cellsShown = this._cellsMarkup;
    }
  }

  updated(changed) {
    super.updated?.(changed);
    this.#sync();
  }

  render() {
    const v = this.values ?? [];
    this.#cells();  // (written into the table by update())
    // Cells as wide as the longest number (999999 or -123456.789 whole, never its last digits only).
    const chars = Math.max(0, ...Array.from(v.slice(0, this.rows * this.cols), (x) => String(x ?? '').length));
    const cellW = `${Math.max(3.6, 0.62 * chars + 0.8).toFixed(2)}em`;
    return html`<div class="cap">${this.label}</div>
      <span class="sr-only" id="keys">Arrow keys move between cells; type a number, or Enter to edit in place; Alt+Up or Alt+Down changes the number by ${this.step}.</span>
      <table role="grid" aria-label="${this.label} (editable)" aria-describedby="keys" style=${`--cell-w:${cellW}`}
        @focusin=${this.#onCell} @focusout=${this.#onCell} @change=${this.#onCell} @input=${this.#onCell} @keydown=${this.#onCell}
        @pointerdown=${this.#onCell} @pointermove=${this.#onCell} @pointerup=${this.#onCell} @pointercancel=${this.#onCell}></table>${this._problem ? html`<p class="cell-msg" id="cell-msg" role="alert">${this.#cellName(this._problem.index)}: ${this._problem.text}</p>` : ''}`;
  }
}

/** Text for HTML markup built as a string (a label may be any token a student typed). */
const escapeHtml = (t) => String(t).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** A cell's colours: the heatmaps' diverging scale, and a text colour readable on it. */
const cellStyle = (scale, x) => { const rgb = scale.color(Number(x)); return `background:${rgbCss(rgb)};color:${textOn(rgb)}`; };

if (!customElements.get('attn-matrix-editor')) customElements.define('attn-matrix-editor', AttnMatrixEditor);
