// AttnWidget: what every attn-* widget shares — the page's one WASM module, a visible message when
// it cannot load (no WASM SIMD), URL-hash save/restore for widgets given a `hash-key`, the
// `attn-state-change` event, and a guard so a bad input shows an error instead of breaking the page.
//
// A subclass declares `static stateSchema` (see hash.js) naming the properties that make up its
// shareable state, and implements `renderWidget(lab)`. After a user edit it calls `stateChanged()`.
import { LitElement, html, nothing } from 'lit';
import { getLab, supportsWasmSimd } from './lab.js';
import { readHashState, writeHashState } from './hash.js';
import { widgetStyles } from './styles.js';
import { measureBox, slideOf } from './fit.js';
import { FieldMessages } from './field.js';
import { forget, whenWanted } from './lazy.js';

export const NO_SIMD_MESSAGE = 'This browser cannot run attnlab: it has no WebAssembly SIMD. Please open the page in a current Chrome, Edge, Firefox or Safari (16.4 or later).';

export class AttnWidget extends LitElement {
  static properties = {
    /** When set, the widget's state is saved to and restored from this key of the URL hash. */
    hashKey: { type: String, attribute: 'hash-key' },
    /**
     * 'page' (a column of a web page: every stage below the last, full controls), 'slide' (fit the
     * box the slide gives: the current stage in place, big numbers, nothing outside the box), or
     * 'auto' (default: 'slide' inside a Slidev or reveal.js slide or a [data-attn-slide] box).
     */
    layout: { type: String, reflect: true },
    /** 'full', 'compact' (the few controls a slide needs) or 'none'; default full on a page, compact on a slide. */
    controls: { type: String, reflect: true },
    /** In slide layout: the height (px) to fit, instead of what the slide has left. */
    fitHeight: { type: Number, attribute: 'fit-height' },
    _box: { state: true },
    /** Slide layout: the height of the widget's `.slide-head` (strip, controls, formula), watched. */
    _headH: { state: true },
    _pageWidth: { state: true },
    _lab: { state: true },
    _failure: { state: true },
    _notice: { state: true },
    /** The widget drew only its first part so far (its first draw on a page is split over a few tasks). */
    _partial: { state: true },
  };

  static styles = widgetStyles;

  static stateSchema = {};

  constructor() {
    super();
    this._lab = null;
    this._failure = '';
    this._notice = '';
    this._onHashChange = () => this.restoreFromHash();
    this.layout = 'auto';
    this.controls = null;
    this.fitHeight = null;
    this._box = null;
    this._partial = false;
    this._firstDrawSettled = false;
    this._resizeObserver = null;
    /** Inline messages next to fields (field.js): a refused value is shown, never applied or saved. */
    this.fields = new FieldMessages(this);
  }

  /** True when the widget lays itself out to fit a slide's box (see `layout`). */
  get slideLayout() {
    return this.layout === 'slide' || (this.layout !== 'page' && this.isConnected && !!slideOf(this));
  }

  /** The controls to show: the `controls` attribute, else full on a page and compact on a slide. */
  get controlsMode() {
    const c = this.controls;
    return c === 'none' || c === 'compact' || c === 'full' ? c : this.slideLayout ? 'compact' : 'full';
  }

  /**
   * The box (CSS px of the slide) to draw in, in slide layout: { width, height }. Before the first
   * measurement (or when hidden) a 900 × 480 guess, so a first paint never overflows by much.
   */
  get box() {
    return this._box ?? { width: 900, height: 480 };
  }

  /** Page layout: `width` (px) or the column's inner width if that is less (a phone), never below `min`. */
  pageFit(width, min = 200) {
    return Math.max(min, Math.min(width, this._pageWidth ?? width));
  }

  #measure() {
    // The resolved layout as a host attribute, for the host's own CSS (styles.js).
    this.toggleAttribute('data-slide', this.slideLayout);
    if (!this.slideLayout) {
      if (this._box) this._box = null;
      // Page layout: the column's inner width (the card's padding off), for plots that must fit a phone.
      const wrap = this.renderRoot?.querySelector?.('.wrap'), cs = wrap && getComputedStyle(wrap);
      const w = wrap ? wrap.clientWidth - (parseFloat(cs.paddingLeft) || 0) - (parseFloat(cs.paddingRight) || 0) : this.clientWidth - 34;
      if (w > 0 && Math.abs(w - (this._pageWidth ?? 0)) >= 1) this._pageWidth = Math.floor(w);
      return;
    }
    const b = measureBox(this, this.fitHeight);
    if (!b) return;
    const old = this._box;
    if (!old || Math.abs(old.width - b.width) > 1 || Math.abs(old.height - b.height) > 1) this._box = b;
  }

  /**
   * Slide layout: a widget renders its header in a `.slide-head` and gives its matrices the box's
   * height minus `_headH`. The header takes what it takes — its formula is typeset after the render
   * and a font may load later — so its height is watched, not guessed.
   */
  updated(changed) {
    super.updated?.(changed);
    const head = this.slideLayout ? this.renderRoot.querySelector('.slide-head') : null;
    if (head !== this._observedHead) {
      this._headObserver?.disconnect();
      this._observedHead = head;
      if (head && typeof ResizeObserver !== 'undefined') {
        this._headObserver = new ResizeObserver(() => this.#readHead());
        this._headObserver.observe(head);
      }
    }
    this.#readHead();
  }

  #readHead() {
    const h = this._observedHead?.offsetHeight;
    if (h && Math.abs(h - (this._headH || 0)) > 2) this._headH = h;
  }

  #observe() {
    this._resizeObserver?.disconnect();
    if (typeof ResizeObserver === 'undefined') return;
    if (!this.slideLayout) {  // page layout: the host's width (a block: it never depends on what is inside)
      this._resizeObserver = new ResizeObserver(() => this.#measure());
      this._resizeObserver.observe(this);
      return;
    }
    // The host (width), its slide (the deck rescales, a hidden slide is shown) and the slide's other
    // content (a heading that wraps).
    this._resizeObserver = new ResizeObserver(() => this.#measure());
    this._resizeObserver.observe(this);
    const slide = slideOf(this);
    if (slide) {
      this._resizeObserver.observe(slide);
      for (const child of slide.children) this._resizeObserver.observe(child);
    }
  }

  connectedCallback() {
    super.connectedCallback();
    this.restoreFromHash();
    if (this.hashKey) window.addEventListener('hashchange', this._onHashChange);
    // After the slide around it has been laid out (Vue and reveal.js add slides before styling them).
    // On a page the ResizeObserver's first callback measures (the layout is clean then: reading the
    // column's width costs nothing, where reading it here would lay out the page before its frame).
    requestAnimationFrame(() => { this.#observe(); if (this.slideLayout || typeof ResizeObserver === 'undefined') this.#measure(); });
    if (!this._lab && !this._failure && !this._waiting) {
      if (!supportsWasmSimd()) this._failure = NO_SIMD_MESSAGE;
      else {
        // On a page, a widget draws when it comes near the viewport or the page is idle (lazy.js); on
        // a slide, as soon as the module is ready (the deck shows it, sized to the slide).
        this._waiting = true;
        (this.slideLayout ? getLab() : whenWanted(this, getLab())).then((lab) => {
          this._waiting = false;
          this._lab = lab;
          this.labReady?.(lab);
        }, (e) => { this._waiting = false; this._failure = `attnlab could not start: ${e.message}`; });
      }
    }
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    if (this._waiting) { forget(this); this._waiting = false; }
    window.removeEventListener('hashchange', this._onHashChange);
    this._resizeObserver?.disconnect();
    this._resizeObserver = null;
    this._headObserver?.disconnect();
    this._observedHead = null;
  }

  /**
   * Frameworks may set attributes as string properties (Vue does: `stage="2"` → el.stage = "2"):
   * numeric and boolean properties given as strings are converted like their attributes would be.
   */
  willUpdate(changed) {
    // Not at a page widget's first update: connectedCallback's frame starts its observer, whose first
    // callback measures (measuring here forced a layout of the whole page while its scripts ran).
    if ((changed.has('layout') || changed.has('fitHeight')) && (this.hasUpdated || this.slideLayout || typeof ResizeObserver === 'undefined'))
      queueMicrotask(() => { this.#observe(); this.#measure(); });
    for (const [name, opts] of this.constructor.elementProperties) {
      const v = this[name];
      if (typeof v !== 'string' || !changed.has(name)) continue;
      if (opts.converter?.fromAttribute) this[name] = opts.converter.fromAttribute(v);
      else if (opts.type === Number) this[name] = v.trim() === '' ? null : Number(v);
      else if (opts.type === Boolean) this[name] = v !== 'false';
    }
  }

  /**
   * The shareable state: the schema's properties. On a slide the stage belongs to the deck (its clicks
   * set it), so it is left out: a state recorded after an edit must not step the slide back.
   */
  getState() {
    const s = {};
    for (const key of Object.keys(this.constructor.stateSchema)) {
      if (key === 'stage' && this.slideLayout) continue;
      const v = this[key];
      if (v !== undefined && v !== null) s[key] = ArrayBuffer.isView(v) ? Array.from(v) : v;
    }
    return s;
  }

  /** Applies a (validated) state; subclasses may extend it. */
  applyState(state) {
    Object.assign(this, state);
  }

  restoreFromHash() {
    if (!this.hashKey) return;
    const { state, notice } = readHashState(window.location.hash, this.hashKey, this.constructor.stateSchema);
    // Types and ranges are checked by the schema; sizes that must agree with each other, here.
    const problem = state ? this.constructor.checkState?.(state, this) : '';
    if (problem) this._notice = `The link’s settings for this widget were ignored (${problem}); showing the defaults.`;
    else if (state) {
      this.applyState(state);
      this.fields.clearAll();
      this._notice = '';
    } else if (notice) this._notice = notice;
  }

  /** A user edit: sets the properties, then emits and saves the new state. */
  setState(patch) {
    Object.assign(this, patch);
    this.stateChanged();
  }

  /**
   * The "show up to" buttons of a widget with a `stage` attribute (names[i] is stage i; "all"
   * removes the attribute). Decks step `stage` themselves; these let a student do it.
   */
  stageBar(names) {
    if (this.controlsMode !== 'full') return nothing;
    const button = (value, label) => html`<button type="button" aria-pressed=${String(this.stage === value)}
      @click=${() => { this.stage = value; this.stateChanged(); }}>${label}</button>`;
    return html`<div class="stagebar controls" role="group" aria-label="show up to stage">show up to:
      ${names.map((name, i) => button(i, `${i} ${name}`))}${button(null, 'all')}</div>`;
  }

  /**
   * Slide layout: the stages as one compact strip (done ones ticked, the current one highlighted),
   * so the audience sees where the step is while the current stage takes the space.
   */
  stageStrip(names) {
    const cur = this.stage ?? names.length - 1;
    return html`<ol class="stagestrip" aria-label="stages">${names.map((n, i) => html`<li class=${i === cur ? 'current' : i < cur ? 'done' : 'todo'}
      aria-current=${i === cur ? 'step' : 'false'}>${n}</li>`)}</ol>`;
  }

  /** True when stage `i` is shown (no `stage` attribute shows everything). */
  shows(i) {
    return this.stage === null || this.stage === undefined || this.stage >= i;
  }

  /** Call after a user edit: emits attn-state-change and updates the URL hash (if hash-key). */
  stateChanged() {
    const state = this.getState();
    if (this.hashKey) {
      try {
        history.replaceState(history.state, '', writeHashState(window.location.hash, this.hashKey, state));
      } catch { /* a sandboxed frame may refuse; sharing is then just unavailable */ }
    }
    this.dispatchEvent(new CustomEvent('attn-state-change', { detail: { state }, bubbles: true, composed: true }));
  }

  /**
   * Page layout: true while the widget's first full draw still waits for data of its own (a shipped
   * model, snapshots, a table sampled a row per task). Until then it keeps its placeholder's height
   * (.wrap.partial): drawn short meanwhile (attn-model's loading line is 198 px of a 2503 px widget),
   * the page shrank under a reader who had jumped to a section below, the browser clamped the scroll and
   * the section was left 320 px down the window. Widgets that load such data override it; it must turn
   * false once that data is drawn or has failed. Only the first draw is held: later loads (a file
   * picked, a new seed) are the reader's own doing and show at their own height.
   */
  get firstDrawPending() { return false; }

  #heldAtPlaceholder() {
    if (this._firstDrawSettled || this.slideLayout || this._failure || !this._lab) return false;
    if (this.firstDrawPending) return true;
    this._firstDrawSettled = true;
    return false;
  }

  render() {
    let body;
    if (this._failure) body = html`<p class="failure" role="alert">${this._failure}</p>`;
    else if (!this._lab) {
      // Not drawn yet (the module loads, or the widget waits for its turn: lazy.js): on a page, a
      // placeholder as tall as the widget will be (--attn-placeholder-height, set by the page).
      return html`<div class=${this.slideLayout ? 'wrap slide' : 'wrap placeholder'} data-lazy-placeholder>
        <p class="loading" role="status">Loading the WebAssembly core…</p></div>`;
    }
    else {
      try {
        body = this.renderWidget(this._lab);
      } catch (e) {
        body = html`<p class="error" role="alert">${e.message}</p>`;
      }
    }
    return html`<div class=${this.slideLayout ? 'wrap slide' : this._partial || this.#heldAtPlaceholder() ? 'wrap partial' : 'wrap'}>
      ${this._notice ? html`<p class="notice" role="status">${this._notice}
        <button type="button" @click=${() => { this._notice = ''; }}>Dismiss</button></p>` : nothing}
      ${body}</div>`;
  }
}

/** Parses an integer attribute that may be absent ("stage"): null when absent or not a number. */
export const optionalInt = {
  fromAttribute: (v) => (v === null || v === '' || !Number.isFinite(Number(v)) ? null : Math.trunc(Number(v))),
  toAttribute: (v) => (v === null || v === undefined ? null : String(v)),
};
