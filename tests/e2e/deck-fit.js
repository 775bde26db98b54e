// Walks a built deck the way a lecturer presents it — every slide, every click (Slidev) or fragment
// (reveal.js) — at 1280×720, and reports for every attnlab widget on screen what the audience would
// miss: content outside the slide or in a clipping box, cell numbers under 18 px, and a stage that
// is not the one the click asked for. Used by slides-fit.e2e.test.js (asserts no problems) and by
// deck-fit-report.mjs (prints them while working on a layout).
import { fitReport } from './fit-check.js';

// In the page: the attnlab widgets visible on `slide`, each with its stage as set by the deck and as
// drawn (the highlighted item of the stage strip).
function visibleWidgets(slideSel) {
  const slide = document.querySelector(slideSel);
  const out = [];
  slide?.querySelectorAll('*').forEach((el, i) => {
    const tag = el.tagName.toLowerCase();
    if (!tag.startsWith('attn-') || tag === 'attn-event') return;
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
    await page.evaluate(() => new Promise((r) => setTimeout(r, 350)));  // the slide transition
    const r = await checkWidgets(page, '[data-fit-current]', '.reveal .slides', at);
    widgets += r.widgets.length;
    problems.push(...r.problems);
    if (await page.evaluate(() => window.deck.isLastSlide() && !window.deck.availableFragments().next)) break;
    await page.evaluate(() => window.deck.next());
  }
  return { problems, steps, widgets };
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
