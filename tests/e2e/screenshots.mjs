// Takes a screenshot of every widget on the built app (dist/) into docs/screenshots/<tag>.png,
// with the e2e harness (Debian's Chromium through playwright-core).
//   npm run build && node tests/e2e/screenshots.mjs [tag ...]
import { mkdirSync } from 'node:fs';
import { launch, watchedPage } from './browser.js';
import { serveDist } from './server.mjs';

const TAGS = ['attn-steps', 'attn-convex', 'attn-kernel-regression', 'attn-why-scale', 'attn-cross', 'attn-multihead',
  'attn-positional', 'attn-block', 'attn-cost'];
const only = process.argv.slice(2);
const out = new URL('../../docs/screenshots/', import.meta.url);
mkdirSync(out, { recursive: true });

const server = await serveDist();
const browser = await launch();
try {
  const { page, problems } = await watchedPage(browser.context);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.addStyleTag({ content: 'nav.toc { position: static !important; }' });  // keep the sticky bar out of the pictures
  for (const tag of TAGS) {
    if (only.length && !only.includes(tag)) continue;
    const el = page.locator(tag).first();
    if (!(await el.count())) { console.log(`${tag}: not on the page`); continue; }
    await el.scrollIntoViewIfNeeded();
    await el.locator('.wrap').waitFor();
    await page.waitForFunction((t) => !document.querySelector(t)?.shadowRoot?.querySelector('.loading'), tag);
    if (tag === 'attn-cost') {
      await el.locator('button.run').click();
      await el.locator('.done').waitFor({ timeout: 120000 });
    }
    await page.waitForTimeout(300);
    await el.screenshot({ path: new URL(`${tag}.png`, out).pathname });
    console.log(`${tag}: docs/screenshots/${tag}.png`);
  }
  if (problems.length) console.log('problems:', problems);
} finally {
  await browser.close();
  server.close();
}
