// attnlab with no bundler, the way README "One script tag" says: `npm pack` this repository, unpack the
// tarball into a folder outside the repository, copy its standalone/ as attnlab/ beside the example
// pages of web/standalone/examples/ (a plain HTML page and a plain reveal.js deck, reveal.js's own dist/
// files copied beside them) and serve that folder statically. In Chromium: <attn-steps> shows the
// notes' numbers and recomputes what the API computes in Node, its state goes into the URL and comes
// back from it, reveal.js fragments step it, <attn-train> steps through the shipped snapshots and
// trains live in the Web Worker that came in the folder — and every request stays on the page's origin.
// Then the same pages opened as file:// URLs: attnlab.inline.js works there; attnlab.js is refused
// (Chromium loads no module script from a file: URL — a browser rule, the reason for the inline file).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createAttnLab } from 'attnlab';
import { openPretrained } from 'attnlab/train';
import { PRESETS, maskArgument } from '../../web/widgets/steps/logic.js';
import { fmt } from '../../web/widgets/shared/format.js';
import { launch, watchedPage } from './browser.js';
import { serveDist } from './server.mjs';
import { NOTES, rendered, shownText, stepThrough, trainSlide } from './deck-steps.js';
import { REPO, packAttnlab, run } from './third-party/decks.js';

let dir, site, files, browser, lab, pretrained, server, origin;

// The football example through the API, with the steps widget's options (as widgets.e2e.test.js).
function football({ mask = 'none' } = {}) {
  const p = PRESETS.football, t = 3, proj = (w) => lab.weightedSum({ weights: p.x, v: w, tq: t, tk: p.dIn, dv: p.dk });
  return lab.attention({ q: proj(p.wq), k: proj(p.wk), v: proj(p.wv), tq: t, tk: t, dk: 2, dv: 2,
    scale: 1 / Math.sqrt(2), mask: maskArgument(mask, t, { window: 1, padding: 1 }) });
}
const f4 = (xs) => Array.from(xs, (x) => fmt(x, 4));
const cells = (page, sel) => page.locator(`${sel} table td`).allTextContents();

// Every request the browser makes (pages and their workers), for the same-origin check.
function recordRequests() {
  const urls = [];
  const on = (r) => urls.push(r.url());
  browser.context.on('request', on);
  return { urls, stop: () => browser.context.off('request', on) };
}
const offOrigin = (urls, allowed) => urls.filter((u) => {
  const url = new URL(u);
  return !['data:', 'blob:'].includes(url.protocol) && !allowed(url);
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'attnlab-standalone-'));
  expect(relative(REPO, dir).startsWith('..')).toBe(true);  // outside the repository
  let tarball;
  ({ tarball, files } = await packAttnlab(dir));
  await run('tar', ['-xzf', tarball, '-C', dir], dir);
  // The site: the tarball's standalone/ as attnlab/, reveal.js's dist/ as reveal/, the example pages.
  site = join(dir, 'site');
  cpSync(join(dir, 'package/standalone'), join(site, 'attnlab'), { recursive: true });
  cpSync(join(REPO, 'node_modules/reveal.js/dist'), join(site, 'reveal'), { recursive: true });
  cpSync(join(REPO, 'web/standalone/examples'), site, { recursive: true });
  server = await serveDist(site);
  origin = `http://127.0.0.1:${server.address().port}`;
  [browser, lab] = await Promise.all([launch(), createAttnLab()]);
  pretrained = await openPretrained('induction', { lab });
}, 300000);

afterAll(async () => {
  await browser?.close();
  if (server) await new Promise((ok) => server.close(ok));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('attnlab from one script tag (standalone/, from npm pack)', () => {
  test('the tarball ships standalone/: the two scripts, the .wasm, the workers, every snapshot, KaTeX\'s fonts', () => {
    const sa = files.filter((f) => f.startsWith('standalone/'));
    expect(sa).toContain('standalone/attnlab.js');
    expect(sa).toContain('standalone/attnlab.inline.js');
    expect(sa.filter((f) => /^standalone\/assets\/attnlab-core-[\w-]+\.wasm$/.test(f))).toHaveLength(1);
    expect(sa.filter((f) => /^standalone\/assets\/trainer\.worker-[\w-]+\.js$/.test(f))).toHaveLength(1);
    expect(sa.filter((f) => /^standalone\/assets\/model\.worker-[\w-]+\.js$/.test(f))).toHaveLength(1);
    // Every shipped run's snapshots and index (induction's, the names model's, …), each emitted once.
    const pre = join(REPO, 'web/train/pretrained');
    const shipped = readdirSync(pre).flatMap((d) => readdirSync(join(pre, d)).filter((f) => /^(step-\d+|index)\.(safetensors|json)$/.test(f)));
    const snapshots = sa.filter((f) => /^standalone\/assets\/(step-\d+|index)-[\w-]+\.(safetensors|json)$/.test(f));
    expect(snapshots).toHaveLength(shipped.length);
    expect(sa.filter((f) => /KaTeX_Main-Regular-[\w-]+\.woff2$/.test(f))).toHaveLength(1);
    expect(existsSync(join(site, 'attnlab/attnlab.js'))).toBe(true);
  });

  test('a plain HTML page: the notes\' numbers, edits recompute as the API does, the URL keeps the state; no request leaves the origin', async () => {
    const requests = recordRequests();
    const { page, problems } = await watchedPage(browser.context);
    try {
      const w = 'attn-steps attn-heatmap.weights', o = 'attn-steps attn-heatmap.output';
      await page.goto(`${origin}/page.html`);
      await rendered(page, 'attn-steps');
      await page.locator(`${w} table td`).first().waitFor({ state: 'attached' });
      expect((await cells(page, w)).slice(0, 3)).toEqual(NOTES.slice(0, 3));
      expect((await cells(page, o)).slice(0, 2)).toEqual(NOTES.slice(3));
      expect(await cells(page, w)).toEqual(f4(football().weights));
      await page.locator('attn-steps select.mask').selectOption('causal');
      await expect.poll(() => cells(page, w)).toEqual(f4(football({ mask: 'causal' }).weights));
      await expect.poll(() => cells(page, o)).toEqual(f4(football({ mask: 'causal' }).output));
      await expect.poll(async () => decodeURIComponent(await page.evaluate(() => location.hash))).toContain('"mask":"causal"');
      // The URL alone brings the state back, in a fresh page.
      const link = page.url();
      const again = await browser.context.newPage();
      await again.goto(link);
      await rendered(again, 'attn-steps');
      await expect.poll(() => cells(again, w)).toEqual(f4(football({ mask: 'causal' }).weights));
      await again.close();
      // KaTeX's stylesheet reached the document and its fonts came from the folder.
      await rendered(page, 'attn-multihead');
      await page.evaluate(() => document.fonts.ready);
      expect(await page.evaluate(() => document.fonts.check('16px KaTeX_Main'))).toBe(true);
      await rendered(page, 'attn-train');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      requests.stop();
    }
    expect(offOrigin(requests.urls, (u) => u.origin === origin)).toEqual([]);
    const paths = requests.urls.map((u) => new URL(u).pathname);
    expect(paths.filter((p) => /^\/attnlab\/assets\/attnlab-core-[\w-]+\.wasm$/.test(p)).length).toBeGreaterThan(0);
    expect(paths.filter((p) => /^\/attnlab\/assets\/KaTeX_[\w-]+\.woff2$/.test(p)).length).toBeGreaterThan(0);
  });

  test('a plain reveal.js deck (reveal.mjs + RevealAttnLab from attnlab.js): fragments step the widgets, snapshots and the worker come from the folder', async () => {
    const requests = recordRequests();
    const { page, problems } = await watchedPage(browser.context);
    try {
      await page.goto(`${origin}/reveal.html#/1`);
      const widget = await rendered(page, 'section.present attn-steps');
      await stepThrough(page, widget);
      // The deck's URL state: reveal.js's hash names the slide and fragment; a reload comes back there.
      await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/1/0/4');
      await page.reload();
      const back = await rendered(page, 'section.present attn-steps');
      await expect.poll(() => back.getAttribute('stage')).toBe('5');
      await page.goto(`${origin}/reveal.html#/2`);
      await trainSlide(page, 'section.present attn-train', pretrained);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      requests.stop();
    }
    expect(offOrigin(requests.urls, (u) => u.origin === origin)).toEqual([]);
    const paths = requests.urls.map((u) => new URL(u).pathname);
    expect(paths.filter((p) => /^\/attnlab\/assets\/step-2500-[\w-]+\.safetensors$/.test(p)).length).toBeGreaterThan(0);
    expect(paths.filter((p) => /^\/attnlab\/assets\/trainer\.worker-[\w-]+\.js$/.test(p)).length).toBeGreaterThan(0);
  });

  test('from file:// URLs: attnlab.inline.js renders and steps with no server; attnlab.js is refused by the browser', async () => {
    const requests = recordRequests();
    const fileUrl = (name) => pathToFileURL(join(site, name)).href;
    const inSite = (u) => u.protocol === 'file:' && decodeURIComponent(u.pathname).startsWith(`${site}/`);
    try {
      // The plain page, inline: the notes' numbers.
      let { page, problems } = await watchedPage(browser.context);
      await page.goto(fileUrl('page.inline.html'));
      await rendered(page, 'attn-steps');
      await expect.poll(() => cells(page, 'attn-steps attn-heatmap.weights')).toEqual(f4(football().weights));
      expect(problems.filter((p) => !p.startsWith('request off localhost: file:'))).toEqual([]);
      await page.close();

      // The reveal.js deck, inline (reveal.js's classic build): fragments step the widget; the
      // snapshots (inlined) and the live training's worker (a Blob URL) work too.
      ({ page, problems } = await watchedPage(browser.context));
      await page.goto(`${fileUrl('reveal.inline.html')}#/1`);
      await stepThrough(page, await rendered(page, 'section.present attn-steps'));
      await page.goto(`${fileUrl('reveal.inline.html')}#/2`);
      await page.reload();
      await trainSlide(page, 'section.present attn-train', pretrained);
      expect(problems.filter((p) => !p.startsWith('request off localhost: file:'))).toEqual([]);
      await page.close();

      // The module script from a file: URL: Chromium refuses it (CORS: a file: page's origin is
      // opaque), so no widget is defined — what README says, and why attnlab.inline.js exists.
      ({ page, problems } = await watchedPage(browser.context));
      await page.goto(fileUrl('page.html'));
      await expect.poll(() => problems.some((p) => /attnlab\.js/.test(p))).toBe(true);
      expect(await page.evaluate(() => customElements.get('attn-steps') === undefined)).toBe(true);
      await page.close();
    } finally {
      requests.stop();
    }
    expect(offOrigin(requests.urls, inSite)).toEqual([]);
  });
});
