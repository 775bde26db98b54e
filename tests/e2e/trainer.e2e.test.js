// The trainer in real Chromium (dist/train-harness.html): createTrainer's Web Worker (bundled by Vite,
// its own WASM module) trains the induction task until the repeated half is predicted, while the page's
// main thread stays free; pause stops the steps, start resumes them; after terminate() the snapshots
// the page received are still inspectable (with a lab of the page's own thread).
//
// The decks bundle the same worker (Vite, through <attn-train>): in each deck build its worker file
// loads its own .wasm and trains, speaking engine.js's protocol.
//
// Printed, not asserted (a timing depends on the machine and its load): the time from start() to a
// held-out ratio < 0.15 ("time to induction in Chromium"), steps/s, the page's long tasks (a
// PerformanceObserver 'longtask': > 50 ms) and how late a 10 ms timer fired. On this 2-core machine,
// shared with other builds, the page's thread is sometimes not scheduled for 100 ms or more while the
// worker computes, and Chromium reports that as a long task that no code of the page ran in. The
// page's own handling of each message (listeners included) is timed and printed too; none of these is
// asserted (no timed assertions: the machines are shared and noisy; docs/performance.md has the numbers).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { BASE_URL, launch, watchedPage } from './browser.js';
import { loadOptionsData, resolveOptions } from '../../web/train/engine.js';
import { trainerOptions } from '../../web/widgets/train/logic.js';

let browser;
beforeAll(async () => { browser = await launch(); });
afterAll(async () => { await browser?.close(); });

// Induction with a period drawn per sequence (4…11): no fixed offset to attend to, so the model must
// form a previous-token head and an induction head (with one fixed period it can solve it by position).
// The model, optimizer and batch of <attn-train>'s 2-layer attention-only preset (the one a lecturer
// presses "train live" on), evaluated every 50 steps.
const OPTIONS = { ...trainerOptions('induction', 'attn2'), evalEvery: 50, snapshotEvery: 250 };
const TARGET_RATIO = 0.15;
const MAX_STEPS = 20000;  // a run that has not got there by now is broken, not slow

describe('trainer (Web Worker)', () => {
  test('trains induction to ratio < 0.15 in a worker; pause, resume and terminate keep what was received', async () => {
    const { page, problems } = await watchedPage(browser.context);
    await page.goto(new URL('train-harness.html', BASE_URL()).href);
    await page.waitForFunction(() => !!window.attnTrain);

    // 1. Train until the held-out repeated half is predicted (ratio < TARGET_RATIO).
    const run = await page.evaluate(async ({ options, target, maxSteps }) => {
      const { createTrainer, startWatch } = window.attnTrain;
      const trainer = await createTrainer(options);
      window.trainer = trainer;
      const events = [];
      for (const type of ['progress', 'snapshot', 'state', 'error'])
        trainer.addEventListener(type, (e) => events.push(type === 'progress' ? ['progress', e.detail.step] : [type, e.detail]));
      window.trainEvents = events;
      startWatch();
      const t0 = performance.now();
      const detail = await new Promise((ok, no) => {
        trainer.addEventListener('progress', (e) => {
          const d = e.detail;
          if (d.ratio !== null && d.ratio < target) ok(d);
          else if (d.step >= maxSteps) no(new Error(`no induction after ${d.step} steps (ratio ${d.ratio})`));
        });
        trainer.addEventListener('error', (e) => no(new Error(e.detail.message)));
        trainer.start();
      });
      return {
        ms: performance.now() - t0, step: detail.step, evalStep: detail.evalStep, ratio: detail.ratio,
        stepsPerSec: detail.stepsPerSec, tokensPerSec: detail.tokensPerSec, heads: detail.heads,
        running: trainer.running, snapshots: trainer.snapshots.map((s) => ({ index: s.index, step: s.step, bytes: s.bytes.length })),
        history: trainer.history.length, workerMode: trainer.config && !trainer.terminated,
      };
    }, { options: OPTIONS, target: TARGET_RATIO, maxSteps: MAX_STEPS });
    console.log(`time to induction in Chromium: ${(run.ms / 1000).toFixed(1)} s, ${run.evalStep} steps ` +
      `(held-out ratio ${run.ratio.toFixed(3)}), ${run.stepsPerSec?.toFixed(0)} steps/s, ${run.tokensPerSec?.toFixed(0)} tokens/s`);
    expect(run.ratio).toBeLessThan(TARGET_RATIO);
    expect(run.running).toBe(true);
    // Snapshot 0 (untrained) and then every snapshotEvery steps, each with checkpoint bytes.
    expect(run.snapshots[0]).toMatchObject({ index: 0, step: 0 });
    run.snapshots.forEach((s, i) => {
      expect(s.index).toBe(i);
      expect(s.step).toBe(i * OPTIONS.snapshotEvery);
      expect(s.bytes).toBeGreaterThan(0);
    });
    expect(run.history).toBe(run.evalStep / OPTIONS.evalEvery + 1);
    // An induction head formed in layer 1 (its score is the attention on the token after the
    // current one's earlier occurrence).
    const bestInduction = Math.max(...run.heads[1].map((h) => h.induction));
    console.log(`best layer-1 induction score ${bestInduction.toFixed(2)}, best layer-0 previous-token score ${Math.max(...run.heads[0].map((h) => h.prev)).toFixed(2)}`);
    expect(bestInduction).toBeGreaterThan(0.5);

    // 2. Inspect the current weights while training runs; ablating layer 1 takes the induction away.
    const view = await page.evaluate(async () => {
      const t = window.trainer, c = t.modelConfig;
      const base = await t.inspect();
      const mask = Array.from({ length: c.layers * c.heads }, (_, i) => (i >= c.heads ? 0 : 1));
      const ablated = await t.inspect({ headMask: mask });
      return {
        t: base.ids.length, layers: base.attention.length, heads: base.attention[0].length, mapLength: base.attention[1][0].length,
        tokens: base.tokens.length, predictions: base.predictions.length, ratio: base.ratio, ablatedRatio: ablated.ratio,
      };
    });
    expect(view.layers).toBe(OPTIONS.model.layers);
    expect(view.heads).toBe(OPTIONS.model.heads);
    expect(view.mapLength).toBe(view.t * view.t);
    expect(view.tokens).toBe(view.t);
    expect(view.predictions).toBe(view.t);
    expect(view.ablatedRatio).toBeGreaterThan(view.ratio);

    // 3. Pause: the state event says so, and no step is taken afterwards.
    const paused = await page.evaluate(async () => {
      const t = window.trainer;
      const stopped = new Promise((ok) => t.addEventListener('state', (e) => { if (!e.detail.running) ok(e.detail); }, { once: true }));
      t.pause();
      const state = await stopped;
      await new Promise((ok) => setTimeout(ok, 200));  // the loop's last progress message, if any
      const step = t.stepCount, progressBefore = window.trainEvents.filter((e) => e[0] === 'progress').length;
      await new Promise((ok) => setTimeout(ok, 800));
      return { state, step, after: t.stepCount, running: t.running,
        progressWhilePaused: window.trainEvents.filter((e) => e[0] === 'progress').length - progressBefore };
    });
    expect(paused.state.running).toBe(false);
    expect(paused.running).toBe(false);
    expect(paused.after).toBe(paused.step);
    expect(paused.progressWhilePaused).toBe(0);

    // 4. Resume: steps are taken again.
    const resumed = await page.evaluate(async (from) => {
      const t = window.trainer;
      t.start();
      await new Promise((ok) => t.addEventListener('progress', function on(e) {
        if (e.detail.step >= from + 100) { t.removeEventListener('progress', on); ok(); }
      }));
      return { step: t.stepCount, running: t.running };
    }, paused.step);
    expect(resumed.running).toBe(true);
    expect(resumed.step).toBeGreaterThanOrEqual(paused.step + 100);

    // 5. Terminate mid-run: the snapshots stay, and inspecting one on the page's thread gives what the
    // worker gave for the same snapshot.
    const ended = await page.evaluate(async () => {
      const t = window.trainer;
      const k = t.snapshots.length - 1;
      const before = await t.inspect({ snapshot: k });
      const { stopWatch } = window.attnTrain;
      const watch = stopWatch();
      // What the page holds when it terminates (a snapshot may have arrived while inspect() ran).
      const received = t.snapshots.length;
      t.terminate();
      const after = await t.inspect({ snapshot: k });
      let current = null;
      try { await t.inspect(); } catch (e) { current = e.message; }
      let startError = null;
      try { t.start(); } catch (e) { startError = e.message; }
      const same = before.loss === after.loss && before.attention.every((row, l) => row.every((a, h) => a.every((x, i) => x === after.attention[l][h][i])));
      return { snapshots: t.snapshots.length, received, k, same, loss: after.loss, running: t.running, terminated: t.terminated, current, startError,
        watch, stats: t.messageStats };
    });
    expect(ended.terminated).toBe(true);
    expect(ended.running).toBe(false);
    expect(ended.received).toBeGreaterThanOrEqual(ended.k + 1);
    expect(ended.snapshots).toBe(ended.received);  // nothing lost, nothing added after terminate()
    expect(ended.same).toBe(true);
    expect(ended.current).toMatch(/terminated/);
    expect(ended.startError).toMatch(/terminated/);

    console.log(`main thread while training: ${ended.watch.longTasks.length} long tasks ` +
      `(longest ${Math.max(0, ...ended.watch.longTasks.map((e) => e.duration)).toFixed(0)} ms), ` +
      `a 10 ms timer was late by at most ${ended.watch.maxLateMs.toFixed(1)} ms; ` +
      `${ended.stats.messages} messages from the worker, longest handling ${ended.stats.maxMs.toFixed(2)} ms, ` +
      `total ${ended.stats.totalMs.toFixed(0)} ms`);
    expect(problems).toEqual([]);
  }, 600000);
});

// The names list is a text asset (web/train/data/names.txt → assets/names-<hash>.txt): fetched when the
// names task is chosen, by the page (createTrainer checks the task's options) and by the worker (its own
// module), never by a page that trains something else.
describe('names task in the browser', () => {
  test('names.txt is fetched only once the names task is chosen; the worker trains on it and samples names', async () => {
    const { page, problems } = await watchedPage(browser.context);
    const fetched = [];
    page.on('request', (r) => { if (/\/names-[\w-]+\.txt$/.test(new URL(r.url()).pathname)) fetched.push(r.url()); });
    await page.goto(new URL('train-harness.html', BASE_URL()).href);
    await page.waitForFunction(() => !!window.attnTrain);
    const induction = await page.evaluate(async () => {
      const t = await window.attnTrain.createTrainer({ task: 'induction', model: { layers: 1, heads: 2, dModel: 16 } });
      const step = await t.step(5);
      t.terminate();
      return step;
    });
    expect(induction).toBe(5);
    expect(fetched).toEqual([]);
    const out = await page.evaluate(async () => {
      const t = await window.attnTrain.createTrainer({ task: 'names', model: { layers: 1, heads: 2, dModel: 32 }, batch: 16,
        evalEvery: 100, snapshotEvery: 100, optimizer: { lr: 3e-3 } });
      const step = await t.step(300);
      const sample = await t.sample({ steps: 64, seed: 1 });
      const losses = t.history.map((p) => p.evalLoss);
      const task = t.task;
      t.terminate();
      return { step, sample, losses, vocab: t.modelConfig.vocab, train: task.trainNames.length, heldOut: task.heldOutNames.length,
        first: task.trainNames.slice(0, 3) };
    });
    expect(fetched.length).toBeGreaterThan(0);
    expect(out.step).toBe(300);
    expect(out.vocab).toBe(27);
    expect(out.heldOut).toBe(1000);
    expect(out.first).toEqual(['emma', 'olivia', 'ava']);
    expect(out.losses.length).toBe(4);  // steps 0, 100, 200, 300
    expect(out.losses[3]).toBeLessThan(out.losses[0]);
    expect(out.sample).toMatch(/^[.a-z]+$/);
    console.log(`names in the worker: held-out loss ${out.losses.map((x) => x.toFixed(3)).join(' → ')}; sample ${JSON.stringify(out.sample)}; ${fetched.length} fetch(es) of names.txt`);
    expect(problems).toEqual([]);
  }, 300000);
});

// The worker file of a built deck (dist/slides/<deck>/assets/trainer.worker-<hash>.js), relative to dist/.
function deckWorker(deck) {
  const dir = new URL(`../../dist/slides/${deck}/assets/`, import.meta.url);
  if (!existsSync(dir)) return null;
  const file = readdirSync(dir).find((f) => /^trainer\.worker.*\.js$/.test(f));
  return file ? `slides/${deck}/assets/${file}` : null;
}

describe('trainer worker in the deck builds', () => {
  for (const deck of ['slidev', 'reveal']) {
    test(`${deck}: the bundled worker loads its WASM and trains`, async () => {
      const worker = deckWorker(deck);
      expect(worker, `dist/slides/${deck}/assets/ has a trainer.worker-*.js`).not.toBeNull();
      const { page, problems } = await watchedPage(browser.context);
      await page.goto(new URL(`slides/${deck}/`, BASE_URL()).href);
      const train = (config) => page.evaluate(async ({ url, config }) => {
        const w = new Worker(url, { type: 'module' });
        const replies = new Map(), events = [];
        w.onmessage = (e) => {
          if (e.data.kind === 'reply') replies.get(e.data.id)?.(e.data);
          else events.push(e.data.name);
        };
        const ask = (id, msg) => new Promise((ok) => { replies.set(id, ok); w.postMessage({ ...msg, id, seq: 0 }); });
        const init = await ask(1, { op: 'init', config });
        const step = await ask(2, { op: 'step', n: 10 });
        w.terminate();
        return { init, step, events };
      }, { url: new URL(worker, BASE_URL()).href, config });
      const small = { model: { layers: 1, heads: 2, dModel: 16 }, evalEvery: 5, snapshotEvery: 5 };
      const out = await train(resolveOptions({ task: 'induction', ...small }));
      expect(out.init).toMatchObject({ ok: true, value: { step: 0 } });
      expect(out.step).toMatchObject({ ok: true, value: 10 });
      expect(out.events.filter((e) => e === 'snapshot').length).toBe(3);  // steps 0, 5, 10
      // The names task: the deck's worker fetches the list (the deck's own names-<hash>.txt asset).
      const namesOptions = { task: 'names', ...small };
      await loadOptionsData(namesOptions);
      const names = await train(resolveOptions(namesOptions));
      expect(names.init).toMatchObject({ ok: true, value: { step: 0, config: { vocab: 27 } } });
      expect(names.step).toMatchObject({ ok: true, value: 10 });
      expect(problems).toEqual([]);
    });
  }
});
