// The lecture decks' content as a lecturer uses it: every slide of both built decks has
// speaker notes, shown in the presenter view (Slidev: index.html#/presenter/<n>, hash routing) and in
// reveal.js's speaker view (the RevealNotes plugin); and the Slidev PDF export draws the plots that
// used to come out blank (convex hull, why-scale softmax plot, positional-encoding heatmap).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { BASE_URL, launch, watchedPage } from './browser.js';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '../..');

let browser;
beforeAll(async () => { browser = await launch(); });
afterAll(async () => { await browser?.close(); });

describe('speaker notes', () => {
  test('every Slidev slide has notes in the presenter view (#/presenter/<n>)', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.goto(new URL('slides/slidev/index.html#/presenter/1', BASE_URL()).href);
    await page.locator('.slidev-page-1').first().waitFor();
    // Slide by slide until no page appears (past the last one); the note of each, as shown.
    const notes = await page.evaluate(async () => {
      const out = [];
      for (let n = 1; n < 80; n++) {
        location.hash = `#/presenter/${n}`;
        let waited = 0;
        // The page's content (an async component) mounts after its wrapper: wait for the content.
        const mounted = () => document.querySelector(`.slidev-page-${n} .slidev-layout`);
        while (!mounted() && waited < 5000) {
          await new Promise((r) => setTimeout(r, 20));
          waited += 20;
        }
        if (!mounted()) break;
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        const note = document.querySelector('.slidev-note');
        out.push(note ? note.textContent.trim() : '');
      }
      return out;
    });
    expect(notes.length).toBeGreaterThanOrEqual(40);
    const missing = notes.map((t, i) => (t.length < 80 || /^no notes/i.test(t) ? i + 1 : 0)).filter(Boolean);
    expect(missing, 'slides without speaker notes').toEqual([]);
    // Real notes: most slides ask the room something.
    expect(notes.filter((t) => t.includes('?')).length).toBeGreaterThan(notes.length * 0.8);
    expect(problems).toEqual([]);
    await page.close();
  });

  // A note that says "[click] …" walks the lecturer through the slide's clicks: its markers must be
  // the slide's clicks, one each, in order (a note describing one click of two, or a click the slide
  // does not have, tells the lecturer something the slide will not do). Notes without markers describe
  // the slide as a whole and are not held to it.
  test('each Slidev note\'s [click] markers are the slide\'s clicks, 1 … total', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.goto(new URL('slides/slidev/index.html#/presenter/1', BASE_URL()).href);
    await page.locator('.slidev-page-1').first().waitFor();
    const slides = await page.evaluate(async () => {
      const out = [];
      for (let n = 1; n < 80; n++) {
        // Past the last click: the presenter's counter shows "total/total".
        location.hash = `#/presenter/${n}?clicks=99`;
        let waited = 0;
        const mounted = () => document.querySelector(`.slidev-page-${n} .slidev-layout`);
        while (!mounted() && waited < 5000) {
          await new Promise((r) => setTimeout(r, 20));
          waited += 20;
        }
        if (!mounted()) break;
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        // The presenter's click counter ("3/5" beside a cursor icon).
        const counter = document.querySelector('[class*="cursor-1"]')?.parentElement;
        const marks = [...document.querySelectorAll('.slidev-note .slidev-note-click-mark')].map((m) => Number(m.dataset.clicks));
        const m = counter?.innerText.match(/(\d+)\s*\/\s*(\d+)/);
        out.push({ n, total: m ? Number(m[2]) : null, marks });
      }
      return out;
    });
    expect(slides.length).toBeGreaterThanOrEqual(40);
    expect(slides.filter((s) => s.total === null).map((s) => s.n), 'slides without a click counter').toEqual([]);
    const withMarks = slides.filter((s) => s.marks.length);
    expect(withMarks.length).toBeGreaterThan(15);
    const wrong = withMarks.filter((s) => s.marks.join() !== Array.from({ length: s.total }, (_, i) => i + 1).join())
      .map((s) => `slide ${s.n}: ${s.total} clicks, notes mark ${s.marks.join(', ')}`);
    expect(wrong).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('every reveal.js slide has notes, and the speaker view plugin is loaded', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.goto(new URL('slides/reveal/index.html', BASE_URL()).href);
    await page.waitForFunction(() => window.deck?.isReady());
    const { total, notes, plugin } = await page.evaluate(() => ({
      total: window.deck.getTotalSlides(),
      notes: window.deck.getSlides().map((s) => window.deck.getSlideNotes(s)?.replace(/<[^>]+>/g, '').trim() ?? ''),
      plugin: window.deck.hasPlugin('notes'),
    }));
    expect(plugin).toBe(true);
    expect(notes.length).toBe(total);
    const missing = notes.map((t, i) => (t.length < 80 ? i + 1 : 0)).filter(Boolean);
    expect(missing, 'slides without speaker notes').toEqual([]);
    // A note's "Click N" must be a step the slide has: N ≤ its number of fragment steps (reveal's
    // overlay slides promised a "click 2 hides it" they do not have).
    const steps = await page.evaluate(() => window.deck.getSlides().map((s) =>
      new Set([...s.querySelectorAll('.fragment')].map((f) => f.dataset.fragmentIndex ?? f)).size));
    const beyond = notes.flatMap((t, i) => [...t.matchAll(/\bclick (\d+)/gi)].map((m) => Number(m[1]))
      .filter((k) => k > steps[i]).map((k) => `slide ${i}: "click ${k}", ${steps[i]} fragment steps`));
    expect(beyond).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });
});

// Grey levels of one page of a PDF (pdftoppm, poppler-utils), as { width, height, px }.
async function rasterise(pdf, pageNo, dir) {
  const out = join(dir, `p${pageNo}`);
  await run('pdftoppm', ['-r', '40', '-gray', '-f', String(pageNo), '-l', String(pageNo), '-singlefile', pdf, out]);
  const buf = readFileSync(`${out}.pgm`);
  // P5 header: "P5\n<w> <h>\n<max>\n" then w·h bytes.
  const header = buf.subarray(0, 40).toString('latin1').match(/^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/);
  const [, w, h] = header.map(Number);
  return { width: w, height: h, px: buf.subarray(header[0].length) };
}

// Share of clearly non-white pixels in a box given as fractions of the page.
function inkShare({ width, height, px }, [x0, y0, x1, y1]) {
  let ink = 0, all = 0;
  for (let y = Math.floor(y0 * height); y < Math.floor(y1 * height); y++)
    for (let x = Math.floor(x0 * width); x < Math.floor(x1 * width); x++, all++) if (px[y * width + x] < 200) ink++;
  return ink / all;
}

const pdftoppm = ['/usr/bin/pdftoppm', '/usr/local/bin/pdftoppm'].some((p) => existsSync(p));

describe('Slidev PDF export', () => {
  // `slidev export` runs its own dev server and Chromium; the deck uses hash routing, where Slidev 52
  // ignores --range, so the whole deck (44 pages) is exported: about 30 s on a 2-core machine.
  test.skipIf(!pdftoppm)('widget plots are drawn (no blank heatmap or plot below a caption)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'attnlab-pdf-'));
    try {
      const pdf = join(dir, 'deck.pdf');
      const { stdout, stderr } = await run('npx', ['slidev', 'export', 'slides/slidev/slides.md', '--executable-path',
        process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', '--output', pdf, '--timeout', '120000'],
      { cwd: repo, timeout: 240000, maxBuffer: 1 << 24 });
      // The dev server bundles the widgets' dependencies when it starts (../vite.config.ts), not when
      // the print view first imports them: found then, they reloaded the page under the exporter (on a
      // fresh clone, whose first export this is in CI) and a page was printed with its widget blank.
      expect(`${stdout}\n${stderr}`).not.toMatch(/optimized dependencies changed|reloading/);
      // The slides whose plots came out blank, found by their source: convex hull, why scale,
      // positional encoding (slide numbers move when slides are added).
      const md = readFileSync(join(repo, 'slides/slidev/slides.md'), 'utf8');
      const slideOf = (tag) => md.slice(0, md.indexOf(tag)).split(/^---$/m).length / 2 | 0;
      for (const tag of ['<attn-convex />', '<attn-why-scale />', '<attn-positional />']) {
        const no = slideOf(tag);
        const page = await rasterise(pdf, no, dir);
        // The widget's column: the right part of the slide, below its controls.
        const share = inkShare(page, [0.45, 0.45, 0.97, 0.9]);
        expect(share, `${tag} on PDF page ${no}: ink in the lower right`).toBeGreaterThan(0.03);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300000);

  // The exporter prints a page once no `.slidev-slide-loading` element is left on it (then waits
  // export.wait). attnlab puts one beside every widget of a print view until the widget shows its
  // stage with its formulas typeset: a fixed pause alone printed blank widgets on a busy machine.
  test('a print view holds the export until every widget is drawn at its click\'s stage', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.goto(new URL('slides/slidev/index.html?print=clicks#print', BASE_URL()).href);
    // The slides mount in turn: once most widgets are there, some must still be held.
    await page.waitForFunction(() => document.querySelectorAll('.slidev-page :is(attn-steps, attn-convex, attn-cross, attn-train)').length >= 12,
      null, { timeout: 60000 });
    expect(await page.locator('.slidev-slide-loading').count(), 'markers while the widgets draw').toBeGreaterThan(0);
    await page.waitForFunction(() => !document.querySelector('.slidev-slide-loading'), null, { timeout: 60000 });
    const late = await page.evaluate(() => {
      const deep = (root) => [...root.querySelectorAll('*')].flatMap((el) => [el, ...(el.shadowRoot ? deep(el.shadowRoot) : [])]);
      return [...document.querySelectorAll('.slidev-page .attn-stepper > *')].flatMap((w) => {
        if (!w.localName.startsWith('attn-')) return [];
        const all = deep(w.shadowRoot ?? w);
        const strip = w.shadowRoot?.querySelector('.stagestrip');
        const at = strip ? [...strip.children].findIndex((li) => li.classList.contains('current')) : null;
        const pending = all.filter((el) => el.classList.contains('pending') || el.classList.contains('loading')).length;
        const maps = /^attn-(steps|multihead|block|cross|train)$/.test(w.localName);  // widgets whose stages are maps
        const blank = maps && !w.shadowRoot?.querySelector('attn-heatmap');
        return (strip && at !== Number(w.getAttribute('stage'))) || pending || blank
          ? [`${w.localName} stage ${w.getAttribute('stage')}: drawn at ${at}, ${pending} pending, ${blank ? 'blank' : 'drawn'}`] : [];
      });
    });
    expect(late, 'stepped widgets not drawn at their stage when the last marker went').toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, 120000);

  // A deck that asks for one page per click (`slidev export --with-clicks`, or `export.withClicks` in
  // its headmatter) gets the stepped widget at each click's stage: the worked example's pages show
  // S = QKᵀ, then the scaled scores, the masked scores, the weights (the notes' 0.3233), the output
  // (1.0137), one stage per page, in order.
  test.skipIf(!pdftoppm)('with clicks, each page shows its click\'s stage', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'attnlab-pdf-clicks-'));
    try {
      const pdf = join(dir, 'deck.pdf');
      await run('npx', ['slidev', 'export', 'slides/slidev/slides.md', '--executable-path',
        process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', '--output', pdf, '--with-clicks', '--timeout', '120000'],
      { cwd: repo, timeout: 240000, maxBuffer: 1 << 24 });
      const { stdout: info } = await run('pdfinfo', [pdf]);
      const pages = Number(info.match(/Pages:\s+(\d+)/)[1]);
      expect(pages).toBeGreaterThan(60);  // the clicks add pages (44 slides)
      const texts = [];
      for (let p = 1; p <= pages; p++) texts.push((await run('pdftotext', ['-f', String(p), '-l', String(p), pdf, '-'])).stdout);
      const stages = [
        (t) => t.includes('S = QK') && !t.includes('scaled scores'),
        (t) => t.includes('scaled scores'),
        (t) => t.includes('scaled + M'),
        (t) => t.includes('weights A') && t.includes('0.3233'),
        (t) => t.includes('Z = AV') && t.includes('1.0137'),
      ];
      const start = texts.findIndex((t, i) => stages.every((ok, k) => texts[i + k] && ok(texts[i + k])));
      expect(start, 'five consecutive pages stepping S → scaled → masked → weights → output').toBeGreaterThanOrEqual(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300000);
});

describe('reveal.js print view (?print-pdf)', () => {
  // Each fragment step is its own page (pdfSeparateFragments): a stepped widget on each page shows the
  // stage of that page's visible fragments, drawn in its slide layout.
  test('every printed step shows its stage', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.goto(new URL('slides/reveal/index.html?print-pdf', BASE_URL()).href);
    await page.waitForFunction(() => document.querySelectorAll('.reveal .pdf-page').length > 20, null, { timeout: 30000 });
    // Every stepped widget drawn (a widget without a stage strip, e.g. a predict slide's, counts once drawn).
    await page.waitForFunction(() => ![...document.querySelectorAll('.pdf-page [data-attn-stages]')]
      .some((w) => !w.shadowRoot?.childElementCount || w.shadowRoot.querySelector('.loading')), null, { timeout: 30000 });
    const steps = await page.evaluate(() => [...document.querySelectorAll('.reveal .pdf-page')].flatMap((p) =>
      [...p.querySelectorAll('[data-attn-stages]')].map((w) => {
        let asked = Number(w.getAttribute('data-attn-stages'));
        for (const f of p.querySelectorAll('[data-attn-stage]'))
          if (!f.classList.contains('fragment') || f.classList.contains('visible')) asked = Math.max(asked, Number(f.getAttribute('data-attn-stage')));
        const strip = w.shadowRoot.querySelector('.stagestrip');
        const set = Number(w.getAttribute('stage'));
        return { asked, set, drawn: strip ? [...strip.children].findIndex((li) => li.classList.contains('current')) : set };
      })));
    expect(steps.length).toBeGreaterThan(15);
    for (const s of steps) expect(s).toEqual({ asked: s.asked, set: s.asked, drawn: s.asked });
    expect(new Set(steps.map((s) => s.asked)).size).toBeGreaterThan(4);  // the pages really step
    expect(problems).toEqual([]);
    await page.close();
  });

  // Printed as a PDF is (print media): every page holds its slide — the overlays (figure, limitations
  // box, image) over the slide, not pushed below it, and no widget growing with a page that grows
  // with it (the canvas in the print view is as tall as its content until reveal.js cuts it).
  test('every printed page holds its slide: overlays and widgets inside the page', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.emulateMedia({ media: 'print' });
    await page.goto(new URL('slides/reveal/index.html?print-pdf', BASE_URL()).href);
    await page.waitForFunction(() => document.querySelectorAll('.reveal .pdf-page').length > 20, null, { timeout: 30000 });
    // Every stepped widget drawn (a widget without a stage strip, e.g. a predict slide's, counts once drawn).
    await page.waitForFunction(() => ![...document.querySelectorAll('.pdf-page [data-attn-stages]')]
      .some((w) => !w.shadowRoot?.childElementCount || w.shadowRoot.querySelector('.loading')), null, { timeout: 30000 });
    await page.evaluate(() => new Promise((r) => setTimeout(r, 1500)));  // widgets re-fit to their pages
    const report = await page.evaluate(() => {
      const pages = [...document.querySelectorAll('.reveal .pdf-page')];
      const heights = new Set(pages.map((p) => Math.round(p.getBoundingClientRect().height)));
      const out = [];
      pages.forEach((p, i) => {
        const pr = p.getBoundingClientRect();
        // The overlays (the defect this guards: pushed below their page) and every heading.
        for (const el of p.querySelectorAll('.image-overlay, .image-overlay *, h2')) {
          const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
          if (!r.width || cs.visibility === 'hidden' || Number(cs.opacity) < 0.5 || el.closest('.fragment:not(.visible)')) continue;
          if (r.top < pr.top - 2 || r.bottom > pr.bottom + 2)
            out.push(`page ${i + 1}: ${el.tagName.toLowerCase()}.${String(el.className).trim().split(/\s+/).join('.')} at ${Math.round(r.top - pr.top)}..${Math.round(r.bottom - pr.top)} of ${Math.round(pr.height)}`);
        }
      });
      return { pages: pages.length, heights: [...heights], out };
    });
    expect(report.pages).toBeGreaterThan(40);
    expect(report.out).toEqual([]);
    // One page per printed step, none stretched over several (a widget fitting a canvas that grew with
    // it made pages of 12,958 and 6,006,374 px).
    expect(report.heights).toHaveLength(1);
    expect(problems).toEqual([]);
    await page.close();
  });
});

// The history timelines as drawn on the reveal.js slides at 1280×720: no label over another label or
// over an end year, and no leader line (stem, from the axis to its label) through another label.
describe('reveal.js timelines', () => {
  test('labels and leader lines never cross', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(new URL('slides/reveal/index.html', BASE_URL()).href);
    await page.waitForFunction(() => window.deck?.isReady?.());
    await page.evaluate(() => document.fonts.ready);
    const found = [];
    let timelines = 0;
    const total = await page.evaluate(() => window.deck.getTotalSlides());
    for (let h = 0; h < total; h++) {
      const n = await page.evaluate((i) => { window.deck.slide(i, 0, -1); return window.deck.getCurrentSlide().querySelectorAll('attn-timeline').length; }, h);
      if (!n) continue;
      await page.evaluate(() => new Promise((r) => setTimeout(r, 1200)));  // transition and re-layout
      const r = await page.evaluate(() => {
        const out = [];
        const hit = (a, b, pad = 1) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > pad && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > pad;
        for (const tl of window.deck.getCurrentSlide().querySelectorAll('attn-timeline')) {
          const axis = tl.querySelector('.attn-tl-axis').getBoundingClientRect();
          const ends = [...tl.querySelectorAll('.attn-tl-end')].map((e) => ({ name: e.textContent, r: e.getBoundingClientRect() }));
          const evs = [...tl.querySelectorAll('attn-event')].map((e) => {
            const r = e.getBoundingClientRect(), t = Number(e.style.getPropertyValue('--t'));
            const x = r.left + t * r.width, above = e.classList.contains('attn-tl-above');
            // The stem's centre line; it runs through a label when more than 2 px inside its box.
            const stem = { left: x - 0.5, right: x + 0.5, top: above ? r.bottom : axis.top, bottom: above ? axis.top : r.top };
            return { name: e.getAttribute('year') + ' ' + e.textContent.trim().slice(0, 24), r, stem };
          });
          evs.forEach((a, i) => {
            for (const e of ends) if (hit(a.r, e.r)) out.push(`"${a.name}" over the end year ${e.name}`);
            evs.forEach((b, j) => {
              if (j > i && hit(a.r, b.r)) out.push(`"${a.name}" over "${b.name}"`);
              if (j !== i && hit(a.stem, { left: b.r.left + 2, right: b.r.right - 2, top: b.r.top, bottom: b.r.bottom }, 0)) out.push(`the stem of "${a.name}" through "${b.name}"`);
            });
          });
        }
        return out;
      });
      timelines += n;
      found.push(...r.map((x) => `slide ${h + 1}: ${x}`));
    }
    expect(timelines).toBeGreaterThan(4);
    expect(found).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });
});
