// The app's paragraphs below the first section are laid out only when they come near the viewport
// (content-visibility: auto, app.css); one that has been drawn stays drawn when the reader scrolls on,
// not skipped again: each skip and each return repainted the page around it on a scroll step.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BASE_URL, launch, watchedPage } from './browser.js';

let browser;
beforeAll(async () => { browser = await launch(); });
afterAll(async () => { await browser?.close(); });

describe('paragraphs laid out on demand', () => {
  test('a paragraph far below starts skipped, is drawn near the viewport and stays drawn after the reader scrolls away', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(BASE_URL());
    const para = page.locator('main > section:has(> h2#t-block) > p').first();
    await para.waitFor({ state: 'attached' });
    // checkVisibility({ contentVisibilityAuto: true }) is false for what content-visibility: auto skips:
    // a probe element inside the paragraph (the paragraph's own box is laid out either way)
    const probe = (p) => {
      const s = p.querySelector('span.cv-probe') ?? p.appendChild(Object.assign(document.createElement('span'), { className: 'cv-probe' }));
      return s.checkVisibility({ contentVisibilityAuto: true });
    };
    const shown = () => para.evaluate(probe);
    expect(await shown()).toBe(false);
    await para.evaluate((p) => p.scrollIntoView({ block: 'center' }));
    await expect.poll(shown).toBe(true);
    await page.evaluate(() => window.scrollTo(0, 0));
    // two frames for the browser to skip it again, had it been left to content-visibility: auto
    await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(ok, 200)))));
    await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
    expect(await shown()).toBe(true);
    expect(await para.evaluate((p) => getComputedStyle(p).contentVisibility)).toBe('visible');
    // the first section's paragraph never was on demand; the others not yet near stay skipped
    expect(await page.locator('main > section:has(> h2#t-model) > p').first().evaluate(probe)).toBe(false);
    expect(problems).toEqual([]);
    await page.close();
  });
});
