// <attn-matrix-editor>: an editable matrix. Type a number in a cell, drag a cell up/down (or
// left/right) to change it, or use the arrow keys (Up/Down ± step, Shift ×10). Cells are coloured
// with the same scale as the heatmaps.
// Event: `attn-matrix-change` { values } (a new array) on every valid edit.
import { LitElement, html, css } from 'lit';
import { scaleFor, css as rgbCss, textOn } from './colormap.js';
import { cellProblem } from './field.js';

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
  };

  static styles = css`
    :host { display: inline-block; vertical-align: top; }
    .cap { font-weight: 600; margin-bottom: 2px; }
    table { border-collapse: collapse; }
    th { font-weight: normal; font-size: 12px; color: #24292f; padding: 0 4px; }
    th[scope='row'] { text-align: right; }
    input { width: 3.6em; font: inherit; font-size: 14px; text-align: right; font-variant-numeric: tabular-nums; border: 1px solid #fff;
      padding: 4px 3px; border-radius: 3px; cursor: ns-resize; }
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
  }

  #emit(values) {
    this.values = values;
    this.dispatchEvent(new CustomEvent('attn-matrix-change', { detail: { values }, bubbles: true, composed: true }));
  }

  #set(index, x) {
    const values = Array.from(this.values);
    values[index] = Math.round(x * 1000) / 1000;
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

  #onKey(e, index) {
    if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') return;
    e.preventDefault();
    const d = (e.key === 'ArrowUp' ? 1 : -1) * this.step * (e.shiftKey ? 10 : 1);
    if (this._problem?.index === index) {  // stepping from the last good number replaces the refused text
      this._problem = null;
      e.target.setAttribute('aria-invalid', 'false');
      e.target.removeAttribute('title');
      e.target.removeAttribute('aria-describedby');
    }
    this.#set(index, Number(this.values[index]) + d);
  }

  #onDown(e, index) {
    if (e.button !== 0) return;
    this._drag = { index, x: e.clientX, y: e.clientY, start: Number(this.values[index]), active: false, id: e.pointerId };
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
    this._drag = null;
  }

  #cellName(k) {
    const i = Math.floor(k / this.cols), j = k % this.cols;
    return `row ${this.rowLabels?.[i] ?? i + 1}, column ${this.colLabels?.[j] ?? j + 1}`;
  }

  render() {
    const { rows, cols } = this;
    const v = this.values ?? [];
    const scale = scaleFor(v, 'auto');
    return html`<div class="cap">${this.label}</div>
      <table role="grid" aria-label="${this.label} (editable)">
        ${this.colLabels ? html`<tr><th></th>${Array.from({ length: cols }, (_, j) => html`<th scope="col">${this.colLabels[j]}</th>`)}</tr>` : ''}
        ${Array.from({ length: rows }, (_, i) => html`<tr>
          ${this.rowLabels ? html`<th scope="row">${this.rowLabels[i]}</th>` : ''}
          ${Array.from({ length: cols }, (_, j) => {
            const k = i * cols + j, rgb = scale.color(Number(v[k]));
            return html`<td><input type="text" inputmode="decimal" .value=${String(v[k] ?? '')}
              style="background:${rgbCss(rgb)};color:${textOn(rgb)}"
              aria-label="${this.label} row ${this.rowLabels?.[i] ?? i + 1}, column ${this.colLabels?.[j] ?? j + 1}"
              @change=${(e) => this.#onInput(e, k)} @input=${(e) => this.#onInput(e, k)} @keydown=${(e) => this.#onKey(e, k)}
              @pointerdown=${(e) => this.#onDown(e, k)} @pointermove=${(e) => this.#onMove(e)}
              @pointerup=${(e) => this.#onUp(e)} @pointercancel=${(e) => this.#onUp(e)}></td>`;
          })}</tr>`)}
      </table>${this._problem ? html`<p class="cell-msg" id="cell-msg" role="alert">${this.#cellName(this._problem.index)}: ${this._problem.text}</p>` : ''}`;
  }
}

if (!customElements.get('attn-matrix-editor')) customElements.define('attn-matrix-editor', AttnMatrixEditor);
