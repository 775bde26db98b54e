// Predict, then reveal, in both built decks and in the app: each predict slide opens on the guess
// (inputs shown, result hidden, labelled controls of at least 24 px), one click reveals the core's
// result beside the guess with how far off it was, and a click back hides it again with the guess
// kept. The numbers the reveal prints are checked against the same calls made here in Node.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { BASE_URL, launch, watchedPage } from './browser.js';
import { findSlide, slidevAt, slidevNext } from './deck-fit.js';
import { fmt } from '../../web/widgets/shared/format.js';
import { normalise, totalVariation } from '../../web/widgets/shared/predict.js';
import { PRESETS } from '../../web/widgets/steps/logic.js';
import { CAT_SAT } from '../../web/widgets/multihead/logic.js';
import { dataset } from '../../web/widgets/kernel-regression/logic.js';
import { fitGuess, guessRange } from '../../web/widgets/kernel-regression/predict.js';

let browser, lab;
beforeAll(async () => { browser = await launch(); lab = await createAttnLab(); });
afterAll(async () => { await browser?.close(); });

/** Row "I" of the football example's weights, from the core. */
function footballRow() {
  const p = PRESETS.football, t = 3;
  const proj = (w) => lab.weightedSum({ weights: p.x, v: w, tq: t, tk: p.dIn, dv: p.dk });
  const r = lab.attention({ q: proj(p.wq), k: proj(p.wk), v: proj(p.wv), tq: t, tk: t, dk: p.dk, dv: p.dk });
  return Array.from(r.weights.slice(0, 3));
}

/** Each head's row for "sat" in the cat/sat example, from the core. */
function catSatRows() {
  const p = CAT_SAT;
  const r = lab.multiHeadAttention({ x: p.x, tq: 3, dModel: p.dModel, heads: p.heads, wq: p.wq, wk: p.wk, wv: p.wv, wo: p.wo });
  return [0, 1].map((h) => Array.from(r.weights.slice(h * 9 + 6, h * 9 + 9)));
}

/** ŷ(4.25) of the kernel-regression widget's default data, from the core. */
function kernelYhat() {
  const d = dataset(20, 1);
  return { yhat: lab.kernelRegression({ xs: d.map((q) => q[0]), ys: d.map((q) => q[1]), queries: [4.25], bandwidth: 0.5 }).predictions[0], ys: d.map((q) => q[1]) };
}

/** RoPE's q·k at (2, 0) and (22, 20) for <attn-rope>'s content vectors, from the core. */
function ropeScores() {
  const dim = 8, n = 23, q = [0.9, -0.3, 0.5, 0.8, -0.6, 0.2, 0.4, -0.7], k = [0.3, 0.7, -0.8, 0.1, 0.5, 0.6, -0.2, 0.4];
  const rows = (v) => Float32Array.from({ length: n * dim }, (_, i) => v[i % dim]);
  const s = lab.attention({ q: lab.rope({ x: rows(q), t: n, dim }), k: lab.rope({ x: rows(k), t: n, dim }), v: new Float32Array(n), tq: n, tk: n, dk: dim, dv: 1, scale: 1 }).scores;
  return { shown: s[2 * n], asked: s[22 * n + 20] };
}

/** What a predict widget shows (the largest copy of `tag` under `scope`): phase, controls, reveal texts. */
function readWidget(page, scope, tag) {
  return page.evaluate(([scope, tag]) => {
    const w = [...document.querySelectorAll(`${scope} ${tag}`)].sort((a, b) => b.getBoundingClientRect().width - a.getBoundingClientRect().width)[0];
    const root = w?.shadowRoot;
    if (!root) return null;
    const controls = [...root.querySelectorAll('.predict input, .predict button')].map((el) => {
      const r = el.getBoundingClientRect(), k = r.width / (el.offsetWidth || 1);
      return { name: el.getAttribute('aria-label') || el.textContent.trim(), w: r.width / k, h: r.height / k };
    });
    const text = (sel) => root.querySelector(sel)?.textContent.replace(/\s+/g, ' ').trim() ?? null;
    return {
      stage: w.getAttribute('stage'), guess: !!root.querySelector('.predict.guess'), reveal: !!root.querySelector('.predict.reveal'),
      controls, verdict: text('.predict .verdict'), table: [...root.querySelectorAll('.predict table.compare tr')].map((tr) => [...tr.children].map((c) => c.textContent.trim())),
      weightsMaps: root.querySelectorAll('attn-heatmap.weights, attn-heatmap[class*="weights head"]').length,
      sliders: [...root.querySelectorAll('.predict input[type=range]')].map((i) => Number(i.value)),
    };
  }, [scope, tag]);
}

/** Sets the widget's sliders / buttons as a viewer would (an input event per slider, a click per button). */
function setGuess(page, scope, tag, { sliders = [], buttons = [] }) {
  return page.evaluate(([scope, tag, sliders, buttons]) => {
    const w = [...document.querySelectorAll(`${scope} ${tag}`)].sort((a, b) => b.getBoundingClientRect().width - a.getBoundingClientRect().width)[0];
    const inputs = [...w.shadowRoot.querySelectorAll('.predict input[type=range]')];
    sliders.forEach((v, i) => { inputs[i].value = String(v); inputs[i].dispatchEvent(new Event('input', { bubbles: true, composed: true })); });
    for (const [group, j] of buttons) w.shadowRoot.querySelectorAll('.predict .choices')[group].querySelectorAll('button')[j].click();
  }, [scope, tag, sliders, buttons]);
}

const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 150)))));

/** The guess stage: inputs labelled, ≥ 24 px, and no result on screen. */
function expectGuess(v, where) {
  expect(v?.guess, `${where}: the guess stage`).toBe(true);
  expect(v.reveal, `${where}: nothing revealed`).toBe(false);
  expect(v.controls.length).toBeGreaterThan(0);
  for (const c of v.controls) {
    expect(c.name, `${where}: a control without a name`).not.toBe('');
    expect(Math.min(c.w, c.h), `${where}: ${c.name} is ${c.w}×${c.h} px`).toBeGreaterThanOrEqual(24);
  }
}

// [tag, slide selector, guess to make, check of the reveal]
const CASES = [
  ['attn-steps', { sliders: [10, 80, 10] }, (v) => {
    const row = footballRow(), guess = normalise([10, 80, 10]);
    expect(v.table[2].slice(1)).toEqual(row.map((a) => fmt(a, 2)));
    expect(v.table[1].slice(1)).toEqual(guess.map((a) => fmt(a, 2)));
    expect(v.verdict).toContain(`off by ${fmt(totalVariation(guess, row), 2)}`);
    expect(v.weightsMaps).toBeGreaterThan(0);
  }],
  ['attn-multihead', { buttons: [[0, 1], [1, 1]] }, (v) => {
    const rows = catSatRows(), tokens = ['the', 'cat', 'sat'];
    const top = rows.map((a) => a.indexOf(Math.max(...a)));
    expect(v.table[1][2]).toBe(`${tokens[top[0]]} ${fmt(rows[0][top[0]], 2)}`);
    expect(v.table[2][2]).toBe(`${tokens[top[1]]} ${fmt(rows[1][top[1]], 2)}`);
    expect(v.table[1][1]).toBe(`cat ${fmt(rows[0][1], 2)}`);
    expect(v.table[1][3]).toBe(fmt(rows[0][top[0]] - rows[0][1], 2));
    expect(v.verdict).toContain(`${top.filter((t) => t === 1).length} of 2`);
    expect(v.weightsMaps).toBe(2);
  }],
  ['attn-kernel-regression', { sliders: [1] }, (v) => {
    const { yhat, ys } = kernelYhat(), g = fitGuess(1, guessRange(ys));
    expect(v.verdict).toContain(`computed ŷ ${fmt(yhat, 3)}`);
    expect(v.verdict).toContain(`off by ${fmt(Math.abs(g - yhat), 2)}`);
  }],
  ['attn-rope', { sliders: [0.5] }, (v) => {
    const { shown, asked } = ropeScores();
    expect(fmt(asked, 3)).toBe(fmt(shown, 3));  // the relative-distance property the slide asks about
    expect(v.verdict).toContain(`off by ${fmt(Math.abs(0.5 - asked), 2)}`);
  }],
];

describe('Slidev: predict slides step forward to the reveal and back', () => {
  for (const [tag, guess, check] of CASES) {
    test(tag, async () => {
      const { page, problems } = await watchedPage(browser.context);
      await page.setViewportSize({ width: 1280, height: 720 });
      await page.goto(new URL('slides/slidev/index.html#/1', BASE_URL()).href);
      await page.locator('.slidev-page-1 .slidev-layout').first().waitFor();
      const no = await findSlide(page, `.slidev-page-{n} .attn-stepper ${tag}[predict]`);
      expect(no).toBeGreaterThan(0);
      await page.evaluate((n) => { location.hash = `#/${n}`; }, no);
      const scope = `#slide-content .slidev-page-${no}`;
      await page.locator(`${scope} ${tag}`).first().waitFor();
      await expect.poll(async () => (await readWidget(page, scope, tag))?.guess, { timeout: 15000 }).toBe(true);
      expectGuess(await readWidget(page, scope, tag), `slide ${no}`);
      await setGuess(page, scope, tag, guess);
      await settle(page);
      const before = (await readWidget(page, scope, tag)).sliders;
      await slidevNext(page, await slidevAt(page));
      expect((await slidevAt(page)).clicks).toBe(1);
      await expect.poll(async () => (await readWidget(page, scope, tag))?.reveal, { timeout: 10000 }).toBe(true);
      check(await readWidget(page, scope, tag));
      // Back: the guess again, the result hidden, the guess kept.
      await page.keyboard.press('ArrowLeft');
      await expect.poll(async () => (await readWidget(page, scope, tag))?.guess, { timeout: 10000 }).toBe(true);
      const back = await readWidget(page, scope, tag);
      expectGuess(back, `slide ${no} back`);
      expect(back.sliders).toEqual(before);
      expect(problems).toEqual([]);
      await page.close();
    });
  }
});

describe('reveal.js: predict slides step forward to the reveal and back', () => {
  for (const [tag, guess, check] of CASES) {
    test(tag, async () => {
      const { page, problems } = await watchedPage(browser.context);
      await page.setViewportSize({ width: 1280, height: 720 });
      await page.goto(new URL('slides/reveal/index.html', BASE_URL()).href);
      await page.waitForFunction(() => window.deck?.isReady());
      const idx = await page.evaluate((tag) => window.deck.getSlides().findIndex((s) => s.querySelector(`${tag}[predict]`)), tag);
      expect(idx).toBeGreaterThan(0);
      await page.evaluate((i) => {
        const s = window.deck.getSlides()[i];
        s.setAttribute('data-predict-test', '');
        window.deck.slide(...Object.values(window.deck.getIndices(s)).slice(0, 2));
      }, idx);
      const scope = '[data-predict-test]';
      await expect.poll(async () => (await readWidget(page, scope, tag))?.guess, { timeout: 15000 }).toBe(true);
      expectGuess(await readWidget(page, scope, tag), `reveal slide ${idx}`);
      await setGuess(page, scope, tag, guess);
      await settle(page);
      const before = (await readWidget(page, scope, tag)).sliders;
      await page.evaluate(() => window.deck.next());
      await expect.poll(async () => (await readWidget(page, scope, tag))?.reveal, { timeout: 10000 }).toBe(true);
      check(await readWidget(page, scope, tag));
      await page.evaluate(() => window.deck.prev());
      await expect.poll(async () => (await readWidget(page, scope, tag))?.guess, { timeout: 10000 }).toBe(true);
      expect((await readWidget(page, scope, tag)).sliders).toEqual(before);
      expect(problems).toEqual([]);
      await page.close();
    });
  }
});

describe('the app: predict first as a self-check, by keyboard, at 390 px', () => {
  test('<attn-steps>: toggle, arrow keys on a slider, Reveal, the URL keeps the guess', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(new URL('index.html', BASE_URL()).href);
    const w = page.locator('attn-steps[hash-key="steps"]');
    await w.scrollIntoViewIfNeeded();
    await w.locator('input.predict-toggle').check();
    await expect.poll(() => w.getAttribute('stage')).toBe('5');
    const first = w.locator('input.guess-weight').first();
    await first.focus();
    for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowRight');
    await expect.poll(() => first.inputValue()).toBe('60');
    expect(await first.getAttribute('aria-label')).toBe('predicted weight of key “I” for query “I”');
    const hash = decodeURIComponent(await page.evaluate(() => location.hash));
    expect(hash).toContain('"predict":true');
    expect(hash).toContain('"guess":[60,50,50]');
    const view = await readWidget(page, 'body', 'attn-steps[hash-key="steps"]');
    expectGuess(view, 'app 390 px');
    await w.locator('button.reveal').press('Enter');
    await expect.poll(() => w.getAttribute('stage')).toBe('6');
    const row = footballRow(), tvd = totalVariation(normalise([60, 50, 50]), row);
    await expect.poll(async () => (await readWidget(page, 'body', 'attn-steps[hash-key="steps"]'))?.verdict).toContain(`off by ${fmt(tvd, 2)}`);
    // A shared link opens on the same guess.
    const link = await page.evaluate(() => location.href);
    const second = await watchedPage(browser.context);
    await second.page.setViewportSize({ width: 390, height: 844 });
    await second.page.goto(link);
    const w2 = second.page.locator('attn-steps[hash-key="steps"]');
    await w2.scrollIntoViewIfNeeded();
    await expect.poll(async () => (await readWidget(second.page, 'body', 'attn-steps[hash-key="steps"]'))?.verdict ?? '', { timeout: 15000 }).toContain(`off by ${fmt(tvd, 2)}`);
    expect(problems).toEqual([]);
    expect(second.problems).toEqual([]);
    await page.close();
    await second.page.close();
  });
});
