import { heatmapSize } from './heatmap.js';

// Fitting a widget into the box a slide (or any fixed-size container) gives it.
//
// A widget in slide layout draws everything inside a box of `{ width, height }` CSS pixels (the
// slide's own, unscaled units: Slidev and reveal.js scale the whole slide canvas afterwards). The
// width is the host's; the height is what the slide has left for it — like reveal.js's `r-stretch`:
// the slide's inner height minus everything else on it (headings above, captions below), measured on
// the laid-out page so that two-column layouts and centred reveal.js sections work the same way.

/** Ancestors that are a slide: Slidev's layout box, a reveal.js slide, or a box marked by the page. */
export const SLIDE_SELECTOR = '[data-attn-slide], .slidev-layout, .reveal .slides > section, .reveal .slides > section > section, .reveal .pdf-page > section';

/** The slide element `el` sits in (crossing no shadow roots), or null. */
export function slideOf(el) {
  return el.closest?.(SLIDE_SELECTOR) ?? null;
}

const px = (v) => parseFloat(v) || 0;

/**
 * The box a widget host may fill, in its own CSS pixels: { width, height }, or null while it is not
 * laid out (a hidden slide). `fitHeight` (from the `fit-height` attribute) wins over the slide's.
 */
export function measureBox(host, fitHeight) {
  const width = host.clientWidth;
  if (!width) return null;
  if (fitHeight > 0) return { width, height: fitHeight };
  const slide = slideOf(host);
  const hostRect = host.getBoundingClientRect();
  // Screen pixels per CSS pixel: the deck's transform (or zoom) of the slide canvas.
  const scale = hostRect.width / host.offsetWidth || 1;
  if (!slide) {
    // Not on a slide: the viewport's height below the host's top, as the page scrolls to it.
    return { width, height: Math.max(120, Math.floor(window.innerHeight - 16)) };
  }
  const cs = getComputedStyle(slide);
  const reveal = !slide.classList.contains('slidev-layout') && slide.closest('.reveal');
  // The slide's inner height: reveal.js sections are as tall as their content (the slide canvas is
  // their parent), Slidev's layout box is the slide.
  // (In reveal.js's ?print-pdf view each slide sits in a .pdf-page of the slide's size.)
  const canvas = reveal ? slide.parentElement.closest('.pdf-page, .slides') : slide;
  // reveal.js's print view lets the canvas grow with its slides before it cuts them into pages (a
  // widget measuring it would grow without end): attnlab's plugin states the slide height in
  // --attn-slide-height on the deck, and that is the height to fit.
  const stated = reveal ? px(cs.getPropertyValue('--attn-slide-height')) : 0;
  const inner = stated || canvas.clientHeight - (reveal ? 0 : px(cs.paddingTop) + px(cs.paddingBottom));
  return { width, height: Math.max(80, Math.floor(inner - stackedAround(host, slide, scale) - 2)) };
}

/**
 * The height (CSS px) of what is stacked above and below `host` on its slide: at each level from the
 * host up to the slide, the siblings that share its column (a sibling beside it, like the other
 * column of a two-column slide, takes no height from it), plus the paddings of the boxes between.
 * Independent of where the slide is scrolled or centred, so a widget that grows converges.
 */
function stackedAround(host, slide, scale) {
  let others = 0;
  for (let a = host; a && a !== slide; a = a.parentElement) {
    const parent = a.parentElement;
    if (!parent) break;
    const ar = a.getBoundingClientRect(), acs = getComputedStyle(a);
    let top = ar.top - px(acs.marginTop) * scale, bottom = ar.bottom + px(acs.marginBottom) * scale;
    for (const sib of parent.children) {
      if (sib === a) continue;
      const scs = getComputedStyle(sib);
      if (scs.position === 'absolute' || scs.position === 'fixed' || scs.display === 'none') continue;
      const r = sib.getBoundingClientRect();
      if (!r.height || r.right <= ar.left + 1 || r.left >= ar.right - 1) continue;  // beside, not above or below
      top = Math.min(top, r.top - px(scs.marginTop) * scale);
      bottom = Math.max(bottom, r.bottom + px(scs.marginBottom) * scale);
    }
    others += (bottom - top) / scale - a.offsetHeight;
    if (parent !== slide) {
      const pcs = getComputedStyle(parent);
      others += px(pcs.paddingTop) + px(pcs.paddingBottom) + px(pcs.borderTopWidth) + px(pcs.borderBottomWidth);
    }
  }
  return Math.max(0, others);
}

/**
 * The largest square cell (px) for a grid of rows × cols inside w × h, clamped to [lo, hi].
 * Widgets use it to let cells grow to the space a slide gives.
 */
export function cellFor(rows, cols, w, h, lo = 4, hi = 120) {
  return Math.max(lo, Math.min(hi, Math.floor(w / Math.max(1, cols)), Math.floor(h / Math.max(1, rows))));
}

/**
 * Heatmaps side by side in one row of `width` × `height`: the largest cells for which every figure
 * fits. `panels[i]` are <attn-heatmap> options (rows, cols, rowLabels, colLabels, label, compact,
 * legend) plus `weight`: its cell relative to the main one (1 = main, 0.6 = a smaller context map).
 * Returns, per panel, the { fitWidth, fitHeight } to give the heatmap and the cell it will get.
 */
export function packRow(panels, width, height, { gap = 16, maxCell = 110, minCell = 8 } = {}) {
  const sizes = (c) => panels.map((p) => heatmapSize(p, Math.max(4, Math.floor(c * (p.weight ?? 1)))));
  const fits = (c) => {
    const s = sizes(c);
    return s.reduce((a, z) => a + z.width + 3, 0) + gap * (panels.length - 1) <= width && s.every((z) => z.height + 3 <= height);
  };
  let lo = minCell, hi = maxCell;
  if (!fits(lo)) hi = lo;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid; else hi = mid - 1;
  }
  return { cell: lo, fits: fits(lo), panels: sizes(lo).map((z, i) => ({ fitWidth: z.width + 3, fitHeight: z.height + 3, cell: Math.max(4, Math.floor(lo * (panels[i].weight ?? 1))) })) };
}

/**
 * The best arrangement of heatmaps in a box: one row or two, the legend beside or under the cells,
 * row labels once per row when the maps share their rows (`shareRows` on a panel), and in a small box
 * without the context maps (weight < 1) so the main ones stay readable. Returns
 * { rows: [[{ ...panel, fitWidth, fitHeight, legendPos, noRowLabels }, …], …] } with the largest
 * main cell (ties: fewer rows).
 */
export function packPanels(panels, width, height, options = {}) {
  const all = arrange(panels, width, height, options);
  const main = panels.filter((p) => (p.weight ?? 1) >= 1);
  if (main.length === panels.length || !main.length || (all.fits && all.cell >= 40)) return all;
  const fewer = arrange(main, width, height, options);
  return fewer.fits && fewer.cell > all.cell ? fewer : all;
}

function arrange(panels, width, height, { gap = 16, rowGap = 8, maxCell = 110 } = {}) {
  let best = null;
  for (const nRows of panels.length > 1 ? [1, 2] : [1]) {
    const split = nRows === 1 ? [panels] : [panels.slice(0, Math.ceil(panels.length / 2)), panels.slice(Math.ceil(panels.length / 2))];
    for (const legendPos of ['right', 'bottom']) {
      const rowsOut = [];
      let cell = Infinity, ok = true;
      for (const row of split) {
        const prepared = row.map((p, i) => ({ ...p, legendPos, noRowLabels: !!p.shareRows && i > 0 && row[i - 1].rows === p.rows }));
        const r = packRow(prepared, width, (height - rowGap * (nRows - 1)) / nRows, { gap, maxCell });
        ok &&= r.fits;
        cell = Math.min(cell, r.cell);
        rowsOut.push(prepared.map((p, i) => ({ ...p, ...r.panels[i] })));
      }
      const score = (ok ? 1e6 : 0) + cell * 10 - nRows;
      if (!best || score > best.score) best = { score, rows: rowsOut, cell, fits: ok };
    }
  }
  return best;
}
