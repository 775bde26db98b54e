// The built app in real Chromium: it loads, computes in WASM, shows the notes' numbers, and stays
// on localhost with no console errors.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BASE_URL, launch, watchedPage } from './browser.js';
import { drawn, scrollThrough } from './reader.js';

let browser;
beforeAll(async () => { browser = await launch(); });
// The app at 1440 × 900, once <attn-steps> shows its first attention weights.
async function openAtFirstNumbers() {
  const watched = await watchedPage(browser.context);
  await watched.page.setViewportSize({ width: 1440, height: 900 });
  await watched.page.goto(BASE_URL());
  await watched.page.locator('attn-steps attn-heatmap.weights table td').first().waitFor({ state: 'attached' });
  return watched;
}
afterAll(async () => { await browser?.close(); });
/** Until the page's fonts have loaded and two frames have passed (formulas and maps laid out in them). */
const fontsSettled = (page) => page.evaluate(async () => {
  await document.fonts.ready;
  await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
});

describe('app', () => {
  test('loads with no console errors, no request off localhost, and shows the notes’ weights', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.goto(BASE_URL());
    // The step-by-step widget's weights and output heatmaps keep their numbers in a table.
    const weights = page.locator('attn-steps[preset="football"] attn-heatmap.weights table td');
    await weights.first().waitFor({ state: 'attached' });
    const cells = await weights.allTextContents();
    expect(cells.slice(0, 3)).toEqual(['0.3233', '0.3941', '0.2826']);
    const out = await page.locator('attn-steps[preset="football"] attn-heatmap.output table td').allTextContents();
    expect(out.slice(0, 2)).toEqual(['1.0137', '0.2561']);
    expect(problems).toEqual([]);
  });
});

// Widgets below the fold draw when the reader comes near them (web/widgets/shared/lazy.js), the next
// ones (within lazy.js's AHEAD_MARGIN) ahead of the reader when the page is idle, the farther ones only
// when the reader comes closer; until then each is a placeholder of its size.
const TAGS = ['attn-steps', 'attn-convex', 'attn-kernel-regression', 'attn-why-scale',
  // Two cross-attention widgets: the hand-set sentences and the trained numbers model.
  'attn-cross:not([trained])', 'attn-cross[trained]', 'attn-multihead', 'attn-batched',
  'attn-positional', 'attn-rope', 'attn-block', 'attn-cost', 'attn-train'];

describe('lazy widgets', () => {
  // A placeholder as tall as its widget once drawn: the page's height and the scroll bar do not change
  // as the widgets draw, and a widget drawn above the reader does not move the page under them.
  // (app.css's values are measured at these widths; the tolerance leaves room for a font's rounding.)
  // Nor is a widget drawn much shorter than that on its way (widget.js, firstDrawPending: a widget that
  // loads a model or snapshots, or fills a table a row per task, keeps its placeholder's height until
  // then): attn-model was drawn 198 px tall for ~0.5 s (its loading line) and attn-train 917 px, so the
  // page shrank under a reader who had jumped to the last section. (Up to ~90 px at 390 px come and go
  // in a frame or two as formulas are typeset and plots take the column's width: allowed.)
  for (const [width, height] of [[1440, 900], [1024, 768], [820, 1180], [768, 1024], [390, 844]]) {
    test(`at ${width} px, every widget once drawn is about as tall as its placeholder, and never much shorter on its way`, async () => {
      const { page, problems } = await watchedPage(browser.context);
      await page.setViewportSize({ width, height });
      // Every frame: each widget's smallest height since its placeholder went (its own drawing).
      await page.addInitScript(() => {
        const least = window.__leastDrawn = new Map();
        const frame = () => {
          for (const el of document.querySelectorAll('main section > *')) {
            const wrap = el.localName.startsWith('attn-') && el.shadowRoot?.querySelector('.wrap');
            if (!wrap || wrap.hasAttribute('data-lazy-placeholder')) continue;
            least.set(el, Math.min(least.get(el) ?? Infinity, Math.round(el.getBoundingClientRect().height)));
          }
          requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
      });
      await page.goto(BASE_URL());
      await scrollThrough(page);
      // Until every widget's first draw is over (nothing held at its placeholder's height any more).
      await page.waitForFunction(() => [...document.querySelectorAll('main section > *')].every((el) =>
        !el.localName.startsWith('attn-') || !el.shadowRoot?.querySelector('.wrap.partial, .wrap.placeholder')), null, { timeout: 60000, polling: 100 });
      await fontsSettled(page);
      await page.waitForTimeout(1000);
      const sizes = await page.evaluate(() => [...document.querySelectorAll('main section > *')]
        .filter((el) => el.localName.startsWith('attn-'))
        .map((el) => ({ tag: el.localName + (el.hasAttribute('trained') ? '[trained]' : ''), h: Math.round(el.getBoundingClientRect().height),
          least: window.__leastDrawn.get(el), want: parseFloat(getComputedStyle(el).getPropertyValue('--attn-placeholder-height')) })));
      expect(sizes.length).toBeGreaterThanOrEqual(14);
      for (const s of sizes) expect(Math.abs(s.h - s.want), `${s.tag}: drawn ${s.h} px, placeholder ${s.want} px`).toBeLessThan(40);
      for (const s of sizes) expect(s.want - s.least, `${s.tag}: drawn ${s.least} px tall on its way, placeholder ${s.want} px`).toBeLessThan(100);
      expect(problems).toEqual([]);
      await page.close();
    });
  }

  test('the first widget draws first; one far below the fold waits as a placeholder of its size, and draws when scrolled to', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1440, height: 900 });
    // No idle time for drawing ahead: this page's idle callbacks never run, so only scrolling draws.
    await page.addInitScript(() => { window.requestIdleCallback = () => 0; });
    await page.goto(BASE_URL());
    await page.locator('attn-steps attn-heatmap.weights table td').first().waitFor({ state: 'attached' });
    expect((await page.locator('attn-steps attn-heatmap.weights table td').allTextContents()).slice(0, 3)).toEqual(['0.3233', '0.3941', '0.2826']);
    await page.waitForTimeout(500);
    // The last widgets are far below: not drawn, their placeholders as tall as the page's CSS says.
    for (const tag of ['attn-block', 'attn-train', 'attn-model']) {
      expect(await drawn(page, tag), `${tag} waits`).toBe(false);
      const { h, want } = await page.evaluate((t) => {
        const el = document.querySelector(t);
        return { h: el.getBoundingClientRect().height, want: parseFloat(getComputedStyle(el).getPropertyValue('--attn-placeholder-height')) };
      }, tag);
      expect(want).toBeGreaterThan(100);
      expect(Math.abs(h - want)).toBeLessThan(2);
    }
    // Scrolled to, each draws: its numbers, computed in WASM, are there.
    for (const tag of TAGS) {
      await page.locator(tag).evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await expect.poll(() => drawn(page, tag), { message: `${tag} drawn when scrolled to`, timeout: 60000 }).toBe(true);
      expect(await page.locator(`${tag} .error, ${tag} .failure`).count(), `${tag} has no error`).toBe(0);
    }
    await page.locator('attn-block attn-heatmap table td').first().waitFor({ state: 'attached' });
    await page.locator('attn-train attn-heatmap').first().waitFor({ state: 'attached', timeout: 60000 });
    expect(problems).toEqual([]);
    await page.close();
  });

  // Before: every widget of the page was drawn in idle time after the load, twelve of them, each a
  // 50–300 ms task at 4x CPU throttling while the reader used the first one.
  test('with idle time to spare, the widgets far below are not drawn until the reader comes near', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1440, height: 900 });
    // Idle callbacks run at once: as idle as a page gets.
    await page.addInitScript(() => { window.requestIdleCallback = (f) => setTimeout(() => f({ didTimeout: false, timeRemaining: () => 50 }), 0); });
    await page.goto(BASE_URL());
    await page.locator('attn-steps attn-heatmap.weights table td').first().waitFor({ state: 'attached' });
    // The next widget (within three screens of the top) is drawn ahead of the reader...
    await expect.poll(() => drawn(page, 'attn-convex'), { message: 'attn-convex drawn ahead', timeout: 60000 }).toBe(true);
    // ...and every widget's code has loaded (idle time), while the last ones stay placeholders.
    await expect.poll(() => page.evaluate(() => !!customElements.get('attn-model')), { timeout: 60000 }).toBe(true);
    await page.waitForTimeout(3000);
    for (const tag of ['attn-block', 'attn-cost', 'attn-train', 'attn-model']) expect(await drawn(page, tag), `${tag} waits`).toBe(false);
    // Scrolled to, the last one draws.
    await page.locator('attn-model').evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await expect.poll(() => drawn(page, 'attn-model'), { message: 'attn-model drawn when scrolled to', timeout: 60000 }).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });

  // The first part of <attn-steps>' first draw shows the controls, X and the W's (what a 1440 × 900
  // window shows of it) and asks the core for nothing; the next one adds Q, K, V (the page's first
  // computed numbers) and asks for the projections only; the attention (scores, weights, output) comes
  // with the parts after it, with the numbers a full draw has.
  test('the inputs are drawn first, then Q, K and V only; the attention comes with the next parts', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.addInitScript(() => {
      window.__inputsPart = new Promise((ok) => {
        const tick = () => {
          const el = document.querySelector('attn-steps'), root = el?.shadowRoot;
          if (root?.querySelector('.stage')) {
            ok({ stages: [...root.querySelectorAll('.stage')].map((s) => s.className), computed: Object.keys(el._computed ?? {}),
              editors: root.querySelectorAll('.stage.s0 attn-matrix-editor').length });
          } else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      });
      window.__firstPart = new Promise((ok) => {
        const tick = () => {
          const el = document.querySelector('attn-steps'), root = el?.shadowRoot;
          if (root?.querySelector('attn-heatmap.q')) {
            ok({ stages: [...root.querySelectorAll('.stage')].map((s) => s.className), computed: Object.keys(el._computed ?? {}) });
          } else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      });
    });
    await page.goto(BASE_URL());
    const inputs = await page.evaluate(() => window.__inputsPart);
    expect(inputs.stages).toEqual(['stage s0']);
    expect(inputs.editors).toBe(4);
    expect(inputs.computed).toEqual(['t']);
    const first = await page.evaluate(() => window.__firstPart);
    expect(first.stages).toEqual(['stage s0', 'stage s1']);
    expect(first.computed).toEqual(expect.arrayContaining(['q', 'k', 'v']));
    expect(first.computed).not.toContain('r');
    expect(first.computed).not.toContain('unmasked');
    await page.locator('attn-steps attn-heatmap.output table td').first().waitFor({ state: 'attached' });
    expect((await page.locator('attn-steps attn-heatmap.weights table td').allTextContents()).slice(0, 3)).toEqual(['0.3233', '0.3941', '0.2826']);
    expect((await page.locator('attn-steps attn-heatmap.scores table td').allTextContents()).length).toBe(9);
    expect(await page.locator('attn-steps').evaluate((el) => Object.keys(el._computed))).toEqual(expect.arrayContaining(['r', 'unmasked', 'entropies']));
    expect(problems).toEqual([]);
    await page.close();
  });

  test('a reader who jumps to a section: the widgets around it draw, and the section in view does not move', async () => {
    const { page, problems } = await openAtFirstNumbers();
    // The reader goes to "Cross-attention" before the widgets above it are drawn.
    await page.evaluate(() => document.getElementById('t-cross').scrollIntoView({ block: 'start' }));
    const top = () => page.evaluate(() => Math.round(document.getElementById('t-cross').getBoundingClientRect().top));
    const before = await top();
    // The widgets above it and the ones after it, within three screens, draw (near it, or ahead in idle time).
    for (const tag of ['attn-kernel-regression', 'attn-why-scale', 'attn-cross:not([trained])', 'attn-cross[trained]', 'attn-multihead'])
      await expect.poll(() => drawn(page, tag), { message: `${tag} drawn`, timeout: 90000 }).toBe(true);
    await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
    // Widgets above it grew or shrank from their placeholders' sizes; the browser kept the reader's place.
    expect(Math.abs((await top()) - before)).toBeLessThanOrEqual(2);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('printing draws every widget that is still waiting', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.addInitScript(() => { window.requestIdleCallback = () => 0; });
    await page.goto(BASE_URL());
    await page.locator('attn-steps attn-heatmap.weights table td').first().waitFor({ state: 'attached' });
    await page.waitForTimeout(300);
    expect(await drawn(page, 'attn-train')).toBe(false);
    await page.evaluate(() => window.dispatchEvent(new Event('beforeprint')));
    for (const tag of TAGS) await expect.poll(() => drawn(page, tag), { message: `${tag} drawn for print` }).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('formulas', () => {
  // Every <attn-tex> on the page, through shadow roots: its box, its content's width, its scale.
  const formulas = (page) => page.evaluate(() => {
    const out = [];
    const walk = (root) => {
      for (const el of root.querySelectorAll('*')) {
        if (el.localName === 'attn-tex' && el.clientWidth > 0)
          out.push({ expr: el.expr, avail: el.clientWidth, wide: el.scrollWidth, scale: el.scale, display: el.display, inParts: !!el.shadowRoot.querySelector('.parts') });
        if (el.shadowRoot) walk(el.shadowRoot);
      }
    };
    walk(document);
    return out;
  });

  test('fit their boxes on a phone, shrunk only as far as needed, and grow back on a wide screen', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(BASE_URL());
    await scrollThrough(page);
    for (const tag of TAGS) await expect.poll(() => drawn(page, tag), { message: `${tag} drawn`, timeout: 90000 }).toBe(true);
    await fontsSettled(page);
    const narrow = await formulas(page);
    expect(narrow.length).toBeGreaterThan(20);
    for (const f of narrow) {
      expect(f.wide, f.expr).toBeLessThanOrEqual(f.avail + 1);
      expect(f.scale, f.expr).toBeGreaterThanOrEqual(0.4);
    }
    const shrunk = narrow.filter((f) => f.scale < 1);
    expect(shrunk.length).toBeGreaterThan(0);  // a phone is too narrow for some formulas at full size
    // Not shrunk further than needed: at 98 % of the width there is little room to spare.
    for (const f of shrunk) if (f.scale > 0.4) expect(f.wide, f.expr).toBeGreaterThan(0.8 * f.avail);
    // A display formula made of parts is typeset part by part rather than shrunk below 0.85 whole: the
    // kernel-regression formula's three parts, each on its line at full size.
    const split = narrow.filter((f) => f.inParts);
    expect(split.length).toBeGreaterThanOrEqual(5);
    expect(split.every((f) => f.display)).toBe(true);
    const kr = narrow.find((f) => f.expr.startsWith('\\hat y(x) = \\sum'));
    expect([kr.inParts, kr.scale]).toEqual([true, 1]);
    // The block's LayerNorm line keeps its formula whole and puts its note on a line of its own: a
    // phone broke it after "+", before β (inline KaTeX breaks after a binary operator).
    const ln = await page.evaluate(() => {
      const tex = [...document.querySelector('attn-block').shadowRoot.querySelectorAll('attn-tex')].find((t) => t.expr.startsWith('\\mathrm{LN}(z)'));
      const html = [...tex.shadowRoot.querySelectorAll('.katex-html')];
      const glyph = (sel, text) => html.flatMap((h) => [...h.querySelectorAll(sel)]).filter((e) => e.textContent === text).at(-1).getBoundingClientRect();
      const mid = (r) => (r.top + r.bottom) / 2;
      return { plusToBeta: Math.abs(mid(glyph('.mbin', '+')) - mid(glyph('.mord', 'β'))), lnToBeta: Math.abs(mid(glyph('.mord', 'γ')) - mid(glyph('.mord', 'β'))) };
    });
    expect(ln.plusToBeta).toBeLessThan(8);
    expect(ln.lnToBeta).toBeLessThan(8);

    await page.setViewportSize({ width: 1440, height: 900 });
    await fontsSettled(page);
    await page.waitForTimeout(300);
    await fontsSettled(page);
    const wide = await formulas(page);
    for (const f of wide) expect(f.wide, f.expr).toBeLessThanOrEqual(f.avail + 1);
    expect(wide.filter((f) => f.inParts).map((f) => f.expr)).toEqual([]);  // whole again where they fit
    const grown = shrunk.filter((f) => wide.find((g) => g.expr === f.expr)?.scale > f.scale);
    expect(grown.length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  // The page's own stylesheets carry KaTeX's @font-face rules (a font face declared in a shadow root is
  // not used) and none of its formula rules: every formula is in a shadow root with its own copy, and
  // ~300 rules that matched nothing in the document cost style time before the first numbers.
  test('are set in KaTeX\'s fonts, declared in the page\'s stylesheets without KaTeX\'s formula rules', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.goto(BASE_URL());
    await page.locator('attn-steps attn-tex .katex').first().waitFor({ state: 'attached' });
    await fontsSettled(page);
    const css = await page.evaluate(() => {
      const rules = [...document.styleSheets].flatMap((s) => [...s.cssRules]);
      return {
        faces: rules.filter((r) => r instanceof CSSFontFaceRule).map((r) => r.style.getPropertyValue('font-family').replace(/['"]/g, '')),
        katexRules: rules.filter((r) => /\.katex\b/.test(r.selectorText ?? '')).length,
      };
    });
    expect(css.faces).toContain('KaTeX_Main');
    expect(css.faces).toContain('KaTeX_Math');
    expect(css.katexRules).toBe(0);
    // A formula's glyphs come from the KaTeX fonts, loaded through those rules.
    const fonts = await page.evaluate(async () => {
      const tex = document.querySelector('attn-steps').shadowRoot.querySelector('attn-tex');
      const mathnormal = tex.shadowRoot.querySelector('.katex .mathnormal');
      return {
        family: getComputedStyle(mathnormal).fontFamily,
        loaded: [...document.fonts].filter((f) => f.status === 'loaded').map((f) => f.family.replace(/['"]/g, '')),
      };
    });
    expect(fonts.family).toContain('KaTeX_Math');
    expect(fonts.loaded).toContain('KaTeX_Math');
    expect(fonts.loaded).toContain('KaTeX_Main');
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('formula fonts', () => {
  // Before: KaTeX's fonts were fetched when the first formulas were laid out, and arrived after them:
  // every formula was laid out again, and fitted again, once per batch of fonts.
  test('KaTeX\'s fonts are there before the first formula is typeset: none arrives after it', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.addInitScript(() => {
      window.__fontsDone = [];
      document.fonts.addEventListener('loadingdone', (e) => {
        for (const f of e.fontfaces) if (/KaTeX/.test(f.family)) window.__fontsDone.push({ family: f.family.replace(/['"]/g, ''), at: performance.now() });
      });
      // The moment the first formula is typeset (its KaTeX markup put in its shadow root).
      customElements.whenDefined('attn-tex').then(() => {
        const proto = customElements.get('attn-tex').prototype, typeset = proto.typeset;
        proto.typeset = function (...a) { window.__firstTypeset ??= performance.now(); return typeset.apply(this, a); };
      });
    });
    await page.goto(BASE_URL());
    await page.locator('attn-steps attn-tex .katex').first().waitFor({ state: 'attached' });
    await page.evaluate(() => document.fonts.ready);
    const { done, first } = await page.evaluate(() => ({ done: window.__fontsDone, first: window.__firstTypeset }));
    expect(first).toBeGreaterThan(0);
    expect(done.map((d) => d.family)).toEqual(expect.arrayContaining(['KaTeX_Main', 'KaTeX_Math']));
    expect(done.filter((d) => d.at > first).map((d) => d.family), 'KaTeX fonts that arrived after the first formula').toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('touch targets', () => {
  test('on a phone, the contents links and every control in a widget (buttons, dropdowns, sliders, checkboxes, fields, disclosures) are at least 24 × 24 px', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(BASE_URL());
    await scrollThrough(page);
    for (const tag of TAGS) await expect.poll(() => drawn(page, tag), { message: `${tag} drawn`, timeout: 90000 }).toBe(true);
    const small = await page.evaluate(() => {
      const out = [];
      const check = (el, what) => {
        const r = el.getBoundingClientRect();
        if (r.width > 0 && (r.width < 24 || r.height < 24)) out.push(`${what} ${el.textContent.trim()} ${r.width.toFixed(1)}×${r.height.toFixed(1)}`);
      };
      for (const a of document.querySelectorAll('nav.toc a')) check(a, 'contents link');
      const walk = (root) => {
        for (const el of root.querySelectorAll('*')) {
          if (el.localName === 'attn-heatmap' && el.shadowRoot)
            for (const c of el.shadowRoot.querySelectorAll('.tools button, .tools summary')) check(c, `${el.label} map:`);
          // Every other control of a widget, named by its widget, kind and class.
          if (el.shadowRoot) for (const s of el.shadowRoot.querySelectorAll('select, button, input, summary')) {
            const r = s.getBoundingClientRect();
            if (r.width > 0 && (r.width < 24 || r.height < 24)) out.push(`${el.localName} ${s.localName}${s.type ? `[${s.type}]` : ''} ${s.className} ${r.width.toFixed(1)}×${r.height.toFixed(1)}`);
          }
          if (el.shadowRoot) walk(el.shadowRoot);
        }
      };
      walk(document);
      return out;
    });
    expect(small).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('page load', () => {
  // web/app/vite.config.js (compileHints): the entry and the chunks it imports start with V8's
  // `//# allFunctionsCalledOnLoad`, so their functions are compiled off the main thread with the file;
  // a widget's chunk, loaded later, is compiled lazily as before.
  test('the code that runs before the first numbers carries V8\'s compile hint; widget code loaded later does not', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.goto(BASE_URL());
    await page.locator('attn-steps attn-heatmap.weights table td').first().waitFor({ state: 'attached' });
    await page.evaluate(() => customElements.whenDefined('attn-convex'));
    const html = await (await fetch(BASE_URL())).text();
    const first = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]);
    const later = (await page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname.slice(1))))
      .filter((p) => /^assets\/.+\.js$/.test(p) && !first.includes(p));
    expect(first.some((f) => /\/main-[\w-]+\.js$/.test(f)) && first.some((f) => /\/steps-[\w-]+\.js$/.test(f))).toBe(true);
    expect(later.some((f) => /\/convex-[\w-]+\.js$/.test(f))).toBe(true);
    const head = async (f) => (await (await fetch(new URL(f, BASE_URL()))).text()).slice(0, 40);
    for (const f of first) expect(await head(f), f).toMatch(/^\/\/# allFunctionsCalledOnLoad\n/);
    for (const f of later) expect(await head(f), f).not.toMatch(/allFunctionsCalledOnLoad/);
    expect(problems).toEqual([]);
    await page.close();
  });

  // tex.js holdTypesetting: <attn-steps>' first draw holds KaTeX back until Q's map (the page's first
  // computed numbers) is painted; the formulas wait in their room meanwhile, and are typeset after.
  test('KaTeX\'s code is fetched only after the first numbers are drawn; the formulas are typeset after them', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.addInitScript(() => {
      window.__firstNumbers = new Promise((ok) => {
        const tick = () => {
          const root = document.querySelector('attn-steps')?.shadowRoot;
          if (root?.querySelector('attn-heatmap.q')?.shadowRoot?.querySelector('table td')) {
            const tex = [...root.querySelectorAll('attn-tex')].map((t) => t.shadowRoot?.querySelector('.tex'));
            ok({ at: performance.now(), formulas: tex.length, typeset: tex.filter((t) => t?.querySelector('.katex')).length,
              pending: tex.filter((t) => t?.classList.contains('pending')).length });
          } else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      });
    });
    await page.goto(BASE_URL());
    const first = await page.evaluate(() => window.__firstNumbers);
    expect(first.formulas).toBeGreaterThanOrEqual(2);  // the attention formula and Q, K, V's
    expect(first.typeset).toBe(0);
    expect(first.pending).toBe(first.formulas);
    // Then KaTeX arrives and every formula of the widget is typeset.
    await page.waitForFunction(() => {
      const tex = [...document.querySelector('attn-steps').shadowRoot.querySelectorAll('attn-tex')];
      return tex.length >= 7 && tex.every((t) => t.shadowRoot?.querySelector('.tex .katex'));
    }, null, { timeout: 60000 });
    const katex = await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => /\/katex-[\w-]+\.js$/.test(e.name)).map((e) => e.startTime));
    expect(katex.length).toBe(1);
    expect(katex[0]).toBeGreaterThan(first.at);
    expect(problems).toEqual([]);
    await page.close();
  });

  // matrix-editor.js: the cells are one piece of markup, written again only when the shape or the
  // labels change; the numbers and colours are written into the cells in place.
  test('the matrix editors show typed tokens as text, and take new numbers in place (Randomise): the same cells, recoloured', async () => {
    const { page, problems } = await openAtFirstNumbers();
    const steps = page.locator('attn-steps');
    const tokens = steps.locator('input.tokens');
    await tokens.fill('<b>x</b> a&b "q\'');
    await tokens.press('Enter');
    const x = steps.locator('attn-matrix-editor.x');
    await expect.poll(() => x.locator('th[scope="row"]').allTextContents(), { timeout: 30000 }).toEqual(['<b>x</b>', 'a&b', '"q\'']);
    expect(await x.locator('b').count()).toBe(0);
    expect(await x.locator('tr').nth(2).locator('input').first().getAttribute('aria-label')).toBe('X row a&b, column d1');  // row 0 is the column labels
    await expect.poll(() => steps.locator('attn-heatmap.q table tbody th').allTextContents(), { timeout: 30000 }).toEqual(['<b>x</b>', 'a&b', '"q\'']);
    const handle = await x.locator('input').first().elementHandle();
    const before = await x.locator('input').evaluateAll((els) => els.map((e) => e.value));
    await steps.locator('button.randomise').click();
    await expect.poll(async () => {
      const want = await steps.evaluate((el) => el.x.map(String));
      return JSON.stringify(await x.locator('input').evaluateAll((els) => els.map((e) => e.value))) === JSON.stringify(want);
    }, { timeout: 30000 }).toBe(true);
    expect(await x.locator('input').evaluateAll((els) => els.map((e) => e.value))).not.toEqual(before);
    // The same cell elements (written in place, not drawn again), each coloured for its number.
    expect(await handle.evaluate((el) => el.isConnected)).toBe(true);
    const styles = await x.locator('input').evaluateAll((els) => els.map((e) => e.getAttribute('style')));
    expect(new Set(styles).size).toBeGreaterThan(1);
    expect(problems).toEqual([]);
    await page.close();
  });

  // app.css: the paragraphs of the sections below the first are `content-visibility: auto`.
  test('the text of sections far below is laid out only near the viewport; a contents link still lands on its section', async () => {
    const { page, problems } = await openAtFirstNumbers();
    // A paragraph whose text is not laid out is as tall as its estimate (2.5 lines at this width); the
    // last sections' paragraphs are 4 lines long once laid out.
    const lines = (id) => page.evaluate((i) => {
      const p = document.getElementById(i).closest('section').querySelector('p');
      return Math.round(p.getBoundingClientRect().height / parseFloat(getComputedStyle(p).lineHeight) * 10) / 10;
    }, id);
    expect(await lines('t-model')).toBe(2.5);
    expect(await lines('t-train')).toBe(2.5);
    // The link scrolls its heading to just under the contents bar (the paragraphs above it still estimated),
    // and the text there is laid out.
    // Where each frame painted it (read after the frame: formulas typeset above it in that frame move it,
    // and main.js's hold puts it back before the paint, in the frame's resize observations), from the
    // click until <attn-train> above and <attn-model> in the section have drawn their models' maps. Read
    // once, just after the click, this missed the widgets' loading: drawn short, they shrank the page,
    // the browser clamped the scroll, and the heading stood at 395 px for ~0.5 s (a loaded CI machine
    // read it there).
    await page.evaluate(() => {
      const log = window.__headingTops = [];
      const settled = () => ['attn-train', 'attn-model'].every((t) => {
        const w = document.querySelector(t).shadowRoot?.querySelector('.wrap');
        return w && !w.matches('.placeholder, .partial') && !w.querySelector('.loading-line, .loading');
      });
      let after = 0;
      const frame = () => requestAnimationFrame(() => setTimeout(() => {
        log.push(Math.round(document.getElementById('t-model').getBoundingClientRect().top));
        if (settled()) after += 1;
        if (after < 10) frame(); else log.done = true;
      }, 0));
      document.querySelector('nav.toc a[href="#t-model"]').addEventListener('click', frame, { once: true });
    });
    await page.locator('nav.toc a[href="#t-model"]').click();
    await page.waitForFunction(() => window.__headingTops.done, null, { timeout: 60000 });
    const tops = await page.evaluate(() => [...window.__headingTops]);
    const bar = await page.evaluate(() => document.querySelector('nav.toc').getBoundingClientRect().bottom);
    expect(tops.length).toBeGreaterThan(10);
    for (const top of tops) {
      expect(top).toBeGreaterThanOrEqual(bar - 1);
      expect(top, `the heading's top in each frame after the click: ${tops.join(' ')}`).toBeLessThan(bar + 40);
    }
    await expect.poll(() => lines('t-model')).toBeGreaterThan(3);
    expect(problems).toEqual([]);
    await page.close();
  });

  // main.js holds a jumped-to section at the top while the widgets around it draw: <attn-train> above
  // and <attn-model> in the last section drew shorter than their placeholders, the page shrank and the
  // browser clamped the scroll, leaving the heading ~1850 px down the window.
  /** Until <attn-train> and <attn-model> have their code and the page's height has held still for 30 frames. */
  const settled = async (page) => {
    await page.waitForFunction(() => customElements.get('attn-train') && customElements.get('attn-model'), null, { timeout: 60000 });
    await page.evaluate(() => new Promise((ok) => {
      let last = -1, still = 0;
      const tick = () => {
        const h = document.documentElement.scrollHeight;
        still = h === last ? still + 1 : 0;
        last = h;
        if (still >= 30) ok(); else requestAnimationFrame(tick);
      };
      tick();
    }));
  };
  const headingTop = (page, id) => page.evaluate((i) => ({
    top: document.getElementById(i).getBoundingClientRect().top, bar: document.querySelector('nav.toc').getBoundingClientRect().bottom }), id);

  // A shared link opens at its section (#at=…, which the browser itself does not scroll to, and a plain
  // #t-… that it does) and stays there while the widgets above and around it draw.
  for (const hash of ['#at=t-model', '#t-model']) {
    test(`a link opening at ${hash} keeps its section at the top while the widgets draw`, async () => {
      const { page, problems } = await watchedPage(browser.context);
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.goto(BASE_URL() + hash);
      await settled(page);
      const { top, bar } = await headingTop(page, 't-model');
      expect(top).toBeGreaterThanOrEqual(bar - 1);
      expect(top).toBeLessThan(bar + 40);
      expect(problems).toEqual([]);
      await page.close();
    });
  }

  test('a contents link keeps its section at the top while the widgets around it draw', async () => {
    const { page, problems } = await openAtFirstNumbers();
    await page.locator('nav.toc a[href="#t-model"]').click();
    await settled(page);
    const { top, bar } = await headingTop(page, 't-model');
    expect(top).toBeGreaterThanOrEqual(bar - 1);
    expect(top).toBeLessThan(bar + 40);
    expect(problems).toEqual([]);
    await page.close();
  });
});
