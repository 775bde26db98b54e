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
// `data-attn-for` drives every stepped widget of its slide.
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

// The nearest scrolling box around a widget (a tall widget in a fixed-height slide column).
function scroller(el) {
  for (let n = el.parentElement; n && !n.classList.contains('slides'); n = n.parentElement) {
    const o = getComputedStyle(n).overflowY;
    if ((o === 'auto' || o === 'scroll') && n.scrollHeight > n.clientHeight) return n;
  }
  return null;
}

function applyStages(slide, follow = false) {
  if (!slide) return;
  for (const [widget, stage] of stagesFor(slide)) {
    if (widget.getAttribute('stage') === String(stage)) continue;
    const rising = stage > Number(widget.getAttribute('stage') ?? -1);
    widget.setAttribute('stage', String(stage));
    // A widget shows every stage up to `stage`, newest last: keep the newest one in view.
    if (follow && rising) Promise.resolve(widget.updateComplete).then(() => {
      const box = scroller(widget);
      if (box) box.scrollTo({ top: box.scrollHeight, behavior: 'smooth' });
    });
  }
}

export default function AttnLab() {
  let deck = null;
  const onChange = () => applyStages(deck.getCurrentSlide(), true);
  const events = ['ready', 'slidechanged', 'fragmentshown', 'fragmenthidden'];
  return {
    id: 'attnlab',
    init(reveal) {
      deck = reveal;
      const options = { keyboardGuard: true, ...(deck.getConfig().attnlab ?? {}) };
      if (options.keyboardGuard && typeof deck.getConfig().keyboardCondition !== 'function')
        deck.configure({ keyboardCondition: notTypingInWidget });
      for (const e of events) deck.on(e, onChange);
      // Every slide starts at its widgets' base stage, so the overview and print view are consistent.
      for (const slide of deck.getSlides()) applyStages(slide);
    },
    destroy() {
      for (const e of events) deck?.off(e, onChange);
      deck = null;
    },
  };
}
