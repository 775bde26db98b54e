// The decks' trained cross-attention slide (<attn-cross trained>: the tiny encoder–decoder of
// tools/pretrain_cross.cc), as the audience sees it at 1280×720: each click (Slidev) or fragment
// (reveal.js) shows the next key snapshot — untrained, steps 100, 300, 600, the end of the run — and
// stepping back shows the previous one again. At every step the map on screen is the one the core
// computes in this Node process from the same shipped weights (web/widgets/cross/trained.js), the
// caption gives that snapshot's step and held-out accuracy as shipped, its text is ≥ 14 px and its
// numbers ≥ 18 px. The scrubber moves by keyboard to the snapshot before, and the next click shows
// the click's snapshot again.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { BASE_URL, launch, watchedPage } from './browser.js';
import { findSlide, revealSlideWith, slidevAt, slidevNext, textReport } from './deck-fit.js';
import { fitReport } from './fit-check.js';
import { crossForward, loadCrossRun, numberWords } from '../../web/widgets/cross/trained.js';
import { keySnapshot, STAGE_COUNT } from '../../web/widgets/cross/trained-view.js';

let browser, lab, run;
beforeAll(async () => { browser = await launch(); lab = await createAttnLab(); run = await loadCrossRun(); });
afterAll(async () => { await browser?.close(); });

/** What the widget shows: the stage strip's current item, the map's values and labels, caption, scrubber. */
function readCross(page, sel) {
  return page.evaluate((s) => {
    const w = document.querySelector(s), root = w?.shadowRoot, hm = root?.querySelector('attn-heatmap.trained');
    if (!hm?.values) return null;
    return {
      current: [...root.querySelectorAll('.stagestrip li')].findIndex((li) => li.classList.contains('current')),
      values: Array.from(hm.values), rows: hm.rowLabels, cols: hm.colLabels,
      caption: root.querySelector('.caption')?.textContent.replace(/\s+/g, ' ').trim() ?? '',
      scrub: root.querySelector('input.snapshot')?.value ?? null,
    };
  }, sel);
}

/** The map and caption of snapshot k (for 4326) as Node computes and the shipped index records them. */
function expected(k) {
  const r = crossForward(lab, run, k, 4326), s = run.snapshots[k];
  return { values: Array.from(r.weights), step: `step ${s.step.toLocaleString('en-US')}`, accuracy: `${(100 * s.accuracy).toFixed(1)} %` };
}

const maxDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

async function expectSnapshot(page, sel, k, stage, where) {
  const e = expected(k);
  await expect.poll(async () => {
    const v = await readCross(page, sel);
    return v && v.values.length === e.values.length && maxDiff(v.values, e.values) < 1e-6 && v.caption.includes(e.step);
  }, { timeout: 15000, message: `${where}: snapshot ${k}` }).toBe(true);
  const v = await readCross(page, sel);
  expect(v.cols).toEqual(numberWords(4326));
  expect(v.rows).toEqual(['4', '3', '2', '6']);
  expect(v.caption).toContain(e.accuracy);
  if (stage !== null) expect(v.current, `${where}: the stage strip`).toBe(stage);
  expect(Number(v.scrub)).toBe(k);
  // Legible from the back row: every text ≥ 14 px, every cell number ≥ 18 px, nothing outside the slide.
  const text = await page.evaluate(textReport, { widget: sel, min: 14 });
  expect(text.small, `${where}: text under 14 px`).toEqual([]);
  expect(text.count).toBeGreaterThan(10);
  return v;
}

async function checkFit(page, sel, slide, where) {
  const r = await page.evaluate(fitReport, { widget: sel, slide });
  expect(r.small, `${where}: numbers under 18 px`).toEqual([]);
  expect(r.outside, `${where}: outside the slide`).toEqual([]);
}

describe('trained cross-attention: the clicks step the snapshots forward and back', () => {
  test('the stages are the key snapshots: untrained first, the end of the run last, steps rising', () => {
    const ks = Array.from({ length: STAGE_COUNT }, (_, s) => keySnapshot(run.snapshots, s));
    expect(ks[0]).toBe(0);
    expect(ks.at(-1)).toBe(run.snapshots.length - 1);
    for (let s = 1; s < ks.length; s++) expect(ks[s]).toBeGreaterThan(ks[s - 1]);
    // What the slides' notes say about the end: each digit on its word.
    const last = crossForward(lab, run, ks.at(-1), 4326);
    expect([0, 1, 2, 3].map((i) => last.weights[i * 6 + [0, 2, 4, 5][i]] > 0.9)).toEqual([true, true, true, true]);
  });

  test('Slidev', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(new URL('slides/slidev/index.html#/1', BASE_URL()).href);
    await page.locator('.slidev-page-1 .slidev-layout').first().waitFor();
    const no = await findSlide(page, '.slidev-page-{n} .attn-stepper attn-cross[trained]');
    expect(no).toBeGreaterThan(0);
    await page.evaluate((n) => { location.hash = `#/${n}`; }, no);
    const sel = `#slide-content .slidev-page-${no} attn-cross[trained]`;
    await page.locator(sel).waitFor();
    const slide = `#slide-content .slidev-page-${no} .slidev-layout`;
    for (let s = 0; s < STAGE_COUNT; s++) {
      expect((await slidevAt(page)).clicks).toBe(s);
      await expectSnapshot(page, sel, keySnapshot(run.snapshots, s), s, `Slidev click ${s}`);
      await checkFit(page, sel, slide, `Slidev click ${s}`);
      if (s < STAGE_COUNT - 1) await slidevNext(page, await slidevAt(page));
    }
    // The scrubber, by keyboard: one snapshot back; the stage strip names the stage before it.
    const last = run.snapshots.length - 1;
    await page.locator(`${sel} >> input.snapshot`).focus();
    await page.keyboard.press('ArrowLeft');
    await expectSnapshot(page, sel, last - 1, null, 'Slidev scrubbed');
    expect((await slidevAt(page)).clicks).toBe(STAGE_COUNT - 1);  // the key moved the scrubber, not the deck
    // Back through the clicks (the scrubbed snapshot gives way to each click's).
    await page.evaluate((s) => document.querySelector(s).shadowRoot.activeElement?.blur(), sel);
    for (let s = STAGE_COUNT - 2; s >= 0; s--) {
      await page.keyboard.press('ArrowLeft');
      await expect.poll(async () => (await slidevAt(page)).clicks).toBe(s);
      await expectSnapshot(page, sel, keySnapshot(run.snapshots, s), s, `Slidev back to click ${s}`);
    }
    expect(problems).toEqual([]);
    await page.close();
  });

  test('reveal.js', async () => {
    const { page, problems } = await watchedPage(browser.context);
    const idx = await revealSlideWith(page, new URL('slides/reveal/index.html', BASE_URL()).href, 'attn-cross[trained]', 'data-cross-test');
    expect(idx).toBeGreaterThan(0);
    const sel = '[data-cross-test] attn-cross[trained]';
    for (let s = 0; s < STAGE_COUNT; s++) {
      await expectSnapshot(page, sel, keySnapshot(run.snapshots, s), s, `reveal fragment ${s}`);
      await checkFit(page, sel, '[data-cross-test]', `reveal fragment ${s}`);
      if (s < STAGE_COUNT - 1) await page.evaluate(() => window.deck.next());
    }
    const last = run.snapshots.length - 1;
    const f = await page.evaluate(() => window.deck.getIndices().f);
    await page.locator(`${sel} >> input.snapshot`).focus();
    await page.keyboard.press('ArrowLeft');  // reveal.js leaves keys typed into an input alone
    await expectSnapshot(page, sel, last - 1, null, 'reveal scrubbed');
    expect(await page.evaluate(() => window.deck.getIndices().f)).toBe(f);
    for (let s = STAGE_COUNT - 2; s >= 0; s--) {
      await page.evaluate(() => window.deck.prev());
      await expectSnapshot(page, sel, keySnapshot(run.snapshots, s), s, `reveal back to fragment ${s}`);
    }
    expect(problems).toEqual([]);
    await page.close();
  });
});
