// What the tests of decks and pages outside this repository check on their stepped slides
// (third-party-decks.e2e.test.js, standalone.e2e.test.js): the notes' worked example stepped 0 → 6 → 5,
// and <attn-train> stepped through the shipped snapshots, then trained live in its Web Worker.
import { expect } from 'vitest';
import { fmt } from '../../web/widgets/shared/format.js';

export const NOTES = ['0.3233', '0.3941', '0.2826', '1.0137', '0.2561'];  // weights row 1, output row 1

// Text inside a widget's shadow root (the numbers it shows), flattened over nested shadow roots.
export const shownText = (locator) => locator.evaluate((el) => {
  const walk = (n) => [...(n.shadowRoot ? n.shadowRoot.childNodes : n.childNodes)].map((c) =>
    (c.nodeType === 3 ? c.textContent : c.nodeType === 1 ? walk(c) : '')).join(' ');
  return walk(el).replace(/\s+/g, ' ');
});

// The caption of an <attn-train> on a slide (the numbers of the snapshot shown).
export const captionOf = (page, sel) => page.evaluate((s) => document.querySelector(s)?.shadowRoot?.querySelector('.caption')?.textContent.replace(/\s+/g, ' ') ?? '', sel);

// Waits until the widget at `selector` is registered and drawn (shadow root filled, no loading message);
// expects no failure message; returns its locator.
export async function rendered(page, selector) {
  await page.waitForFunction((sel) => {
    const w = document.querySelector(sel);
    return w && customElements.get(w.localName) && w.shadowRoot?.childElementCount
      && !w.shadowRoot.querySelector('.loading');
  }, selector, { timeout: 60000 });
  const failure = await page.evaluate((sel) =>
    document.querySelector(sel).shadowRoot.querySelector('.failure, .error')?.textContent ?? '', selector);
  expect(failure).toBe('');
  return page.locator(selector).first();
}

// Steps `widget` from stage 0 to 6 with → and back to 5 with ←; checks the notes' numbers at 6.
export async function stepThrough(page, widget) {
  expect(await widget.getAttribute('stage')).toBe('0');
  const first = await shownText(widget);
  for (const n of NOTES) expect(first).not.toContain(n);
  for (let i = 1; i <= 6; i++) {
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => widget.getAttribute('stage')).toBe(String(i));
  }
  await expect.poll(() => shownText(widget)).toContain(NOTES[4]);
  const last = await shownText(widget);
  for (const n of NOTES) expect(last).toContain(n);
  await page.keyboard.press('ArrowLeft');
  await expect.poll(() => widget.getAttribute('stage')).toBe('5');
}

// <attn-train> at `sel` stepped 0 → 3 by the deck: the shipped snapshots give Node's numbers
// (`pretrained`: openPretrained's); "train live" trains in the deck's Web Worker: the step count moves.
export async function trainSlide(page, sel, pretrained) {
  const last = pretrained.snapshots.at(-1), best = Math.max(...last.heads[1].map((h) => h.induction));
  // The caption is drawn before the snapshot's loss is computed ('held-out loss –'): wait for the number.
  await expect.poll(() => captionOf(page, sel), { timeout: 60000 }).toMatch(/^step 0 · held-out loss \d/);
  expect(await captionOf(page, sel)).toContain(fmt(pretrained.snapshots[0].evalLoss, 2));
  for (let i = 1; i <= 3; i++) await page.keyboard.press('ArrowRight');
  await expect.poll(() => captionOf(page, sel), { timeout: 30000 }).toContain(`step ${last.step} `);
  const shown = await captionOf(page, sel);
  expect(shown).toContain(`held-out loss ${fmt(last.evalLoss, 2)}`);
  expect(shown).toContain(`induction score ${fmt(best, 2)}`);
  await page.locator(sel).locator('button', { hasText: 'train live' }).click();
  const step = async () => Number((await captionOf(page, sel)).match(/^step (\d+)/)?.[1] ?? 0);
  await expect.poll(step, { timeout: 60000 }).toBeGreaterThan(0);
  await expect.poll(step, { timeout: 60000 }).not.toBe(last.step);
}
