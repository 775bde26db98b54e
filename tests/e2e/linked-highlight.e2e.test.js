// Linked highlighting in the built app (dist/): hovering or focusing one query's cell in
// the steps widget highlights that query's row in every step (scores, scaled, mask, weights, output), V's
// rows weighted by its weights, and the cell's readout shows its arithmetic with the core's numbers
// (the expectations are computed here, in Node, with the same WASM core); multi-head links a concat
// column to its head's panels; kernel regression sizes the points by the query's weights.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { BASE_URL, launch, watchedPage } from './browser.js';
import { scrollTo } from './reader.js';
import { PRESETS } from '../../web/widgets/steps/logic.js';
import { dataset } from '../../web/widgets/kernel-regression/logic.js';
import { fmt } from '../../web/widgets/shared/format.js';

let browser, lab;
beforeAll(async () => {
  [browser, lab] = await Promise.all([launch(), createAttnLab()]);
});
afterAll(async () => { await browser?.close(); });

// The notes' "I / play / football" through the API, as the steps widget computes it (scale 1/√2).
function football() {
  const p = PRESETS.football, t = 3, proj = (w) => lab.weightedSum({ weights: p.x, v: w, tq: t, tk: p.dIn, dv: p.dk });
  const q = proj(p.wq), k = proj(p.wk), v = proj(p.wv);
  return { q, k, v, ...lab.attention({ q, k, v, tq: t, tk: t, dk: 2, dv: 2, scale: 1 / Math.sqrt(2) }) };
}

async function open() {
  const w = await watchedPage(browser.context);
  await w.page.setViewportSize({ width: 1280, height: 1000 });
  await w.page.goto(BASE_URL());
  await w.page.locator('attn-steps attn-heatmap.weights table td').first().waitFor({ state: 'attached' });
  // Widgets below the fold draw when the reader comes near them (lazy.js): the two used here, then back to the top.
  await scrollTo(w.page, 'attn-kernel-regression');
  await scrollTo(w.page, 'attn-multihead');
  await w.page.evaluate(() => window.scrollTo(0, 0));
  await w.page.mouse.move(1275, 995);  // out of the way of every map
  return w;
}

const steps = (cls) => `attn-steps attn-heatmap.${cls}`;
/** The k-th cell (row-major) of a map: its coloured rect. */
const cell = (page, sel, k) => page.locator(`${sel} svg rect[stroke="#fff"]:not(.hl)`).nth(k);
async function hover(page, sel, k) {
  const c = cell(page, sel, k);
  // A map may be drawn again meanwhile (a formula above it typeset, the page's later parts): its cell is
  // then briefly a new element without a box yet, so the box is asked until there is one.
  let b = null;
  await expect.poll(async () => {
    await c.evaluate((e) => e.scrollIntoView({ block: 'center' })).catch(() => undefined);
    b = await c.boundingBox().catch(() => null);
    return b !== null;
  }, { message: `a box for cell ${k} of ${sel}` }).toBe(true);
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
}
const indices = (page, sel, kind) => page.locator(`${sel} rect.hl-${kind}`).evaluateAll((els) => els.map((e) => Number(e.dataset.index)));
const readout = (page, sel) => page.locator(`${sel} .readout`).textContent();

/** Query i (and key j) highlighted in every step of the steps widget. */
async function expectLinked(page, i, j) {
  for (const cls of ['scores', 'scaled', 'mask-m', 'masked', 'weights'])
    await expect.poll(() => indices(page, steps(cls), 'row'), { message: `${cls} row` }).toEqual([i]);
  for (const cls of ['scores', 'scaled', 'weights']) expect(await indices(page, steps(cls), 'col'), `${cls} column`).toEqual([j]);
  expect(await indices(page, steps('output'), 'row')).toEqual([i]);
  expect(await indices(page, steps('q'), 'row')).toEqual([i]);
  expect(await indices(page, steps('k'), 'row')).toEqual([j]);
  // V: every row outlined by its weight A_ij (a wider line for a larger weight).
  const r = football(), A = Array.from(r.weights.subarray(i * 3, i * 3 + 3));
  const widths = await page.locator(`${steps('v')} rect.hl-weight`).evaluateAll((els) => els.map((e) => [Number(e.dataset.index), Number(e.getAttribute('stroke-width'))]));
  expect(widths.map(([row]) => row)).toEqual([0, 1, 2]);
  const order = (xs) => xs.map((x, n) => [x, n]).sort((a, b) => a[0] - b[0]).map(([, n]) => n);
  expect(order(widths.map(([, w]) => w))).toEqual(order(A));
  expect(await page.locator('attn-steps table.entropy tr.hl th').textContent()).toBe(PRESETS.football.tokens[i]);
}

describe('linked highlighting in the built app', () => {
  test('steps: hovering a weights cell follows its query through every step; readouts show the arithmetic', async () => {
    const { page, problems } = await open();
    const r = football();
    expect(Array.from(r.weights.subarray(0, 3), (x) => fmt(x, 4))).toEqual(['0.3233', '0.3941', '0.2826']);  // the notes' first row

    await hover(page, steps('weights'), 1);  // query I, key play
    await expectLinked(page, 0, 1);
    const s = Array.from(r.scaled.subarray(0, 3), (x) => fmt(x, 4));
    await expect.poll(() => readout(page, steps('weights'))).toBe(`I, play: e^s_ij / Σ_j' e^s_ij' = e^${s[1]} / (e^${s[0]} + e^${s[1]} + e^${s[2]}) = ${fmt(r.weights[1], 4)}`);
    expect(fmt(r.weights[1], 4)).toBe('0.3941');

    // Each map's cell tells how it was made, with the core's numbers.
    await hover(page, steps('scores'), 0);
    await expect.poll(() => readout(page, steps('scores'))).toBe('I, I: q_i·k_j = 0.8·0.5 + (−0.2)·0.5 = 0.3000');
    expect(fmt(r.scores[0], 4)).toBe('0.3000');
    await hover(page, steps('scaled'), 0);
    await expect.poll(() => readout(page, steps('scaled'))).toBe(`I, I: s_ij ÷ √d_k = 0.3000 ÷ √2 = ${fmt(r.scaled[0], 4)}`);
    await hover(page, steps('output'), 0);
    const term = (x) => { const t = fmt(x, 4).replace(/0+$/, '').replace(/\.$/, ''); return t.startsWith('-') ? `(−${t.slice(1)})` : t; };
    await expect.poll(() => readout(page, steps('output')))
      .toBe(`I, d1: Σ_j A_ij·v_jd = ${[0, 1, 2].map((j) => `${term(r.weights[j])}·${term(r.v[j * 2])}`).join(' + ')} = ${fmt(r.output[0], 4)}`);
    expect(fmt(r.output[0], 4)).toBe('1.0137');
    expect(await indices(page, steps('v'), 'col')).toEqual([0]);  // the value dimension it sums over

    // Leaving the maps clears every highlight.
    await page.mouse.move(1275, 995);
    await expect.poll(() => page.locator('attn-steps rect.hl-row, attn-steps rect.hl-weight').count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('steps: the keyboard cursor does what hovering does (and emits attn-cell-hover)', async () => {
    const { page, problems } = await open();
    await page.evaluate(() => {
      window.__hovers = [];
      document.querySelector('attn-steps').addEventListener('attn-cell-hover', (e) => window.__hovers.push(e.detail));
    });
    await page.locator(`${steps('weights')} svg`).focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');  // query play, key football
    await expectLinked(page, 1, 2);
    const r = football(), s = Array.from(r.scaled.subarray(3, 6), (x) => fmt(x, 4));
    await expect.poll(() => readout(page, steps('weights'))).toBe(`play, football: e^s_ij / Σ_j' e^s_ij' = e^${s[2]} / (e^${s[0]} + e^${s[1]} + e^${s[2]}) = ${fmt(r.weights[5], 4)}`);
    expect(await page.evaluate(() => window.__hovers.at(-1))).toEqual({ row: 1, col: 2 });
    await page.locator(`${steps('scores')} svg`).focus();  // the cursor starts at (0, 0): query I
    await expectLinked(page, 0, 0);
    await page.keyboard.press('Tab');  // focus leaves the maps: nothing linked
    await expect.poll(() => page.locator('attn-steps rect.hl-row').count()).toBe(0);
    expect(await page.evaluate(() => window.__hovers.includes(null))).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('steps in slide layout: the compact map puts the arithmetic in its caption', async () => {
    const { page, problems } = await open();
    await page.evaluate(() => { const s = document.querySelector('attn-steps'); s.layout = 'slide'; s.stage = 2; });
    await page.locator(`${steps('scores')}[compact] svg`).waitFor();
    await page.locator(`${steps('scores')} svg`).focus();
    // The cursor shows the cell, so the caption's one line holds only the arithmetic.
    await expect.poll(() => page.locator(`${steps('scores')} figcaption .value`).textContent()).toBe('q_i·k_j = 0.8·0.5 + (−0.2)·0.5 = 0.3000');
    expect(await indices(page, steps('q'), 'row')).toEqual([0]);
    expect(await indices(page, steps('k'), 'row')).toEqual([0]);
    await page.evaluate(() => { document.querySelector('attn-steps').stage = 5; });
    await page.locator(`${steps('weights')}[compact] svg`).waitFor();
    await page.locator(`${steps('weights')} svg`).focus();
    await page.keyboard.press('ArrowRight');
    const r = football(), s = Array.from(r.scaled.subarray(0, 3), (x) => fmt(x, 4));
    const caption = page.locator(`${steps('weights')} figcaption`);
    await expect.poll(() => caption.locator('.value').textContent()).toBe(`e^${s[1]} / (e^${s[0]} + e^${s[1]} + e^${s[2]}) = 0.3941`);
    // It fits its line (no ellipsis) and is at least 12 px.
    const fit = await caption.evaluate((e) => ({ fits: e.scrollWidth <= e.clientWidth + 1, px: parseFloat(getComputedStyle(e.querySelector('.value')).fontSize) }));
    expect(fit.fits).toBe(true);
    expect(fit.px).toBeGreaterThanOrEqual(12);
    expect(await indices(page, steps('masked'), 'row')).toEqual([0]);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('multi-head: hovering a head\u2019s column of the concat highlights that head across the panels', async () => {
    const { page, problems } = await open();
    const concat = 'attn-multihead attn-heatmap.concat';
    await page.locator(`${concat} table td`).first().waitFor({ state: 'attached' });
    const heads = await page.locator('attn-multihead').evaluate((e) => e.heads);
    const D = await page.locator('attn-multihead').evaluate((e) => e.dModel), dk = D / heads;
    expect(heads).toBe(2);
    await hover(page, concat, dk);  // row 0, first column of head 2
    for (const cls of ['q', 'k', 'v', 'weights']) {
      await expect.poll(() => page.locator(`attn-multihead attn-heatmap.${cls}.head2`).getAttribute('class'), { message: cls }).toContain('linked');
      expect(await page.locator(`attn-multihead attn-heatmap.${cls}.head1`).getAttribute('class'), cls).toContain('faded');
    }
    expect(await indices(page, concat, 'col')).toEqual(Array.from({ length: dk }, (_, j) => dk + j));
    await hover(page, concat, 0);  // head 1
    await expect.poll(() => page.locator('attn-multihead attn-heatmap.weights.head1').getAttribute('class')).toContain('linked');
    expect(await page.locator('attn-multihead attn-heatmap.weights.head2').getAttribute('class')).toContain('faded');
    await page.mouse.move(1275, 995);
    await expect.poll(() => page.locator('attn-multihead attn-heatmap.linked, attn-multihead attn-heatmap.faded').count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('kernel regression: point size follows the weight of the selected, then the hovered, query', async () => {
    const { page, problems } = await open();
    const w = page.locator('attn-kernel-regression');
    const plot = w.locator('.plot-hover figure > svg');
    await plot.waitFor();
    const { bandwidth, query, kernel, points, seed } = await w.evaluate((e) => ({ bandwidth: e.bandwidth, query: e.query, kernel: e.kernel, points: e.points, seed: e.seed }));
    const data = dataset(points, seed);
    const weightsAt = (x) => lab.kernelRegression({ xs: Float32Array.from(data, (p) => p[0]), ys: Float32Array.from(data, (p) => p[1]), bandwidth, kernel, queries: Float32Array.of(x) }).weights;
    // The training dots: the first `points` circles with the series colour.
    const radii = () => w.locator('.plot-hover circle[fill="#0072b2"]').evaluateAll((els) => els.map((e) => Number(e.getAttribute('r'))));
    const order = (xs) => Array.from(xs).map((x, n) => [x, n]).sort((a, b) => a[0] - b[0] || a[1] - b[1]).map(([, n]) => n);
    const biggest = (xs) => order(xs).at(-1);
    let rs = await radii();
    expect(rs.length).toBe(points);
    expect(biggest(rs)).toBe(biggest(weightsAt(query)));
    // Hover x ≈ 1.0 on the plot: the sizes follow that query's weights instead.
    await plot.evaluate((e) => e.scrollIntoView({ block: 'center' }));
    const b = await plot.boundingBox(), x = 1;
    await page.mouse.move(b.x + 56 + (b.width - 68) * (x / 7), b.y + b.height / 2);
    await expect.poll(async () => biggest(await radii())).not.toBe(biggest(weightsAt(query)));
    const hx = await w.evaluate((e) => e._hoverX);
    expect(Math.abs(hx - x)).toBeLessThan(0.1);
    rs = await radii();
    expect(biggest(rs)).toBe(biggest(weightsAt(hx)));
    expect(problems).toEqual([]);
    await page.close();
  });
});
