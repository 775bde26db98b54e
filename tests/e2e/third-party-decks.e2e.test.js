// attnlab in someone else's decks, the way the README ("Widgets in your slides") says: `npm pack` this
// repository, write a small Slidev deck (its own package.json; `addons: ['attnlab']` is the only
// attnlab line) and a small reveal.js deck (Vite; `import AttnLab from 'attnlab/reveal'`) into a
// folder outside the repository, install the tarball, build each offline-capable (no web fonts),
// serve dist/ on localhost and check in Chromium that <attn-steps preset="football"> shows the
// notes' numbers and steps with Slidev clicks / reveal.js fragments, and that <attn-train> shows the
// shipped snapshots' numbers stage by stage and trains live in the Web Worker the deck's build bundled. Then the same Slidev deck with a
// linked install (`npm install /path/to/attnlab`, a symlink) on the Slidev dev server, where the
// .wasm lies outside the deck's folder. And a lecturer's own reveal.js markdown deck (white theme,
// `---` separators, the README's attention slide) walked at 1280×720 with the decks' fit checks.
// Slow part: installing Slidev (~1 min, from the npm cache).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createAttnLab } from 'attnlab';
import { openPretrained } from 'attnlab/train';
import { fmt } from '../../web/widgets/shared/format.js';
import { launch, watchedPage } from './browser.js';
import { serveDist } from './server.mjs';
import { NOTES, rendered, shownText, stepThrough, trainSlide } from './deck-steps.js';
import { walkReveal } from './deck-fit.js';
import { fitReport } from './fit-check.js';
import {
  REPO, freePort, npmInstall, packAttnlab, run, startServer, writeRevealDeck, writeRevealMarkdownDeck, writeSlidevDeck,
} from './third-party/decks.js';

let dir, browser, tarball, files, pretrained;
const slidevDeck = () => join(dir, 'slidev-deck');
const revealDeck = () => join(dir, 'reveal-deck');
const markdownDeck = () => join(dir, 'reveal-markdown-deck');
const times = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'attnlab-third-party-'));
  expect(relative(REPO, dir).startsWith('..')).toBe(true);  // outside the repository
  ({ tarball, files } = await packAttnlab(dir));
  writeSlidevDeck(slidevDeck(), `file:${tarball}`);
  writeRevealDeck(revealDeck(), `file:${tarball}`);
  writeRevealMarkdownDeck(markdownDeck(), `file:${tarball}`);
  let t = Date.now();
  await npmInstall(slidevDeck());
  times.slidevInstall = Date.now() - t;
  t = Date.now();
  await npmInstall(revealDeck());
  times.revealInstall = Date.now() - t;
  await npmInstall(markdownDeck());
  browser = await launch();
  pretrained = await openPretrained('induction', { lab: await createAttnLab() });
}, 420000);

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  console.log(`third-party decks: ${Object.entries(times).map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)} s`).join(', ')}`);
});

describe('attnlab in third-party decks', () => {
  test('the package is a Slidev addon that brings no layouts, styles or theme components', () => {
    // Slidev reads an addon's components/, layouts/, setup/, styles/, public/, index.html, vite.config.*
    // and global layers from the package root: attnlab ships AttnStepper, its setup (main.ts and the two
    // modules it imports) and its Vite config only.
    const slidevFiles = files.filter((f) => !f.includes('/') || /^(components|layouts|setup|styles|public)\//.test(f));
    expect(slidevFiles.sort()).toEqual(['README.md', 'components/AttnStepper.vue', 'package.json',
      'setup/attn-sync.ts', 'setup/main.ts', 'setup/print-ready.ts', 'vite.config.ts']);
    expect(files).toContain('web/api/wasm/attnlab-core.wasm');
    expect(files.filter((f) => f.endsWith('.test.js'))).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
    expect(pkg.keywords).toContain('slidev-addon');
    expect(pkg.exports['./reveal']).toBe('./slides/reveal/plugin/attnlab.js');
  });

  test('Slidev, tarball install, `addons: [\'attnlab\']`: slidev build, clicks step the widget', async () => {
    const t = Date.now();
    await run('npx', ['slidev', 'build', '--base', './'], slidevDeck());
    times.slidevBuild = Date.now() - t;
    const html = readFileSync(join(slidevDeck(), 'dist/index.html'), 'utf8');
    expect(html).not.toMatch(/fonts\.(googleapis|gstatic)|coollabs/);
    const server = await serveDist(join(slidevDeck(), 'dist'));
    const { page, problems } = await watchedPage(browser.context);
    try {
      const base = `http://127.0.0.1:${server.address().port}/`;
      await page.goto(`${base}#/1`);
      // The theme's own layout is untouched: slide 1 uses theme-default's `cover`.
      await page.locator('.slidev-page-1 .slidev-layout.cover').first().waitFor();
      await page.goto(`${base}#/2`);
      const widget = await rendered(page, '.slidev-page-2 .attn-stepper attn-steps');
      await stepThrough(page, widget);
      await page.goto(`${base}#/3`);
      await trainSlide(page, '.slidev-page-3 .attn-stepper attn-train', pretrained);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await new Promise((ok) => server.close(ok));
    }
  });

  test('reveal.js, tarball install, `import AttnLab from \'attnlab/reveal\'`: vite build, fragments step the widget', async () => {
    const t = Date.now();
    await run('npx', ['vite', 'build', '--logLevel', 'warn'], revealDeck());
    times.revealBuild = Date.now() - t;
    const server = await serveDist(join(revealDeck(), 'dist'));
    const { page, problems } = await watchedPage(browser.context);
    try {
      await page.goto(`http://127.0.0.1:${server.address().port}/#/1`);
      const widget = await rendered(page, 'section.present attn-steps');
      await stepThrough(page, widget);
      await page.goto(`http://127.0.0.1:${server.address().port}/#/2`);
      await trainSlide(page, 'section.present attn-train', pretrained);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await new Promise((ok) => server.close(ok));
    }
  });

  test('a lecturer\'s reveal.js markdown deck (white theme, the README\'s slide): every fragment fits 1280×720, legible, stages in step', async () => {
    await run('npx', ['vite', 'build', '--logLevel', 'warn'], markdownDeck());
    // The slide is the README's example, as written there.
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const example = readme.match(/```html\n<section>\n([\s\S]*?)<\/section>\n```/)[1]
      .split('\n').map((l) => l.replace(/\s*<!--.*-->\s*$/, '').trim()).filter(Boolean);
    const deckText = readFileSync(join(markdownDeck(), 'index.html'), 'utf8');
    for (const line of example) expect(deckText).toContain(line);
    expect(example.filter((l) => /^<p class="fragment" data-attn-stage=/.test(l))).toHaveLength(3);
    const server = await serveDist(join(markdownDeck(), 'dist'));
    const { page, problems } = await watchedPage(browser.context);
    try {
      const base = `http://127.0.0.1:${server.address().port}/index.html`;
      // Every slide and fragment: nothing past the slide or into the widget, text ≥ 14 px, numbers ≥ 18 px,
      // no map of a few tokens drawn as specks, the stage the fragment asked for.
      const walk = await walkReveal(page, base);
      expect(walk.widgets).toBeGreaterThanOrEqual(4);
      expect(walk.problems).toEqual([]);
      // On the attention slide: the widget starts at Q, K, V with their numbers; each fragment moves it on;
      // at the last one the weights show the notes' row "I"; the three fragments lie on the slide.
      await page.evaluate(() => window.deck.slide(1, 0, -1));
      const widget = await rendered(page, 'section.present attn-steps');
      const seen = [];
      for (let f = 0; f <= 3; f++) {
        if (f) await page.evaluate(() => window.deck.next());
        await expect.poll(() => widget.getAttribute('stage')).toBe(String([1, 2, 3, 5][f]));
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 300)))));
        const r = await page.evaluate(fitReport, { widget: 'section.present attn-steps', slide: '.reveal .slides' });
        seen.push(r.numbers.length);
        expect(r.small).toEqual([]);
      }
      expect(Math.min(...seen)).toBeGreaterThanOrEqual(6);  // Q and K at stage 1: 3×2 each, numbered
      const last = await page.evaluate(fitReport, { widget: 'section.present attn-steps', slide: '.reveal .slides' });
      for (const n of NOTES.slice(0, 3)) expect(last.numbers).toContain(n);
      const slideBox = await page.evaluate(() => document.querySelector('.reveal .slides').getBoundingClientRect().toJSON());
      const marks = await page.evaluate(() => [...document.querySelectorAll('section.present p.fragment')].map((p) => p.getBoundingClientRect().toJSON()));
      expect(marks).toHaveLength(3);
      for (const m of marks) expect(m.bottom).toBeLessThanOrEqual(slideBox.bottom + 1);
      // Its maps spread over the slide's width (not a narrow figure beside half an empty slide).
      const spread = await page.evaluate(() => {
        const maps = [...document.querySelector('section.present attn-steps').shadowRoot.querySelectorAll('attn-heatmap')].map((m) => m.getBoundingClientRect());
        return Math.max(...maps.map((r) => r.right)) - Math.min(...maps.map((r) => r.left));
      });
      expect(spread).toBeGreaterThan(0.6 * slideBox.width);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await new Promise((ok) => server.close(ok));
    }
  });

  test('Slidev, linked install (`npm install /path/to/attnlab`): the dev server serves the widgets, their .wasm, snapshots and worker', async () => {
    let t = Date.now();
    await npmInstall(slidevDeck(), REPO);
    times.linkedInstall = Date.now() - t;
    expect(readlinkSync(join(slidevDeck(), 'node_modules/attnlab'))).toContain(relative(slidevDeck(), REPO));
    const port = await freePort();
    t = Date.now();
    const server = await startServer('npx', ['slidev', '--port', String(port)], slidevDeck(), `http://localhost:${port}/`);
    // The lecturer's first visit is the watched one (this test once visited first to warm the server up).
    // A reload on that visit would abort its requests: the dev server must have bundled the widgets'
    // dependencies when it started. With attnlab linked, its optimizer's scan of the linked source finds
    // them (it did so before attnlab's vite.config.ts named them for this repository's decks): a guard.
    const { page, problems } = await watchedPage(browser.context);
    const vueWarnings = [];
    page.on('console', (m) => { if (/Failed to resolve component/.test(m.text())) vueWarnings.push(m.text()); });
    const wasm = [];
    page.on('response', (r) => { if (r.url().includes('.wasm') && r.ok()) wasm.push(r.url()); });
    try {
      await page.goto(`http://localhost:${port}/#/2`);
      const widget = await rendered(page, '.slidev-page-2 .attn-stepper attn-steps');
      times.linkedDevFirstRender = Date.now() - t;
      expect(server.output()).not.toMatch(/optimized dependencies changed|reloading|Failed to resolve dependency/);
      await stepThrough(page, widget);
      // The .wasm came from the linked checkout (outside the deck), through Vite's /@fs/.
      expect(wasm.map((u) => decodeURIComponent(new URL(u).pathname))).toContain(`/@fs${REPO}/web/api/wasm/attnlab-core.wasm`);
      expect(vueWarnings).toEqual([]);  // isCustomElement reached Vue: <attn-…> is not a component
      // The training slide on the dev server: snapshots and the worker's module from the linked checkout.
      await page.evaluate(() => { location.hash = '#/3'; });  // in-page: a reload would abort Slidev's sync posts
      await trainSlide(page, '.slidev-page-3 .attn-stepper attn-train', pretrained);
      // Presenter → audience on the dev server: a widget edit in the presenter view reaches the
      // audience view through Slidev's server-reactive state (attnlab's setup/attn-sync.ts).
      const audience = await watchedPage(browser.context), presenter = await watchedPage(browser.context);
      try {
        await audience.page.goto(`http://localhost:${port}/#/2`);
        await presenter.page.goto(`http://localhost:${port}/#/presenter/2`);
        const sel = '.slidev-page-2 attn-steps';
        await rendered(audience.page, sel);
        await presenter.page.waitForFunction((s) => document.querySelector(s)?.shadowRoot?.querySelector('select'), sel, { timeout: 60000 });
        expect(await audience.page.locator(sel).first().getAttribute('preset')).toBe('football');
        await presenter.page.locator(sel).first().locator('select').first().selectOption('cat-sat');
        await expect.poll(() => audience.page.locator(sel).first().getAttribute('preset'), { timeout: 15000 }).toBe('cat-sat');
        problems.push(...audience.problems, ...presenter.problems);
      } finally {
        await audience.page.close();
        await presenter.page.close();
      }
      // Slidev's dev server posts each navigation to /@server-reactive/nav, and attn-sync each widget
      // edit to /@server-reactive/attnlab; Chromium reports such posts aborted even when they arrived
      // (the audience followed, above; a newer post also overtakes an older one): its sync, not a failure.
      expect(problems.filter((p) => !/\/@server-reactive\/(nav|attnlab) net::ERR_ABORTED/.test(p)
        && !/\/__slidev\/slides\/\d+\.json net::ERR_ABORTED/.test(p))).toEqual([]);
    } finally {
      await page.close();
      server.stop();
    }
  });
});
