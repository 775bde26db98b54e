// Bad values and edge states, as a student meets them: a bad value never strands a widget (the controls
// stay, the field says what is wrong and what range it takes, the last good result stays, the hash
// is not written), edge states are explained, and the link keeps the whole state (stage, section).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BASE_URL, launch, watchedPage } from './browser.js';
import { scrollTo } from './reader.js';

let browser;
beforeAll(async () => { browser = await launch(); });
afterAll(async () => { await browser?.close(); });

const url = (hash = '') => (process.env.STUDENT_INPUTS_URL ?? BASE_URL()) + hash;

/** A fresh page at `hash`, the widget `sel` drawn. */
// <attn-steps> draws in parts (the inputs, then Q, then K and V, then the attention, a frame apart): wait
// for the weights' numbers, which the tests compare before and after an edit.
async function open(sel, hash = '', ready = sel === 'attn-steps' ? 'attn-heatmap.weights table td' : 'attn-heatmap') {
  const { page, problems } = await watchedPage(browser.context);
  await page.goto(url(hash));
  // A widget below the first screen is drawn when the reader comes near it (lazy.js): scroll to it.
  if (sel !== 'attn-steps') await scrollTo(page, sel);
  await page.locator(`${sel} ${ready}`).first().waitFor({ state: 'attached' });
  return { page, problems };
}

// The hand-set <attn-cross> (the page also has the trained one, <attn-cross trained>).
const HAND_SET_CROSS = 'attn-cross:not([trained])';

const cells = async (page, sel) => (await page.locator(`${sel} table td`).allTextContents()).filter((t) => t.trim() !== '');
const hashParam = (page, key) => page.evaluate((k) => new URLSearchParams(location.hash.slice(1)).get(k), key);

/**
 * Types `text` into field `field` of widget `sel` (fill + change), then checks: the field is
 * aria-invalid, described by a message that contains `expect`, the controls are still there,
 * `result` (a heatmap's numbers) did not change, and the hash did not change.
 */
async function refused(page, sel, field, text, message, result) {
  const input = page.locator(`${sel} input.${field}`);
  const before = await cells(page, `${sel} ${result}`);
  const hash = await page.evaluate(() => location.hash);
  if ((await input.getAttribute('type')) === 'number' && !/^[-\d.e+]*$/.test(text)) {
    // Letters into a number field: typed keys (a number field cannot be filled with them).
    await input.fill('');
    await input.focus();
    await page.keyboard.type(text);
    await input.dispatchEvent('change');
  } else {
    await input.fill(text);
    await input.dispatchEvent('change');
  }
  await expect.poll(() => input.getAttribute('aria-invalid')).toBe('true');
  const id = await input.getAttribute('aria-describedby');
  expect(id).toBeTruthy();
  const msg = await page.locator(`${sel} #${id}`).textContent();
  expect(msg).toContain(message);
  expect(await page.locator(`${sel} .controls`).count()).toBeGreaterThan(0);
  expect(await page.locator(`${sel} .error`).count()).toBe(0);
  expect(await cells(page, `${sel} ${result}`)).toEqual(before);
  expect(await page.evaluate(() => location.hash)).toBe(hash);
  return msg;
}

describe('a bad value never strands a student', () => {
  test('steps: d_model 2.5, d_k 3.7, d_model 512 and letters keep the controls and the last result', async () => {
    const S = 'attn-steps';
    const { page, problems } = await open(S);
    expect(await refused(page, S, 'd-in', '2.5', '2.5 is not a whole number', 'attn-heatmap.weights')).toContain('from 1 to 8');
    expect(await page.locator(`${S} input.tokens`).isVisible()).toBe(true);
    await refused(page, S, 'd-k', '3.7', '3.7 is not a whole number', 'attn-heatmap.weights');
    await refused(page, S, 'd-in', '512', '512 is out of range: d_model takes a whole number from 1 to 8', 'attn-heatmap.weights');
    await refused(page, S, 'seed', 'abc', 'seed takes a whole number from 0 to 1000000000', 'attn-heatmap.weights');
    // A good value clears the message and is used.
    await page.locator(`${S} input.d-in`).fill('4');
    await page.locator(`${S} input.d-in`).dispatchEvent('change');
    await expect.poll(() => page.locator(`${S} input.d-in`).getAttribute('aria-invalid')).toBe('false');
    expect(await page.locator(`${S} attn-matrix-editor.x`).evaluate((e) => e.cols)).toBe(4);
    expect(JSON.parse(await hashParam(page, 'steps')).dIn).toBe(4);
    expect(problems).toEqual([]);
  });

  test('steps: temperature −1, 0, 0.01, 25 are refused with the range while τ stays 1; padding 3 with 3 tokens', async () => {
    const S = 'attn-steps';
    const { page, problems } = await open(S);
    for (const t of ['-1', '0', '0.01', '25']) {
      const input = page.locator(`${S} input.temperature`);
      await input.fill(t);  // fill fires input
      await expect.poll(() => input.getAttribute('aria-invalid')).toBe('true');
      expect(await page.locator(`${S} #msg-temperature`).textContent()).toContain('a number from 0.05 to 20');
      expect(await page.locator(`${S} #msg-temperature`).textContent()).toContain('still 1');
      expect((await cells(page, `${S} attn-heatmap.weights`)).slice(0, 3)).toEqual(['0.3233', '0.3941', '0.2826']);
    }
    expect(await hashParam(page, 'steps')).toBe(null);
    await page.locator(`${S} select.mask`).selectOption('padding');
    await refused(page, S, 'padding', '3', '3 is out of range', 'attn-heatmap.weights');
    expect(await page.locator(`${S} #msg-padding`).textContent()).toContain('from 0 to 2');
    expect(JSON.parse(await hashParam(page, 'steps')).padding).toBe(1);
    expect(problems).toEqual([]);
  });

  test('steps: 40 tokens are cut to 8 with a note; empty tokens are refused', async () => {
    const S = 'attn-steps';
    const { page } = await open(S);
    const input = page.locator(`${S} input.tokens`);
    await input.fill(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '));
    await input.dispatchEvent('change');
    await expect.poll(() => page.locator(`${S} #msg-tokens`).textContent()).toContain('cut to 8 tokens (40 typed; at most 8)');
    expect(await input.getAttribute('aria-invalid')).toBe('false');
    expect(await page.locator(`${S} attn-heatmap.weights`).evaluate((e) => e.rows)).toBe(8);
    await refused(page, S, 'tokens', '   ', 'empty', 'attn-heatmap.weights');
  });

  test('steps: a row with every key masked says no key is visible and why its output is 0', async () => {
    const S = 'attn-steps';
    const { page } = await open(S);
    expect(await page.locator(`${S} .blind-rows`).count()).toBe(0);
    // Mask the three keys of query "I" by clicking row 1 of M.
    for (let j = 0; j < 3; j++) await page.locator(`${S} attn-heatmap.mask-m`).evaluate((e, col) => e.dispatchEvent(new CustomEvent('attn-cell-toggle', { detail: { row: 0, col } })), j);
    const note = page.locator(`${S} .blind-rows`);
    await expect.poll(() => note.count()).toBe(1);
    const text = await note.textContent();
    expect(text).toContain('“I”');
    expect(text).toContain('sees no key');
    expect(text).toContain('output row of 0');
    expect((await cells(page, `${S} attn-heatmap.weights`)).slice(0, 3)).toEqual(['0.0000', '0.0000', '0.0000']);
    expect(await page.locator(`${S} table.entropy`).textContent()).toContain('(no key visible)');
  });

  test('cross: an empty source is refused at its field, the alignment stays, the hash keeps the last good source', async () => {
    const S = HAND_SET_CROSS;
    const { page, problems } = await open(S);
    await page.locator(`${S} input.target`).fill('le chat noir');
    await page.locator(`${S} input.target`).dispatchEvent('change');
    await expect.poll(async () => JSON.parse(await hashParam(page, 'cross') ?? '{}').target).toBe('le chat noir');
    const msg = await refused(page, S, 'source', '', 'empty', 'attn-heatmap.alignment');
    expect(msg).toContain('1 to 8 words');
    expect(await page.locator(`${S} p.error`).count()).toBe(0);
    expect(JSON.parse(await hashParam(page, 'cross')).source).toBe('the black cat sat on the mat');
    // Reloading the page keeps a working widget. (The reload aborts what the page was still fetching in
    // idle time, e.g. the widgets' code and the training snapshots below: not a problem of the page.)
    await page.reload();
    await page.locator(`${S} attn-heatmap.alignment`).waitFor({ state: 'attached' });
    expect(await page.locator(`${S} attn-heatmap.alignment`).evaluate((e) => [e.rows, e.cols])).toEqual([3, 7]);
    expect(problems.filter((p) => !/^request failed: .* net::ERR_ABORTED$/.test(p))).toEqual([]);
  });

  test('cross: a link with an empty source is refused with the notice', async () => {
    const S = HAND_SET_CROSS;
    const { page } = await open(S, '#cross=' + encodeURIComponent(JSON.stringify({ source: '', target: 'le chat' })));
    expect(await page.locator(`${S} .notice`).textContent()).toContain('source is empty');
    expect(await page.locator(`${S} input.source`).inputValue()).toBe('the black cat sat on the mat');
  });

  test('cross: words the toy dictionary does not know are marked, the known ones listed', async () => {
    const S = HAND_SET_CROSS;
    const { page } = await open(S);
    await page.locator(`${S} input.source`).fill('the black tree');
    await page.locator(`${S} input.source`).dispatchEvent('change');
    await expect.poll(() => page.locator(`${S} attn-heatmap.alignment`).evaluate((e) => e.colLabels.join(' '))).toBe('the black tree?');
    const note = await page.locator(`${S} .dictionary`).textContent();
    expect(note).toContain('Not in the toy dictionary');
    expect(note).toContain('“tree”');
    expect(note).toContain('“est”');
    expect(note).not.toContain('“noir”');
    expect(await page.locator(`${S} .dictionary-words`).textContent()).toContain('black (noir, schwarz)');
  });

  test('cross on a phone (390 px): every map title reads whole, with 1 and 2 heads and the trained one', async () => {
    // The hand-set map's title was cut with an ellipsis: 'alignment: target (rows) × source (c…'.
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(url());
    const titles = (sel) => page.locator(`${sel} attn-heatmap`).evaluateAll((maps) => maps.map((h) => {
      const f = h.shadowRoot.querySelector('figcaption');
      return { text: f.textContent.trim(), cut: f.scrollWidth > f.clientWidth + 0.5, width: f.clientWidth };
    }));
    for (const [sel, heads] of [[HAND_SET_CROSS, 1], [HAND_SET_CROSS, 2], ['attn-cross[trained]', null]]) {
      await scrollTo(page, sel);
      await page.locator(`${sel} attn-heatmap`).first().waitFor({ state: 'attached' });
      if (heads) {
        await page.locator(`${sel} select.heads`).selectOption(String(heads));
        await expect.poll(async () => (await titles(sel)).length).toBe(heads);
      }
      await page.locator(`${sel} attn-heatmap`).first().scrollIntoViewIfNeeded();
      await expect.poll(async () => (await titles(sel)).every((t) => t.width > 0), { timeout: 30000 }).toBe(true);
      const seen = await titles(sel);
      expect(seen.length).toBeGreaterThan(0);
      for (const t of seen) {
        expect(t.text.length, `${sel}: a title`).toBeGreaterThan(10);
        expect(t.cut, `${sel} (${heads ?? 'trained'}): '${t.text}' is cut at ${t.width} px`).toBe(false);
      }
    }
    expect(problems.filter((p) => !/^request failed: .* net::ERR_ABORTED$/.test(p))).toEqual([]);
    await page.close();
  });

  test('block: empty tokens refused at the field; the link #block={"tokens":""} gives the notice and a working widget', async () => {
    const S = 'attn-block';
    const { page, problems } = await open(S);
    await refused(page, S, 'tokens', '', 'empty', 'attn-heatmap.x');
    expect(await hashParam(page, 'block')).toBe(null);
    const { page: linked } = await open(S, '#block={"tokens":""}');
    expect(await linked.locator(`${S} .notice`).textContent()).toContain('tokens is empty');
    expect(await linked.locator(`${S} input.tokens`).inputValue()).toBe('the cat sat on the mat');
    expect(await linked.locator(`${S} attn-heatmap.x`).evaluate((e) => e.rows)).toBe(6);
    expect(problems).toEqual([]);
  });

  test('kernel points 500 and 2, keys in the softmax 1, positional base 1: refused with the range', async () => {
    const { page, problems } = await open('attn-kernel-regression', '', 'svg');
    for (const [v, m] of [['500', '500 is out of range'], ['2', '2 is out of range']]) {
      const input = page.locator('attn-kernel-regression input.points');
      await input.fill(v);
      await input.dispatchEvent('change');
      await expect.poll(() => page.locator('attn-kernel-regression #msg-points').textContent()).toContain(m);
      expect(await page.locator('attn-kernel-regression #msg-points').textContent()).toContain('from 3 to 60');
      expect(await input.getAttribute('aria-invalid')).toBe('true');
    }
    expect(await hashParam(page, 'kernel')).toBe(null);
    await scrollTo(page, 'attn-why-scale');
    const keys = page.locator('attn-why-scale input.keys');
    await keys.fill('1');
    await keys.dispatchEvent('change');
    await expect.poll(() => page.locator('attn-why-scale #msg-keys').textContent()).toContain('1 is out of range: keys in the softmax (still 8) takes a whole number from 2 to 32');
    await scrollTo(page, 'attn-positional');
    const base = page.locator('attn-positional input.base');
    await base.fill('1');
    await base.dispatchEvent('change');
    await expect.poll(() => page.locator('attn-positional #msg-base').textContent()).toContain('from 2 to 1000000');
    expect(await base.getAttribute('aria-invalid')).toBe('true');
    expect(await hashParam(page, 'why')).toBe(null);
    expect(await hashParam(page, 'positional')).toBe(null);
    expect(problems).toEqual([]);
  });

  test('trained cross: a number outside 1000–9999, a fraction or nothing is refused at its field; the map stays', async () => {
    const sel = 'attn-cross[trained]';
    const { page, problems } = await open(sel);
    await page.locator(`${sel} input.number`).waitFor();
    for (const [v, m] of [['99999', '99999 is out of range: the number (still 4326) takes a whole number from 1000 to 9999'],
      ['12', '12 is out of range'], ['4326.5', '4326.5 is not a whole number'], ['', 'empty: the number (still 4326)']])
      await refused(page, sel, 'number', v, m, 'attn-heatmap');
    const input = page.locator(`${sel} input.number`);
    await input.fill('1234');
    await input.dispatchEvent('change');
    await expect.poll(() => input.getAttribute('aria-invalid')).toBe('false');
    expect(await page.locator(`${sel} .field-msg`).count()).toBe(0);
    expect(problems).toEqual([]);
  });

  test('a matrix cell says why it is refused', async () => {
    const S = 'attn-steps';
    const { page } = await open(S);
    const cell = page.locator(`${S} attn-matrix-editor.x input`).first();
    await cell.fill('abc');
    await expect.poll(() => cell.getAttribute('aria-invalid')).toBe('true');
    expect(await cell.getAttribute('title')).toBe('not a number; still using 0.2');
    expect(await page.locator(`${S} attn-matrix-editor.x #cell-msg`).textContent()).toContain('row I, column d1: not a number');
    await cell.fill('2e6');
    await expect.poll(() => cell.getAttribute('title')).toBe('too large: |x| ≤ 1e6; still using 0.2');
    expect((await cells(page, `${S} attn-heatmap.weights`)).slice(0, 3)).toEqual(['0.3233', '0.3941', '0.2826']);
  });
});

describe('one value limit for typed and linked cells; token fields cut at whole characters', () => {
  test('a cell value the editor takes (5000, 999999) a link restores: steps, convex, multi-head', async () => {
    for (const [S, key, editor] of [['attn-steps', 'steps', 'x'], ['attn-convex', 'convex', 'v'], ['attn-multihead', 'multihead', 'x']]) {
      const { page, problems } = await open(S);
      const cell = page.locator(`${S} attn-matrix-editor.${editor} input`).first();
      for (const typed of ['5000', '999999']) {
        await cell.fill(typed);
        await expect.poll(async () => JSON.parse(await hashParam(page, key) ?? '{}')[editor]?.[0]).toBe(Number(typed));
      }
      const { page: opened } = await open(S, await page.evaluate(() => location.hash));
      await expect.poll(() => opened.locator(`${S} attn-matrix-editor.${editor} input`).first().inputValue()).toBe('999999');
      expect(await opened.locator(`${S} .notice`).count()).toBe(0);
      expect(problems).toEqual([]);
      await page.close();
      await opened.close();
    }
  });

  test('an emoji in a token field stays whole in the field, the map labels and the link', async () => {
    const S = 'attn-steps';
    const { page, problems } = await open(S);
    const input = page.locator(`${S} input.tokens`);
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    // 15 letters and an emoji: 16 characters, 17 UTF-16 units (cut at 16 units it left half the emoji).
    await input.fill('I abcdefghijklmno😀 😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀');
    await input.dispatchEvent('change');
    await expect.poll(async () => JSON.parse(await hashParam(page, 'steps') ?? '{}').tokens?.length).toBe(3);
    const tokens = JSON.parse(await hashParam(page, 'steps')).tokens;
    expect(tokens).toEqual(['I', 'abcdefghijklmno😀', '😀'.repeat(16)]);
    expect(await page.locator(`${S} #msg-tokens`).textContent()).toContain('long words cut to 16 characters');
    expect(lone.test(await input.inputValue())).toBe(false);
    const labels = await page.locator(`${S} attn-heatmap.weights svg text`).allTextContents();
    expect(labels.some((t) => lone.test(t))).toBe(false);
    expect(labels).toContain('😀'.repeat(10));
    expect(problems).toEqual([]);
  });

  test('steps with 1e6 entries: colour bars read 2.0e24, cells show exponents, X shows its whole number, M shows 0 and −∞', async () => {
    const S = 'attn-steps';
    const big = (n) => Array.from({ length: n }, (_, i) => (i % 2 ? 1e6 : -1e6 + i));
    const st = { preset: 'custom', tokens: ['I', 'play', 'football'], dIn: 3, dk: 2, x: big(9), wq: big(6), wk: big(6), wv: big(6), mask: 'causal' };
    const { page, problems } = await open(S, '#steps=' + encodeURIComponent(JSON.stringify(st)));
    await page.locator(`${S} attn-heatmap.scores svg .legend text`).first().waitFor({ state: 'attached' });
    const legend = await page.locator(`${S} attn-heatmap.scores svg .legend text`).allTextContents();
    expect(legend).toEqual(['-2.0e24', '0.0', '2.0e24']);
    // Every label lies inside the figure (was cut at the svg's edge).
    const inside = await page.locator(`${S} attn-heatmap.scores`).evaluate((h) => {
      const svg = h.shadowRoot.querySelector('svg'), right = svg.getBoundingClientRect().right;
      return [...svg.querySelectorAll('.legend text')].every((t) => t.getBoundingClientRect().right <= right + 0.5);
    });
    expect(inside).toBe(true);
    const nums = await page.locator(`${S} attn-heatmap.scores svg text.num`).allTextContents();
    expect(nums[0]).toBe('2.00e24');
    // The X cell: the whole "-1000000", not its tail.
    const x = page.locator(`${S} attn-matrix-editor.x input`).first();
    expect(await x.inputValue()).toBe('-1000000');
    expect(await x.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
    // M: "0" in visible cells, "−∞" in masked ones (with −∞ counted as 12 characters it showed none).
    const m = await page.locator(`${S} attn-heatmap.mask-m svg text.num`).allTextContents();
    expect(m).toEqual(['0', '−∞', '−∞', '0', '0', '−∞', '0', '0', '0']);
    expect(await page.locator(`${S} .notice`).count()).toBe(0);
    expect(problems).toEqual([]);
  });

  test('a 500-word paste into cross and block is cut to 8 tokens and says 500 were typed', async () => {
    const paste = Array.from({ length: 500 }, (_, i) => `w${i}`).join(' ');
    for (const [S, field] of [[HAND_SET_CROSS, 'source'], ['attn-block', 'tokens']]) {
      const { page, problems } = await open(S);
      const input = page.locator(`${S} input.${field}`);
      await input.fill(paste);
      await input.dispatchEvent('change');
      await expect.poll(() => page.locator(`${S} #msg-${field}`).textContent()).toContain('cut to 8 tokens (500 typed; at most 8)');
      expect(await input.getAttribute('aria-invalid')).toBe('false');
      expect(problems).toEqual([]);
      await page.close();
    }
  });
});

describe('the link keeps the whole state', () => {
  test('round trip: stage and edits survive a contents click, the section scrolls on opening', async () => {
    const { page, problems } = await open('attn-steps');
    // Stage "show up to 5", an edit in multi-head, then a contents click.
    await page.locator('attn-steps .stagebar button', { hasText: '5 softmax' }).click();
    expect(JSON.parse(await hashParam(page, 'steps')).stage).toBe(5);
    await scrollTo(page, 'attn-multihead');
    await page.locator('attn-multihead select.heads').selectOption('1');
    await page.locator('nav.toc a[href="#t-multihead"]').click();
    const hash = await page.evaluate(() => location.hash);
    expect(new URLSearchParams(hash.slice(1)).get('at')).toBe('t-multihead');
    expect(JSON.parse(await hashParam(page, 'steps')).stage).toBe(5);
    expect(JSON.parse(await hashParam(page, 'multihead')).heads).toBe(1);
    const top = () => page.evaluate(() => document.getElementById('t-multihead').getBoundingClientRect().top);
    expect(Math.abs(await top())).toBeLessThan(120);
    // An edit after the click keeps the section; the link opens at it with every state.
    await page.locator('attn-multihead select.mask').selectOption('causal');
    const shared = await page.evaluate(() => location.hash);
    expect(shared).toMatch(/^#at=t-multihead&/);
    // (The page opens at the section, where the app scrolled it: the test does not scroll.)
    const { page: opened } = await watchedPage(browser.context);
    await opened.goto(url(shared));
    await opened.locator('attn-multihead attn-heatmap').first().waitFor({ state: 'attached' });
    await expect.poll(() => opened.evaluate(() => Math.abs(document.getElementById('t-multihead').getBoundingClientRect().top)), { timeout: 5000 }).toBeLessThan(120);
    await scrollTo(opened, 'attn-steps');  // far above the section: drawn when the reader goes up to it
    expect(await opened.locator('attn-steps').evaluate((e) => e.stage)).toBe(5);
    expect(await opened.locator('attn-steps .stagebar button[aria-pressed="true"]').textContent()).toBe('5 softmax');
    expect(await opened.locator('attn-steps .stage.s6').count()).toBe(0);
    expect(await opened.locator('attn-multihead select.heads').inputValue()).toBe('1');
    expect(await opened.locator('attn-multihead select.mask').inputValue()).toBe('causal');
    expect(problems).toEqual([]);
  });

  test('a link with dk = 3000 is refused with the notice (the dropdown and the heading agree)', async () => {
    const { page } = await open('attn-why-scale', '#why=' + encodeURIComponent('{"dk":3000}'), 'svg');
    expect(await page.locator('attn-why-scale .notice').textContent()).toContain('dk 3000 is not one of the choices');
    const dk = await page.locator('attn-why-scale').evaluate((e) => e.dk);
    expect(await page.locator('attn-why-scale select.dk').inputValue()).toBe(String(dk));
    expect(dk).toBe(256);
  });

  test('choosing "the / cat / sat" again restores its two heads', async () => {
    const S = 'attn-multihead';
    const { page } = await open(S);
    await page.locator(`${S} select.heads`).selectOption('1');
    await page.locator(`${S} select.preset`).selectOption('custom');
    await page.locator(`${S} select.preset`).selectOption('cat-sat');
    await expect.poll(() => page.locator(`${S} select.heads`).inputValue()).toBe('2');
    expect(JSON.parse(await hashParam(page, 'multihead')).heads).toBe(2);
  });
});
