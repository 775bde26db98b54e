// <attn-tex expr="…" display>: a formula typeset by the bundled KaTeX (fonts and CSS come with the
// build; nothing from a CDN). The expression is the widget's own LaTeX, never user text.
// A formula wider than its box is typeset smaller until it fits (on a phone or a slide column),
// never put in a scroll box. In a widget's slide layout a formula is drawn larger (its sub- and
// superscripts at least 14 px on a 1280×720 screen) and is never shrunk below that: a formula made of
// parts joined by `\quad`/`\qquad` at its top level is typeset part by part, and the parts wrap onto
// lines of their own when the slide's column is too narrow for them side by side. On a page, a display
// formula with such parts is split the same way only when drawn whole it would shrink below SPLIT_BELOW
// (a phone): its parts at a readable size on lines of their own, not the whole line at 0.4–0.6.
//
// Fitting is batched for the whole page: a formula that was typeset, resized or re-rendered by a
// font load joins one queue, and the next frame fits every queued formula together after its layout
// and before it paints (see fitFormulas()) — each round writes all their sizes, then reads all their
// widths (one layout for all of them, not one per formula and trial). On a page, a formula's first
// typesetting is queued too (one KaTeX render per task), so a widget's first draw stays short.
import { LitElement, html, css } from 'lit';
import 'katex/dist/katex.min.css';  // document level: @font-face does not work inside a shadow root
import katexCss from 'katex/dist/katex.min.css?inline';

// KaTeX's code (~270 kB) is a chunk of its own, fetched when the first formula is drawn and run in a
// task of its own, not in the task that first draws a widget: on a phone-class CPU its evaluation
// alone took ~0.1 s. A formula drawn before it is there waits for it (marked pending, about as tall as
// it will be). A page may hold KaTeX back (holdTypesetting) until its first numbers are painted.
//
// The fonts KaTeX draws our formulas with are fetched with its code, and the first formula is typeset
// once they are there (or after FONT_WAIT ms): a font arriving after the formulas were laid out made
// the browser lay out and shape every formula again, and fitFormulas fit them all again, once per font
// batch (two 80–280 ms frames at 4x CPU throttling while the first widget's formulas appeared).
const KATEX_FACES = ['1em KaTeX_Main', 'italic 1em KaTeX_Math', '1em KaTeX_Size1', '1em KaTeX_Size2', '1em KaTeX_Size3', '1em KaTeX_Size4'];
const FONT_WAIT = 10000;  // a font that never comes (a stalled network) holds the formulas back no longer
let katex = null;
let katexLoaded = null;
const waitingForKatex = new Set();
function loadFaces() {
  if (typeof document === 'undefined' || !document.fonts?.load) return Promise.resolve();
  const all = Promise.all(KATEX_FACES.map((f) => document.fonts.load(f).catch(() => null)));
  return Promise.race([all, new Promise((ok) => setTimeout(ok, FONT_WAIT))]);
}
function loadKatex() {
  katexLoaded ??= Promise.all([import('katex'), loadFaces()]).then(([m]) => {
    katex = m.default ?? m;
    for (const t of waitingForKatex) if (t.isConnected) t.updated();
    waitingForKatex.clear();
  });
  return katexLoaded;
}
let hold = null;
/**
 * KaTeX is not loaded, and no formula typeset, before `until` settles (a page's first numbers: at 4x
 * CPU throttling KaTeX's evaluation and the first formulas' typesetting cost ~0.1 s of CPU before them).
 * Formulas drawn meanwhile wait, marked pending. Holds add up: typesetting starts when all have settled.
 */
export function holdTypesetting(until) {
  const mine = (hold = Promise.all([hold, Promise.resolve(until).catch(() => undefined)]));
  mine.then(() => {
    if (hold !== mine) return;
    hold = null;
    if (waitingForKatex.size) loadKatex();
  });
}
/** Resolves when KaTeX is loaded (every formula drawn so far is then typeset or queued). */
export const texReady = async () => {
  while (hold) await hold;
  return loadKatex();
};

/** The smallest scale a formula is shrunk to (of its natural size), and the trials per fit. On a
 *  slide (where the natural size is 1.3× a page's) a formula shrinks no further than 0.9. */
const MIN_SCALE = 0.4, MIN_SLIDE_SCALE = 0.9, ROUNDS = 4, SPLIT_BELOW = 0.85;

/**
 * The parts of a formula on a page: formulaParts, also inside one group around the whole formula (a
 * widget braces a formula to keep it whole on its slide, where its column is wide enough).
 */
export function pageParts(expr) {
  const inner = /^\{.*\}$/s.test(expr) ? expr.slice(1, -1) : null;
  if (inner !== null && balanced(inner)) return formulaParts(inner);  // balanced: the outer braces are one group
  return formulaParts(expr);
}

// Whether every brace in s closes one opened before it (the outer pair of `{a} + {b}` is not one group).
function balanced(s) {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\') { i++; continue; }
    if (s[i] === '{') depth++;
    else if (s[i] === '}' && --depth < 0) return false;
  }
  return depth === 0;
}

/**
 * Whether a page formula should be typeset part by part, after a fit: `split` is how it is typeset now,
 * `scale` the scale the fit left it at, `avail` its box's width, `whole` the width of the formula typeset
 * whole at scale 1 (known once it has been), `parts` how many parts it has. Split once it would shrink
 * below SPLIT_BELOW; whole again only once its box holds the whole at full size (a box between the two
 * keeps what it has: the two never alternate).
 */
export function pageSplit({ split, scale, avail, whole, parts }) {
  if (parts < 2) return false;
  if (!split) return scale < SPLIT_BELOW;
  return !(whole > 0 && avail >= whole);
}

/**
 * The top-level parts of a formula joined by `\quad` / `\qquad` (a trailing comma stays with its
 * part): `'a = b,\quad c = d'` → `['a = b,', 'c = d']`. Separators inside braces or a
 * `\left…\right` pair do not split. One part when there is nothing to split at.
 */
export function formulaParts(expr) {
  const parts = [];
  let depth = 0, start = 0;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i];
    if (c === '\\') {
      const m = /^\\([a-zA-Z]+)/.exec(expr.slice(i));
      if (!m) { i++; continue; }
      const name = m[1];
      if (name === 'left') depth++;
      else if (name === 'right') depth--;
      else if (depth === 0 && (name === 'quad' || name === 'qquad')) {
        const part = expr.slice(start, i).trim();
        if (part) parts.push(part);
        start = i + m[0].length;
      }
      i += m[0].length - 1;
    } else if (c === '{') depth++;
    else if (c === '}') depth--;
  }
  const last = expr.slice(start).trim();
  if (last) parts.push(last);
  return parts.length ? parts : [expr];
}

/** The formulas waiting for a fit, and the width each was last fitted at. */
const queue = new Set();
const fittedAt = new WeakMap();
let frame = 0;

// Formulas are fitted in a ResizeObserver callback, which runs after the frame's layout and before
// its paint: the first read of every queued formula's width lays nothing out (a requestAnimationFrame
// callback ran before the frame's layout, so its first read forced the whole page's pending layout —
// every widget's new DOM — early and in the fit's name: 0.1–0.6 s at 4x CPU throttling while the page
// loaded). The same observer refits a formula whose box changed width. A formula that needs a fit (just
// typeset, a font arrived) is observed anew: a new observation reports the box at the next frame.
const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver((entries) => {
  const todo = [];
  for (const e of entries) {
    const t = e.target;
    if (queue.has(t) || (t._typeset && Math.abs(t.clientWidth - (fittedAt.get(t) ?? -1)) >= 1)) todo.push(t);
  }
  if (todo.length) fitFormulas(todo);
});

function schedule(tex) {
  queue.add(tex);
  if (observer) {
    if (tex.isConnected) { observer.unobserve(tex); observer.observe(tex); }
  } else if (!frame && typeof requestAnimationFrame === 'function') frame = requestAnimationFrame(() => { frame = 0; fitFormulas([...queue]); });
}

/**
 * Fits formulas together: k = 1 for all, then up to ROUNDS rounds of (read every width, then shrink
 * each that overflows by avail/width·0.98). Reads and writes are never interleaved, so each round is
 * one layout, whatever the number of formulas; run after the frame's layout, the first round's reads
 * lay out nothing unless a formula had to be reset from a smaller size, and later rounds lay out only
 * the formulas just resized.
 */
export function fitFormulas(list) {
  let todo = [];
  // Typeset formulas only: one still waiting for KaTeX has nothing to fit (typeset() queues it again).
  for (const t of list) {
    queue.delete(t);
    if (t._typeset && t.isConnected && t.renderRoot?.querySelector?.('.tex')) todo.push(t);
  }
  const all = todo.slice();
  // A slide's formula takes its font from its slide's canvas as it is now (reads first: one layout).
  // The canvas may have changed since it was typeset: reveal.js's print view typesets in a moment
  // when slides are hidden or stacked, then wraps each in a page of another size.
  const slidePx = todo.map((t) => (t.hasAttribute('data-slide') ? slideTexPx(t) : 0));
  todo.forEach((t, i) => { if (slidePx[i]) setSlidePx(t, slidePx[i]); });
  for (const t of todo) {
    t._scale = 1;
    t._min = t.hasAttribute('data-slide') ? MIN_SLIDE_SCALE : MIN_SCALE;
    const st = t.renderRoot.querySelector('.tex').style;
    if (st.fontSize) st.fontSize = '';  // only a formula drawn smaller is reset: no layout for the others
  }
  for (let round = 0; round < ROUNDS && todo.length; round++) {
    const sizes = todo.map((t) => [t.clientWidth, t.scrollWidth]);  // one layout for all
    const next = [];
    todo.forEach((t, i) => {
      const [avail, wide] = sizes[i];
      if (round === 0) {
        fittedAt.set(t, avail);
        if (!t._split) t._whole = wide;  // typeset whole, at scale 1
      }
      if (!avail || wide <= avail + 0.5 || t._scale === t._min) return;
      t._scale = Math.max(t._min, t._scale * (avail / wide) * 0.98);
      t.renderRoot.querySelector('.tex').style.fontSize = `${t._scale}em`;
      next.push(t);
    });
    todo = next;
  }
  // A page's display formula typeset whole or part by part, as its box now has room for (pageSplit).
  for (const t of all) {
    if (t.hasAttribute('data-slide') || !t.display) continue;
    const split = pageSplit({ split: !!t._split, scale: t._scale, avail: fittedAt.get(t) ?? 0, whole: t._whole ?? 0, parts: t.partCount() });
    if (split !== !!t._split) {
      t._split = split;
      retypeset(t);  // then fitted again
    }
  }
}

// KaTeX's fonts may arrive after a formula was fitted (its width changes): fit every formula on the
// page again, once per batch of fonts.
const live = new Set();
let fontsWatched = false;
function watchFonts() {
  if (fontsWatched || typeof document === 'undefined' || !document.fonts?.addEventListener) return;
  fontsWatched = true;
  document.fonts.addEventListener('loadingdone', () => { for (const t of live) schedule(t); });
}

// KaTeX's own styles (26 kB) join a formula's shadow root when it is first typeset, not when it is
// made: a widget's first draw neither parses them nor matches its waiting formulas against them.
let katexSheet = null;
function adoptKatexStyles(root) {
  if (root.__attnKatex) return;
  root.__attnKatex = true;
  if (root.adoptedStyleSheets && typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype) {
    if (!katexSheet) { katexSheet = new CSSStyleSheet(); katexSheet.replaceSync(katexCss); }
    root.adoptedStyleSheets = [katexSheet, ...root.adoptedStyleSheets];
  } else {
    const style = document.createElement('style');
    style.textContent = katexCss;
    root.prepend(style);
  }
}

/** Markup by key, the most recently used last, at most `limit` kept: KaTeX's output for a formula. */
export class MarkupCache {
  constructor(limit = 400) {
    this.limit = limit;
    this.map = new Map();
  }

  has(key) {
    return this.map.has(key);
  }

  /** The markup stored for `key`, or `make()`'s (then stored). */
  get(key, make) {
    let m = this.map.get(key);
    if (m === undefined) {
      m = make();
      if (this.map.size >= this.limit) this.map.delete(this.map.keys().next().value);
    } else this.map.delete(key);
    this.map.set(key, m);
    return m;
  }
}

// KaTeX's markup by formula (display or text style, slide or page + source): a deck stepping back and
// forth, or a widget drawn again, typesets each formula once.
const typeset = new MarkupCache(400);

/**
 * One task's share of a queue of formulas to typeset (`items`, a Set, in page order; each one done is
 * removed). A formula whose markup is cached costs only its DOM (`apply`); one KaTeX must typeset
 * first (`render`, the costly part: 5–50 ms at 4x CPU throttling) is the only such one in the task,
 * and its DOM waits for the next task when the render spent the budget. The task stops once `budget`
 * ms have passed (`now()`), so it is about one KaTeX render long at most.
 */
export function typesetSlice(items, { cached, render, apply, now, budget }) {
  const t0 = now();
  let rendered = false;
  for (const t of items) {
    if (now() - t0 > budget) return;
    if (!cached(t)) {
      if (rendered) return;
      render(t);
      rendered = true;
      if (now() - t0 > budget) return;
    }
    items.delete(t);
    apply(t);
  }
}

// Formulas waiting for their first typesetting on a page, typeset in page order in slices (above),
// their fits batched as above.
const TYPESET_BUDGET = 6;
const typesetQueue = new Set();
let typesetTimer = 0;
function queueTypeset(tex) {
  tex.renderRoot.querySelector('.tex')?.classList.add('pending');
  typesetQueue.add(tex);
  // The first batch after a widget was drawn waits for the next frame: its numbers are painted first.
  if (!typesetTimer) typesetTimer = typeof requestAnimationFrame === 'function'
    ? requestAnimationFrame(() => { typesetTimer = setTimeout(typesetSome, 0); }) : setTimeout(typesetSome, 0);
}
// A typeset formula to typeset again in parts or whole (fitFormulas): through the same queue, one KaTeX
// render per task, as it stays drawn meanwhile (a phone splits several formulas in one fit).
function retypeset(tex) {
  if (typeof requestAnimationFrame !== 'function') return tex.typeset();
  typesetQueue.add(tex);
  if (!typesetTimer) typesetTimer = setTimeout(typesetSome, 0);
}
// KaTeX's code is compiled as it first runs: the page's first formula took ~50 ms at 4x CPU throttling,
// the next ones 5–25. Two small formulas typeset first, each in a task of its own, compile the common
// paths (sub- and superscripts, fractions, delimiters, both styles), so no one task does all of it.
const WARM_UP = [['x_i^2', false], ['\\mathrm{f}\\left(\\frac{a}{b}\\right)', true]];
function typesetSome() {
  typesetTimer = 0;
  if (WARM_UP.length) {
    const [e, displayMode] = WARM_UP.shift();
    katex.renderToString(e, { displayMode, throwOnError: false, output: 'htmlAndMathml' });
    typesetTimer = setTimeout(typesetSome, 0);
    return;
  }
  typesetSlice(typesetQueue, {
    cached: (t) => !t.isConnected || typeset.has(t.markupKey()),
    render: (t) => t.markup(),
    apply: (t) => { if (t.isConnected) t.typeset(); },
    now: () => performance.now(),
    budget: TYPESET_BUDGET,
  });
  if (typesetQueue.size) typesetTimer = setTimeout(typesetSome, 0);
}

// Printing: every formula still waiting is typeset before the page is laid out for paper.
if (typeof window !== 'undefined') window.addEventListener?.('beforeprint', () => { for (const t of [...typesetQueue]) if (t.isConnected) t.typeset(); });

/**
 * The font size (CSS px of the slide canvas) of a formula on a slide: large enough that, on a
 * 1280×720 screen showing the canvas, a subscript (0.7 of it) shrunk to MIN_SLIDE_SCALE still has a
 * glyph box of 14 px — 25 screen px, divided by the canvas's screen scale (reveal.js 1280×800: 0.9,
 * 960×700: 1.03; Slidev 980×552: 1.31) — and never smaller than a page's 1.15em of 18 px.
 */
function slideTexPx(el) {
  let host = el;
  for (let h = el.getRootNode?.()?.host; h; h = h.getRootNode()?.host) host = h;
  const slide = host.closest?.('[data-attn-slide], .slidev-layout, .reveal .slides > section, .reveal .slides > section > section, .reveal .pdf-page > section');
  const canvas = slide && !slide.classList.contains('slidev-layout') ? slide.closest('.reveal .slides, .pdf-page') ?? slide : slide;
  const w = canvas?.offsetWidth, h = canvas?.offsetHeight;
  if (!w || !h) return 20.7;
  // Taller than wide is not one slide's canvas: reveal.js's print view stacks every slide in .slides
  // before it wraps each in its .pdf-page (a formula typeset then was set ~1250 px: its width alone counts).
  const k = h > w ? 1280 / w : Math.min(1280 / w, 720 / h);
  return Math.max(20.7, Math.round(25 / k * 10) / 10);
}

// Writes a slide formula's font size only when it changed (a write invalidates the layout).
function setSlidePx(t, px) {
  if (t._slidePx === px) return;
  t._slidePx = px;
  t.style.setProperty('--attn-slide-tex', `${px}px`);
}

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

  static styles = [css`:host { display: block; max-width: 100%; overflow: hidden; } :host([inline]) { display: inline-block; } .katex { font-size: 1.15em; }
    /* Slide layout: larger, and the parts of a split formula wrap as whole pieces. */
    :host([data-slide]) .katex { font-size: var(--attn-slide-tex, 1.15em); }
    .parts { display: flex; flex-wrap: wrap; justify-content: center; align-items: baseline; column-gap: 1.6em; }
    .parts > .katex-display { margin: 0.1em 0; }
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
    // (the student edited a number in it) and a formula on a slide are typeset at once (once KaTeX is
    // loaded: until then it waits, marked pending).
    if (!katex) {
      this.renderRoot.querySelector('.tex')?.classList.add('pending');
      waitingForKatex.add(this);
      if (!hold) loadKatex();
      return;
    }
    if (this._typeset || onSlide(this) || typeof requestAnimationFrame !== 'function') this.typeset();
    else queueTypeset(this);
  }

  /** The formula's key in the markup cache (display or text style, slide or page, whole or in parts, source). */
  markupKey(slide = onSlide(this)) {
    return `${this.display ? 'D' : 'T'}${slide ? 'S' : this.#inParts() ? 'P' : ''}${this.expr ?? ''}`;
  }

  /** How many parts the formula has on a page (pageParts), counted once per expression. */
  partCount() {
    if (this._partsOf !== this.expr) { this._partsOf = this.expr; this._parts = pageParts(this.expr ?? '').length; }
    return this._parts;
  }

  // On a page: typeset part by part (fitFormulas decided so: pageSplit).
  #inParts() {
    return !!this._split && !!this.display && this.partCount() > 1;
  }

  /** KaTeX's markup for the formula (cached). On a slide a display formula is typeset part by part; on a page, when its box is too narrow for it whole. */
  markup(slide = onSlide(this)) {
    return typeset.get(this.markupKey(slide), () => {
      const render = (e) => katex.renderToString(e, { displayMode: !!this.display, throwOnError: false, output: 'htmlAndMathml' });
      const e = this.expr ?? '';
      const parts = slide && this.display ? formulaParts(e) : this.#inParts() ? pageParts(e) : [e];
      return parts.length > 1 ? `<span class="parts">${parts.map(render).join('')}</span>` : render(parts[0]);
    });
  }

  /** Typesets the formula now (KaTeX), then queues its fit. */
  typeset() {
    const el = this.renderRoot.querySelector('.tex');
    if (!el) return;
    if (!katex) { waitingForKatex.add(this); if (!hold) loadKatex(); return; }
    this._typeset = true;
    typesetQueue.delete(this);
    const slide = onSlide(this);
    this.toggleAttribute('data-slide', slide);
    if (slide) setSlidePx(this, slideTexPx(this));
    const markup = this.markup(slide);
    adoptKatexStyles(this.renderRoot);
    el.innerHTML = markup;
    el.classList.remove('pending');
    schedule(this);
  }

  connectedCallback() {
    super.connectedCallback();
    live.add(this);
    observer?.observe(this);
    watchFonts();
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    live.delete(this);
    queue.delete(this);
    observer?.unobserve(this);
    fittedAt.delete(this);
  }
}

if (!customElements.get('attn-tex')) customElements.define('attn-tex', AttnTex);
