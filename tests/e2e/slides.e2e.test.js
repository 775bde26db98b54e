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
