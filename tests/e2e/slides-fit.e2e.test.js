// The decks as the audience sees them (1280×720): at every slide and every click (Slidev) or
// fragment (reveal.js), every attnlab widget on screen lies inside the slide and inside every box
// that clips it (no scroll boxes), its numbers (cells and colour bars) are at least 18 px high, and the stage it draws
// is the stage the click asked for. And each widget alone in a slide-sized box (fit.html), at
// Slidev's and reveal.js's canvas sizes and a half-slide column, at every stage.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BASE_URL, launch, watchedPage } from './browser.js';
import { walkReveal, walkSlidev } from './deck-fit.js';
import { fitReport } from './fit-check.js';

let browser;
beforeAll(async () => { browser = await launch(); });
afterAll(async () => { await browser?.close(); });

// A walk checks every widget at every step (~150 steps in Slidev): 2.3 min on this 2-core machine under
// load, past the suite's 2 min per test.
const WALK_MS = 600000;

describe('decks at 1280×720: every step fits the slide', () => {
  test('Slidev: every slide and click', async () => {
    const { page, problems } = await watchedPage(browser.context);
    const r = await walkSlidev(page, new URL('slides/slidev/index.html', BASE_URL()).href);
    expect(r.widgets).toBeGreaterThan(25);
    expect(r.problems).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, WALK_MS);

  test('reveal.js: every slide and fragment', async () => {
    const { page, problems } = await watchedPage(browser.context);
    const r = await walkReveal(page, new URL('slides/reveal/index.html', BASE_URL()).href);
    expect(r.widgets).toBeGreaterThan(5);
    expect(r.problems).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, WALK_MS);
});

// Each widget in a box: [tag, attributes, stages to step through].
const WIDGETS = [
  ['attn-steps', 'preset=football', [0, 1, 2, 3, 4, 5, 6]],
  ['attn-steps', 'preset=football&mask=causal', [4, 5, 6]],
  ['attn-multihead', 'preset=cat-sat', [0, 1, 2, 3, 4]],
  ['attn-batched', '', [0, 1, 2, 3, 4, 5, 6, 7]],
  ['attn-cross', '', [null]],
  ['attn-block', '', [null]],
  ['attn-positional', '', [null]],
  ['attn-convex', '', [null]],
  ['attn-kernel-regression', '', [null]],
  ['attn-why-scale', '', [null]],
  ['attn-cost', '', [null]],
];
const BOXES = [
  ['Slidev canvas under a title', 'w=980&h=552&title=A%20slide%20title'],
  ['reveal.js canvas', 'w=960&h=700'],
];

describe('each widget in a slide-sized box', () => {
  for (const [tag, attrs, stages] of WIDGETS) {
    test(`${tag} ${attrs}`, async () => {
      const { page, problems } = await watchedPage(browser.context);
      await page.setViewportSize({ width: 1280, height: 760 });
      const found = [];
      for (const [boxName, box] of BOXES) {
        for (const stage of stages) {
          const q = [`tag=${tag}`, attrs, box, stage === null ? '' : `stage=${stage}`].filter(Boolean).join('&');
          await page.goto(new URL(`fit.html?${q}`, BASE_URL()).href);
          await page.waitForFunction(() => {
            const w = document.querySelector('#box > :last-child');
            return w?.shadowRoot && w.shadowRoot.childElementCount && !w.shadowRoot.querySelector('.loading');
          }, null, { timeout: 30000 });
          await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 200)))));
          const r = await page.evaluate(fitReport, { widget: '#box > :last-child', slide: '#box' });
          const where = `${boxName}, stage ${stage ?? 'all'}`;
          for (const o of r.outside.slice(0, 3)) found.push(`${where}: outside ${o.clip}: ${o.el}`);
          if (r.small.length) found.push(`${where}: ${r.small.length} numbers under 18 px`);
        }
      }
      expect(found).toEqual([]);
      expect(problems).toEqual([]);
      await page.close();
    });
  }
});
