// <attn-heatmap> updated in place (web/widgets/shared/markup.js): after each change of its properties
// (values only, NaN and −∞ cells, a new shape, labels, highlights, raster cells, fit mode, the legend
// below, compact) a map's shadow DOM is the same, element for element, attribute for attribute and text
// for text, as a new map's given the same properties at once: no cell, number, label, colour bar or
// table cell left from an earlier update. Lit's marker comments are left out of the comparison.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BASE_URL, launch, watchedPage } from './browser.js';
import { fmt } from '../../web/widgets/shared/format.js';

let browser, w;
beforeAll(async () => {
  browser = await launch();
  w = await watchedPage(browser.context);
  await w.page.setViewportSize({ width: 1440, height: 900 });
  await w.page.goto(BASE_URL());
  await w.page.evaluate(() => customElements.whenDefined('attn-heatmap'));
});
afterAll(async () => { await browser?.close(); });

// Deterministic values: a rows × cols grid from a seed (signs mixed, so the scale is diverging).
const grid = (rows, cols, seed, scale = 1) => Array.from({ length: rows * cols }, (_, k) => Math.round(Math.sin(seed * 7.1 + k * 1.3) * 1000 * scale) / 1000);
const withMissing = (v, ks, x) => v.map((y, k) => (ks.includes(k) ? x : y));

/**
 * Applies each step's properties in turn to one map and, after each, draws a new map with all the
 * properties so far: returns [updated markup, fresh markup, shape] per step.
 */
async function run(page, steps) {
  return page.evaluate(async (steps) => {
    const box = document.createElement('div');
    box.style.cssText = 'position:absolute;left:0;top:0;width:1400px;background:#fff';
    document.body.append(box);
    const settle = async (el) => { for (let i = 0; i < 10 && !(await el.updateComplete); i++); };
    const markup = (el) => el.shadowRoot.innerHTML.replace(/<!--[^]*?-->/g, '');
    const kept = document.createElement('attn-heatmap');
    box.append(kept);
    const props = {}, out = [];
    for (const { inPlace, ...step } of steps) {
      Object.assign(props, step);
      Object.assign(kept, step);
      // A values array changed in place, then a render asked for (the map cannot see the change).
      if (inPlace) { for (const [k, x] of inPlace) kept.values[k] = x; kept.requestUpdate(); }
      await settle(kept);
      const fresh = document.createElement('attn-heatmap');
      Object.assign(fresh, props);
      box.append(fresh);
      await settle(fresh);
      out.push([markup(kept), markup(fresh), `${props.rows}x${props.cols}`]);
      fresh.remove();
    }
    box.remove();
    return out;
  }, steps);
}

const expectSame = (results) => {
  for (const [i, [kept, fresh, shape]] of results.entries()) {
    if (shape !== '0x0') expect(kept, `step ${i} (${shape}) drew its cells`).toContain('<svg');
    expect(kept, `step ${i} (${shape}): the updated map against a new one`).toBe(fresh);
  }
};

describe('an updated heatmap draws what a new one draws', () => {
  test('values, NaN and −∞ cells, shapes, labels, digits, highlights, raster cells', async () => {
    const labels = (n, p) => Array.from({ length: n }, (_, i) => `${p}${i}`);
    expectSame(await run(w.page, [
      { rows: 3, cols: 4, values: grid(3, 4, 1), label: 'scores' },
      { values: grid(3, 4, 2) },  // values only: colours and numbers
      { values: grid(3, 4, 2, 40) },  // wider numbers: another font size, fewer decimals
      { values: withMissing(grid(3, 4, 3), [1, 6], NaN), missingText: 'masked' },
      { values: withMissing(grid(3, 4, 3), [1, 2, 3, 6, 7, 11], -Infinity), missingText: '' },  // a causal mask
      { _cursor: { row: 1, col: 2 } },  // a render for the cursor: the same numbers
      { values: grid(3, 4, 31) },
      { inPlace: [[0, 5], [7, NaN]] },
      { _cursor: null, inPlace: [[7, 0.25]] },
      { rows: 5, cols: 2, values: grid(5, 2, 4) },  // a new shape
      { rowLabels: ['I', 'play', '<b>&', 'x', 'y'], colLabels: ['k0', 'k1'] },  // labels (escaped)
      { values: grid(5, 2, 5), rowLabels: ['I', 'play', 'foot', 'x', 'y'] },
      { rowLabels: ['I', 'play', 'foot'] },  // fewer labels than rows: positions name the others
      { highlightRows: [1], highlightCols: [0] },  // veiled cells
      { highlightRows: null, highlightCols: null, rowWeights: [0.1, 0.9, 0, 0.5, 1] },
      { rowWeights: null, digits: 1, vmin: -1, vmax: 1 },
      { cellSize: 20 },  // cells without numbers
      { rows: 12, cols: 32, values: grid(12, 32, 6), rowLabels: labels(12, 'row'), colLabels: labels(32, 'a long key ') },  // turned labels
      { values: grid(12, 32, 7) },
      { rows: 40, cols: 40, values: grid(40, 40, 8), rowLabels: null, colLabels: null, cellSize: 44 },  // raster cells
      { values: grid(40, 40, 9) },
      { rows: 4, cols: 4, values: grid(4, 4, 10) },  // back to vector cells
      { rows: 4, cols: 3, values: grid(4, 3, 11) },  // same count of cells, another shape
      { legend: false },
      { legend: true, legendPos: 'bottom', values: grid(4, 3, 12, 300) },
      { noRowLabels: true, values: grid(4, 3, 13) },
      { rows: 0, cols: 0, values: [] },  // nothing to draw
      { rows: 2, cols: 2, values: grid(2, 2, 14), noRowLabels: false, legendPos: 'right' },
    ]));
  });

  test('with the numbers table open: values, NaN cells, labels, a new shape, closed again', async () => {
    expectSame(await run(w.page, [
      { rows: 3, cols: 4, values: grid(3, 4, 40), label: 'open', _numbersOpen: true },
      { values: grid(3, 4, 41) },
      { values: withMissing(grid(3, 4, 42), [1, 6], NaN), missingText: 'masked' },
      { inPlace: [[0, 5], [7, NaN]] },
      { rowLabels: ['I', '<b>&'], colLabels: ['k0', 'k1', 'k2', 'k3'] },  // fewer labels than rows
      { rows: 48, cols: 32, values: grid(48, 32, 43), rowLabels: null, colLabels: null },
      { values: grid(48, 32, 44) },
      { _numbersOpen: false },
    ]));
  });

  test('fit mode and compact (slides): cell size, number fonts, the screen-reader table', async () => {
    expectSame(await run(w.page, [
      { rows: 3, cols: 3, values: grid(3, 3, 20), fitWidth: 400, fitHeight: 300, compact: true, label: 'weights', vmin: 0, vmax: 1 },
      { values: grid(3, 3, 21).map(Math.abs) },
      { fitWidth: 250, fitHeight: 200 },  // smaller cells: smaller numbers, or none
      { rows: 6, cols: 3, values: grid(6, 3, 22), missingText: '−∞' },
      { values: withMissing(grid(6, 3, 23), [2, 5], NaN), legendPos: 'bottom' },
      { compact: false },
    ]));
  });

  test('a values-only update keeps the cells and table cells and writes their new colours and numbers', async () => {
    const r = await w.page.evaluate(async () => {
      const el = document.createElement('attn-heatmap');
      Object.assign(el, { rows: 2, cols: 3, values: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], label: 'a', _numbersOpen: true });
      document.body.append(el);
      await el.updateComplete;
      const rect = el.shadowRoot.querySelector('svg rect[stroke="#fff"]'), td = el.shadowRoot.querySelector('td');
      const before = [rect.getAttribute('fill'), td.textContent];
      el.values = [0.9, 0.2, 0.3, 0.4, 0.5, 0.1];
      await el.updateComplete;
      const after = [rect.getAttribute('fill'), td.textContent, rect.isConnected, td.isConnected,
        el.shadowRoot.querySelector('svg rect[stroke="#fff"]') === rect, el.shadowRoot.querySelector('text.num').textContent];
      el.remove();
      return { before, after };
    });
    expect(r.before[1]).toBe('0.1000');
    expect(r.after[0]).not.toBe(r.before[0]);
    expect(r.after.slice(1)).toEqual(['0.9000', true, true, true, '0.90']);
  });

});

// A large closed "numbers" table (more than 24 × 24 cells) is not in the page: closed details hide it from
// screen readers too; the map's description gives the range. Opening it by click or keyboard builds the
// table with every number; closing drops it.
describe('the numbers table is built when opened', () => {
  const open = (page, how, rows, cols, values, extra = {}) => page.evaluate(async ({ how, rows, cols, values, extra }) => {
    const el = document.createElement('attn-heatmap');
    Object.assign(el, { rows, cols, values: values.map((x) => (x === null ? NaN : x)), label: 'map', ...extra });
    document.body.append(el);
    await el.updateComplete;
    const root = el.shadowRoot, svg = root.querySelector('svg');
    const described = root.getElementById(svg.getAttribute('aria-describedby') ?? '');
    const closed = { cells: root.querySelectorAll('td, th, table').length, region: root.querySelector('[role="region"]').getAttribute('aria-label'),
      description: described?.textContent ?? null, hidden: described?.hidden ?? null, name: svg.getAttribute('aria-label') };
    const summary = root.querySelector('summary');
    if (how === 'click') summary.click();
    else { summary.focus(); await new Promise((ok) => setTimeout(ok)); }
    const toggled = new Promise((ok) => root.querySelector('details').addEventListener('toggle', ok, { once: true }));
    await toggled;
    await el.updateComplete;
    const table = root.querySelector('table');
    const opened = {
      head: [...table.querySelectorAll('thead th')].map((t) => t.textContent),
      rows: [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((t) => t.textContent)),
      caption: table.querySelector('caption').textContent,
    };
    summary.click();
    await new Promise((ok) => root.querySelector('details').addEventListener('toggle', ok, { once: true }));
    await el.updateComplete;
    const again = root.querySelectorAll('td').length;
    el.remove();
    return { closed, opened, again };
  }, { how, rows, cols, values: values.map((x) => (Number.isNaN(x) ? null : x)), extra });

  const expected = (rows, cols, v, missing = '') => Array.from({ length: rows }, (_, i) => [String(i),
    ...Array.from({ length: cols }, (_, j) => (missing && Number.isNaN(v[i * cols + j]) ? missing : fmt(v[i * cols + j], 4)))]);

  test('a 24 × 24 map keeps its table while closed (with the same description)', async () => {
    const v = grid(24, 24, 52);
    const r = await open(w.page, 'click', 24, 24, v);
    expect(r.closed.cells).toBe(1 + 25 + 24 * 25);  // the table, its header row's cells, each row's header and cells
    expect(r.closed.description).toBe(`values from ${fmt(Math.min(...v), 4)} to ${fmt(Math.max(...v), 4)}`);
    expect(r.opened.rows).toEqual(expected(24, 24, v));
    expect(r.again).toBe(24 * 24);
  });

  test('a 48 × 32 map: no table cells while closed, a description with its range; a click opens all 1,536 numbers', async () => {
    const v = grid(48, 32, 50);
    const r = await open(w.page, 'click', 48, 32, v);
    expect(r.closed).toEqual({ cells: 0, region: 'map numbers', description: `values from ${fmt(Math.min(...v), 4)} to ${fmt(Math.max(...v), 4)}`,
      hidden: true, name: 'map heatmap, 48 by 32; arrow keys read the values' });
    expect(r.opened.caption).toBe('map');
    expect(r.opened.head).toEqual(['row \\ column', ...Array.from({ length: 32 }, (_, j) => String(j))]);
    expect(r.opened.rows).toEqual(expected(48, 32, v));
    expect(r.again).toBe(0);
  });

  test('the keyboard opens it (Enter on "numbers"); NaN cells read as missingText, the range over the finite values', async () => {
    const v = withMissing(grid(25, 24, 51), [2, 29], NaN);
    v[31] = -Infinity;
    const done = open(w.page, 'key', 25, 24, v, { missingText: 'masked' });
    await w.page.waitForFunction(() => {
      const el = document.querySelector('body > attn-heatmap');
      return el?.shadowRoot?.activeElement?.localName === 'summary';
    });
    await w.page.keyboard.press('Enter');
    const r = await done;
    const finite = v.filter(Number.isFinite);
    expect(r.closed.cells).toBe(0);
    expect(r.closed.description).toBe(`values from ${fmt(Math.min(...finite), 4)} to ${fmt(Math.max(...finite), 4)}`);
    expect(r.opened.rows).toEqual(expected(25, 24, v, 'masked'));
    expect(r.opened.rows[0][3]).toBe('masked');
    expect(r.opened.rows[1][8]).toBe('−∞');  // v[31]: row 1, column 7
    expect(r.again).toBe(0);
  });

  test('no problems in the page', () => { expect(w.problems).toEqual([]); });
});
