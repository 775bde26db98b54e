// What the audience would miss: run inside the page (page.evaluate(fitReport, args)), it walks every
// element an attn-* widget renders (through shadow roots) and reports
//   - outside: an element that lies (partly) outside the slide box, or outside an ancestor that clips
//     (overflow other than visible: a scroll box a lecturer cannot scroll while presenting);
//   - small: a number drawn in a heatmap cell or on its colour bar whose glyph box is under `minGlyph` px
//     on screen;
// plus the numbers shown (for tests that look for the notes' values on screen).
// Self-contained (no imports, no closures): Playwright serialises it into the page.
export function fitReport({ widget, slide, minGlyph = 18, tolerance = 1.5 }) {
  const host = typeof widget === 'string' ? document.querySelector(widget) : widget;
  const box = (typeof slide === 'string' ? document.querySelector(slide) : slide).getBoundingClientRect();
  const outside = [], small = [], numbers = [];
  const parentOf = (n) => n.assignedSlot ?? n.parentElement ?? (n.parentNode instanceof ShadowRoot ? n.parentNode.host : null);
  const skip = (el) => {
    const cs = getComputedStyle(el);
    return cs.display === 'none' || cs.visibility === 'hidden' || el.closest('.sr-only, defs, details:not([open]) > :not(summary)')
      || ['STYLE', 'SCRIPT', 'DEFS', 'STOP', 'LINEARGRADIENT', 'TITLE', 'TEMPLATE', 'ANNOTATION', 'MATH', 'SEMANTICS', 'MROW', 'MI', 'MO', 'MN'].includes(el.tagName.toUpperCase())
      || el.closest?.('.katex-mathml');
  };
  const name = (el) => `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}`;
  const path = (el) => {
    const parts = [];
    for (let n = el; n && n !== host && parts.length < 6; n = parentOf(n)) parts.unshift(name(n));
    return parts.join(' > ');
  };
  const out = (r, c) => r.left < c.left - tolerance || r.top < c.top - tolerance || r.right > c.right + tolerance || r.bottom > c.bottom + tolerance;
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (skip(el)) continue;
      // KaTeX clips its own wide glyph pieces (a √ sign's tail) on purpose: judge what it shows.
      if (el.closest('.katex') && el.closest('.hide-tail, .katex svg')) continue;
      const r = el.getBoundingClientRect();
      if (r.width < 0.5 || r.height < 0.5) continue;
      if (out(r, box)) { outside.push({ el: path(el), rect: [r.left, r.top, r.right, r.bottom].map(Math.round), clip: 'slide' }); continue; }
      // Every ancestor (up to the slide) whose overflow is not visible clips this element.
      for (let a = parentOf(el); a && a !== document.body; a = parentOf(a)) {
        const cs = getComputedStyle(a);
        if (cs.overflowX !== 'visible' || cs.overflowY !== 'visible') {
          const c = a.getBoundingClientRect();
          if (out(r, c)) { outside.push({ el: path(el), rect: [r.left, r.top, r.right, r.bottom].map(Math.round), clip: name(a) }); break; }
        }
      }
      // Numbers: a heatmap cell's (text.num) and a colour bar's labels (<g class="legend"> text: "0.00",
      // "0.50", "1.00", the range the colours stand for — read like the cells, so held to the same size).
      if (el.tagName.toLowerCase() === 'text' && (el.classList.contains('num') || (el.closest('g.legend') && /\d/.test(el.textContent)))) {
        numbers.push(el.textContent.trim());
        if (r.height < minGlyph) small.push({ el: path(el), text: el.textContent, height: Math.round(r.height * 10) / 10 });
      }
    }
  };
  walk(host.shadowRoot ?? host);
  return { outside, small, numbers, box: [box.left, box.top, box.right, box.bottom].map(Math.round) };
}
