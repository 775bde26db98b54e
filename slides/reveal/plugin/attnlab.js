// attnlab's reveal.js plugin: widgets step with the deck's fragments, and keys typed into a widget
// never move the slide.
//
//   import Reveal from 'reveal.js';
//   import AttnLab from 'attnlab/reveal';         // this file (package.json "exports": "./reveal")
//   import 'attnlab/slides/shared/widgets.js';    // registers every <attn-…> tag (lecture + slides-only)
//   new Reveal({ plugins: [AttnLab] }).initialize();
//
//   <section>
//     <attn-steps preset="football" data-attn-stages="1"></attn-steps>
//     <span class="fragment" data-attn-stage="2"></span>   <!-- scores -->
//     <span class="fragment" data-attn-stage="3"></span>   <!-- scaled -->
//     <span class="fragment" data-attn-stage="5"></span>   <!-- softmax -->
//   </section>
//
// A widget marked `data-attn-stages` gets `stage` = the largest `data-attn-stage` among the slide's
// shown fragments, or its own `data-attn-stages` value (default 0) before any is shown; stepping back
// hides the fragment and lowers the stage again. With several stepped widgets on one slide, name one
// (`data-attn-name="mha"`) and point fragments at it (`data-attn-for="mha"`); a fragment without
// `data-attn-for` drives every stepped widget of its slide. An element with `data-attn-stage` that is
// not a `.fragment` always counts as shown. The plugin only sets `stage`: inside a reveal.js slide a
// widget is in its slide layout (web/widgets/shared/widget.js, fit.js) and draws that stage in place,
// fitted to the slide. With `?print-pdf` each fragment step's copy of a slide (`.pdf-page`) gets its
// own stage (on reveal.js's `pdf-ready`).
//
// Layout: the stage fragments that follow a stepped widget in its slide (siblings after it, or after
// the paragraph markdown wraps it in) are the slide's stage markers: the plugin sets them in one line
// under the widget (inline blocks, 0.75 of the slide's type), so three `<p class="fragment"
// data-attn-stage=…>` lines take one line's height and the widget gets the rest of the slide (a
// stylesheet added once to the document; `attnlab: { inlineStages: false }` leaves them alone).
//
// A widget grows once its WASM module is ready and it has drawn: the plugin watches the widgets'
// sizes and asks reveal.js to lay the deck out again (with `center: true`, the default, a slide
// centred while its widget was still empty would otherwise keep that offset and run off the bottom).
//
// Keyboard: reveal.js sees keydown events from inputs inside a widget's shadow root as coming from
// the widget host, so it would change slides while someone types a number. Unless the deck sets its
// own `keyboardCondition`, the plugin installs one that ignores keys whose composedPath() passes
// through an INPUT, TEXTAREA, SELECT or contenteditable element. Options (`attnlab: { … }` in the
// Reveal config): `keyboardGuard: false` leaves keyboardCondition alone.

/** reveal.js keyboardCondition: false (ignore the key) when it was typed into a form control. */
export function notTypingInWidget(event) {
  const path = typeof event.composedPath === 'function' ? event.composedPath() : [event.target];
  return !path.some((n) => n && n.nodeType === 1
    && (n.tagName === 'INPUT' || n.tagName === 'TEXTAREA' || n.tagName === 'SELECT' || n.isContentEditable));
}

/** The stage markers' layout: one line of captions under the widget (see "Layout" above). */
export const STAGE_MARKER_CSS = `
.reveal .slides :is([data-attn-stages], :has(> [data-attn-stages])) ~ [data-attn-stage] {
  display: inline-block; margin: 0 0.8em 0 0; font-size: 0.75em; line-height: 1.1; vertical-align: top; }
.reveal .slides :is([data-attn-stages], :has(> [data-attn-stages])) ~ [data-attn-stage] :is(sub, sup) { line-height: 0; }
.reveal .slides :has(> [data-attn-stages]):has(~ [data-attn-stage]) { margin-bottom: 0.3em; }`;

function addStageMarkerStyle(doc) {
  if (!doc?.head || doc.getElementById('attnlab-reveal-stages')) return;
  const style = doc.createElement('style');
  style.id = 'attnlab-reveal-stages';
  style.textContent = STAGE_MARKER_CSS;
  doc.head.append(style);
}

/** The stage each stepped widget of `slide` should show, given which fragments are visible. */
export function stagesFor(slide) {
  const result = new Map();
  const fragments = [...slide.querySelectorAll('[data-attn-stage]')];
  for (const widget of slide.querySelectorAll('[data-attn-stages]')) {
    const name = widget.getAttribute('data-attn-name');
    let stage = Number(widget.getAttribute('data-attn-stages') || 0);
    for (const f of fragments) {
      const target = f.getAttribute('data-attn-for');
      if (target && target !== name) continue;
      // A stage fragment that is not a reveal fragment (no class) always applies.
      const shown = !f.classList.contains('fragment') || f.classList.contains('visible');
      if (shown) stage = Math.max(stage, Number(f.getAttribute('data-attn-stage')));
    }
    result.set(widget, stage);
  }
  return result;
}

// On a slide a widget draws the current stage in place (its slide layout), so setting `stage` is all
// a step needs: nothing to scroll.
function applyStages(slide) {
  if (!slide) return;
  for (const [widget, stage] of stagesFor(slide)) {
    if (widget.getAttribute('stage') !== String(stage)) widget.setAttribute('stage', String(stage));
  }
}

export default function AttnLab() {
  let deck = null;
  const onChange = () => applyStages(deck.getCurrentSlide());
  // ?print-pdf lays every slide out once per fragment step (pdfSeparateFragments), each copy in its own
  // .pdf-page with that step's fragments marked visible: each copy gets its own stage.
  const onPdf = () => document.querySelectorAll('.reveal .pdf-page').forEach((page) => applyStages(page));
  const events = ['ready', 'slidechanged', 'fragmentshown', 'fragmenthidden'];
  // Widgets whose size changed: one deck.layout() in the next frame.
  let sizes = null, frame = 0;
  const relayout = () => {
    // (Not in the print view: its pages are laid out once, each as tall as the slide it holds.)
    if (frame || typeof requestAnimationFrame !== 'function' || deck?.isPrintView?.()) return;
    frame = requestAnimationFrame(() => { frame = 0; deck?.layout(); });
  };
  const watchSizes = () => {
    if (sizes || typeof ResizeObserver !== 'function') return;
    sizes = new ResizeObserver(relayout);
    for (const el of deck.getSlidesElement?.()?.querySelectorAll('*') ?? []) {
      if (el.tagName.startsWith('ATTN-')) sizes.observe(el);
    }
  };
  return {
    id: 'attnlab',
    init(reveal) {
      deck = reveal;
      const options = { keyboardGuard: true, inlineStages: true, ...(deck.getConfig().attnlab ?? {}) };
      // The slide's height for the widgets' fit (fit.js), also where the print view does not size the canvas.
      const height = deck.getConfig().height;
      if (typeof height === 'number') deck.getRevealElement?.()?.style.setProperty('--attn-slide-height', `${height}px`);
      if (options.inlineStages) addStageMarkerStyle(deck.getRevealElement?.()?.ownerDocument ?? globalThis.document);
      if (options.keyboardGuard && typeof deck.getConfig().keyboardCondition !== 'function')
        deck.configure({ keyboardCondition: notTypingInWidget });
      for (const e of events) deck.on(e, onChange);
      deck.on('pdf-ready', onPdf);
      deck.on('ready', watchSizes);  // after every plugin (markdown writes its slides first)
      // Every slide starts at its widgets' base stage, so the overview and print view are consistent.
      for (const slide of deck.getSlides()) applyStages(slide);
    },
    destroy() {
      for (const e of events) deck?.off(e, onChange);
      deck?.off('pdf-ready', onPdf);
      deck?.off('ready', watchSizes);
      sizes?.disconnect();
      sizes = null;
      deck = null;
    },
  };
}
