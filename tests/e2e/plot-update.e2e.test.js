// shared/plot.js keeps a plot's SVG elements from one update to the next (grid lines, tick labels, dots,
// point labels, lines, polygons: only the attributes and texts that changed are written). After each
// change of a plot widget's properties its plot is the same, element for element, attribute for
// attribute and text for text, as a new widget's given the same properties at once: no dot, label or
// tick left from an earlier update, none missing, none with an old attribute. Lit's marker comments
// and the whitespace between elements are left out of the comparison.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BASE_URL, launch, watchedPage } from './browser.js';

let browser, w;
beforeAll(async () => {
  browser = await launch();
  w = await watchedPage(browser.context);
  await w.page.setViewportSize({ width: 1440, height: 900 });
  await w.page.goto(BASE_URL());
});
afterAll(async () => { await browser?.close(); });

/**
 * Applies each step's properties in turn to one widget and, after each, draws a new widget with all
 * the properties so far: returns [updated plots' markup, new plots' markup] per step.
 */
async function run(page, tag, steps) {
  return page.evaluate(async ([tag, steps]) => {
    await customElements.whenDefined(tag);
    const box = document.createElement('div');
    box.style.cssText = 'position:absolute;left:0;top:0;width:1300px;background:#fff;z-index:10';
    document.body.append(box);
    const frame = () => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 30)));
    // Drawn: every part of its first draw, no update pending, and the same plots five frames running
    // (why-scale fills its rows in one task each).
    const plots = (el) => [...el.shadowRoot.querySelectorAll('figure.plot')]
      .map((f) => f.outerHTML.replace(/<!--[^]*?-->/g, '').replace(/>\s+</g, '><')).join('\n');
    const settle = async (el) => {
      let last = null, same = 0;
      for (let i = 0; i < 600; i++) {
        await el.updateComplete;
        await frame();
        const now = el._drawPart == null && el.shadowRoot?.querySelector('figure.plot') ? plots(el) : null;
        same = now !== null && now === last ? same + 1 : 0;
        if (same >= 5) return now;
        last = now;
      }
      throw new Error(`${tag}: its plots did not settle`);
    };
    const kept = document.createElement(tag);
    box.append(kept);
    await settle(kept);
    const props = {}, out = [];
    for (const step of steps) {
      Object.assign(props, step);
      Object.assign(kept, step);
      const updated = await settle(kept);
      const fresh = document.createElement(tag);
      Object.assign(fresh, props);
      box.append(fresh);
      out.push([updated, await settle(fresh)]);
      fresh.remove();
    }
    box.remove();
    return out;
  }, [tag, steps]);
}

const expectSame = (results) => {
  for (const [i, [updated, fresh]] of results.entries()) {
    expect(updated, `step ${i} drew a plot`).toContain('<svg');
    expect(updated, `step ${i}: the updated plot against a new one`).toBe(fresh);
  }
};

describe('an updated plot draws what a new one draws', () => {
  test('kernel regression: query, bandwidth, kernel, points, a hovered x (a labelled dot in the middle), a ringed point, predict', async () => {
    expectSame(await run(w.page, 'attn-kernel-regression', [
      { query: 1.3 }, { bandwidth: 0.2 }, { kernel: 'dot' }, { kernel: 'gaussian', points: 5 }, { _hoverX: -0.7 },
      { _hoverPoint: 2 }, { points: 12, _hoverX: null }, { _hoverPoint: null }, { predict: true, stage: 0, guess: 0.4 },
      { stage: 1 }, { seed: 5, points: 3 },
    ]));
  });
  test('convex combination: value vectors, tokens and a permutation (the hull and the labelled dots move)', async () => {
    expectSame(await run(w.page, 'attn-convex', [{ v: [0.2, 0.9, -0.5, 0.1, 0.7, -0.8] }, { perm: [2, 0, 1] },
      { tokens: ['one', 'two', 'three'] }, { v: [3, 1, -2, 4, 0.5, -1.5], perm: [0, 1, 2] }]));
  });
  test('why scale: d_k and the largest power (log axes, ticks and points come and go)', async () => {
    expectSame(await run(w.page, 'attn-why-scale', [{ dk: 4 }, { maxPow: 6 }, { maxPow: 3 }, { maxPow: 8, dk: 64, seed: 2 }, { maxPow: 10 }]));
  });
});
