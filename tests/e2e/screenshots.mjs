// Takes a screenshot of every widget on the built app (dist/) into docs/screenshots/<tag>.png, and of
// its slide layout in a Slidev-sized box (fit.html, 980×552 under a title, at the slide's scale for
// 1280×720) into docs/screenshots/slide-<tag>.png, with the e2e harness (Debian's Chromium).
//   npm run build && node tests/e2e/screenshots.mjs [tag ...]
import { mkdirSync } from 'node:fs';
import { launch, watchedPage } from './browser.js';
import { serveDist } from './server.mjs';

const TAGS = ['attn-steps', 'attn-convex', 'attn-kernel-regression', 'attn-why-scale', 'attn-cross', 'attn-multihead',
  'attn-positional', 'attn-block', 'attn-cost', 'attn-train'];
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
  // Slide layout: the box a Slidev slide leaves under its title, drawn at 1280×720's scale (×1.306).
  const SLIDES = { 'attn-steps': 'preset=football&stage=5', 'attn-multihead': 'preset=cat-sat&stage=2', 'attn-block': 'stage=2' };
  await page.setViewportSize({ width: 1280, height: 720 });
  for (const tag of TAGS) {
    if (only.length && !only.includes(tag)) continue;
    await page.goto(`http://127.0.0.1:${server.address().port}/fit.html?tag=${tag}&w=980&h=552&title=On%20a%20slide&${SLIDES[tag] ?? ''}`);
    await page.waitForFunction(() => { const w = document.querySelector('#box > :last-child'); return w?.shadowRoot?.childElementCount && !w.shadowRoot.querySelector('.loading'); });
    await page.waitForTimeout(500);
    await page.locator('#box').screenshot({ path: new URL(`slide-${tag}.png`, out).pathname, scale: 'css' });
    console.log(`${tag}: docs/screenshots/slide-${tag}.png`);
  }
  if (problems.length) console.log('problems:', problems);
} finally {
  await browser.close();
  server.close();
}
