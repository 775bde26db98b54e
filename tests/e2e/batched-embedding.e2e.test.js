// Two figures of the decks, in both built decks at 1280×720:
//   - <attn-batched> (the notebook's (B, N, D) walk-through with the fused W_QKV): stepped forward
//     through its eight stages and back, each stage's maps holding the numbers the same API computes
//     here in Node, the numbers drawn in the cells agreeing with them, the shape line's shape right, and
//     the fused-vs-separate difference printed as computed;
//   - the tied output layer (<attn-output-projection>): its hidden state predicts the next word — the
//     top probability is "sat" after "the cat", not the context's last word "cat".
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { BASE_URL, launch, watchedPage } from './browser.js';
import { findSlide, revealSlideWith, slidevAt, slidevNext } from './deck-fit.js';
import { fmt } from '../../web/widgets/shared/format.js';
import { STAGES, WEIGHTS, batchX, batchedForward, block, shapeText } from '../../web/widgets/batched/logic.js';
import { D, SENTENCE, V, VOCAB, W_SEED, argmax, nextWordState } from '../../web/widgets/embedding/logic.js';
import { uniformMatrix } from '../../web/widgets/shared/rng.js';

let browser, lab, r;
beforeAll(async () => {
  browser = await launch();
  lab = await createAttnLab();
  r = batchedForward(lab, { x: batchX(), ...WEIGHTS });
});
afterAll(async () => { await browser?.close(); });

/** The values a map of class `cls` must hold (class names: attn-batched.js's panels). */
function expected(cls) {
  const { N, D: d, H, dk } = r.dims;
  const m = /^(\w+)(?: head)?(?: b(\d))?(?: h(\d))?$/.exec(cls);
  if (!m) throw new Error(`unknown map ${cls}`);
  const [, kind, bs, hs] = m, b = bs === undefined ? null : Number(bs), h = hs === undefined ? null : Number(hs);
  const whole = { x: r.x, wqkv: r.wqkv, qkv: r.qkv, q: r.q, k: r.k, v: r.v, concat: r.concat, out: r.output }[kind];
  if (cls.includes(' head ')) return block(r[`${kind}Heads`], b * H + h, N * dk);
  if (kind === 'scores' || kind === 'weights') return block(r[kind], b * H + h, N * N);
  if (b === null) return whole;
  const width = kind === 'qkv' ? 3 * d : d;
  return block(whole, b, N * width);
}

/** What the widget (the largest `tag` under `scope`) shows: stage, shape line, fused line, each map. */
function readBatched(page, scope) {
  return page.evaluate((scope) => {
    const w = [...document.querySelectorAll(`${scope} attn-batched`)].sort((a, b) => b.getBoundingClientRect().width - a.getBoundingClientRect().width)[0];
    const root = w?.shadowRoot;
    if (!root || root.querySelector('.loading')) return null;
    const text = (sel) => root.querySelector(sel)?.textContent.replace(/\s+/g, ' ').trim() ?? null;
    return {
      stage: w.getAttribute('stage'),
      current: text('.stagestrip li.current'),
      shape: text('.shape-line .shape'),
      fused: text('.fused .num'),
      maps: [...root.querySelectorAll('attn-heatmap')].map((h) => ({
        cls: h.getAttribute('class'), values: Array.from(h.values),
        nums: [...h.shadowRoot.querySelectorAll('text.num')].map((t) => t.textContent.trim()),
      })),
    };
  }, scope);
}

/** A drawn number agrees with its value to the decimals it shows. */
const agrees = (text, v) => {
  const dec = (text.split('.')[1] ?? '').length;
  return Math.abs(Number(text.replace('−', '-')) - v) <= 0.5 * 10 ** -dec + 1e-6;
};

/** Checks the view of stage i against the API's numbers. */
function checkStage(view, i, where) {
  expect(view, where).not.toBeNull();
  expect(view.stage, where).toBe(String(i));
  expect(view.current, where).toBe(STAGES[i].name);
  expect(view.shape, where).toBe(shapeText(r.shapes[STAGES[i].key]));
  if (STAGES[i].key === 'split') expect(view.fused, where).toBe(['q', 'k', 'v'].map((p) => fmt(r.maxDiff[p], 1)).join(', '));
  else expect(view.fused, where).toBeNull();
  expect(view.maps.length, where).toBeGreaterThan(0);
  for (const m of view.maps) {
    const want = expected(m.cls);
    expect(m.values.length, `${where} ${m.cls}`).toBe(want.length);
    m.values.forEach((v, j) => expect(Math.abs(v - want[j]), `${where} ${m.cls}[${j}]`).toBeLessThanOrEqual(1e-6));
    // Numbers are drawn in every map of this small batch, one per cell, each agreeing with its value.
    expect(m.nums.length, `${where} ${m.cls}: numbers drawn`).toBe(want.length);
    m.nums.forEach((t, j) => expect(agrees(t, want[j]), `${where} ${m.cls}[${j}] shows ${t} for ${want[j]}`).toBe(true));
  }
}

const poll = (fn, want, timeout = 15000) => expect.poll(fn, { timeout }).toBe(want);

describe('<attn-batched>: the (B, N, D) walk-through, forward and back', () => {
  test('Slidev', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(new URL('slides/slidev/index.html#/1', BASE_URL()).href);
    await page.locator('.slidev-page-1 .slidev-layout').first().waitFor();
    const no = await findSlide(page, '.slidev-page-{n} .attn-stepper attn-batched');
    expect(no).toBeGreaterThan(0);
    await page.evaluate((n) => { location.hash = `#/${n}`; }, no);
    const scope = `#slide-content .slidev-page-${no}`;
    for (let i = 0; i < STAGES.length; i++) {
      if (i > 0) await slidevNext(page, await slidevAt(page));
      expect(await slidevAt(page)).toEqual({ no, clicks: i });
      await poll(async () => (await readBatched(page, scope))?.stage, String(i));
      await poll(async () => (await readBatched(page, scope))?.current, STAGES[i].name);
      checkStage(await readBatched(page, scope), i, `slide ${no} click ${i}`);
    }
    for (let i = STAGES.length - 2; i >= 0; i--) {
      await page.keyboard.press('ArrowLeft');
      await poll(async () => (await readBatched(page, scope))?.current, STAGES[i].name);
      checkStage(await readBatched(page, scope), i, `slide ${no} back to ${i}`);
    }
    expect(problems).toEqual([]);
    await page.close();
  });

  test('reveal.js', async () => {
    const { page, problems } = await watchedPage(browser.context);
    const idx = await revealSlideWith(page, new URL('slides/reveal/index.html', BASE_URL()).href, 'attn-batched', 'data-batched-test');
    expect(idx).toBeGreaterThan(0);
    const scope = '[data-batched-test]';
    for (let i = 0; i < STAGES.length; i++) {
      if (i > 0) await page.evaluate(() => window.deck.next());
      await poll(async () => (await readBatched(page, scope))?.current, STAGES[i].name);
      checkStage(await readBatched(page, scope), i, `reveal slide ${idx} fragment ${i}`);
    }
    for (let i = STAGES.length - 2; i >= 0; i--) {
      await page.evaluate(() => window.deck.prev());
      await poll(async () => (await readBatched(page, scope))?.current, STAGES[i].name);
      checkStage(await readBatched(page, scope), i, `reveal back to ${i}`);
    }
    expect(problems).toEqual([]);
    await page.close();
  });
});

/** The output-projection widget's probabilities and context (the largest copy under `scope`). */
function readOutput(page, scope) {
  return page.evaluate((scope) => {
    const w = [...document.querySelectorAll(`${scope} attn-output-projection`)].sort((a, b) => b.getBoundingClientRect().width - a.getBoundingClientRect().width)[0];
    const root = w?.shadowRoot;
    const probs = root?.querySelector('attn-heatmap.probs'), h = root?.querySelector('attn-heatmap.h');
    if (!probs) return null;
    return {
      probs: Array.from(probs.values), cols: probs.colLabels, h: h ? Array.from(h.values) : null,
      pressed: root.querySelector('.tokens button[aria-pressed="true"]')?.getAttribute('aria-label') ?? null,
      nums: [...probs.shadowRoot.querySelectorAll('text.num')].map((t) => t.textContent.trim()),
    };
  }, scope);
}

function checkPrediction(view, where) {
  expect(view, where).not.toBeNull();
  const W = uniformMatrix(W_SEED, V * D), want = nextWordState(lab, W, 1);
  expect(view.cols).toEqual(VOCAB);
  view.probs.forEach((p, j) => expect(Math.abs(p - want.probs[j]), `${where} p[${VOCAB[j]}]`).toBeLessThanOrEqual(1e-6));
  const top = argmax(view.probs);
  expect(VOCAB[top], `${where}: the top prediction after “the cat”`).toBe('sat');
  expect(top, `${where}: the top prediction is not the input token`).not.toBe(SENTENCE[1]);
  expect(view.pressed).toBe('context “the cat”');
  if (view.h) view.h.forEach((x, j) => expect(Math.abs(x - want.h[j])).toBeLessThanOrEqual(1e-6));
  expect(view.nums).toContain(fmt(want.probs[top], 2));
}

describe('the tied output layer predicts the next word, not the input token', () => {
  test('Slidev: the embedding slide, one click', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(new URL('slides/slidev/index.html#/1', BASE_URL()).href);
    await page.locator('.slidev-page-1 .slidev-layout').first().waitFor();
    const no = await findSlide(page, '.slidev-page-{n} attn-embedding-lookup');
    expect(no).toBeGreaterThan(0);
    await page.evaluate((n) => { location.hash = `#/${n}`; }, no);
    await page.locator(`#slide-content .slidev-page-${no} attn-embedding-lookup`).first().waitFor();
    await slidevNext(page, await slidevAt(page));
    expect(await slidevAt(page)).toEqual({ no, clicks: 1 });
    const scope = `#slide-content .slidev-page-${no}`;
    await expect.poll(async () => (await readOutput(page, scope))?.probs.length, { timeout: 15000 }).toBe(V);
    checkPrediction(await readOutput(page, scope), `Slidev slide ${no}`);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('reveal.js: the output projection slide', async () => {
    const { page, problems } = await watchedPage(browser.context);
    const idx = await revealSlideWith(page, new URL('slides/reveal/index.html', BASE_URL()).href,
      'attn-output-projection', 'data-output-test', 1);  // fragment 1: the content
    expect(idx).toBeGreaterThan(0);
    await expect.poll(async () => (await readOutput(page, '[data-output-test]'))?.probs.length, { timeout: 15000 }).toBe(V);
    checkPrediction(await readOutput(page, '[data-output-test]'), `reveal slide ${idx}`);
    expect(problems).toEqual([]);
    await page.close();
  });
});
