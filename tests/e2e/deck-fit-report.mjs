// Prints what the audience would miss in a built deck (see deck-fit.js):
//   node tests/e2e/deck-fit-report.mjs slidev|reveal [base URL, default: serves dist/ itself]
import { launch } from './browser.js';
import { serveDist } from './server.mjs';
import { walkReveal, walkSlidev } from './deck-fit.js';

const which = process.argv[2] ?? 'slidev';
let base = process.argv[3], server = null;
if (!base) {
  server = await serveDist();
  base = `http://127.0.0.1:${server.address().port}/`;
}
const { context, close } = await launch();
try {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error('pageerror:', e.message));
  const url = new URL(`slides/${which}/index.html`, base).href;
  const r = which === 'reveal' ? await walkReveal(page, url) : await walkSlidev(page, url);
  console.log(r.problems.join('\n'));
  console.log(`${which}: ${r.steps} steps, ${r.widgets} widget views, ${r.problems.length} problems`);
} finally {
  await close();
  server?.close();
}
