// The lecture at 1280×720: the figures a click is about are there and readable.
//   - multi-head slides of both decks: at every click every map <attn-multihead> draws writes every
//     cell's number, at an 18 px glyph box or more (the 4×4 weight maps had none);
//   - the cost slide: real timings before any click (the shipped ones, labelled, until its own run has
//     results), the fit of what the slide says is timed (the attention core, no projections), and
//     reference slopes ∝ T and ∝ T² drawn and labelled — in the browser and on the exported PDF page;
//   - reveal.js's print view (?print-pdf): every widget's drawing inside its page (self-attention's ran
//     28 px past it).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { BASE_URL, launch, watchedPage } from './browser.js';
import { findSlide, slidevAt, slidevNext } from './deck-fit.js';
import { fitReport } from './fit-check.js';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '../..');
let browser;
beforeAll(async () => { browser = await launch(); });
afterAll(async () => { await browser?.close(); });

// In the page: for each visible map inside `sel`'s <attn-multihead>, its cells, the numbers it writes
// and the smallest number's glyph box (px on screen).
function mapNumbers(sel) {
  const out = [];
  for (const w of document.querySelectorAll(sel)) {
    if (!w.getBoundingClientRect().width) continue;
    for (const h of w.shadowRoot?.querySelectorAll('attn-heatmap') ?? []) {
      if (!h.getBoundingClientRect().width) continue;
      const nums = [...h.shadowRoot.querySelectorAll('svg text.num')];
      out.push({ label: h.label, cells: h.rows * h.cols, numbers: nums.length,
        smallest: Math.min(...nums.map((t) => t.getBoundingClientRect().height)),
        stage: w.getAttribute('stage') });
    }
  }
  return out;
}

const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 400)))));

function problemsOf(maps, where) {
  const out = [];
  if (!maps.length) out.push(`${where}: no maps drawn`);
  for (const m of maps) {
    if (m.numbers !== m.cells) out.push(`${where} stage ${m.stage}: ${m.label} writes ${m.numbers} of ${m.cells} numbers`);
    else if (m.smallest < 18) out.push(`${where} stage ${m.stage}: ${m.label} numbers ${m.smallest.toFixed(1)} px`);
  }
  return out;
}

describe('multi-head slides at 1280×720: every map shows its numbers', () => {
  test('Slidev: every multi-head slide, every click', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(new URL('slides/slidev/index.html#/1', BASE_URL()).href);
    const first = await findSlide(page, '.slidev-page-{n} attn-multihead');
    expect(first).toBeGreaterThan(0);
    const found = [];
    let steps = 0;
    for (let n = first; ; n++) {
      await page.goto(new URL(`slides/slidev/index.html#/${n}`, BASE_URL()).href);
      await page.locator(`.slidev-page-${n} .slidev-layout`).first().waitFor();
      await settle(page);
      if (!(await page.locator(`#slide-content .slidev-page-${n} attn-multihead`).count())) break;
      for (let i = 0; i < 12; i++) {
        const at = await slidevAt(page);
        if (at.no !== n) break;
        await page.waitForFunction((s) => [...document.querySelectorAll(s)].every((w) => w.shadowRoot?.childElementCount && !w.shadowRoot.querySelector('.loading')),
          `#slide-content .slidev-page-${n} attn-multihead`, { timeout: 30000 });
        await settle(page);
        found.push(...problemsOf(await page.evaluate(mapNumbers, `#slide-content .slidev-page-${n} attn-multihead`), `slide ${n} click ${at.clicks}`));
        steps++;
        await slidevNext(page, at);
      }
    }
    expect(steps).toBeGreaterThan(8);
    expect(found).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('reveal.js: every multi-head slide, every fragment', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(new URL('slides/reveal/index.html', BASE_URL()).href);
    await page.waitForFunction(() => window.deck?.isReady?.());
    const slides = await page.evaluate(() => window.deck.getSlides().map((s, i) => (s.querySelector('attn-multihead') ? i : -1)).filter((i) => i >= 0));
    expect(slides.length).toBeGreaterThan(1);
    const found = [];
    let steps = 0;
    for (const h of slides) {
      await page.evaluate((i) => window.deck.slide(i, 0, -1), h);
      for (let f = -1; f < 12; f++) {
        const at = await page.evaluate(() => window.deck.getIndices());
        if (at.h !== h) break;
        await page.evaluate(() => new Promise((r) => setTimeout(r, 900)));  // the slide transition
        await page.waitForFunction(() => [...window.deck.getCurrentSlide().querySelectorAll('attn-multihead')]
          .every((w) => w.shadowRoot?.childElementCount && !w.shadowRoot.querySelector('.loading')), null, { timeout: 30000 });
        await settle(page);
        // Maps under an overlay (the figure a fragment lays over the slide) are not what the click shows.
        const covered = await page.evaluate(() => [...window.deck.getCurrentSlide().querySelectorAll('.image-overlay')]
          .some((o) => Number(getComputedStyle(o).opacity) > 0.5 && getComputedStyle(o).visibility !== 'hidden'));
        if (!covered) {
          await page.evaluate(() => { document.querySelectorAll('[data-mh-current]').forEach((s) => s.removeAttribute('data-mh-current')); window.deck.getCurrentSlide().setAttribute('data-mh-current', ''); });
          found.push(...problemsOf(await page.evaluate(mapNumbers, '[data-mh-current] attn-multihead'), `slide ${h + 1} fragment ${at.f ?? -1}`));
          steps++;
        }
        if (!(await page.evaluate(() => !!window.deck.availableFragments().next))) break;
        await page.evaluate(() => window.deck.nextFragment());
      }
    }
    expect(steps).toBeGreaterThan(6);
    expect(found).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });
});

// In the page: what <attn-cost> draws — dots, dashed reference lines and their labels, legend, formula.
function costView(sel) {
  const w = document.querySelector(sel);
  const root = w.shadowRoot;
  const svg = root.querySelector('.plotbox svg');
  return {
    dots: [...(svg?.querySelectorAll('circle') ?? [])].filter((c) => Number(c.getAttribute('r')) > 1).length,
    dashed: [...(svg?.querySelectorAll('polyline') ?? [])].filter((p) => (p.getAttribute('stroke-dasharray') ?? 'none') !== 'none').length,
    labels: [...(svg?.querySelectorAll('text') ?? [])].map((t) => t.textContent.trim()),
    legend: root.querySelector('.legend-line')?.textContent.replace(/\s+/g, ' ').trim() ?? '',
    formula: root.querySelector('attn-tex.formula')?.expr ?? '',
  };
}

describe('the cost slide', () => {
  test('before any run: the shipped timings, labelled; fit of the core without projections; slopes ∝ T and ∝ T²', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1280, height: 760 });
    // No autorun: what the slide shows until the audience sees it measure (and what a PDF page shows).
    await page.goto(new URL('fit.html?tag=attn-cost&op=attention&controls=compact&w=980&h=552&title=A%20slide', BASE_URL()).href);
    await page.waitForFunction(() => document.querySelector('#box > :last-child')?.shadowRoot?.querySelector('.plotbox svg'), null, { timeout: 30000 });
    await settle(page);
    const v = await page.evaluate(costView, '#box > :last-child');
    expect(v.dots).toBe(7);  // T = 16 … 1024
    expect(v.legend).toMatch(/shipped timings: .+, \d{4}-\d\d-\d\d/);
    expect(v.legend).toMatch(/fit c·4T²d/);
    expect(v.legend).not.toMatch(/8Td/);
    expect(v.formula).toMatch(/no projections/);
    expect(v.dashed).toBe(2);
    expect(v.labels).toEqual(expect.arrayContaining(['∝ T', '∝ T²']));
    const t = await page.evaluate(fitReport, { widget: '#box > :last-child', slide: '#box' });
    expect(t.outside).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('Slidev: the slide shows timings as soon as it is drawn, then its own', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(new URL('slides/slidev/index.html#/1', BASE_URL()).href);
    const n = await findSlide(page, '.slidev-page-{n} attn-cost');
    expect(n).toBeGreaterThan(0);
    const sel = `#slide-content .slidev-page-${n} attn-cost`;
    await page.waitForFunction((s) => document.querySelector(s)?.shadowRoot?.querySelector('.plotbox svg'), sel, { timeout: 30000 });
    const first = await page.evaluate(costView, sel);
    // Drawn with data from its first frame: the shipped timings, or the live run's first lengths.
    expect(first.dots).toBeGreaterThan(0);
    expect(first.legend).toMatch(/shipped timings|measured in this browser/);
    expect(first.formula).toMatch(/no projections/);
    await page.waitForFunction((s) => /measured in this browser/.test(document.querySelector(s).shadowRoot.querySelector('.legend-line')?.textContent ?? '')
      && document.querySelector(s).shadowRoot.querySelector('.done'), sel, { timeout: 120000 });
    const live = await page.evaluate(costView, sel);
    expect(live.dots).toBe(7);
    expect(live.dashed).toBe(2);
    expect(live.labels).toEqual(expect.arrayContaining(['∝ T', '∝ T²']));
    expect(problems).toEqual([]);
    await page.close();
  }, 180000);

  const pdftotext = ['/usr/bin/pdftotext', '/usr/local/bin/pdftotext'].some((p) => existsSync(p));
  // `slidev export` of the whole deck (its own dev server and Chromium): ~1 min on a loaded 2-core machine.
  test.skipIf(!pdftotext)('Slidev PDF: the cost page has its timings, fit and slopes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'attnlab-cost-pdf-'));
    try {
      const pdf = join(dir, 'deck.pdf');
      await run('npx', ['slidev', 'export', 'slides/slidev/slides.md', '--executable-path',
        process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', '--output', pdf, '--timeout', '120000'],
      { cwd: repo, timeout: 300000, maxBuffer: 1 << 24 });
      const md = readFileSync(join(repo, 'slides/slidev/slides.md'), 'utf8');
      const { stdout: info } = await run('pdfinfo', [pdf]);
      const pages = Number(/Pages:\s+(\d+)/.exec(info)[1]);
      let text = '';
      for (let p = 1; p <= pages && !text; p++) {
        const t = (await run('pdftotext', ['-f', String(p), '-l', String(p), pdf, '-'])).stdout;
        if (/sequence length T/.test(t) && /no projections/.test(t)) text = t;
      }
      expect(md).toMatch(/<attn-cost op="attention"/);
      expect(text, 'a PDF page with the cost plot').not.toBe('');
      expect(text).toMatch(/shipped timings|measured in this browser/);
      expect(text).toMatch(/∝ T²/);
      expect(text).toMatch(/fit c·4T²d/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 360000);
});

describe('reveal.js print view (?print-pdf) at 1280×720', () => {
  test('every widget is drawn inside its page', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.emulateMedia({ media: 'print' });
    await page.goto(new URL('slides/reveal/index.html?print-pdf', BASE_URL()).href);
    await page.waitForFunction(() => document.querySelectorAll('.reveal .pdf-page').length > 20, null, { timeout: 30000 });
    await page.waitForFunction(() => ![...document.querySelectorAll('.pdf-page [data-attn-stages]')]
      .some((w) => !w.shadowRoot?.childElementCount || w.shadowRoot.querySelector('.loading')), null, { timeout: 30000 });
    // Widgets re-fit to their page (a print page's canvas settles after reveal.js lays it out): wait
    // until no widget's height changes for a second.
    await page.evaluate(async () => {
      const sizes = () => JSON.stringify([...document.querySelectorAll('.pdf-page *')].filter((e) => e.tagName.startsWith('ATTN-')).map((e) => Math.round(e.getBoundingClientRect().height)));
      let last = sizes();
      for (let i = 0, still = 0; i < 60 && still < 4; i++) {
        await new Promise((r) => setTimeout(r, 250));
        const now = sizes();
        still = now === last ? still + 1 : 0;
        last = now;
      }
    });
    const widgets = await page.evaluate(() => {
      const out = [];
      [...document.querySelectorAll('.reveal .pdf-page')].forEach((p, i) => {
        p.setAttribute('data-print-page', String(i + 1));
        p.querySelectorAll('*').forEach((el, j) => {
          const tag = el.tagName.toLowerCase();
          if (!tag.startsWith('attn-') || tag === 'attn-event' || !el.getBoundingClientRect().width || el.closest('.fragment:not(.visible)')) return;
          if (el.parentElement.closest('attn-steps, attn-multihead, attn-timeline, attn-train, attn-model')) return;
          el.setAttribute('data-print-id', `${i + 1}-${j}`);
          out.push({ page: i + 1, id: `${i + 1}-${j}`, tag, title: p.querySelector('h2')?.textContent.trim().slice(0, 40) });
        });
      });
      return out;
    });
    expect(widgets.length).toBeGreaterThan(40);
    const found = [];
    for (const w of widgets) {
      const r = await page.evaluate(fitReport, { widget: `[data-print-id="${w.id}"]`, slide: `[data-print-page="${w.page}"]` });
      for (const o of r.outside.slice(0, 2)) found.push(`page ${w.page} (${w.title}) <${w.tag}>: ${o.el} at ${JSON.stringify(o.rect)} outside ${o.clip}`);
    }
    expect(widgets.some((w) => /self-attention/i.test(w.title) && w.tag === 'attn-steps')).toBe(true);
    expect(found).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });
});
