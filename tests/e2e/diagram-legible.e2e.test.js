// <attn-transformer-diagram> as the audience sees it at 1280×720: in every Slidev slide and every
// reveal.js overlay that shows it, each label (<text>) has a glyph box at least 16 px high, lies inside
// the svg, lies inside its module's box (for boxed labels), and overlaps no other label. And the
// `highlight` attribute, exclusions included (decoder,-cross), still picks the right modules.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BASE_URL, launch, watchedPage } from './browser.js';

const MIN_PX = 16;
let browser;
beforeAll(async () => { browser = await launch(); });
afterAll(async () => { await browser?.close(); });

// Runs in the page: problems of the diagrams under `scope`, plus the smallest label height seen.
function labelReport(scope) {
  const problems = [], heights = [];
  const diagrams = [...document.querySelectorAll(`${scope} attn-transformer-diagram`)];
  for (const [d, el] of diagrams.entries()) {
    const svg = el.shadowRoot.querySelector('svg'), s = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll('text')];
    if (texts.length < 20) problems.push(`diagram ${d}: only ${texts.length} labels`);
    const rects = texts.map((t) => t.getBoundingClientRect());
    texts.forEach((t, i) => {
      const r = rects[i], what = `diagram ${d} "${t.textContent}"`;
      heights.push(r.height);
      if (r.height < 16) problems.push(`${what}: ${r.height.toFixed(1)} px high`);
      if (r.left < s.left - 0.5 || r.right > s.right + 0.5 || r.top < s.top - 0.5 || r.bottom > s.bottom + 0.5)
        problems.push(`${what}: outside the svg`);
      const box = t.parentElement.querySelector(':scope > rect')?.getBoundingClientRect();
      if (t.parentElement.matches('g.m') && box
        && (r.left < box.left || r.right > box.right || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5))
        problems.push(`${what}: outside its box`);
      for (let j = i + 1; j < texts.length; j++) {
        const o = rects[j];
        if (r.left < o.right - 0.5 && o.left < r.right - 0.5 && r.top < o.bottom - 0.5 && o.top < r.bottom - 0.5)
          problems.push(`${what} overlaps "${texts[j].textContent}"`);
      }
    });
  }
  return { diagrams: diagrams.length, problems, min: Math.min(...heights) };
}

const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 150)))));

describe('<attn-transformer-diagram> labels at 1280×720', () => {
  test('Slidev: every slide with the diagram', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(new URL('slides/slidev/index.html#/1', BASE_URL()).href);
    await page.locator('.slidev-page-1').first().waitFor();
    const found = [], bad = [];
    let min = Infinity;
    for (let n = 1; n < 500; n++) {
      await page.evaluate((n) => { location.hash = `#/${n}`; }, n);
      const sel = `#slide-content .slidev-page-${n}`;
      if (!await page.locator(`${sel} .slidev-layout`).first().waitFor({ timeout: 5000 }).then(() => true, () => false)) break;
      await settle(page);
      const r = await page.evaluate(labelReport, sel);
      if (!r.diagrams) continue;
      found.push(n);
      min = Math.min(min, r.min);
      bad.push(...r.problems.map((p) => `slide ${n}: ${p}`));
    }
    expect(found.length).toBeGreaterThanOrEqual(5);
    expect(bad).toEqual([]);
    expect(min).toBeGreaterThanOrEqual(MIN_PX);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('reveal.js: every overlay with the diagram', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(new URL('slides/reveal/index.html', BASE_URL()).href);
    await page.waitForFunction(() => window.deck?.isReady?.());
    const at = await page.evaluate(() => window.deck.getSlides()
      .filter((s) => s.querySelector('attn-transformer-diagram')).map((s) => window.deck.getIndices(s)));
    expect(at.length).toBeGreaterThanOrEqual(3);
    const bad = [];
    for (const { h, v } of at) {
      await page.evaluate(([h, v]) => window.deck.slide(h, v ?? 0, 0), [h, v]);
      await page.evaluate(() => new Promise((r) => setTimeout(r, 400)));  // the slide transition
      await page.evaluate(() => window.deck.getCurrentSlide().setAttribute('data-legible-current', ''));
      const r = await page.evaluate(labelReport, '[data-legible-current]');
      await page.evaluate(() => window.deck.getCurrentSlide().removeAttribute('data-legible-current'));
      expect(r.diagrams).toBeGreaterThan(0);
      expect(r.min).toBeGreaterThanOrEqual(MIN_PX);
      bad.push(...r.problems.map((p) => `slide ${h + 1}${v ? `.${v}` : ''}: ${p}`));
    }
    expect(bad).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('highlight picks modules, a leading minus takes them out again', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.goto(new URL('slides/reveal/index.html', BASE_URL()).href);
    await page.waitForFunction(() => window.deck?.isReady?.());
    const on = (highlight) => page.evaluate((highlight) => {
      const el = document.querySelector('attn-transformer-diagram');
      el.setAttribute('highlight', highlight);
      return [...el.shadowRoot.querySelectorAll('.m.on')].map((g) => g.getAttribute('class').replace(/^m | on$/g, ''));
    }, highlight);
    const decoderOnly = await on('decoder,-cross');
    expect(decoderOnly).toContain('attention decoder masked');
    expect(decoderOnly).toContain('positional decoder');
    expect(decoderOnly.some((c) => /cross|encoder/.test(c))).toBe(false);
    expect(decoderOnly.length).toBe(9);  // embedding, positional, masked, 3 × Add & Norm, FFN, linear, softmax
    expect(await on('masked,cross')).toEqual(['attention decoder masked', 'attention decoder cross']);
    expect(await on('linear,softmax')).toEqual(['linear decoder', 'softmax decoder']);
    expect(await on('attention,-decoder')).toEqual(['attention encoder']);
    expect(await on('')).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });
});
