// <attn-model> in the built app page, in real Chromium against dist/: drawn from attnlab's shipped
// induction model (no file: the default, offline), its layers × heads grid, a head's map opened with
// Enter, a head switched off changing the next-token distribution, generation adding one token and one
// KV cache row; in a slide-sized box (fit.html) every stage inside the box.
//
// Expected numbers are not written here: Node runs the same session (web/widgets/model/session.js) on
// the same shipped snapshot and the test compares the page's text with Node's numbers, formatted as
// the widget formats them (shared/format.js).
//
// The model runs in a Web Worker: while a model loads and runs, the page's thread only draws. The
// 'longtask' observer (PerformanceObserver) watches that thread: no task over 50 ms from the moment a
// file is picked to the end of the run (an observation of the page: the work is elsewhere, whatever the
// machine's speed). The app page's own load (every widget) is printed, not asserted.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAttnLab } from 'attnlab';
import { BASE_URL, launch, watchedPage } from './browser.js';
import { ModelSession } from '../../web/widgets/model/session.js';
import { roles, headName } from '../../web/widgets/model/logic.js';
import { fmt } from '../../web/widgets/shared/format.js';

const W = 'attn-model';
let browser, node;

beforeAll(async () => {
  const lab = await createAttnLab();
  browser = await launch();
  node = new ModelSession({ requestUpdate() {} }, { lab });
  await node.loadShipped();
});
afterAll(async () => { await browser?.close(); });

const text = (loc) => loc.textContent().then((s) => s.replace(/\s+/g, ' ').trim());

async function open(hash = '#at=t-model') {
  const w = await watchedPage(browser.context);
  await w.page.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
  await w.page.goto(BASE_URL() + hash);
  await w.page.locator(W).scrollIntoViewIfNeeded();
  const { layers, heads } = node.config;
  await w.page.waitForFunction(({ w, n }) => document.querySelector(w)?.shadowRoot?.querySelectorAll('.grid .cell canvas.thumb').length === n,
    { w: W, n: layers * heads }, { timeout: 60000 });
  return w;
}

describe('<attn-model> on the app page, the shipped induction model', () => {
  test('the grid from the shipped model, scores and roles as Node computes them; Enter opens a head; switching the induction head off changes the next token; generation adds one token and one cache row', async () => {
    const { page, problems } = await open();
    const w = page.locator(W);
    const { layers, heads, vocab } = node.config;
    expect(await text(w.locator('.which'))).toContain('attnlab’s induction model');
    expect(await w.locator('.hint').textContent()).toContain('model.safetensors');

    // Long tasks so far: the page loading (every widget of the app); from here on: this widget's work.
    const loadTasks = await page.evaluate(() => { const l = window.__longTasks; window.__longTasks = []; return l; });
    // The default text, its tokens, the grid.
    const input = w.locator('.controls input[type=text]');
    await node.setText(await input.inputValue());
    expect(await w.locator('.strip li').count()).toBe(node.ids.length);
    expect(await w.locator('.grid .layer').count()).toBe(layers);
    for (let l = 0; l < layers; l++) for (let h = 0; h < heads; h++) {
      const sc = node.scores[l][h];
      expect(await text(w.locator(`.cell.${headName(l, h)} .sc`))).toBe(`prev ${fmt(sc.prev, 2)} dup ${fmt(sc.dup, 2)} ind ${fmt(sc.induction, 2)}`);
    }
    // Named heads: exactly Node's (score ≥ 0.5, induction from layer 1).
    const named = roles(node.scores);
    expect(await w.locator('.cell .role').count()).toBe(named.length);
    const ind = named.find((r) => r.role === 'induction');
    expect(ind).toBeTruthy();
    expect(await text(w.locator(`.cell.${headName(ind.layer, ind.head)} .role`))).toBe('induction head');
    // The opened head by default: that induction head.
    expect(await text(w.locator('attn-heatmap.big figcaption'))).toContain(`${headName(ind.layer, ind.head)} — induction head`);

    // Enter on L0H0's map opens it: its numbers are Node's attention.
    await w.locator('.cell.L0H0 button.map').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => text(w.locator('attn-heatmap.big figcaption'))).toContain('L0H0');
    const cells = await w.locator('attn-heatmap.big table td').allTextContents();
    expect(cells).toEqual(Array.from(node.base.attention[0][0], (x) => fmt(x, 4)));

    // The logit lens (when the API gives it): one row per layer and the embeddings, Node's top tokens
    // and probabilities at the last position; a click on a token of the strip moves it there.
    const lensRows = async () => (await w.locator('table.lens-table tbody tr:not(.cut)').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent.replace(/\s+/g, ' ').trim()))));
    const expectRows = (lens) => lens.layers.map((e) => e.labels.map((l, j) => `${l} ${fmt(e.probs[j], 2)}`));
    if (node.lens) {
      expect(await lensRows()).toEqual(expectRows(node.lens));
      await w.locator('.strip.pick button').nth(3).click();
      await node.setLensPosition(3);
      await expect.poll(lensRows).toEqual(expectRows(node.lens));
      expect(await w.locator('.strip.pick button.at').count()).toBe(1);
      expect(await w.locator('.strip.pick button').nth(3).getAttribute('aria-pressed')).toBe('true');
      await node.setLensPosition(null);
      console.log(`logit lens: ${layers + 1} rows as Node reads them, at the last position and at position 3`);
    } else {
      expect(await text(w.locator('.lens-note'))).toBe(node.lensNote);
      console.log('logit lens: not in this build of the API (the note is shown)');
    }

    // A repeated random sequence, then the induction head off: the distribution changes as Node's does.
    await w.locator('button.random').click();
    await w.evaluate((el) => el.session.idle());
    const ids = await w.evaluate((el) => el.session.ids.slice());
    await node.setIds(ids);
    const flat = ind.layer * heads + ind.head;
    await w.locator(`.cell.${headName(ind.layer, ind.head)} button.ablate`).click();
    await expect.poll(() => w.locator('table.dist th').count()).toBe(4);
    await node.setAblated([flat]);
    const a = node.dist;
    const top = a.rows[0];
    const firstRow = await w.locator('table.dist tbody tr').first().locator('td').allTextContents();
    expect(firstRow.map((s) => s.trim())).toEqual([top.label, fmt(top.p, 3), fmt(top.pOff, 3), `${top.delta >= 0 ? '+' : '−'}${fmt(Math.abs(top.delta), 3)}`]);
    expect(a.topChanged || Math.abs(top.delta) > 0.01).toBe(true);
    expect(await text(w.locator('.loss'))).toContain(`${fmt(node.base.meanLoss, 3)} with every head, ${fmt(node.off.meanLoss, 3)} with the heads off`);
    // The answer side by side: the intact model's top token and loss, the ablated model's.
    const answers = await w.locator('.answers .answer').evaluateAll((els) => els.map((e) => [...e.children].map((c) => c.textContent.trim()).join(' ')));
    expect(answers).toEqual([
      `every head ${a.topLabel} loss ${fmt(node.base.meanLoss, 3)}`,
      `${headName(ind.layer, ind.head)} off ${a.topOffLabel} loss ${fmt(node.off.meanLoss, 3)}`]);
    expect(await w.locator('.answers .answer.changed').count()).toBe(a.topChanged ? 1 : 0);
    console.log(`ablating ${headName(ind.layer, ind.head)}: top token p ${fmt(top.p, 3)} → ${fmt(top.pOff, 3)}, loss ${fmt(node.base.meanLoss, 3)} → ${fmt(node.off.meanLoss, 3)}${a.topChanged ? ', top token changed' : ''}`);

    // Switch it back on; generation: one token, one new cache row.
    await w.locator(`.cell.${headName(ind.layer, ind.head)} button.ablate`).click();
    await expect.poll(() => w.locator('table.dist th').count()).toBe(2);
    await node.setAblated([]);
    const rows0 = await w.locator('.cache .kv').count();
    expect(rows0).toBe(ids.length);
    expect(await w.locator('.cache .kv.new').count()).toBe(0);
    await w.locator('button.step').click();
    await expect.poll(() => w.locator('.cache .kv').count()).toBe(rows0 + 1);
    expect(await w.locator('.cache .kv.new').count()).toBe(1);
    await node.generateStep();
    const label = node.gen.labels.at(-1);
    expect(await text(w.locator('.generated mark'))).toBe(label);
    expect(await text(w.locator('.cache .kv.new .tok'))).toBe(label);

    const during = await page.evaluate(() => window.__longTasks);
    const longest = (l) => Math.max(0, ...l.map((t) => t.duration)).toFixed(0);
    console.log(`main-thread long tasks: while the app page loaded (every widget) ${loadTasks.length}, longest ${longest(loadTasks)} ms; `
      + `while <attn-model> ran (open a head, a random sequence, a head off and on, a generated token) ${during.length}, longest ${longest(during)} ms`);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('the URL hash brings the text, the opened head and the heads switched off back', async () => {
    const state = { text: '^ABCDABCD', head: 1, ablated: [2] };
    const { page, problems } = await open(`#at=t-model&model=${encodeURIComponent(JSON.stringify(state))}`);
    const w = page.locator(W);
    await expect.poll(() => w.locator('.controls input[type=text]').inputValue()).toBe(state.text);
    expect(await w.locator('.strip li').count()).toBe(9);
    expect(await text(w.locator('attn-heatmap.big figcaption'))).toContain(headName(0, 1));
    expect(await w.locator('.cell.off').count()).toBe(1);
    expect(await w.locator(`.cell.${headName(1, 0)}`).getAttribute('class')).toContain('off');
    expect(problems).toEqual([]);
    await page.close();
  });

  test('a file that is not a model: the error in words, the shipped model still shown', async () => {
    const { page, problems } = await open();
    const w = page.locator(W);
    await w.locator('input[type=file]').setInputFiles({ name: 'pickle.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from('PK\x03\x04 not a safetensors file at all') });
    await expect.poll(() => text(w.locator('.error'))).toMatch(/^Could not load pickle\.safetensors: .+/);
    expect(await text(w.locator('.which'))).toContain('attnlab’s induction model');
    expect(await w.locator('.grid .cell').count()).toBe(node.config.layers * node.config.heads);
    console.log(`the error shown: ${await text(w.locator('.error'))}`);
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('<attn-model> on the app page, the shipped names model', () => {
  test('chosen beside the induction model (its files fetched only then): the names task’s characters as tokens, every head’s map and scores as Node computes them, the next letter, a sampled name as Node samples it with the same seed; the choice in the URL', async () => {
    const lab = await createAttnLab();
    const names = new ModelSession({ requestUpdate() {} }, { lab });
    await names.loadShipped('names');
    const { page, problems } = await open();
    const requested = [];
    page.on('request', (r) => { if (/\.safetensors(\?|$)/.test(r.url())) requested.push(r.url()); });
    // The names run's checkpoints, told from the induction run's (40,600 bytes each) by their size: the
    // widget shows the last one and must fetch only it (it fetched all three, 0, 750 and 3000).
    const namesSize = (await stat(new URL('../../web/train/pretrained/names/step-3000.safetensors', import.meta.url))).size;
    const namesFetched = [];
    page.on('response', async (r) => {
      if (!/\.safetensors(\?|$)/.test(r.url())) return;
      const body = await r.body().catch(() => null);
      if (body?.length === namesSize) namesFetched.push(new URL(r.url()).pathname.split('/').pop());
    });
    const w = page.locator(W);
    // The induction model is shown; the names model's snapshots (its last is step 3000, a step the
    // induction run does not have) are not fetched until chosen.
    expect(await w.locator('.shipped button.pick-induction').getAttribute('aria-pressed')).toBe('true');
    expect(requested.filter((u) => /step-3000/.test(u))).toEqual([]);
    await w.locator('.shipped button.pick-names').click();
    await expect.poll(() => text(w.locator('.which')), { timeout: 60000 }).toContain('attnlab’s names model');
    expect(requested.some((u) => /step-3000/.test(u))).toBe(true);
    const { layers, heads, vocab } = names.config;
    expect(vocab).toBe(27);
    await expect.poll(() => w.locator('.grid .cell canvas.thumb').count()).toBe(layers * heads);
    await expect.poll(() => namesFetched.length).toBeGreaterThan(0);
    expect(namesFetched.length, namesFetched.join(', ')).toBe(1);
    expect(namesFetched[0]).toMatch(/^step-3000\b/);
    expect(await w.locator('.shipped button.pick-names').getAttribute('aria-pressed')).toBe('true');
    // Its example text, tokens one character each ('.' then letters), as Node tokenizes it.
    expect(await w.locator('.controls input[type=text]').inputValue()).toBe(names.tokenizer.example);
    await names.setText(names.tokenizer.example);
    await expect.poll(() => w.locator('.strip li').count()).toBe(names.ids.length);
    const strip = await w.locator('.strip li').evaluateAll((els) => els.map((e) => {
      const c = e.cloneNode(true);
      c.querySelectorAll('small').forEach((x) => x.remove());  // the id under each token
      return c.textContent.trim();
    }));
    expect(strip).toEqual(names.labels);
    expect(strip.join('')).toBe(names.tokenizer.example);
    for (let l = 0; l < layers; l++) for (let h = 0; h < heads; h++) {
      const sc = names.scores[l][h];
      expect(await text(w.locator(`.cell.${headName(l, h)} .sc`))).toBe(`prev ${fmt(sc.prev, 2)} dup ${fmt(sc.dup, 2)} ind ${fmt(sc.induction, 2)}`);
    }
    // A head's map opened: its caption names it.
    await w.locator(`.cell.${headName(1, 2)} button.map`).press('Enter');
    await expect.poll(() => text(w.locator('attn-heatmap.big figcaption'))).toContain(headName(1, 2));
    // The next token after the text, as Node computes it.
    expect(await text(w.locator('table.dist tbody tr.top td.tok'))).toBe(names.dist.topLabel);
    // A sampled name: letters up to the '.' that ends it, the one Node samples with the same seed.
    const made = await names.generateUntil(0);
    const sample = names.gen.labels.slice(names.gen.prompt.length).join('');
    expect(sample).toMatch(/^[a-z]+\.$/);
    await w.locator('button.name').click();
    await expect.poll(() => text(w.locator('.generated mark')), { timeout: 30000 }).toBe(sample);
    expect(await w.locator('.cache .kv').count()).toBe(Math.min(names.config.context, names.ids.length + made.length));
    expect(await text(w.locator('.s4 .controls .note'))).toContain('sampled (temperature 1, seed 1');
    console.log(`the names model on the page: tokens ${strip.join(' ')}, next ${names.dist.topLabel}, sampled name ${sample}`);
    // The choice is in the URL: a shared link opens the names model.
    expect(decodeURIComponent(new URL(page.url()).hash)).toContain('"model":"names"');
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('<attn-model> with src', () => {
  test('a model from a URL (src): loaded, its grid drawn, its scores as Node computes them', async () => {
    const lab = await createAttnLab();
    const m = lab.createModel({ vocab: 16, context: 23, layers: 3, heads: 1, dModel: 16, attentionOnly: true, layerNorm: false, seed: 9 });
    const bytes = m.save();
    m.dispose();
    const url = `data:application/octet-stream;base64,${Buffer.from(bytes).toString('base64')}`;
    const { page, problems } = await watchedPage(browser.context);
    await page.goto(`${BASE_URL()}fit.html?tag=attn-model&w=1200&h=1600&layout=page`);
    const w = page.locator(W);
    await expect.poll(() => w.locator('.grid .cell').count(), { timeout: 60000 }).toBe(4);  // the shipped model first
    // The src attribute (set once the page is up: a URL this long does not fit a query string).
    await page.evaluate((u) => document.querySelector('attn-model').setAttribute('src', u), url);
    await expect.poll(() => text(w.locator('.which')), { timeout: 60000 }).toContain('a data: URL — 3 layers × 1 heads');
    await expect.poll(() => w.locator('.grid .cell').count()).toBe(3);
    const s = new ModelSession({ requestUpdate() {} }, { lab });
    await s.loadSource(bytes, 'same');
    // A model whose tokens the widget does not know: its text is token ids.
    expect(await w.locator('.controls input[type=text]').inputValue()).toBe(s.tokenizer.example);
    expect(s.tokenizer.kind).toBe('ids');
    for (let l = 0; l < 3; l++) {
      const sc = s.scores[l][0];
      expect(await text(w.locator(`.cell.${headName(l, 0)} .sc`))).toBe(`prev ${fmt(sc.prev, 2)} dup ${fmt(sc.dup, 2)} ind ${fmt(sc.induction, 2)}`);
    }
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('<attn-model> keeps the page free: the model loads and runs in a worker', () => {
  // A GPT-2-vocabulary model (the worker loads GPT-2's tokenizer too), small enough to make here: 13 MB,
  // from a file on disk (Chromium reads it itself; a buffer would be decoded by a script in the page).
  let dir, file;
  beforeAll(async () => {
    const lab = await createAttnLab();
    const m = lab.createModel({ vocab: 50257, context: 64, layers: 2, heads: 4, dModel: 64, seed: 5 });
    dir = await mkdtemp(join(tmpdir(), 'attn-model-'));
    file = join(dir, 'gpt2-vocab.safetensors');
    await writeFile(file, m.save());
    m.dispose();
  });
  afterAll(async () => { if (dir) await rm(dir, { recursive: true, force: true }); });

  async function openFit() {
    const w = await watchedPage(browser.context);
    await w.page.addInitScript(() => {
      window.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
      }).observe({ type: 'longtask', buffered: true });
    });
    await w.page.goto(`${BASE_URL()}fit.html?tag=attn-model&w=1200&h=1600&layout=page`);
    await expect.poll(() => w.page.locator(W).locator('.grid .cell').count(), { timeout: 60000 }).toBe(4);  // the shipped model
    return w;
  }
  const longest = (l) => Math.max(0, ...l.map((t) => t.duration)).toFixed(0);

  test('loading a file, tokenizing, forward with and without a head, generating: no main-thread task over 50 ms (the session as the widget drives it, its drawing left out)', async () => {
    const { page, problems } = await openFit();
    const w = page.locator(W);
    expect(await w.evaluate((el) => el.session.where)).toBe('worker');
    // The file through a file input, to a second session of the widget's class: the same requests as
    // the widget makes, without its drawing (measured in the next test).
    await page.evaluate(() => { const i = document.createElement('input'); i.type = 'file'; i.id = 'pick'; document.body.append(i); });
    await page.locator('#pick').setInputFiles(file);
    await page.waitForTimeout(300);  // the page's own start and the pick are over
    const before = await page.evaluate(() => { const l = window.__longTasks; window.__longTasks = []; return l; });
    const r = await w.evaluate(async (el) => {
      const progress = [];
      const s = new el.session.constructor({ requestUpdate() { if (s.progress) progress.push(s.progress.loaded); } });
      const t0 = performance.now();
      await s.loadSource(document.querySelector('#pick').files[0]);
      const t1 = performance.now();
      await s.setText('When Mary and John went to the store, John gave a drink to');
      await s.repeatRandom(7);
      await s.setAblated([5]);
      await s.generateStep();
      await s.generateStep();
      const out = { where: s.where, status: s.status, error: s.error, ids: s.ids.length, generated: s.gen.tokens.length - s.gen.prompt.length,
        progress, loadMs: t1 - t0, allMs: performance.now() - t0, lossOff: s.off?.meanLoss, tokens: s.labels.slice(0, 3) };
      s.dispose();
      return out;
    });
    await page.waitForTimeout(200);  // a task that ended last is reported
    const during = await page.evaluate(() => window.__longTasks);
    console.log(`worker session: load ${r.loadMs.toFixed(0)} ms (progress ${r.progress.length}×), load + text + random sequence + a head off + 2 tokens ${r.allMs.toFixed(0)} ms; `
      + `main-thread long tasks: page start ${before.length} (longest ${longest(before)} ms), meanwhile ${during.length} (longest ${longest(during)} ms)`);
    expect(r.where).toBe('worker');
    expect(r.status).toBe('ready');
    expect(r.error).toBe('');
    expect(r.ids).toBe(40);  // 20 random GPT-2 tokens twice
    expect(r.generated).toBe(2);
    expect(Number.isFinite(r.lossOff)).toBe(true);
    expect(r.progress.length).toBeGreaterThan(0);
    expect(r.progress.at(-1)).toBe((await stat(file)).size);  // the whole file, reported as it streamed
    expect(during.filter((t) => t.duration > 50)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('the widget with the same file through its picker: the loading line while it loads, GPT-2 tokens back (its drawing printed: long tasks while it draws)', async () => {
    const { page, problems } = await openFit();
    const w = page.locator(W);
    // What the loading line shows, frame by frame, while the file loads.
    await w.evaluate((el) => {
      window.__seen = [];
      const look = () => {
        const t = el.shadowRoot.querySelector('.loading-line')?.textContent.replace(/\s+/g, ' ').trim();
        if (t && window.__seen.at(-1) !== t) window.__seen.push(t);
        if (!window.__stopLooking) requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    });
    await page.evaluate(() => { window.__longTasks = []; });
    await w.locator('input[type=file]').setInputFiles(file);
    await expect.poll(() => text(w.locator('.which')), { timeout: 60000 }).toContain('gpt2-vocab.safetensors — 2 layers × 4 heads');
    await expect.poll(() => w.locator('.grid .cell').count(), { timeout: 60000 }).toBe(8);
    const seen = await page.evaluate(() => { window.__stopLooking = true; return window.__seen; });
    expect(seen[0]).toMatch(/^Loading gpt2-vocab\.safetensors…/);
    expect(seen.some((t) => /of 13 MB$/.test(t))).toBe(true);
    const input = w.locator('.controls input[type=text]');
    await input.fill('Hello world');
    await input.press('Enter');
    await expect.poll(() => w.locator('.strip li').allTextContents().then((l) => l.map((x) => x.trim()))).toEqual(['Hello15496', '·world995']);
    await w.locator('button.random').click();
    await w.evaluate((el) => el.session.idle());
    await w.locator('.cell.L1H2 button.ablate').click();
    await expect.poll(() => w.locator('.answers .answer').count()).toBe(2);
    const rows = await w.locator('.cache .kv').count();
    await w.locator('button.step').click();
    await expect.poll(() => w.locator('.cache .kv').count()).toBe(rows + 1);
    await page.waitForTimeout(200);
    const during = await page.evaluate(() => window.__longTasks);
    console.log(`loading line: ${seen.join(' | ')}`);
    console.log(`the widget drawing GPT-2 tokens, 40-token maps, a head off, a token: main-thread long tasks ${during.length} (longest ${longest(during)} ms; each a drawing: the model's work is in the worker)`);
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('<attn-model> in a slide box (1280×720 scale)', () => {
  test('each stage fits its box; numbers and text large enough', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1280, height: 720 });
    // Each stage, then the logit lens stage with the induction head off (both answers, the lens, the
    // table side by side), in the Slidev canvas and in a deck's narrower widget column.
    const cases = [0, 1, 2, 3, 4].map((stage) => ({ stage, q: '&w=980&h=552' }))
      .concat([{ stage: 3, q: '&w=980&h=552&ablate=induction', off: true }, { stage: 3, q: '&w=700&h=480&ablate=induction', off: true }]);
    for (const { stage, q, off } of cases) {
      await page.goto(`${BASE_URL()}fit.html?tag=attn-model&title=A%20real%20model&layout=slide&stage=${stage}${q}`);
      await page.waitForFunction(() => document.querySelector('attn-model')?.shadowRoot?.querySelector('.slide-main'), null, { timeout: 60000 });
      if (off) await page.waitForFunction(() => document.querySelector('attn-model').shadowRoot.querySelectorAll('.answers .answer').length === 2, null, { timeout: 60000 });
      await page.waitForTimeout(300);
      const r = await page.evaluate(() => {
        const host = document.querySelector('attn-model'), box = document.getElementById('box').getBoundingClientRect();
        const root = host.shadowRoot, out = [];
        const walk = (n) => {
          for (const el of n.querySelectorAll('*')) {
            if (el.closest('.sr-only')) continue;  // read by screen readers only, clipped to nothing
            const b = el.getBoundingClientRect();
            if (b.width && b.height && (b.bottom > box.bottom + 1 || b.right > box.right + 1)) out.push(`${el.tagName.toLowerCase()}.${el.className?.baseVal ?? el.className}`);
            if (el.shadowRoot) walk(el.shadowRoot);
          }
        };
        walk(root);
        const sizes = [...root.querySelectorAll('.strip li, .sc, table.dist td, .kv, .lens-table td, .answer .loss-n')].map((e) => parseFloat(getComputedStyle(e).fontSize));
        return { outside: out.slice(0, 5), minFont: Math.min(...sizes, 99) };
      });
      expect(r.outside, `stage ${stage}${q}`).toEqual([]);
      expect(r.minFont, `stage ${stage}${q}`).toBeGreaterThanOrEqual(18);
    }
    expect(problems).toEqual([]);
    await page.close();
  });
});
