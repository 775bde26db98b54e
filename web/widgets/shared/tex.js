// <attn-tex expr="…" display>: a formula typeset by the bundled KaTeX (fonts and CSS come with the
// build; nothing from a CDN). The expression is the widget's own LaTeX, never user text.
// A formula wider than its box is typeset smaller until it fits (on a phone or a slide column),
// never put in a scroll box.
//
// Fitting is batched for the whole page: a formula that was typeset, resized or re-rendered by a
// font load joins one queue, and the next animation frame (before it paints) fits every queued
// formula together — each round resets or writes all their sizes, then reads all their widths (one
// layout for all of them, not one per formula and trial). A page with 28 formulas forced ~60 layouts
// while loading when each formula fitted itself; now it takes 2–3 per frame. On a page, a formula's
// first typesetting is queued too (a few formulas per task), so a widget's first draw stays short.
import { LitElement, html, css, unsafeCSS } from 'lit';
import katex from 'katex';
import 'katex/dist/katex.min.css';  // document level: @font-face does not work inside a shadow root
import katexCss from 'katex/dist/katex.min.css?inline';

/** The smallest scale a formula is shrunk to (of its natural size), and the trials per fit. */
const MIN_SCALE = 0.4, ROUNDS = 4;

/** The formulas waiting for the next frame's fit, and the width each was last fitted at. */
const queue = new Set();
const fittedAt = new WeakMap();
let frame = 0;

function schedule(tex) {
  queue.add(tex);
  if (!frame) frame = requestAnimationFrame(fitQueued);
}

/**
 * Fits every queued formula: k = 1 for all, then up to ROUNDS rounds of (read every width, then
 * shrink each that overflows by avail/width·0.98). Reads and writes are never interleaved, so each
 * round is one layout of the page, whatever the number of formulas.
 */
function fitQueued() {
  frame = 0;
  let todo = [];
  for (const t of queue) if (t.isConnected && t.renderRoot?.querySelector?.('.tex')) todo.push(t);
  queue.clear();
  for (const t of todo) { t._scale = 1; t.renderRoot.querySelector('.tex').style.fontSize = ''; }
  for (let round = 0; round < ROUNDS && todo.length; round++) {
    const sizes = todo.map((t) => [t.clientWidth, t.scrollWidth]);  // one layout for all
    const next = [];
    todo.forEach((t, i) => {
      const [avail, wide] = sizes[i];
      if (round === 0) fittedAt.set(t, avail);
      if (!avail || wide <= avail + 0.5 || t._scale === MIN_SCALE) return;
      t._scale = Math.max(MIN_SCALE, t._scale * (avail / wide) * 0.98);
      t.renderRoot.querySelector('.tex').style.fontSize = `${t._scale}em`;
      next.push(t);
    });
    todo = next;
  }
}

// One observer for every formula's box: a width that changed since its last fit queues it again.
const resized = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver((entries) => {
  for (const e of entries) {
    const t = e.target, w = t.clientWidth;  // layout is clean while observers run: no extra layout
    if (Math.abs(w - (fittedAt.get(t) ?? -1)) >= 1) schedule(t);
  }
});

// KaTeX's fonts may arrive after a formula was fitted (its width changes): fit every formula on the
// page again, once per batch of fonts.
const live = new Set();
let fontsWatched = false;
function watchFonts() {
  if (fontsWatched || typeof document === 'undefined' || !document.fonts?.addEventListener) return;
  fontsWatched = true;
  document.fonts.addEventListener('loadingdone', () => { for (const t of live) schedule(t); });
}

// KaTeX's markup by formula (display or text style + source), the most recently used last: a deck
// stepping back and forth, or a widget drawn again, typesets each formula once.
const typeset = new Map();

// Formulas waiting for their first typesetting on a page, typeset in page order a few per task (each
// task stops after TYPESET_BUDGET ms), their fits batched as above.
const TYPESET_BUDGET = 6;
const typesetQueue = new Set();
let typesetTimer = 0;
function queueTypeset(tex) {
  tex.renderRoot.querySelector('.tex')?.classList.add('pending');
  typesetQueue.add(tex);
  typesetTimer ||= setTimeout(typesetSome, 0);
}
function typesetSome() {
  typesetTimer = 0;
  const t0 = performance.now();
  for (const t of typesetQueue) {
    typesetQueue.delete(t);
    if (t.isConnected) t.typeset();
    if (performance.now() - t0 > TYPESET_BUDGET) break;
  }
  if (typesetQueue.size) typesetTimer = setTimeout(typesetSome, 0);
}

// Printing: every formula still waiting is typeset before the page is laid out for paper.
if (typeof window !== 'undefined') window.addEventListener?.('beforeprint', () => { for (const t of [...typesetQueue]) if (t.isConnected) t.typeset(); });

/** True when the formula is part of a widget in slide layout (it is typeset at once there). */
function onSlide(el) {
  for (let host = el.getRootNode()?.host; host; host = host.getRootNode()?.host)
    if (host.slideLayout !== undefined) return host.slideLayout;
  return false;
}

export class AttnTex extends LitElement {
  static properties = {
    /** LaTeX source. */
    expr: { type: String },
    /** Display (block) style instead of inline. */
    display: { type: Boolean },
  };

  static styles = [unsafeCSS(katexCss), css`:host { display: block; max-width: 100%; overflow: hidden; } :host([inline]) { display: inline-block; } .katex { font-size: 1.15em; }
    /* Waiting to be typeset (a few tasks): about the height it will take, so the page barely moves. */
    .tex.pending { display: inline-block; min-height: 1.6em; } :host([display]) .tex.pending { display: block; min-height: 3.4em; }`];

  /** The scale the formula is drawn at (1: its natural size; less when it had to shrink to fit). */
  get scale() {
    return this._scale ?? 1;
  }

  render() {
    return html`<span class="tex"></span>`;
  }

  updated() {
    // A formula's first typesetting on a page waits for the typesetting queue (a few formulas per
    // task), so drawing a widget does not typeset all of its formulas in the same task; a change
    // (the student edited a number in it) and a formula on a slide are typeset at once.
    if (this._typeset || onSlide(this) || typeof requestAnimationFrame !== 'function') this.typeset();
    else queueTypeset(this);
  }

  /** Typesets the formula now (KaTeX), then queues its fit. */
  typeset() {
    const el = this.renderRoot.querySelector('.tex');
    if (!el) return;
    this._typeset = true;
    typesetQueue.delete(this);
    const key = `${this.display ? 'D' : 'T'}${this.expr ?? ''}`;
    let markup = typeset.get(key);
    if (markup === undefined) {
      markup = katex.renderToString(this.expr ?? '', { displayMode: !!this.display, throwOnError: false, output: 'htmlAndMathml' });
      if (typeset.size >= 400) typeset.delete(typeset.keys().next().value);
    } else typeset.delete(key);
    typeset.set(key, markup);  // most recently used last
    el.innerHTML = markup;
    el.classList.remove('pending');
    schedule(this);
  }

  connectedCallback() {
    super.connectedCallback();
    live.add(this);
    resized?.observe(this);
    watchFonts();
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    live.delete(this);
    resized?.unobserve(this);
    fittedAt.delete(this);
  }
}

if (!customElements.get('attn-tex')) customElements.define('attn-tex', AttnTex);
