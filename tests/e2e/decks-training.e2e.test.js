// The decks' training slides, as the audience sees them: <attn-train> on the pretrained induction
// snapshots. In Slidev each click of "What the heads learn: watching it train" shows the next stage —
// 0 untrained, 1 loss falls, 2 previous-token head, 3 induction head — and in reveal.js each fragment
// does the same; on "switch a head off" a click on the induction head's map switches it off and the
// held-out loss jumps.
//
// Expected numbers are not written here: they come from the core in this Node process — the same
// snapshot files (web/train/pretrained/induction/) loaded with lab.loadModel and run through web/train's
// inspect (engine.js inspectModel) — and from properties the stages are defined by (docs/widgets.md):
// the stage's snapshot, the highlighted head's layer, and its score on the map the slide shows.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { BASE_URL, launch, watchedPage } from './browser.js';
import { MIN_TEXT, findSlide, revealSlideWith, slidevAt, slidevNext, textReport } from './deck-fit.js';
import { fitReport } from './fit-check.js';
import { expectClose, TOL } from '../unit/helpers.js';
import { loadPretrained } from '../../web/train/pretrained.js';
import { evalContext, inspectModel, resolveOptions } from '../../web/train/engine.js';
import { headScores, inductionScore, lossSplit, previousTokenScore } from '../../web/train/scores.js';
import { fmt } from '../../web/widgets/shared/format.js';

let browser, pre, lab, ctx;
const inspected = new Map(), evaluated = new Map();

// Node's own evaluation of snapshot `index` on the run's held-out batch: its loss, repeated ÷ first-half
// loss and every head's scores (what the curves and the caption report for a snapshot).
function evaluate(index) {
  if (!evaluated.has(index)) {
    const model = lab.loadModel(pre.snapshots[index].bytes), h = ctx.heldOut;
    try {
      const r = model.forward({ ids: h.ids, targets: h.targets, batch: h.batch, attention: true });
      evaluated.set(index, { evalLoss: r.loss, ratio: lossSplit(r.tokenLosses, h).ratio,
        heads: headScores(r, h.ids, { batch: h.batch, positions: h.repeated }) });
    } finally {
      model.dispose();
    }
  }
  return evaluated.get(index);
}

// Node's own look at snapshot `index`: what web/train's inspect gives (optionally with heads off).
function inspect(index, headMask = null) {
  const key = `${index}|${headMask ?? ''}`;
  if (!inspected.has(key)) {
    const model = lab.loadModel(pre.snapshots[index].bytes);
    try {
      inspected.set(key, inspectModel(model, ctx, headMask));
    } finally {
      model.dispose();
    }
  }
  return inspected.get(key);
}

beforeAll(async () => {
  browser = await launch();
  lab = await createAttnLab();
  pre = await loadPretrained('induction');
  // The held-out sequence of the run that made the snapshots (its task options, when index.json names them).
  const taskOptions = pre.meta.taskOptions ?? pre.meta.task?.options ?? null;
  ctx = evalContext(resolveOptions({ task: taskOptions ? { name: 'induction', ...taskOptions } : 'induction', evalSize: pre.meta.evalSize }));
});
afterAll(async () => { await browser?.close(); });

// The snapshot each stage shows, from the stages' definitions (docs/widgets.md, <attn-train>).
function expectedIndex(stage) {
  const n = pre.snapshots.length, s = pre.snapshots.map((_, i) => evaluate(i));
  if (stage === 0) return 0;
  if (stage === 3) return n - 1;
  if (stage === 1) {
    const half = (s[0].evalLoss + s[n - 1].evalLoss) / 2;
    return s.findIndex((x) => x.evalLoss <= half);
  }
  const bestPrev = s.map((x) => Math.max(...x.heads[0].map((h) => h.prev)));
  const top = Math.max(...bestPrev);
  return bestPrev.findIndex((b) => b >= 0.8 * top);
}

// Scores of a map as shown (its values) on the held-out sequence: previous-token over the first copy
// (where layer 1 reads it), induction over the repeated part.
const scores = (values) => ({
  prev: previousTokenScore(Float32Array.from(values), ctx.first.t, 1, ctx.first.first),
  induction: inductionScore(Float32Array.from(values), ctx.first.ids, ctx.first.t, { positions: ctx.first.repeated }),
});

// In the page: what the widget at `sel` shows — its stage (attribute and stage strip), the caption,
// every head's map (name, highlighted, switched off, outline, the weights drawn).
function shown(sel) {
  const w = document.querySelector(sel), root = w?.shadowRoot;
  if (!root) return null;
  const strip = root.querySelector('.stagestrip');
  return {
    stage: w.getAttribute('stage'),
    drawn: strip ? [...strip.children].findIndex((li) => li.classList.contains('current')) : null,
    caption: root.querySelector('.caption')?.textContent.replace(/\s+/g, ' ').trim() ?? '',
    maps: [...root.querySelectorAll('attn-heatmap.head')].map((m) => ({
      name: [...m.classList].find((c) => /^L\d+H\d+$/.test(c)),
      focus: m.classList.contains('focus'),
      off: m.classList.contains('off'),
      outline: getComputedStyle(m).outlineStyle,
      tokens: m.rowLabels ? [...m.rowLabels] : null,
      values: Array.from(m.values ?? []),
    })),
  };
}

// Waits until the widget at `sel` draws stage `stage` with the maps of the view it asked for (the
// widget computes a snapshot's maps asynchronously, keyed by snapshot and head mask).
async function settled(page, sel, stage) {
  await page.waitForFunction(([s, st]) => {
    const w = document.querySelector(s);
    return w?.getAttribute('stage') === String(st) && w.viewReady
      && w.shadowRoot.querySelectorAll('attn-heatmap.head').length > 0;
  }, [sel, stage], { timeout: 30000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return page.evaluate(shown, sel);
}

// The number after `label` in a caption ("held-out loss 1.23 · …").
const after = (caption, label) => caption.match(new RegExp(`${label} (\\d+(?:\\.\\d+)?)`))?.[1] ?? null;

// What every stage must show, whichever deck steps it.
function checkStage(stage, view, where) {
  const idx = expectedIndex(stage), snap = pre.snapshots[idx], ref = inspect(idx), ev = evaluate(idx);
  expect(view.stage, `${where}: stage attribute`).toBe(String(stage));
  expect(view.drawn, `${where}: stage strip`).toBe(stage);
  expect(view.caption, `${where}: the stage's snapshot`).toContain(`step ${snap.step}`);
  // The held-out batch's loss and repeated ÷ first-half ratio, as the core computes them here.
  expect(after(view.caption, 'held-out loss'), `${where}: held-out loss`).toBe(fmt(ev.evalLoss, 2));
  expect(after(view.caption, 'repeated ÷ first half'), `${where}: ratio`).toBe(fmt(ev.ratio, 2));
  // The token labels (a grid of small maps may draw colours only): the held-out sequence.
  const labelled = view.maps.find((m) => m.tokens?.some(Boolean));
  if (labelled || stage >= 2) expect(labelled?.tokens, `${where}: the held-out sequence`).toEqual(ref.tokens);
  // Every map drawn is the core's attention for that head of that snapshot.
  for (const m of view.maps) {
    const [, l, h] = m.name.match(/^L(\d+)H(\d+)$/).map(Number);
    expectClose(m.values, Array.from(ref.attention[l][h]), `${where}: ${m.name}`, TOL.ref);
  }
  const focus = view.maps.filter((m) => m.focus);
  if (stage < 2) {
    expect(focus, `${where}: no head highlighted yet`).toEqual([]);
    return { idx, ref };
  }
  expect(focus.length, `${where}: one head highlighted`).toBe(1);
  const [f] = focus;
  expect(f.outline, `${where}: the highlighted head is outlined`).toBe('solid');
  const [, fl, fh] = f.name.match(/^L(\d+)H(\d+)$/).map(Number);
  const kind = stage === 2 ? 'prev' : 'induction';
  expect(after(view.caption, `${f.name} ${kind === 'prev' ? 'previous-token' : 'induction'} score`), `${where}: the caption's score of ${f.name}`)
    .toBe(fmt(ev.heads[fl][fh][kind], 2));
  const s = scores(f.values);
  if (stage === 2) {
    expect(f.name, `${where}: a layer-0 head`).toMatch(/^L0H/);
    const before = scores(inspect(0).attention[fl][fh]).prev;
    expect(s.prev, `${where}: ${f.name} attends to the previous token more than untrained (${before})`).toBeGreaterThan(1.5 * before);
  } else {
    expect(f.name, `${where}: a layer-1 head`).toMatch(/^L1H/);
    expect(s.induction, `${where}: ${f.name} attends to the token after the earlier occurrence`).toBeGreaterThan(0.5);
    expect(ev.ratio, `${where}: the repeated half is predicted`).toBeLessThan(0.5);
  }
  return { idx, ref, focus: f.name };
}


// The built Slidev deck at 1280×720, searched for the first slide whose content matches `selector`
// ('{n}': the slide's number); returns that number.
async function findInDeck(page, selector) {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(new URL('slides/slidev/index.html#/1', BASE_URL()).href);
  await page.locator('.slidev-page-1 .slidev-layout').first().waitFor();
  const no = await findSlide(page, selector);
  expect(no).toBeGreaterThan(0);
  return no;
}

describe('Slidev: training slides', () => {
  test('each click shows its stage: the snapshot, the core\'s maps, the highlighted head', async () => {
    const { page, problems } = await watchedPage(browser.context);
    const no = await findInDeck(page, '.slidev-page-{n} .attn-stepper attn-train');
    await page.evaluate((n) => { location.hash = `#/${n}`; }, no);
    const sel = `#slide-content .slidev-page-${no} attn-train`;
    await page.locator(sel).waitFor();
    const seen = [];
    for (let stage = 0; stage <= 3; stage++) {
      if (stage) await slidevNext(page, await slidevAt(page));
      expect((await slidevAt(page)).clicks).toBe(stage);
      const view = await settled(page, sel, stage);
      seen.push(checkStage(stage, view, `slide ${no} click ${stage}`));
    }
    // Before training no layer-1 head does induction; after it one does (the highlighted one).
    const untrained = inspect(seen[0].idx), [, l1, h1] = seen[3].focus.match(/^L(\d+)H(\d+)$/).map(Number);
    for (const [h, att] of untrained.attention[1].entries())
      expect(scores(att).induction, `untrained L1H${h}`).toBeLessThan(0.2);
    expect(scores(inspect(seen[3].idx).attention[l1][h1]).induction).toBeGreaterThan(0.5);
    // The loss falls from stage 0 to stage 1, and the snapshots step forward.
    expect(seen[1].ref.loss).toBeLessThan(seen[0].ref.loss);
    expect(seen.map((s) => s.idx)).toEqual([...seen.map((s) => s.idx)].sort((a, b) => a - b));
    // Going back a click shows the previous stage again.
    await page.keyboard.press('ArrowLeft');
    checkStage(2, await settled(page, sel, 2), `slide ${no} back to click 2`);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('the presenter presses "train live": the audience view trains the same run in its own worker, and pauses with it', async () => {
    const audience = await watchedPage(browser.context);
    // Before the presenter's tab opens: a tab in the background has its timers slowed to 1 s.
    const no = await findInDeck(audience.page, '.slidev-page-{n} .attn-stepper attn-train');
    const presenter = await watchedPage(browser.context);
    await presenter.page.goto(new URL(`slides/slidev/index.html#/presenter/${no}`, BASE_URL()).href);
    // The widget's step as its caption shows it (the live run's, once it trains), in each window.
    const stepIn = (page) => page.evaluate((n) => {
      const w = [...document.querySelectorAll(`.slidev-page-${n} attn-train`)].find((e) => e.getBoundingClientRect().width > 300);
      return Number(w?.shadowRoot?.querySelector('.caption')?.textContent.match(/step (\d+)/)?.[1] ?? -1);
    }, no);
    const live = (page) => page.evaluate((n) => [...document.querySelectorAll(`.slidev-page-${n} attn-train`)]
      .some((e) => e.getState?.().running === true), no);
    await expect.poll(() => stepIn(audience.page), { timeout: 30000 }).toBeGreaterThanOrEqual(0);
    await expect.poll(() => stepIn(presenter.page), { timeout: 30000 }).toBeGreaterThanOrEqual(0);
    expect(await live(audience.page)).toBe(false);
    // The presenter's copy of the current slide (the largest one there: the next-slide preview is smaller).
    const button = presenter.page.locator(`.slidev-page-${no} attn-train`).locator('button', { hasText: 'train live' }).first();
    await button.click();
    await expect.poll(() => live(audience.page), { timeout: 15000 }).toBe(true);
    await expect.poll(() => stepIn(audience.page), { timeout: 60000 }).toBeGreaterThan(0);
    // The presenter view's preview of the next click shows the slide again: it does not train too.
    const copies = await presenter.page.evaluate((n) => [...document.querySelectorAll(`.slidev-page-${n} attn-train`)]
      .map((e) => ({ preview: !!e.closest('.grid-section.next'), running: e.getState?.().running === true })), no);
    expect(copies.filter((c) => c.preview).length).toBeGreaterThan(0);
    expect(copies.filter((c) => c.running)).toEqual([{ preview: false, running: true }]);
    // …and shows the run (the presenter's copy trains it): its step and held-out loss, not "step 0 · held-out loss –".
    const previewCaption = () => presenter.page.evaluate((n) => [...document.querySelectorAll(`.slidev-page-${n} attn-train`)]
      .filter((e) => e.closest('.grid-section.next')).map((e) => e.shadowRoot?.querySelector('.caption')?.textContent.replace(/\s+/g, ' ').trim() ?? ''), no);
    await expect.poll(async () => (await previewCaption()).some((c) => /step [1-9]\d*/.test(c) && /held-out loss \d/.test(c)), { timeout: 30000 }).toBe(true);
    const pause = presenter.page.locator(`.slidev-page-${no} attn-train`).locator('button', { hasText: 'Pause' }).first();
    await pause.click();
    await expect.poll(() => live(audience.page), { timeout: 15000 }).toBe(false);
    // Paused: the audience's step stays put (the run's current weights, not the stage's first snapshot),
    // once its last redraw is in (a training widget redraws at most every 200 ms).
    await expect.poll(async () => {
      const before = await stepIn(audience.page);
      await new Promise((ok) => setTimeout(ok, 600));
      return (await stepIn(audience.page)) === before;
    }, { timeout: 15000 }).toBe(true);
    const a = await stepIn(audience.page);
    expect(a).toBeGreaterThan(0);
    await new Promise((ok) => setTimeout(ok, 1500));
    expect(await stepIn(audience.page)).toBe(a);
    expect(audience.problems).toEqual([]);
    expect(presenter.problems).toEqual([]);
    await audience.page.close();
    await presenter.page.close();
  });

  test('after a live run: it pauses at a stage boundary and says why, the strip names the stage its weights reached, and every click shows the run\'s own stage (never resumes it)', async () => {
    const { page, problems } = await watchedPage(browser.context);
    const no = await findInDeck(page, '.slidev-page-{n} .attn-stepper attn-train');
    await page.evaluate((n) => { location.hash = `#/${n}`; }, no);
    const sel = `#slide-content .slidev-page-${no} attn-train`;
    await settled(page, sel, 0);
    const state = () => page.evaluate((s) => {
      const w = document.querySelector(s), root = w.shadowRoot, strip = root.querySelector('.stagestrip');
      const cur = [...strip.children].findIndex((li) => li.classList.contains('current') || li.classList.contains('none'));
      return { stage: w.getAttribute('stage'), running: w.getState().running, trainerRunning: !!w.session.run?.running, step: w.session.run?.step ?? 0,
        strip: cur, stripText: strip.children[cur]?.textContent.trim(), lit: !!strip.querySelector('li.current'),
        caption: root.querySelector('.caption')?.textContent.replace(/\s+/g, ' ').trim(), boundary: root.querySelector('.boundary')?.textContent.trim() ?? '' };
    }, sel);
    // As fast as it goes (the slide's default is 40 steps/s); the deck turns stage pauses on.
    expect(await page.evaluate((s) => document.querySelector(s).stagePauses, sel)).toBe(true);
    await page.evaluate((s) => { document.querySelector(s).speed = 'max'; }, sel);
    await page.locator(sel).locator('button', { hasText: 'train live' }).click();
    await page.waitForFunction((s) => document.querySelector(s).shadowRoot.querySelector('.boundary'), sel, { timeout: 60000 });
    await expect.poll(async () => (await state()).trainerRunning, { timeout: 15000 }).toBe(false);
    // Its last progress event in (the worker's pause comes a slice after the boundary's evaluation).
    await expect.poll(async () => {
      const a = (await state()).step;
      await new Promise((ok) => setTimeout(ok, 500));
      return (await state()).step === a;
    }, { timeout: 15000 }).toBe(true);
    let st = await state();
    // Paused at the first boundary, saying why and how to go on; the strip says "loss falls" over these
    // trained weights although the deck is still at click 0 (it said "untrained").
    expect(st.boundary).toMatch(/^paused at stage 1, loss falls: the held-out loss fell to \d\.\d\d, ≤ ¾ of the untrained \d\.\d\d · Resume goes on$/);
    expect(st.running).toBe(false);
    expect([st.stage, st.strip, st.stripText, st.lit]).toEqual(['0', 1, 'loss falls', true]);
    const paused = st.step;
    expect(paused).toBeGreaterThan(0);
    // The deck's keys move the deck (the clicked button kept the focus and took them: Space pressed it).
    const views = [];
    for (const [key, clicks] of [['ArrowRight', 1], ['Space', 2], ['ArrowLeft', 1], ['ArrowRight', 2], ['ArrowLeft', 1]]) {
      await page.keyboard.press(key);
      await expect.poll(async () => (await slidevAt(page)).clicks, { timeout: 5000 }).toBe(clicks);
      await page.waitForFunction(([s, c]) => document.querySelector(s).getAttribute('stage') === String(c) && document.querySelector(s).viewReady, [sel, clicks], { timeout: 30000 });
      st = await state();
      // A click never resumes the run.
      expect([st.running, st.trainerRunning, st.step], `${key} → click ${clicks}`).toEqual([false, false, paused]);
      views.push({ clicks, caption: st.caption.match(/^step \d+/)?.[0], strip: st.strip, text: st.stripText, lit: st.lit });
    }
    // Click 1 shows where the run reached stage 1; click 2 its current weights, the strip saying the run has
    // no previous-token head yet; the same click shows the same thing each time.
    const at = (c) => views.filter((v) => v.clicks === c);
    expect(at(1)[0]).toMatchObject({ strip: 1, text: 'loss falls', lit: true });
    expect(at(2)[0]).toMatchObject({ strip: 2, text: 'not yet: prev-token head', lit: false, caption: `step ${paused}` });
    for (const c of [1, 2]) for (const v of at(c)) expect(v).toEqual(at(c)[0]);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('switch a head off: the induction head, then the previous-token head; the loss jumps, the stripe goes', async () => {
    const { page, problems } = await watchedPage(browser.context);
    const no = await findInDeck(page, '.slidev-page-{n} .attn-widget-frame > attn-train');
    await page.evaluate((n) => { location.hash = `#/${n}`; }, no);
    const sel = `#slide-content .slidev-page-${no} attn-train`;
    await page.locator(sel).waitFor();
    const { idx, focus } = checkStage(3, await settled(page, sel, 3), `slide ${no}`);
    expect((await page.evaluate(shown, sel)).maps.filter((m) => m.off)).toEqual([]);
    const [, l1, h1] = focus.match(/^L(\d+)H(\d+)$/).map(Number);
    const heads = evaluate(idx).heads, H = heads[0].length;
    // Layer 0's previous-token head: the best of layer 0 on the held-out batch.
    const h0 = heads[0].reduce((best, x, h) => (x.prev > heads[0][best].prev ? h : best), 0);
    const maskOf = (flat) => heads.flatMap((row, l) => row.map((_, h) => (l * H + h === flat ? 0 : 1)));
    const base = inspect(idx);
    const steps = [[l1 * H + h1, focus], [h0, `L0H${h0}`]];
    for (const [k, [flat, name]] of steps.entries()) {
      await slidevNext(page, await slidevAt(page));
      const ablated = inspect(idx, maskOf(flat));
      await page.waitForFunction(([s, n]) => document.querySelector(s).shadowRoot.querySelector('.caption')?.textContent.includes(`without ${n}`)
        && document.querySelector(s).viewReady, [sel, name], { timeout: 30000 });
      const view = await page.evaluate(shown, sel);
      const where = `slide ${no} click ${k + 1} (${name} off)`;
      // The loss of the held-out sequence with every head and without this one, as the core computes them here.
      expect(view.caption, where).toContain(fmt(base.loss, 2));
      expect(view.caption, where).toContain(fmt(ablated.loss, 2));
      expect(ablated.loss, `${where}: the loss jumps`).toBeGreaterThan(base.loss);
      expect(ablated.ratio, `${where}: the repeat is no longer predicted as well`).toBeGreaterThan(base.ratio);
      const f = view.maps.find((m) => m.name === focus);
      expect(f.off, `${where}: the induction head drawn as off`).toBe(flat === l1 * H + h1);
      expectClose(f.values, Array.from(ablated.attention[l1][h1]), `${where}: ${focus} as drawn`, TOL.ref);
      if (name !== focus) {
        // Without the previous-token head the induction head's stripe is gone.
        expect(scores(f.values).induction, `${where}: ${focus}'s induction score`).toBeLessThan(0.5 * scores(base.attention[l1][h1]).induction);
      }
    }
    // A click on the map switches the induction head off too (the lecturer's own ablation).
    await page.locator(sel).locator(`attn-heatmap.${focus} svg`).first().click();
    await page.waitForFunction(([s, n]) => document.querySelector(s).shadowRoot.querySelector(`attn-heatmap.${n}.off`), [sel, focus], { timeout: 30000 });
    expect(problems).toEqual([]);
    await page.close();
  });
});

// The predict slide: stage 4 asks for the loss without the induction head (nothing computed without it
// shown), the next click reveals the core's loss with the head mask beside the guess; back: the guess again.
async function checkPredict(page, sel, next, back, where) {
  const idx = pre.snapshots.length - 1, base = inspect(idx);
  const heads = evaluate(idx).heads, H = heads[0].length;
  const h1 = heads[1].reduce((b, x, h) => (x.induction > heads[1][b].induction ? h : b), 0);
  const mask = heads.flatMap((row, l) => row.map((_, h) => (l === 1 && h === h1 ? 0 : 1)));
  const off = inspect(idx, mask);
  const read = () => page.evaluate((s) => {
    const w = document.querySelector(s), root = w.shadowRoot;
    const slider = root.querySelector('input.guess-number'), box = slider?.getBoundingClientRect();
    return { stage: w.getAttribute('stage'), ready: w.viewReady, caption: root.querySelector('.caption')?.textContent.replace(/\s+/g, ' ').trim() ?? '',
      ask: root.querySelector('.predict .ask')?.textContent ?? '', slider: box ? [box.width, box.height] : null, guess: slider ? Number(slider.value) : null,
      computed: root.querySelector('.predict .computed')?.textContent ?? null, yours: root.querySelector('.predict .yours')?.textContent ?? null,
      text: root.textContent };
  }, sel);
  await page.waitForFunction((s) => document.querySelector(s)?.getAttribute('stage') === '4' && document.querySelector(s).viewReady
    && document.querySelector(s).shadowRoot.querySelector('input.guess-number'), sel, { timeout: 30000 });
  let v = await read();
  expect(v.ask, where).toBe(`Predict this sequence’s loss without L1H${h1}`);
  expect(v.caption, where).toContain(`this sequence’s loss with every head ${fmt(base.loss, 2)}`);
  expect(v.caption, where).toContain(`a uniform guess: ln 15 = ${fmt(Math.log(15), 2)}`);
  expect(v.slider[0], where).toBeGreaterThanOrEqual(24);
  expect(v.slider[1], where).toBeGreaterThanOrEqual(24);
  expect(v.computed, `${where}: hidden while guessing`).toBe(null);
  expect(v.text, `${where}: the loss without the head is not shown`).not.toContain(fmt(off.loss, 2));
  // A guess by keyboard, then the reveal.
  await page.locator(sel).locator('input.guess-number').focus();
  for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowRight');
  await page.locator(sel).locator('input.guess-number').evaluate((e) => e.blur());
  const guess = (await read()).guess;
  expect(guess).toBeCloseTo(fitGuessOf(base.loss) + 1, 6);
  await next();
  await page.waitForFunction((s) => document.querySelector(s).getAttribute('stage') === '5'
    && document.querySelector(s).shadowRoot.querySelector('.predict .computed'), sel, { timeout: 30000 });
  v = await read();
  expect(v.computed, `${where}: the core's loss without L1H${h1}`).toBe(fmt(off.loss, 2));
  expect(v.yours).toBe(fmt(guess, 2));
  expect(v.text).toContain(`off by ${fmt(Math.abs(guess - off.loss), 2)}`);
  expect(off.loss).toBeGreaterThan(Math.log(15));  // past a uniform guess (the slide's point)
  await back();
  await page.waitForFunction((s) => document.querySelector(s).getAttribute('stage') === '4', sel, { timeout: 30000 });
  v = await read();
  expect([v.computed, v.guess], `${where}: back to the guess, the guess kept`).toEqual([null, guess]);
}
// The slider's start (the loss with every head on the 0.05 grid); 20 arrow presses move it 1.00.
const fitGuessOf = (loss) => Math.round(loss / 0.05) * 0.05;

describe('the training predict slide', () => {
  test('Slidev: guess the loss without the induction head, one click reveals the core\'s, back hides it', async () => {
    const { page, problems } = await watchedPage(browser.context);
    const no = await findInDeck(page, '.slidev-page-{n} .predict-frame attn-train');
    await page.evaluate((n) => { location.hash = `#/${n}`; }, no);
    const sel = `#slide-content .slidev-page-${no} attn-train`;
    await page.locator(sel).waitFor();
    await checkPredict(page, sel, async () => slidevNext(page, await slidevAt(page)), () => page.keyboard.press('ArrowLeft'), `Slidev slide ${no}`);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('reveal.js: the same, by its fragment', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(new URL('slides/reveal/index.html', BASE_URL()).href);
    await page.waitForFunction(() => window.deck?.isReady());
    const h = await page.evaluate(() => window.deck.getSlides().findIndex((s) => s.querySelector('attn-train[predict]')));
    expect(h).toBeGreaterThan(0);
    await page.evaluate((i) => window.deck.slide(i, 0, -1), h);
    await checkPredict(page, 'section.present attn-train', () => page.keyboard.press('Space'), () => page.keyboard.press('ArrowLeft'), `reveal slide ${h + 1}`);
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('reveal.js: the training slide', () => {
  test('each fragment shows its stage, as in Slidev', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(new URL('slides/reveal/index.html', BASE_URL()).href);
    await page.waitForFunction(() => window.deck?.isReady());
    const h = await page.evaluate(() => window.deck.getSlides().findIndex((s) => s.querySelector('attn-train[data-attn-stages]')));
    expect(h).toBeGreaterThan(0);
    await page.evaluate((i) => window.deck.slide(i, 0, -1), h);
    const sel = 'section.present attn-train';
    for (let stage = 0; stage <= 3; stage++) {
      if (stage) await page.keyboard.press('Space');
      checkStage(stage, await settled(page, sel, stage), `reveal slide ${h + 1} fragment ${stage - 1}`);
    }
    await page.keyboard.press('ArrowLeft');
    checkStage(2, await settled(page, sel, 2), `reveal slide ${h + 1} back`);
    expect(problems).toEqual([]);
    await page.close();
  });
});

// The names slide before any run: the shipped seeded run (web/widgets/train/names-run.js, made by
// make-names-run.mjs with the widget's trainer) — its last snapshot's names large, earlier snapshots'
// above (logic.js samplesPanel), its held-out loss in the caption, labelled "shipped" — every text
// ≥ 14 px, every number ≥ 18 px, nothing outside the slide.
describe('the names slide: samples as the loss falls', () => {
  const expectShipped = async (page, sel, slideSel, where) => {
    const { default: RUN } = await import('../../web/widgets/train/names-run.js');
    const { samplesPanel } = await import('../../web/widgets/train/logic.js');
    const last = RUN.snapshots[RUN.snapshots.length - 1], want = samplesPanel(RUN.snapshots, last.step);
    await page.waitForFunction((s) => document.querySelector(s)?.shadowRoot?.querySelector('.names-now .names'), sel, { timeout: 30000 });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 200)))));
    const seen = await page.evaluate((s) => {
      const root = document.querySelector(s).shadowRoot;
      const texts = (q) => [...root.querySelectorAll(q)].map((e) => e.textContent.replace(/\s+/g, ' ').trim());
      return { caption: texts('.caption')[0], now: texts('.names-now .names')[0], nowAt: texts('.names-now .at')[0],
        before: texts('.names-before .names'), beforeAt: texts('.names-before .at'), dots: root.querySelectorAll('.plotbox circle').length };
    }, sel);
    expect(seen.caption, where).toContain(`step ${last.step}`);
    expect(seen.caption, where).toContain(`held-out loss ${fmt(last.evalLoss, 2)}`);
    expect(seen.caption, where).toContain('shipped: a seeded run of this model');
    expect(seen.now, where).toBe(last.names.join(' · '));
    expect(seen.nowAt, where).toContain(`step ${last.step}`);
    expect(want.before.length).toBe(3);
    expect(seen.before, where).toEqual(want.before.map((x) => x.names.slice(0, 6).join(' · ') || '(no whole name yet)'));
    expect(seen.beforeAt.map((t) => t.match(/step (\d+)/)[1]), where).toEqual(want.before.map((x) => String(x.step)));
    expect(seen.dots, where).toBeGreaterThanOrEqual(4);  // a dot on the curve at each sample shown
    const text = await page.evaluate(textReport, { widget: sel, min: MIN_TEXT });
    expect(text.count, where).toBeGreaterThan(10);
    expect(text.small, where).toEqual([]);
    const nums = await page.evaluate(textReport, { widget: sel, min: 18 });
    expect(nums.small.filter((x) => /\d/.test(x.text)), `${where}: numbers under 18 px`).toEqual([]);
    const fit = await page.evaluate(fitReport, { widget: sel, slide: slideSel });
    expect(fit.outside, where).toEqual([]);
  };

  test('Slidev: the shipped run\'s samples before any run, legible, inside the slide', async () => {
    const { page, problems } = await watchedPage(browser.context);
    const no = await findInDeck(page, '.slidev-page-{n} .names-frame attn-train');
    await page.evaluate((n) => { location.hash = `#/${n}`; }, no);
    const sel = `#slide-content .slidev-page-${no} attn-train`;
    await page.locator(sel).waitFor();
    await expectShipped(page, sel, `#slide-content .slidev-page-${no}`, `Slidev slide ${no}`);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('reveal.js: the same', async () => {
    const { page, problems } = await watchedPage(browser.context);
    const h = await revealSlideWith(page, new URL('slides/reveal/index.html', BASE_URL()).href, 'attn-train[task="names"]', 'data-names-slide');
    expect(h).toBeGreaterThan(0);
    await expectShipped(page, '[data-names-slide] attn-train', '.reveal .slides', `reveal slide ${h + 1}`);
    expect(problems).toEqual([]);
    await page.close();
  });
});
