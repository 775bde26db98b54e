// The app draws a widget when the reader comes near it (web/widgets/shared/lazy.js: the first screen's,
// and the next ones ahead in idle time; the farther ones wait). A test reaches a widget as a reader
// does: it scrolls to it.

/** True when the first widget matching `sel` is drawn: past its placeholder. */
export const drawn = (page, sel) => page.evaluate((s) => {
  const r = document.querySelector(s)?.shadowRoot;
  return !!r?.querySelector('.wrap') && !r.querySelector('[data-lazy-placeholder]');
}, sel);

/** Scrolls the first element matching `sel` (a widget) to the top of the window and waits until it is drawn. */
export async function scrollTo(page, sel, { timeout = 60000 } = {}) {
  await page.locator(sel).first().evaluate((el) => el.scrollIntoView({ block: 'start' }));
  for (const t0 = Date.now(); !(await drawn(page, sel));) {
    if (Date.now() - t0 > timeout) throw new Error(`${sel} was not drawn within ${timeout} ms of being scrolled to`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

/**
 * Scrolls through the page as a reader would, every widget (each section's <attn-…>) into view in
 * page order, each until it is drawn; then back to the top (unless `top` is false).
 */
export async function scrollThrough(page, { top = true, timeout = 90000 } = {}) {
  const n = await page.evaluate(() => [...document.querySelectorAll('main section > *')].filter((el) => el.localName.startsWith('attn-')).length);
  for (let i = 0; i < n; i++) {
    await page.waitForFunction((k) => {
      const el = [...document.querySelectorAll('main section > *')].filter((e) => e.localName.startsWith('attn-'))[k];
      const r = el.shadowRoot;
      if (r?.querySelector('.wrap') && !r.querySelector('[data-lazy-placeholder]')) return true;
      el.scrollIntoView({ block: 'start' });  // (again, if the page moved as the widgets above it drew)
      return false;
    }, i, { timeout, polling: 100 });
  }
  if (top) await page.evaluate(() => window.scrollTo(0, 0));
}
