// The built app in real Chromium: it loads, computes in WASM, shows the notes' numbers, and stays
// on localhost with no console errors.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BASE_URL, launch, watchedPage } from './browser.js';

let browser;
beforeAll(async () => { browser = await launch(); });
afterAll(async () => { await browser?.close(); });

describe('app', () => {
  test('loads with no console errors, no request off localhost, and shows the notes’ weights', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.goto(BASE_URL());
    // The step-by-step widget's weights and output heatmaps keep their numbers in a table.
    const weights = page.locator('attn-steps[preset="football"] attn-heatmap.weights table td');
    await weights.first().waitFor({ state: 'attached' });
    const cells = await weights.allTextContents();
    expect(cells.slice(0, 3)).toEqual(['0.3233', '0.3941', '0.2826']);
    const out = await page.locator('attn-steps[preset="football"] attn-heatmap.output table td').allTextContents();
    expect(out.slice(0, 2)).toEqual(['1.0137', '0.2561']);
    expect(problems).toEqual([]);
  });
});
