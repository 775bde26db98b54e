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
      await run('npx', ['slidev', 'export', 'slides/slidev/slides.md', '--executable-path',
        process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', '--output', pdf, '--timeout', '120000'],
      { cwd: repo, timeout: 240000, maxBuffer: 1 << 24 });
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
    await page.waitForFunction(() => ![...document.querySelectorAll('.pdf-page [data-attn-stages]')]
      .some((w) => !w.shadowRoot?.querySelector('.stagestrip')), null, { timeout: 30000 });
    const steps = await page.evaluate(() => [...document.querySelectorAll('.reveal .pdf-page')].flatMap((p) =>
      [...p.querySelectorAll('[data-attn-stages]')].map((w) => {
        let asked = Number(w.getAttribute('data-attn-stages'));
        for (const f of p.querySelectorAll('[data-attn-stage]'))
          if (!f.classList.contains('fragment') || f.classList.contains('visible')) asked = Math.max(asked, Number(f.getAttribute('data-attn-stage')));
        const strip = [...w.shadowRoot.querySelector('.stagestrip').children];
        return { asked, set: Number(w.getAttribute('stage')), drawn: strip.findIndex((li) => li.classList.contains('current')) };
      })));
    expect(steps.length).toBeGreaterThan(15);
    for (const s of steps) expect(s).toEqual({ asked: s.asked, set: s.asked, drawn: s.asked });
    expect(new Set(steps.map((s) => s.asked)).size).toBeGreaterThan(4);  // the pages really step
    expect(problems).toEqual([]);
    await page.close();
  });
});
