// Looks at one widget in a slide-sized box as the audience would: a screenshot and the fit report.
//   node tests/e2e/fit-shot.mjs 'http://localhost:5173/fit.html?tag=attn-steps&stage=3' /tmp/steps-3.png
// (start a server first: `npx vite --port 5173`). Prints the report as JSON (see fit-check.js).
import { launch } from './browser.js';
import { fitReport } from './fit-check.js';

const [url, png = '/tmp/fit.png', width = '1280', height = '720'] = process.argv.slice(2);
const { context, close } = await launch();
try {
  const page = await context.newPage();
  await page.setViewportSize({ width: Number(width), height: Number(height) });
  page.on('console', (m) => { if (m.type() === 'error') console.error('console:', m.text()); });
  page.on('pageerror', (e) => console.error('pageerror:', e.message));
  await page.goto(url);
  await page.waitForFunction(() => {
    const w = document.querySelector('#box > [class], #box > *:not(h2)');
    return w?.shadowRoot && !w.shadowRoot.querySelector('.loading');
  }, null, { timeout: 30000 });
  await page.waitForTimeout(400);  // ResizeObserver → re-layout → KaTeX fit
  await page.screenshot({ path: png });
  const report = await page.evaluate(fitReport, { widget: '#box > *:last-child', slide: '#box' });
  console.log(JSON.stringify({ outside: report.outside.slice(0, 20), outsideCount: report.outside.length, small: report.small.slice(0, 10), smallCount: report.small.length, numbers: report.numbers.slice(0, 30) }, null, 1));
} finally {
  await close();
}
