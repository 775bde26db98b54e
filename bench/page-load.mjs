// Time from page load to the first interactive widget, in Debian's Chromium (playwright-core) against
// the app built fresh into build/bench/site (vite build, the same as dist/ without the decks):
// navigation start → the first widget shows a heatmap of numbers computed in
// WASM (its first heatmap cell exists). Run 1 is a cold load (fresh profile, nothing cached), runs 2…
// reload in new tabs. Writes build/bench/page-load.json for bench/mha.bench.mjs to include.
//   node bench/page-load.mjs   (after scripts/build-wasm.sh)
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { serveDist } from '../tests/e2e/server.mjs';
import { launch } from '../tests/e2e/browser.js';

const site = resolve('build/bench/site');
execFileSync('npx', ['vite', 'build', '-c', 'web/app/vite.config.js', '--logLevel', 'warn', '--outDir', site, '--emptyOutDir'], { stdio: 'inherit' });
const server = await serveDist(site);
const url = `http://127.0.0.1:${server.address().port}/`;
const browser = await launch();
const runs = [], throttled = [];
// Six loads at full speed, then six with the CPU slowed 4× (Chromium's CPU throttling, as DevTools'
// "4× slowdown": a phone-class CPU), where the first numbers must still be on the page within 1 s.
try {
  for (let i = 0; i < 12; i++) {
    const page = await browser.context.newPage();
    if (i >= 6) {
      const cdp = await browser.context.newCDPSession(page);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    }
    await page.goto(url, { waitUntil: 'commit' });
    await page.locator('attn-heatmap table td').first().waitFor({ state: 'attached', timeout: 60000 });
    // performance.now() counts from the navigation's time origin.
    const t = await page.evaluate(() => ({
      interactive: performance.now(),
      domContentLoaded: performance.getEntriesByType('navigation')[0]?.domContentLoadedEventEnd ?? null,
    }));
    (i >= 6 ? throttled : runs).push(t);
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}
const warm = runs.slice(1).map((r) => r.interactive).sort((a, b) => a - b);
const slow = throttled.map((r) => r.interactive).sort((a, b) => a - b);
const result = {
  chromium: '/usr/bin/chromium (headless, --disable-gpu)',
  coldMs: runs[0].interactive,
  coldDomContentLoadedMs: runs[0].domContentLoaded,
  warmMedianMs: warm[warm.length >> 1],
  runs: runs.map((r) => Math.round(r.interactive)),
  throttled4xMedianMs: slow[slow.length >> 1],
  throttled4xMaxMs: slow[slow.length - 1],
  throttled4xRuns: slow.map(Math.round),
};
mkdirSync('build/bench', { recursive: true });
writeFileSync('build/bench/page-load.json', JSON.stringify(result, null, 2));
console.log(`page load → first interactive widget: cold ${result.coldMs.toFixed(0)} ms, warm median ${result.warmMedianMs.toFixed(0)} ms; CPU throttled 4×: median ${result.throttled4xMedianMs.toFixed(0)} ms, max ${result.throttled4xMaxMs.toFixed(0)} ms`);
