// Walks a built deck the way a lecturer presents it — every slide, every click (Slidev) or fragment
// (reveal.js) — at 1280×720, and reports for every attnlab widget on screen what the audience would
// miss: content outside the slide or in a clipping box, cell numbers under 18 px, and a stage that
// is not the one the click asked for. Used by slides-fit.e2e.test.js (asserts no problems) and by
// deck-fit-report.mjs (prints them while working on a layout).
import { fitReport } from './fit-check.js';

/** The smallest text the audience is asked to read (glyph box on a 1280×720 screen, px). */
export const MIN_TEXT = 14;

// In the page: every piece of text an attn-* element draws (through shadow roots, HTML and SVG,
// KaTeX included) whose glyph box on screen is under `min` px — the "legible from the back row" rule
// for all text, not only the cell numbers fitReport checks at 18 px. HTML text is measured with a
// Range around the text node (its font's content box, as the audience sees it, after the deck's
// scaling); SVG text by its own box (getBBox) times the screen scale. Hidden text (display/visibility, opacity under 0.5,
// screen-reader-only, KaTeX's MathML copy) and zero-size text are not counted. Self-contained.
export function textReport({ widget, min = 14 }) {
  const host = typeof widget === 'string' ? document.querySelector(widget) : widget;
  const small = [];
  let count = 0;
  const parentOf = (n) => n.assignedSlot ?? n.parentElement ?? (n.parentNode instanceof ShadowRoot ? n.parentNode.host : null);
  const hidden = (el) => {
    let o = 1;
    for (let n = el; n; n = parentOf(n)) {
      const cs = getComputedStyle(n);
      if (cs.display === 'none' || cs.visibility === 'hidden') return true;
      o *= Number(cs.opacity);
      if (n.matches?.('.sr-only, .katex-mathml, defs, title, details:not([open]) > :not(summary)')) return true;
    }
    return o < 0.5;
  };
  const range = document.createRange();
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (['STYLE', 'SCRIPT', 'TEMPLATE', 'OPTION'].includes(el.tagName.toUpperCase())) continue;
      const texts = [...el.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim());
      if (!texts.length) continue;
      const svg = el instanceof SVGElement;
      let h = Infinity, w = 0;
      for (const t of texts) {
        // SVG text: its box in its own coordinates times the screen scale, so a turned label (a
        // rotated axis title, a heatmap's −60° column labels) is measured across its glyphs.
        if (svg) {
          const b = el.getBBox?.(), m = el.getScreenCTM?.();
          if (b && m) { h = Math.min(h, b.height * Math.hypot(m.a, m.b)); w += b.width; } else { const r = el.getBoundingClientRect(); h = Math.min(h, r.height); w += r.width; }
          break;
        }
        range.selectNodeContents(t);
        for (const r of range.getClientRects()) { if (r.width > 0.5) { h = Math.min(h, r.height); w += r.width; } }
      }
      if (!w || h === Infinity || hidden(el)) continue;
      count++;
      if (h < min - 0.05) small.push({ text: el.textContent.trim().slice(0, 30), height: Math.round(h * 10) / 10, el: el.tagName.toLowerCase() + (typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/)[0]}` : '') });
    }
  };
  walk(host.shadowRoot ?? host);
  if (host.shadowRoot) walk(host);  // slotted / light-DOM text a component shows
  return { count, small };
}

// In the page: the attnlab widgets visible on `slide`, each with its stage as set by the deck and as
// drawn (the highlighted item of the stage strip).
function visibleWidgets(slideSel) {
  const slide = document.querySelector(slideSel);
  const out = [];
  // Ids are indices within this slide: an earlier slide's ids (Slidev keeps nearby slides mounted) would
  // match first, and the checks would read that slide's widget instead of this one.
  document.querySelectorAll('[data-fit-id]').forEach((el) => el.removeAttribute('data-fit-id'));
  slide?.querySelectorAll('*').forEach((el, i) => {
    const tag = el.tagName.toLowerCase();
    // attnlab's elements, and a deck's own figures marked data-attn-figure (Slidev's BPE, LR and LayerNorm demos).
    if ((!tag.startsWith('attn-') && !el.hasAttribute('data-attn-figure')) || tag === 'attn-event') return;
    if (el.parentElement?.closest('[class^="attn-"], [class*=" attn-"]') && el.parentElement.closest('attn-timeline')) return;
    const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
    if (!r.width || !r.height || cs.visibility === 'hidden' || el.closest('.slidev-vclick-hidden, .fragment:not(.visible)')) return;
    let o = 1;
    for (let n = el; n; n = n.parentElement) o *= Number(getComputedStyle(n).opacity);
    if (o < 0.5) return;
    el.setAttribute('data-fit-id', String(i));
    const strip = el.shadowRoot?.querySelector('.stagestrip');
    const drawn = strip ? [...strip.children].findIndex((li) => li.classList.contains('current')) : null;
    const stepper = el.closest('.attn-stepper');
    out.push({ id: String(i), tag, stage: el.getAttribute('stage'), drawn,
      asked: stepper ? stepper.getAttribute('data-stage') : el.hasAttribute('data-attn-stages') ? el.getAttribute('stage') : null });
  });
  return out;
}

// In the page: the small maps (at most `most` cells: a Q, K or S of a few tokens) a widget draws as
// specks — cells under `cell` px on screen. Such a map is read cell by cell; a map the stage computes
// from may be drawn smaller and without numbers, but not too small to see. Self-contained.
export function speckMaps({ widget, most = 16, cell = 24 }) {
  const host = typeof widget === 'string' ? document.querySelector(widget) : widget;
  const out = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (el.tagName !== 'ATTN-HEATMAP' || !el.rows || !el.cols || el.rows * el.cols > most) continue;
      const r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1 || getComputedStyle(el).visibility === 'hidden') continue;
      const c = el.shadowRoot?.querySelector('svg rect')?.getBoundingClientRect();
      if (c && Math.min(c.width, c.height) < cell) out.push(`${el.label || 'a map'} (${el.rows}×${el.cols}, cells ${Math.round(c.width)} px)`);
    }
  };
  walk(host.shadowRoot ?? host);
  return out;
}

// In the page: the slide's own content (text, formulas, pictures) that runs into a widget on it or
// past the slide's edge — the deck's part of "nothing hidden", e.g. a formula wider than its column.
function deckOverlaps([slideSel, boxSel]) {
  const slide = document.querySelector(slideSel), box = document.querySelector(boxSel).getBoundingClientRect();
  // A widget in an overlay (an absolutely placed box, e.g. reveal's fade-in-then-out image overlay) covers
  // the text on purpose; the others must not meet it.
  const overlay = (w) => { for (let n = w.parentElement; n && n !== slide; n = n.parentElement) if (['absolute', 'fixed'].includes(getComputedStyle(n).position)) return true; return false; };
  const widgets = [...slide.querySelectorAll('[data-fit-id]')].filter((w) => !overlay(w)).map((w) => w.getBoundingClientRect());
  const out = [];
  const visible = (el) => {
    for (let n = el; n && n !== slide; n = n.parentElement) {
      const cs = getComputedStyle(n);
      if (cs.display === 'none' || cs.visibility === 'hidden' || Number(cs.opacity) < 0.5) return false;
    }
    return true;
  };
  for (const el of slide.querySelectorAll('.katex-display > .katex, p, li, h1, h2, h3, pre, img, table')) {
    if (el.closest('[data-fit-id], .slidev-vclick-hidden, .fragment:not(.visible), aside.notes, .notes') || !visible(el)) continue;
    if (el.querySelector('[data-fit-id]')) continue;  // the box around a widget (markdown wraps it in a <p>), not content beside it
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    const name = `${el.tagName.toLowerCase()} "${el.textContent.trim().slice(0, 40)}"`;
    if (r.left < box.left - 2 || r.right > box.right + 2 || r.bottom > box.bottom + 2) out.push(`deck content past the slide edge: ${name}`);
    for (const w of widgets) {
      const dx = Math.min(r.right, w.right) - Math.max(r.left, w.left), dy = Math.min(r.bottom, w.bottom) - Math.max(r.top, w.top);
      if (dx > 4 && dy > 4) { out.push(`deck content runs into a widget: ${name}`); break; }
    }
  }
  return out;
}

async function checkWidgets(page, slideSel, boxSel, where) {
  // Let widgets finish loading and re-laying out (ResizeObserver → render → KaTeX fit).
  await page.waitForFunction((sel) => ![...(document.querySelector(sel)?.querySelectorAll('*') ?? [])]
    .some((el) => el.shadowRoot?.querySelector('.loading')), slideSel, { timeout: 30000 }).catch(() => {});
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 150)))));
  const widgets = await page.evaluate(visibleWidgets, slideSel);
  const problems = (await page.evaluate(deckOverlaps, [slideSel, boxSel])).map((p) => `${where}: ${p}`);
  for (const w of widgets) {
    const r = await page.evaluate(fitReport, { widget: `[data-fit-id="${w.id}"]`, slide: boxSel });
    const at = `${where} <${w.tag}>`;
    for (const o of r.outside.slice(0, 3)) problems.push(`${at}: outside ${o.clip}: ${o.el} ${JSON.stringify(o.rect)} (slide ${JSON.stringify(r.box)})`);
    if (r.outside.length > 3) problems.push(`${at}: … ${r.outside.length - 3} more outside`);
    if (r.small.length) problems.push(`${at}: ${r.small.length} numbers under 18 px, e.g. "${r.small[0].text}" ${r.small[0].height} px`);
    const specks = await page.evaluate(speckMaps, { widget: `[data-fit-id="${w.id}"]` });
    if (specks.length) problems.push(`${at}: ${specks.length} small maps drawn as specks: ${specks.slice(0, 3).join(', ')}`);
    const t = await page.evaluate(textReport, { widget: `[data-fit-id="${w.id}"]`, min: MIN_TEXT });
    if (t.small.length) problems.push(`${at}: ${t.small.length} of ${t.count} texts under ${MIN_TEXT} px, e.g. ${t.small.slice(0, 3).map((s) => `"${s.text}" ${s.height} px (${s.el})`).join(', ')}`);
    if (w.drawn !== null && w.stage !== null && String(w.drawn) !== w.stage) problems.push(`${at}: stage ${w.stage} set, ${w.drawn} drawn`);
    if (w.asked !== null && w.asked !== w.stage) problems.push(`${at}: stage ${w.asked} asked, ${w.stage} set`);
  }
  return { widgets, problems };
}

/** Where a Slidev deck is: "#/12?clicks=3" → { no: 12, clicks: 3 }. */
export function slidevAt(page) {
  return page.evaluate(() => {
    const m = location.hash.match(/#\/(\d+)(?:\?clicks=(\d+))?/);
    return m ? { no: Number(m[1]), clicks: Number(m[2] ?? 0) } : null;
  });
}

/** Presses → and waits until the deck leaves `at` (at the last click nothing changes: it gives up after 1.5 s). */
export async function slidevNext(page, at) {
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(([no, clicks]) => {
    const m = location.hash.match(/#\/(\d+)(?:\?clicks=(\d+))?/);
    return m && (Number(m[1]) !== no || Number(m[2] ?? 0) !== clicks);
  }, [at.no, at.clicks], { timeout: 1500 }).catch(() => {});
}

/** Every Slidev slide and click; `url` is the built deck's index.html. */
export async function walkSlidev(page, url) {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(`${url}#/1`);
  await page.locator('.slidev-page-1').first().waitFor();
  const problems = [];
  let last = null, steps = 0, widgets = 0;
  for (; steps < 500; steps++) {
    const at = await slidevAt(page);
    if (last && at.no === last.no && at.clicks === last.clicks) break;
    const sel = `#slide-content .slidev-page-${at.no}`;
    await page.locator(`${sel} .slidev-layout`).first().waitFor();  // the content, not only its wrapper
    const r = await checkWidgets(page, sel, sel, `slide ${at.no} click ${at.clicks}`);
    widgets += r.widgets.length;
    problems.push(...r.problems);
    last = at;
    await slidevNext(page, last);
  }
  return { problems, steps, widgets };
}

/** In the page: the texts of the current slide's widgets that reveal.js's visible arrows cover. */
function underControls() {
  const arrows = [...document.querySelectorAll('.reveal .controls button.enabled')].map((b) => b.getBoundingClientRect())
    .filter((r) => r.width && r.height);
  const hits = [];
  const visit = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) visit(el.shadowRoot);
      const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (!own || !el.getClientRects().length || getComputedStyle(el).visibility === 'hidden') continue;
      const r = el.getBoundingClientRect();
      if (arrows.some((a) => r.left < a.right && r.right > a.left && r.top < a.bottom && r.bottom > a.top)) hits.push(el.textContent.trim().slice(0, 30));
    }
  };
  const slide = document.querySelector('[data-fit-current]');
  for (const w of slide ? slide.querySelectorAll('*') : [])
    if (w.shadowRoot && w.localName.startsWith('attn-') && !w.closest('.fragment:not(.visible)')) visit(w.shadowRoot);
  return hits;
}

/** Every reveal.js slide and fragment; `url` is the built deck's index.html. */
export async function walkReveal(page, url) {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(url);
  await page.waitForFunction(() => window.deck?.isReady?.());
  const problems = [];
  let steps = 0, widgets = 0;
  for (; steps < 500; steps++) {
    const at = await page.evaluate(() => {
      const { h, v, f } = window.deck.getIndices();
      document.querySelectorAll('[data-fit-current]').forEach((s) => s.removeAttribute('data-fit-current'));
      window.deck.getCurrentSlide().setAttribute('data-fit-current', '');
      return `slide ${h + 1}${v ? `.${v}` : ''} fragment ${f ?? -1}`;
    });
    // The slide transition (a deck's own may be reveal.js's default 'slide', 0.8 s): until the current
    // slide stops moving.
    await page.evaluate(async () => {
      const at = () => JSON.stringify(window.deck.getCurrentSlide().getBoundingClientRect());
      await new Promise((r) => setTimeout(r, 350));
      for (let i = 0, last = at(); i < 40; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const now = at();
        if (now === last) break;
        last = now;
      }
    });
    const r = await checkWidgets(page, '[data-fit-current]', '.reveal .slides', at);
    widgets += r.widgets.length;
    problems.push(...r.problems);
    problems.push(...(await page.evaluate(underControls)).map((t) => `${at}: "${t}" under reveal.js's navigation arrows`));
    if (await page.evaluate(() => window.deck.isLastSlide() && !window.deck.availableFragments().next)) break;
    await page.evaluate(() => window.deck.next());
  }
  return { problems, steps, widgets };
}

/**
 * The built reveal.js deck at `url`, 1280×720, on the first slide holding `selector` (at its fragment
 * `fragment`, if given); that slide gets the attribute `mark`, so a test can scope its queries to it.
 * Returns the slide's index, or −1 when no slide holds the selector (the page stays on slide 0).
 */
export async function revealSlideWith(page, url, selector, mark, fragment) {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(url);
  await page.waitForFunction(() => window.deck?.isReady());
  const idx = await page.evaluate((sel) => window.deck.getSlides().findIndex((s) => s.querySelector(sel)), selector);
  if (idx < 0) return idx;
  await page.evaluate(([i, m, f]) => {
    const s = window.deck.getSlides()[i];
    s.setAttribute(m, '');
    const [h, v] = Object.values(window.deck.getIndices(s));
    if (f === null) window.deck.slide(h, v);
    else window.deck.slide(h, v, f);
  }, [idx, mark, fragment ?? null]);
  return idx;
}

// The number of the first Slidev slide on which `selector` ({n} = the slide number) matches, or −1.
// Waits for each slide to be rendered rather than sleeping a fixed time (a loaded machine renders
// slowly); past the last slide no page appears and the search ends.
export function findSlide(page, selector) {
  return page.evaluate(async (sel) => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    for (let n = 1; n < 200; n++) {
      location.hash = `#/${n}`;
      let waited = 0;
      // Slidev mounts the page's wrapper first and its content (an async component) later: wait for the
      // content's layout, not the wrapper, or a loaded machine skips the slide being looked for.
      const mounted = () => document.querySelector(`.slidev-page-${n} .slidev-layout`);
      while (!mounted() && waited < 15000) {  // a loaded machine renders slowly
        await new Promise((r) => setTimeout(r, 20));
        waited += 20;
      }
      if (!mounted()) return -1;
      await frame();  // let the page's components (the stepper's stage) settle
      if (document.querySelector(sel.replaceAll('{n}', String(n)))) return n;
    }
    return -1;
  }, selector);
}
