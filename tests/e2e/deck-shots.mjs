// Screenshots of Slidev slides as the audience sees them (1280×720), one per click, from the built deck
// in dist/: how a slide's widget is looked at before and after a layout change.
//   npm run build && node tests/e2e/deck-shots.mjs <slide> [slide ...]   → /tmp/deck-<slide>-<click>.png
//   node tests/e2e/deck-shots.mjs reveal:<h> [...]  (reveal.js deck, slide index h from 0, every fragment)
//                                                                        → /tmp/reveal-<h>-<fragment>.png
// ATTNLAB_SHOTS_DIR sets the folder.
import { launch, watchedPage } from './browser.js';
import { serveDist } from './server.mjs';
import { slidevAt, slidevNext } from './deck-fit.js';

const args = process.argv.slice(2);
const slides = args.map(Number).filter((n) => n > 0);
const reveal = args.filter((a) => a.startsWith('reveal:')).map((a) => Number(a.slice(7)));
const dir = process.env.ATTNLAB_SHOTS_DIR ?? '/tmp';
const server = await serveDist();
const browser = await launch();
try {
  const { page, problems } = await watchedPage(browser.context);
  await page.setViewportSize({ width: 1280, height: 720 });
  const base = `http://127.0.0.1:${server.address().port}/slides/slidev/index.html`;
  for (const n of slides) {
    await page.goto(`${base}#/${n}`);
    await page.locator(`.slidev-page-${n} .slidev-layout`).first().waitFor();
    for (let click = 0; click < 20; click++) {
      const at = await slidevAt(page);
      if (at.no !== n) break;
      // Widgets draw after their WASM loads (and the training widget after it evaluates its snapshots).
      await page.waitForFunction((sel) => [...document.querySelectorAll(sel)]
        .every((w) => !w.shadowRoot || !w.shadowRoot.querySelector('.loading')), `.slidev-page-${n} [class] *`, { timeout: 30000 }).catch(() => {});
      await page.waitForTimeout(1200);
      const path = `${dir}/deck-${n}-${at.clicks}.png`;
      await page.screenshot({ path });
      console.log(path);
      await slidevNext(page, at);
    }
  }
  for (const h of reveal) {
    await page.goto(`http://127.0.0.1:${server.address().port}/slides/reveal/index.html#/${h}`);
    await page.waitForFunction(() => window.deck?.isReady?.());
    for (let f = -1; f < 20; f++) {
      const at = await page.evaluate(() => window.deck.getIndices());
      if (at.h !== h || (f >= 0 && (at.f ?? -1) !== f)) break;
      await page.waitForTimeout(1500);
      const path = `${dir}/reveal-${h}-${f + 1}.png`;
      await page.screenshot({ path });
      console.log(path);
      await page.evaluate(() => window.deck.next());
    }
  }
  if (problems.length) console.log('problems:', problems);
} finally {
  await browser.close();
  server.close();
}
