// The two lecture decks, built into dist/slides/, stepped through in real Chromium: every slide and
// every fragment / click, with no console errors and no request off localhost; every attnlab widget
// on a slide renders (no failure, no endless "Loading"); stepping moves a widget's computation on and
// stepping back undoes it; typing into a widget never changes the slide; in Slidev a change made in
// the presenter view reaches the audience view.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BASE_URL, launch, watchedPage } from './browser.js';
import { findSlide, slidevAt, slidevNext } from './deck-fit.js';


let browser;
beforeAll(async () => { browser = await launch(); });
afterAll(async () => { await browser?.close(); });

// Runs in the page: the attn-* elements under `root` (light DOM), and what is wrong with each.
// Shadow-DOM widgets must have rendered something and show no failure, error or loading message.
function widgetReport(root) {
  const out = [];
  for (const el of root.querySelectorAll('*')) {
    const tag = el.tagName.toLowerCase();
    if (!tag.startsWith('attn-') || tag === 'attn-event') continue;
    let problem = '';
    if (tag === 'attn-timeline') problem = el.querySelector('.attn-tl-axis') ? '' : 'timeline not laid out';
    else if (!customElements.get(tag)) problem = 'not a registered custom element';
    else if (!el.shadowRoot || el.shadowRoot.childElementCount === 0) problem = 'nothing rendered';
    // A widget that failed shows .failure / .error in place of its body (a message inside the body
    // can be the lesson, e.g. the learned positional table refusing long inputs).
    else if (el.shadowRoot.querySelector('.wrap > .failure, .wrap > .error'))
      problem = `shows an error: ${el.shadowRoot.querySelector('.wrap > .failure, .wrap > .error').textContent.trim()}`;
    else if (el.shadowRoot.querySelector('.loading')) problem = 'loading';
    out.push({ tag, problem });
  }
  return out;
}

// Waits until no widget under the root selector is still loading, then returns the report.
async function widgetsUnder(page, selector) {
  await page.waitForFunction(
    ([sel, fn]) => {
      const root = document.querySelector(sel);
      // eslint-disable-next-line no-new-func
      return root && !new Function(`return (${fn})`)()(root).some((w) => w.problem === 'loading');
    },
    [selector, widgetReport.toString()], { timeout: 30000 });
  return page.evaluate(([sel, fn]) => new Function(`return (${fn})`)()(document.querySelector(sel)), [selector, widgetReport.toString()]);
}

// Text inside a widget's shadow root (the numbers it shows), flattened over nested shadow roots.
async function shownText(locator) {
  return locator.evaluate((el) => {
    const walk = (n) => [...(n.shadowRoot ? n.shadowRoot.childNodes : n.childNodes)].map((c) =>
      (c.nodeType === 3 ? c.textContent : c.nodeType === 1 ? walk(c) : '')).join(' ');
    return walk(el).replace(/\s+/g, ' ');
  });
}

describe('reveal.js deck', () => {
  let page, problems;
  const url = () => new URL('slides/reveal/index.html', BASE_URL()).href;
  const indices = () => page.evaluate(() => window.deck.getIndices());

  beforeAll(async () => {
    ({ page, problems } = await watchedPage(browser.context));
    await page.goto(url());
    await page.waitForFunction(() => window.deck?.isReady());
  });

  test('every slide and fragment: widgets render, no console errors, nothing off localhost', async () => {
    const total = await page.evaluate(() => window.deck.getTotalSlides());
    const seen = new Set();
    let steps = 0, widgets = 0;
    for (;;) {
      const { h } = await indices();
      if (!seen.has(h)) {
        seen.add(h);
        await page.evaluate(() => window.deck.getCurrentSlide().setAttribute('data-e2e-current', ''));
        const report = await widgetsUnder(page, '[data-e2e-current]');
        await page.evaluate(() => window.deck.getCurrentSlide().removeAttribute('data-e2e-current'));
        expect(report.filter((w) => w.problem), `slide ${h}`).toEqual([]);
        widgets += report.length;
      }
      if (await page.evaluate(() => window.deck.isLastSlide() && !window.deck.availableFragments().next)) break;
      await page.keyboard.press('Space');
      steps++;
      expect(steps).toBeLessThan(400);
    }
    expect(seen.size).toBe(total);
    expect(widgets).toBeGreaterThan(15);
    expect(problems).toEqual([]);
  });

  test('fragments step the scaled dot-product widget forward and back', async () => {
    // The slide whose <attn-steps> starts at stage 1 (Q, K, V) and is stepped by fragments.
    const h = await page.evaluate(() => window.deck.getSlides()
      .findIndex((s) => s.querySelector('attn-steps[data-attn-stages="1"]')));
    expect(h).toBeGreaterThan(0);
    await page.evaluate((i) => window.deck.slide(i, 0, -1), h);
    const widget = page.locator('section.present attn-steps[data-attn-stages="1"]');
    await expect.poll(() => widget.getAttribute('stage')).toBe('1');
    await page.waitForFunction(() => !document.querySelector('section.present attn-steps').shadowRoot.querySelector('.loading'));
    const stages = [await widget.getAttribute('stage')];
    const texts = [await shownText(widget)];
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Space');
      stages.push(await widget.getAttribute('stage'));
      texts.push(await shownText(widget));
    }
    // scores, scaled, softmax, output: each fragment shows one more stage, with new numbers.
    expect(stages).toEqual(['1', '2', '3', '5', '6']);
    for (let i = 1; i < texts.length; i++) expect(texts[i]).not.toBe(texts[i - 1]);
    // The notes' numbers appear once the softmax and the output are shown.
    expect(texts[4]).toContain('0.3233');
    expect(texts[4]).toContain('1.0137');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    expect(await widget.getAttribute('stage')).toBe('3');
  });

  test('typing into a widget input does not change the slide', async () => {
    const h = await page.evaluate(() => window.deck.getSlides().findIndex((s) => s.querySelector('attn-steps[data-attn-stages="1"]')));
    await page.evaluate((i) => window.deck.slide(i, 0, 0), h);
    const before = await indices();
    // The widget's temperature slider (on a slide the widget shows its compact controls).
    const input = page.locator('section.present attn-steps input.temperature').first();
    await input.click();
    for (const key of ['ArrowRight', 'Space', 'PageDown', 'n', 'ArrowLeft', 'p']) {
      await page.keyboard.press(key);
      expect(await indices(), key).toEqual(before);
    }
    await page.keyboard.type('0.5');
    expect(await indices()).toEqual(before);
    expect(await input.evaluate((el) => el.matches(':focus'))).toBe(true);  // the keys went to the slider
    expect(problems).toEqual([]);
  });
});

describe('Slidev deck', () => {
  const deckUrl = (route) => new URL(`slides/slidev/index.html#${route}`, BASE_URL()).href;
  const where = slidevAt;

  test('every slide and click: widgets render, no console errors, nothing off localhost', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.goto(deckUrl('/1'));
    await page.locator('.slidev-page-1').first().waitFor();
    const seen = new Set();
    let widgets = 0, last = null;
    for (let steps = 0; ; steps++) {
      expect(steps).toBeLessThan(400);
      const at = await where(page);
      if (last && at.no === last.no && at.clicks === last.clicks) break;  // the end: → changes nothing
      if (!seen.has(at.no)) {
        seen.add(at.no);
        await page.locator(`.slidev-page-${at.no} .slidev-layout`).first().waitFor();  // the content, not only its wrapper
        const report = await widgetsUnder(page, `.slidev-page-${at.no}`);
        expect(report.filter((w) => w.problem), `slide ${at.no}`).toEqual([]);
        widgets += report.length;
      }
      last = at;
      await slidevNext(page, last);
    }
    // Every slide from 1 to the last ("The End") was visited.
    expect(Math.max(...seen)).toBe(seen.size);
    await expect.poll(() => page.locator(`.slidev-page-${last.no}`).first().textContent()).toContain('The End');
    expect(widgets).toBeGreaterThan(25);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('clicks step the worked example forward and back; typing in a widget keeps the slide', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.goto(deckUrl('/1'));
    await page.locator('.slidev-page-1').first().waitFor();
    // Find the worked-example slide: an AttnStepper that starts at stage 0 around <attn-steps>.
    const no = await findSlide(page, '.slidev-page-{n} .attn-stepper[data-stage="0"] attn-steps');
    expect(no).toBeGreaterThan(0);
    const widget = page.locator(`.slidev-page-${no} .attn-stepper attn-steps`).first();
    await page.waitForFunction((n) => !document.querySelector(`.slidev-page-${n} attn-steps`).shadowRoot.querySelector('.loading'), no);
    const stages = [await widget.getAttribute('stage')];
    const texts = [await shownText(widget)];
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => widget.getAttribute('stage')).toBe(String(i + 1));
      stages.push(await widget.getAttribute('stage'));
      texts.push(await shownText(widget));
    }
    expect(stages).toEqual(['0', '1', '2', '3', '4', '5', '6']);
    expect(texts[5]).not.toBe(texts[4]);
    expect(texts[6]).toContain('1.0137');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => widget.getAttribute('stage')).toBe('5');

    // Typing into the widget (its temperature slider, then the example <select>) leaves the slide alone.
    const before = await where(page);
    await widget.locator('input.temperature').first().focus();
    for (const key of ['ArrowRight', 'Space', 'ArrowLeft', 'PageDown']) {
      await page.keyboard.press(key);
      expect(await where(page), key).toEqual(before);
    }
    await page.keyboard.type('2');
    expect(await where(page)).toEqual(before);
    // The example <select>: ↓ picks the next option, and must not also go to the next slide.
    await widget.locator('select').first().focus();
    for (const key of ['ArrowDown', 'ArrowRight']) {
      await page.keyboard.press(key);
      expect(await where(page), `select ${key}`).toEqual(before);
    }
    expect(problems).toEqual([]);
    await page.close();
  });

  test('a change in the presenter view reaches the audience view', async () => {
    const audience = await watchedPage(browser.context);
    const presenter = await watchedPage(browser.context);
    // A slide with a plain (unstepped) <attn-steps>: the asymmetry slide shows stage 2.
    await audience.page.goto(deckUrl('/1'));
    await audience.page.locator('.slidev-page-1').first().waitFor();
    const no = await findSlide(audience.page, '.slidev-page-{n} attn-steps[stage="2"]');
    expect(no).toBeGreaterThan(0);
    await presenter.page.goto(deckUrl(`/presenter/${no}`));
    const shown = audience.page.locator(`.slidev-page-${no} attn-steps`).first();
    const edited = presenter.page.locator(`.slidev-page-${no} attn-steps`).first();
    await expect.poll(() => shown.getAttribute('preset')).toBe('football');
    await presenter.page.waitForFunction((n) => {
      const w = document.querySelector(`.slidev-page-${n} attn-steps`);
      return w?.shadowRoot && !w.shadowRoot.querySelector('.loading') && w.shadowRoot.querySelector('select');
    }, no);
    const before = await shownText(shown);
    // The presenter switches the example to "the / cat / sat".
    await edited.locator('select').first().selectOption('cat-sat');
    await expect.poll(() => edited.getAttribute('preset')).toBe('cat-sat');
    await expect.poll(() => shown.getAttribute('preset'), { timeout: 10000 }).toBe('cat-sat');
    await expect.poll(() => shownText(shown)).not.toBe(before);
    expect(await shownText(shown)).toContain('cat');
    expect(audience.problems).toEqual([]);
    expect(presenter.problems).toEqual([]);
    await audience.page.close();
    await presenter.page.close();
  });
});

// Every slide right: what each of these slides shows at its clicks (the defects a lecturer found walking the decks).
describe('slides show what they are about', () => {
  const slidevUrl = (route) => new URL(`slides/slidev/index.html#${route}`, BASE_URL()).href;
  // The colour bar's labels of a heatmap (e.g. ["0.77", "0.00", "-0.77"]), [] when it has none.
  const legendOf = (hm) => hm.evaluate((el) => [...(el.shadowRoot?.querySelectorAll('g.legend text') ?? [])].map((t) => t.textContent.trim()));

  test('Slidev: scores and scaled scores share one colour range; with no mask M says so', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.goto(slidevUrl('/1'));
    await page.locator('.slidev-page-1').first().waitFor();
    // The first stepped <attn-steps> that starts at Q, K, V (the kernel slide): → scores, → scaled, → masked.
    const no = await findSlide(page, '.slidev-page-{n} .attn-stepper[data-stage="1"] attn-steps');
    expect(no).toBeGreaterThan(0);
    const widget = page.locator(`.slidev-page-${no} attn-steps`).first();
    for (const stage of ['2', '3']) {
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => widget.getAttribute('stage')).toBe(stage);
    }
    const scores = widget.locator('attn-heatmap.scores'), scaled = widget.locator('attn-heatmap.scaled');
    await expect.poll(() => legendOf(scaled)).toHaveLength(3);
    const range = await legendOf(scaled);
    // The football example: |S| up to 0.77, |S|/√2 up to 0.54 — both drawn on ±0.77.
    expect(await legendOf(scores)).toEqual(range);
    expect(range.map((x) => Math.abs(Number(x)))).toEqual([0.77, 0, 0.77]);
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => widget.getAttribute('stage')).toBe('4');
    const m = widget.locator('attn-heatmap.mask-m');
    await expect.poll(() => m.evaluate((el) => el.label)).toMatch(/no mask: M = 0 everywhere/);
    expect(await legendOf(m)).toEqual([]);  // not a bar reading "0.00 0.00 0.00"
    expect(await legendOf(widget.locator('attn-heatmap.masked'))).toEqual(range);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('Slidev: each slide shows the stage it is about, and reveals answers no earlier than it asks', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(slidevUrl('/1'));
    await page.locator('.slidev-page-1').first().waitFor();
    // Slide by slide: its title, the block widget's highlighted step and maps, the LayerNorm demo, code
    // blocks that do not fit or are under 14 px on screen, centred list items, the OCR box.
    const slides = await page.evaluate(async () => {
      const out = [];
      const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      for (let n = 1; n < 80; n++) {
        location.hash = `#/${n}`;
        let waited = 0;
        const mounted = () => document.querySelector(`#slide-content .slidev-page-${n} .slidev-layout`);
        while (!mounted() && waited < 15000) { await new Promise((r) => setTimeout(r, 20)); waited += 20; }
        if (!mounted()) break;
        await frame();
        const root = mounted();
        const block = root.querySelector('attn-block');
        let flow = null;
        if (block) {
          for (let w = 0; w < 15000 && !block.shadowRoot?.querySelector('.flow li.current attn-heatmap, .flow li.current'); w += 50) await new Promise((r) => setTimeout(r, 50));
          await frame();
          const items = [...block.shadowRoot.querySelectorAll('.flow li:not(.sep)')];
          const maps = [...block.shadowRoot.querySelectorAll('attn-heatmap')].map((h) => ({ cls: h.className, w: h.getBoundingClientRect().width }));
          flow = { current: items.findIndex((li) => li.classList.contains('current')), main: maps.sort((a, b) => b.w - a.w)[0]?.cls ?? '', maps: maps.map((m) => m.cls).sort() };
        }
        const scale = root.getBoundingClientRect().width / root.offsetWidth;
        const code = [...root.querySelectorAll('pre')].map((pre) => ({
          text: pre.textContent.slice(0, 40), cut: pre.scrollWidth > pre.clientWidth + 1,
          px: Math.min(...[...pre.querySelectorAll('code span, code')].map((s) => parseFloat(getComputedStyle(s).fontSize))) * scale,
        }));
        // Bullets (a numbered list, e.g. the BPE demo's merges, may sit centred under its figure).
        const centred = [...root.querySelectorAll('ul > li')].filter((li) => getComputedStyle(li).textAlign === 'center').map((li) => li.textContent.trim().slice(0, 40));
        const demo = root.querySelector('.ln');
        // The learning-rate chart: how much of the plot's height the curve spans, and its y-axis labels.
        const lrSvg = root.querySelector('.lr svg');
        const lr = lrSvg && { share: lrSvg.querySelector('path').getBBox().height / lrSvg.querySelector('line:nth-of-type(2)').getBBox().height,
          yLabels: [...lrSvg.querySelectorAll('text')].filter((t) => t.getAttribute('text-anchor') === 'end').map((t) => t.textContent.trim()) };
        out.push({ n, title: root.querySelector('h2, h3')?.textContent.trim() ?? '', flow, code, centred,
          ocr: root.textContent.includes('Reconstructed from the OCR'), demo: !!demo, lr });
      }
      return out;
    });
    expect(slides.length).toBeGreaterThanOrEqual(40);
    const titled = (t) => slides.find((s) => s.title === t);
    // Residual: the first Add & Norm, the residual sum x + MHA(x) the largest map (was LN₂ = block output).
    expect(titled('Residual Connections').flow).toMatchObject({ current: 2, main: 'residual1' });
    // Feed forward: the FFN step, its hidden layer and FFN(y).
    expect(titled('Feed Forward').flow).toMatchObject({ current: 3, maps: ['ffn-hidden', 'ffn-out'] });
    // The multi-head code (slide 30) was cut at the right edge, and so was a citation.
    expect(slides.flatMap((s) => s.code.filter((c) => c.cut).map((c) => `slide ${s.n}: ${c.text}`)), 'code cut at the right').toEqual([]);
    const mha = slides.find((s) => s.code.some((c) => c.text.includes('attention_heads')));
    expect(mha.code.find((c) => c.text.includes('attention_heads')).px).toBeGreaterThanOrEqual(14);
    expect(slides.filter((s) => s.centred.length).map((s) => `slide ${s.n}: ${s.centred[0]}`), 'centred bullets').toEqual([]);
    expect(slides.filter((s) => s.ocr).map((s) => s.n), 'the OCR reconstruction belongs in the notes').toEqual([]);

    // The learning-rate curve fills most of its plot (it used the bottom third) over a labelled axis
    // (it read only "0" and "7.0e-4").
    const lr = slides.find((s) => s.lr)?.lr;
    expect(lr.share).toBeGreaterThan(0.75);
    expect(lr.yLabels.length).toBeGreaterThanOrEqual(3);

    // LayerNorm: the demo (which prints the answer) is hidden until the click that shows the worked example.
    const ln = slides.find((s) => s.demo);
    await page.evaluate((n) => { location.hash = `#/${n}`; }, ln.n);
    const state = () => page.evaluate((n) => {
      const root = document.querySelector(`#slide-content .slidev-page-${n} .slidev-layout`);
      const hidden = (el) => !!el.closest('.slidev-vclick-hidden');
      const example = [...root.querySelectorAll('p')].find((p) => p.textContent.includes('1.604') && !p.closest('.ln'));
      return { demo: !hidden(root.querySelector('.ln')), example: !!example && !hidden(example) };
    }, ln.n);
    const seen = [];
    for (let click = 0; click < 3; click++) {
      await expect.poll(() => slidevAt(page)).toEqual({ no: ln.n, clicks: click });
      await page.waitForTimeout(300);  // the v-click transition
      seen.push(await state());
      await slidevNext(page, await slidevAt(page));
    }
    expect(seen).toEqual([{ demo: false, example: false }, { demo: false, example: false }, { demo: true, example: true }]);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('Slidev: the cost slide measures without waiting for a press (it was blank until Measure)', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(slidevUrl('/1'));
    await page.locator('.slidev-page-1').first().waitFor();
    const no = await findSlide(page, '.slidev-page-{n} attn-cost');
    expect(no).toBeGreaterThan(0);
    const cost = page.locator(`#slide-content .slidev-page-${no} attn-cost`).first();
    // The legend reads "measured" once timings are plotted (before: "… : press Measure").
    await expect.poll(() => shownText(cost), { timeout: 60000 }).toMatch(/measured/);
    expect(await shownText(cost)).not.toMatch(/press Measure/);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('reveal.js: scores and scaled scores share one colour range; the tied head keeps its bias', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(new URL('slides/reveal/index.html', BASE_URL()).href);
    await page.waitForFunction(() => window.deck?.isReady());
    // The slide whose fragments step an <attn-steps> to the scaled scores (data-attn-stage="3").
    const at = await page.evaluate(() => {
      const slide = window.deck.getSlides().find((s) => s.querySelector('attn-steps') && s.querySelector('[data-attn-stage="3"]'));
      return slide && { ...window.deck.getIndices(slide), f: Number(slide.querySelector('[data-attn-stage="3"]').dataset.fragmentIndex) };
    });
    expect(at?.h).toBeGreaterThan(0);
    await page.evaluate(({ h, v, f }) => window.deck.slide(h, v ?? 0, f), at);
    const widget = page.locator('.reveal .slides > section.present attn-steps').first();
    await expect.poll(() => widget.getAttribute('stage')).toBe('3');
    const scaled = widget.locator('attn-heatmap.scaled');
    await expect.poll(() => legendOf(scaled)).toHaveLength(3);
    expect(await legendOf(widget.locator('attn-heatmap.scores'))).toEqual(await legendOf(scaled));
    expect((await legendOf(scaled)).map((x) => Math.abs(Number(x)))).toContain(0.77);
    // Output projection: tying W does not remove the bias.
    const text = await page.evaluate(() => window.deck.getSlides().map((s) => s.textContent).join(' '));
    expect(text).not.toMatch(/if weights are shared/);
    expect(problems).toEqual([]);
    await page.close();
  });
});
