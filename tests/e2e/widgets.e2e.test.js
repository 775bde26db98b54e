// Every widget in the built app, in real Chromium: it renders, its numbers are the ones the API
// computes (the expectation is computed here, in Node, with the same WASM core and inputs), the URL
// hash restores a configuration, a hostile hash gives the defaults and a notice, and Tab reaches
// every control.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { BASE_URL, launch, watchedPage } from './browser.js';
import { scrollThrough } from './reader.js';
import { PRESETS, maskArgument } from '../../web/widgets/steps/logic.js';
import { CAT_SAT } from '../../web/widgets/multihead/logic.js';
import { embed, scaledIdentity } from '../../web/widgets/cross/logic.js';
import { dataset } from '../../web/widgets/kernel-regression/logic.js';
import { blockInput, blockWeights } from '../../web/widgets/block/logic.js';
import { sampleQK } from '../../web/widgets/why-scale/logic.js';
import { variance } from '../../web/widgets/shared/stats.js';
import { fmt } from '../../web/widgets/shared/format.js';

const TAGS = ['attn-steps', 'attn-convex', 'attn-kernel-regression', 'attn-why-scale',
  // Two cross-attention widgets: the hand-set sentences and the trained numbers model.
  'attn-cross:not([trained])', 'attn-cross[trained]', 'attn-multihead', 'attn-batched',
  'attn-positional', 'attn-rope', 'attn-block', 'attn-cost'];

let browser, lab;
beforeAll(async () => {
  [browser, lab] = await Promise.all([launch(), createAttnLab()]);
});
afterAll(async () => { await browser?.close(); });

const f4 = (xs) => Array.from(xs, (x) => fmt(x, 4));
const cells = (page, sel) => page.locator(`${sel} table td`).allTextContents();
// Lit re-renders asynchronously after an input: poll until the table shows the expected numbers.
const expectCells = (page, sel, expected) => expect.poll(() => cells(page, sel)).toEqual(expected);

async function open(hash = '') {
  const w = await watchedPage(browser.context);
  await w.page.goto(BASE_URL() + hash);
  await w.page.locator('attn-steps attn-heatmap.weights table td').first().waitFor({ state: 'attached' });
  // Widgets below the fold draw when the reader comes near them (lazy.js): scroll through them all.
  await scrollThrough(w.page);
  return w;
}

// The football example through the API, with the steps widget's options.
function football({ mask = 'none', temperature = 1, scale = 'sqrt', x = PRESETS.football.x } = {}) {
  const p = PRESETS.football, t = 3, proj = (w) => lab.weightedSum({ weights: x, v: w, tq: t, tk: p.dIn, dv: p.dk });
  return lab.attention({ q: proj(p.wq), k: proj(p.wk), v: proj(p.wv), tq: t, tk: t, dk: 2, dv: 2,
    scale: (scale === 'none' ? 1 : 1 / Math.sqrt(2)) / temperature, mask: maskArgument(mask, t, { window: 1, padding: 1 }) });
}

describe('the app and its widgets', () => {
  test('loads with no console errors and no request off localhost; every widget renders', async () => {
    const { page, problems } = await open();
    for (const tag of TAGS) {
      const el = page.locator(tag);
      expect(await el.count(), tag).toBe(1);
      await el.locator('.wrap').waitFor({ state: 'attached' });
      await expect.poll(() => el.locator('.loading, .failure').count(), { message: `${tag} loaded` }).toBe(0);
      expect(await el.locator('.error').count(), `${tag} has no error`).toBe(0);
    }
    await page.locator('attn-tex .katex').first().waitFor({ state: 'attached' });
    await page.evaluate(() => document.fonts.ready);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('steps: the notes’ numbers, and mask / temperature / scale / a typed cell recompute to what the API computes', async () => {
    const { page, problems } = await open();
    const w = 'attn-steps attn-heatmap.weights', o = 'attn-steps attn-heatmap.output';
    expect((await cells(page, w)).slice(0, 3)).toEqual(['0.3233', '0.3941', '0.2826']);
    expect((await cells(page, o)).slice(0, 2)).toEqual(['1.0137', '0.2561']);
    await expectCells(page, w, f4(football().weights));

    await page.locator('attn-steps select.mask').selectOption('causal');
    await expectCells(page, w, f4(football({ mask: 'causal' }).weights));
    await expectCells(page, o, f4(football({ mask: 'causal' }).output));
    await page.locator('attn-steps input.temperature').fill('0.5');
    await expectCells(page, w, f4(football({ mask: 'causal', temperature: 0.5 }).weights));
    await page.locator('attn-steps input.scale').uncheck();
    await expectCells(page, w, f4(football({ mask: 'causal', temperature: 0.5, scale: 'none' }).weights));
    // The state went into the URL hash.
    expect(decodeURIComponent(await page.evaluate(() => location.hash))).toContain('"mask":"causal"');

    await page.locator('attn-steps select.mask').selectOption('none');
    await page.locator('attn-steps input.temperature').fill('1');
    await page.locator('attn-steps input.scale').check();
    const x = [...PRESETS.football.x];
    x[0] = 1.5;
    await page.locator('attn-steps attn-matrix-editor.x input').first().fill('1.5');
    await expectCells(page, w, f4(football({ x }).weights));
    // Alt+Arrow up adds the step (0.1) (plain arrows move between cells).
    await page.locator('attn-steps attn-matrix-editor.x input').first().press('Alt+ArrowUp');
    x[0] = 1.6;
    await expectCells(page, o, f4(football({ x }).output));

    // Dragging a cell up by 40 px adds 5 steps (one per 8 px).
    const box = await page.locator('attn-steps attn-matrix-editor.x input').first().boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2 - 40, { steps: 8 });
    await page.mouse.up();
    x[0] = 2.1;
    await expectCells(page, o, f4(football({ x }).output));

    // Hand-edited mask: clicking M's cell (0, 1) masks key "play" for query "I".
    await page.locator('attn-steps attn-heatmap.mask-m svg').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    const keep = [1, 0, 1, 1, 1, 1, 1, 1, 1];
    const p = PRESETS.football, proj = (m) => lab.weightedSum({ weights: x, v: m, tq: 3, tk: 3, dv: 2 });
    const r = lab.attention({ q: proj(p.wq), k: proj(p.wk), v: proj(p.wv), tq: 3, tk: 3, dk: 2, dv: 2, mask: maskArgument('custom', 3, { keep }) });
    await expectCells(page, w, f4(r.weights));
    expect(problems).toEqual([]);
    await page.close();
  });

  test('heatmaps: the value under the keyboard cursor, and SVG / PNG export', async () => {
    const { page, problems } = await open();
    const hm = page.locator('attn-steps attn-heatmap.weights');
    await hm.locator('svg').focus();
    await expect.poll(() => hm.locator('.readout').textContent()).toMatch(new RegExp(`^I, I: e\\^.* = ${fmt(football().weights[0], 4)}$`));  // the readout shows the softmax's arithmetic (linked-highlight.e2e.test.js checks it)
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => hm.locator('.readout').textContent()).toMatch(new RegExp(`^I, play: e\\^.* = ${fmt(football().weights[1], 4)}$`));
    const [svgDownload] = await Promise.all([page.waitForEvent('download'), hm.locator('button', { hasText: 'SVG' }).click()]);
    expect(svgDownload.suggestedFilename()).toBe('weights_A.svg');
    const svgText = (await import('node:fs')).readFileSync(await svgDownload.path(), 'utf8');
    expect(svgText).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svgText).toContain(`>${fmt(football().weights[0], 4)}<`);  // the cell's number (4 decimals for few tokens), drawn in the picture
    const [pngDownload] = await Promise.all([page.waitForEvent('download'), hm.locator('button', { hasText: 'PNG' }).click()]);
    const png = (await import('node:fs')).readFileSync(await pngDownload.path());
    expect([...png.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('steps: the stage attribute reveals the computation step by step', async () => {
    const { page } = await open();
    const steps = page.locator('attn-steps');
    await steps.evaluate((el) => { el.stage = 2; });
    expect(await steps.locator('.s2').count()).toBe(1);
    expect(await steps.locator('.s3, .s5, .s6').count()).toBe(0);
    await steps.evaluate((el) => el.setAttribute('stage', '6'));
    expect(await steps.locator('.s6').count()).toBe(1);
    await steps.evaluate((el) => el.setAttribute('stage', '0'));
    expect(await steps.locator('.s1, .s6').count()).toBe(0);
    await page.close();
  });

  test('the URL hash restores a configuration', async () => {
    const state = { mask: 'window', window: 1, temperature: 2, scale: 'sqrt' };
    const hash = '#' + new URLSearchParams({ steps: JSON.stringify(state), multihead: JSON.stringify({ heads: 1 }) }).toString();
    const { page, problems } = await open(hash);
    expect(await page.locator('attn-steps select.mask').inputValue()).toBe('window');
    const p = PRESETS.football, proj = (m) => lab.weightedSum({ weights: p.x, v: m, tq: 3, tk: 3, dv: 2 });
    const r = lab.attention({ q: proj(p.wq), k: proj(p.wk), v: proj(p.wv), tq: 3, tk: 3, dk: 2, dv: 2, scale: 1 / Math.sqrt(2) / 2, mask: { window: 1 } });
    await expectCells(page, 'attn-steps attn-heatmap.weights', f4(r.weights));
    const mh = lab.multiHeadAttention({ x: CAT_SAT.x, tq: 3, dModel: 4, heads: 1, wq: CAT_SAT.wq, wk: CAT_SAT.wk, wv: CAT_SAT.wv, wo: CAT_SAT.wo });
    await expectCells(page, 'attn-multihead attn-heatmap.head1.weights', f4(mh.weights));
    await expectCells(page, 'attn-multihead attn-heatmap.output', f4(mh.output));
    expect(problems).toEqual([]);
    await page.close();
  });

  test('a hostile or truncated hash gives the defaults and a visible notice, and no markup from the link', async () => {
    const hash = '#steps=%7B%22mask%22%3A%22caus&multihead=' + encodeURIComponent('{"heads":3,"dModel":4}')
      + '&cross=' + encodeURIComponent('{"source":"<img src=x onerror=alert(1)> cat","target":"<b>chat</b>"}')
      + '&convex=' + encodeURIComponent('{"perm":[0,0,1]}') + '&why=%E0%A4%A';
    const { page, problems } = await open(hash);
    expect((await cells(page, 'attn-steps attn-heatmap.weights')).slice(0, 3)).toEqual(['0.3233', '0.3941', '0.2826']);
    for (const tag of ['attn-steps', 'attn-multihead', 'attn-convex', 'attn-why-scale'])
      await expect(page.locator(`${tag} .notice`).first().textContent(), tag).resolves.toMatch(/ignored.*defaults/);
    // Free text is shown as text: no element is made from it.
    expect(await page.locator('attn-cross img, attn-cross b').count()).toBe(0);
    // (as a label, "?"-marked: the toy dictionary does not know the word)
    expect(await page.locator('attn-cross attn-heatmap.alignment table th').allTextContents()).toContain('<img?');
    expect(problems).toEqual([]);
    await page.close();
  });

  test('multi-head: the notes’ “the / cat / sat” and changing heads', async () => {
    const { page } = await open();
    const run = (heads) => lab.multiHeadAttention({ x: CAT_SAT.x, tq: 3, dModel: 4, heads, wq: CAT_SAT.wq, wk: CAT_SAT.wk, wv: CAT_SAT.wv, wo: CAT_SAT.wo });
    const two = run(2);
    expect((await cells(page, 'attn-multihead attn-heatmap.head1.weights')).slice(0, 3)).toEqual(f4(two.weights.slice(0, 3)));
    await expectCells(page, 'attn-multihead attn-heatmap.head2.weights', f4(two.weights.slice(9, 18)));
    await expectCells(page, 'attn-multihead attn-heatmap.concat', f4(two.heads));
    await page.locator('attn-multihead select.heads').selectOption('4');
    await expectCells(page, 'attn-multihead attn-heatmap.output', f4(run(4).output));
    await page.close();
  });

  test('positional: base and d_model change the table to the API’s; learned fails past its length, as a lesson', async () => {
    const { page } = await open();
    await page.locator('attn-positional input.base').fill('100');
    await page.locator('attn-positional input.base').press('Enter');
    await page.locator('attn-positional select.d-model').selectOption('8');
    const pe = lab.positionalEncoding({ kind: 'sinusoidal', length: 48, dModel: 8, base: 100 });
    await expectCells(page, 'attn-positional attn-heatmap.sinusoidal', f4(pe));
    await expect(page.locator('attn-positional .learned-error').textContent()).resolves.toContain('maxLength = 16');
    const alibi = lab.alibi({ heads: 8, tq: 24 });
    await expectCells(page, 'attn-positional attn-heatmap.alibi', f4(alibi.bias.slice(0, 24 * 24)));
    await page.close();
  });

  test('convex: the deck’s A·V, and permuting tokens permutes the outputs', async () => {
    const { page } = await open();
    const A = [0.6, 0.1, 0.3, 0.3, 0.5, 0.2, 0.2, 0.1, 0.7], V = [2, 1, -0.5, 2, -1, -0.5];
    const out = lab.weightedSum({ weights: A, v: V, tq: 3, tk: 3, dv: 2 });
    await expectCells(page, 'attn-convex attn-heatmap.output', f4(out));
    expect(f4(out)).toEqual(['0.8500', '0.6500', '0.1500', '1.2000', '-0.3500', '0.0500']);
    await page.locator('attn-convex button.rotate').click();  // order: am Sam I
    const rows = [1, 2, 0].flatMap((i) => [out[2 * i], out[2 * i + 1]]);
    await expectCells(page, 'attn-convex attn-heatmap.perm-output', f4(rows));
    await page.close();
  });

  test('why-scale: the variances shown are those of the core’s scores', async () => {
    const { page } = await open();
    // On a page the table fills in one d_k per task (a phone-class CPU never waits for all eleven at once).
    await expect.poll(() => page.locator('attn-why-scale .sampling').textContent(), { timeout: 60000 }).toBe('');
    const rows = await page.locator('attn-why-scale table.measurements tr').allTextContents();
    expect(rows).toHaveLength(12);  // header + d_k = 1 … 1024
    const n = 64;
    for (const d of [1, 64, 1024]) {
      const { q, k } = sampleQK(1, d, n);
      const r = lab.attention({ q, k, v: new Float32Array(n), tq: n, tk: n, dk: d, dv: 1 });
      const row = await page.locator('attn-why-scale table.measurements tr').nth(Math.log2(d) + 1).locator('td').allTextContents();
      expect(row.slice(0, 3)).toEqual([String(d), fmt(variance(r.scores), 2), fmt(variance(r.scaled), 3)]);
    }
    await page.close();
  });

  test('cross-attention: a new target sentence gives the API’s alignment', async () => {
    const { page } = await open();
    await page.locator('attn-cross:not([trained]) input.target').fill('le chat dort');
    await page.locator('attn-cross:not([trained]) input.target').press('Enter');
    const src = 'the black cat sat on the mat'.split(' '), tgt = ['le', 'chat', 'dort'];
    const r = lab.multiHeadAttention({ x: embed(tgt, 16), tq: 3, context: embed(src, 16), tk: src.length, dModel: 16, heads: 1,
      wq: scaledIdentity(16, 10), wk: scaledIdentity(16), wv: scaledIdentity(16), wo: scaledIdentity(16) });
    await expectCells(page, 'attn-cross:not([trained]) attn-heatmap.alignment', f4(r.weights));
    await page.close();
  });

  test('kernel regression: the bandwidth changes the weights to the API’s', async () => {
    const { page } = await open();
    const data = dataset(20, 1);
    const xs = Float32Array.from(data, (p) => p[0]), ys = Float32Array.from(data, (p) => p[1]);
    await page.locator('attn-kernel-regression input.bandwidth').fill('0');  // log10: h = 1
    const r = lab.kernelRegression({ xs, ys, queries: Float32Array.of(4.25), bandwidth: 1, kernel: 'gaussian' });
    await expectCells(page, 'attn-kernel-regression attn-heatmap.weights', f4(r.weights));
    await expect(page.locator('attn-kernel-regression .prediction strong').textContent()).resolves.toBe(fmt(r.predictions[0], 4));
    await page.close();
  });

  test('block: post-LN and pre-LN outputs are the API’s', async () => {
    const { page } = await open();
    const t = 6, D = 8, F = 32;
    const run = (norm) => lab.encoderBlock({ x: blockInput(1, t, D), t, dModel: D, heads: 2, dFF: F, norm, activation: 'gelu', mask: 'none', weights: blockWeights(1, D, F) });
    await expectCells(page, 'attn-block attn-heatmap.output', f4(run('post').output));
    await page.locator('attn-block select.norm').selectOption('pre');
    await expectCells(page, 'attn-block attn-heatmap.output', f4(run('pre').output));
    await page.close();
  });

  test('cost: measures every T in the page and fits the model', async () => {
    const { page, problems } = await open();
    await page.locator('attn-cost select.max-t').selectOption('128');
    await page.locator('attn-cost button.run').click();
    await page.locator('attn-cost .done').waitFor({ timeout: 60000 });
    const rows = await page.locator('attn-cost table.timings tr').count();
    expect(rows).toBe(1 + 4);  // header + T = 16, 32, 64, 128
    const ms = await page.locator('attn-cost table.timings tr td:nth-child(2)').allTextContents();
    for (const m of ms) expect(Number(m)).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('cost at d_model 256, 8 heads: the timed calls run in a Web Worker, none on the page thread (a T = 2048 call is ~250 ms)', async () => {
    const { page, problems } = await open('#cost=' + encodeURIComponent(JSON.stringify({ dModel: 256, heads: 8, maxT: 128 })));
    await page.locator('attn-cost button.run').waitFor();
    await expect.poll(() => page.evaluate(() => !!document.querySelector('attn-cost')._lab)).toBe(true);
    // Every multi-head call the page's thread makes from now on is counted.
    await page.evaluate(() => {
      const lab = document.querySelector('attn-cost')._lab, f = lab.multiHeadAttention.bind(lab);
      window.__pageCalls = 0;
      lab.multiHeadAttention = (a) => { window.__pageCalls++; return f(a); };
    });
    const done = page.evaluate(() => new Promise((ok) => document.querySelector('attn-cost').addEventListener('attn-cost-complete', (e) => ok(e.detail.where), { once: true })));
    await page.locator('attn-cost button.run').click();
    expect(await done).toBe('worker');
    expect(await page.locator('attn-cost table.timings tr').count()).toBe(1 + 4);
    const ms = await page.locator('attn-cost table.timings tr td:nth-child(2)').allTextContents();
    for (const m of ms) expect(Number(m)).toBeGreaterThan(0);
    expect(await page.evaluate(() => window.__pageCalls)).toBe(0);
    expect(await page.locator('attn-cost p.note').textContent()).toContain('in a background thread (a Web Worker)');
    expect(problems).toEqual([]);
    await page.close();
  });

  test('a browser without WASM SIMD gets a clear message, not a blank page', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.addInitScript(() => { WebAssembly.validate = () => false; });  // what an engine without SIMD answers
    await page.goto(BASE_URL());
    await expect.poll(() => page.locator('.status').textContent()).toMatch(/no WebAssembly SIMD/);
    expect(await page.locator('.status').isVisible()).toBe(true);
    for (const tag of TAGS) await expect.poll(() => page.locator(`${tag} .failure`).count(), { message: tag }).toBe(1);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('keyboard only: Tab reaches every control, and focus is visible', async () => {
    const { page } = await open();
    // Tag every focusable control (deep in shadow roots) and walk the page with Tab.
    const total = await page.evaluate(() => {
      const all = [];
      const walk = (root) => {
        for (const el of root.querySelectorAll('*')) {
          // A matrix editor is one Tab stop (roving tabindex): its other cells have tabindex -1.
          if (el.matches('a[href], button:not([disabled]), select, input:not([tabindex="-1"]), summary, [tabindex="0"]')) all.push(el);
          if (el.shadowRoot) walk(el.shadowRoot);
        }
      };
      walk(document);
      all.forEach((el, i) => el.setAttribute('data-kb', String(i)));
      return all.length;
    });
    expect(total).toBeGreaterThan(100);
    const seen = new Set();
    let outline = null;
    for (let i = 0; i < total + 40 && seen.size < total; i++) {
      await page.keyboard.press('Tab');
      const info = await page.evaluate(() => {
        let el = document.activeElement;
        while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
        const cs = el ? getComputedStyle(el) : null;
        return { kb: el?.getAttribute('data-kb'), outline: cs ? cs.outlineStyle : null };
      });
      if (info.kb !== null && info.kb !== undefined) seen.add(info.kb);
      if (info.outline && info.outline !== 'none') outline = info.outline;
    }
    const missed = await page.evaluate((seenList) => {
      const s = new Set(seenList), out = [];
      const walk = (root) => {
        for (const el of root.querySelectorAll('[data-kb]')) if (!s.has(el.getAttribute('data-kb'))) out.push(`${el.tagName.toLowerCase()}.${el.className}`);
        for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
      };
      walk(document);
      return out;
    }, [...seen]);
    expect(missed).toEqual([]);
    expect(outline).not.toBe(null);
    await page.close();
  });
});
