// The trainer on this thread (worker: false), in Node against the WASM build: the loop of
// web/train/engine.js as the Web Worker runs it. Steps advance and events come in order; pause stops;
// reset replays the same run from the same seed; snapshots hold checkpoints that load and give the
// numbers reported with them; a NaN or exploding loss stops training with a message and keeps the
// snapshots; terminate() keeps them inspectable; start/pause/reset cycles leave the WASM heap flat.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttnLab } from 'attnlab';
import { expectClose, TOL } from './helpers.js';
import { createTrainer, loadPretrained, openPretrained, scores, tasks } from 'attnlab/train';

let lab;
beforeAll(async () => { lab = await createAttnLab(); });

// A small, fast run: 1-layer models train here at thousands of steps per second.
const small = (over = {}) => ({
  worker: false, lab, task: 'induction', batch: 2, evalEvery: 5, snapshotEvery: 10,
  model: { layers: 1, heads: 2, dModel: 16, seed: 7 }, ...over,
});

const macrotask = () => new Promise((ok) => setImmediate(ok));
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

function record(trainer) {
  const events = [];
  for (const type of ['progress', 'snapshot', 'state', 'error'])
    trainer.addEventListener(type, (e) => events.push({ type, detail: e.detail }));
  return events;
}

// Resolves when the trainer's stepCount reaches n (from its progress events), or on an error event.
function untilStep(trainer, n) {
  return new Promise((ok, no) => {
    const on = (e) => {
      if (e.type === 'error') { off(); no(new Error(e.detail.message)); } else if (trainer.stepCount >= n) { off(); ok(trainer.stepCount); }
    };
    const off = () => { trainer.removeEventListener('progress', on); trainer.removeEventListener('error', on); };
    trainer.addEventListener('progress', on);
    trainer.addEventListener('error', on);
  });
}

describe('createTrainer (worker: false)', () => {
  test('starts at step 0 with an evaluation and snapshot 0 of the untrained model', async () => {
    const t = await createTrainer(small());
    expect(t.stepCount).toBe(0);
    expect(t.running).toBe(false);
    expect(t.snapshots.map((s) => s.step)).toEqual([0]);
    expect(t.snapshots[0].bytes).toBeInstanceOf(Uint8Array);
    expect(t.history.map((h) => h.step)).toEqual([0]);
    // An untrained model's held-out loss is near ln(vocab): it has no preference among the tokens.
    const task = tasks.createTask('induction');
    expect(t.history[0].evalLoss).toBeGreaterThan(0.5 * Math.log(task.vocab));
    expect(t.history[0].evalLoss).toBeLessThan(2 * Math.log(task.vocab));
    expect(t.modelConfig).toMatchObject({ vocab: task.vocab, context: task.context, layers: 1, heads: 2, dModel: 16 });
    t.terminate();
  });

  test('step(n) advances n steps; evaluations, snapshots and progress events come in order', async () => {
    const t = await createTrainer(small());
    const events = record(t);
    expect(await t.step(20)).toBe(20);
    expect(t.stepCount).toBe(20);
    expect(await t.step(3)).toBe(23);
    // Held-out evaluations every evalEvery steps, snapshots every snapshotEvery steps (and step 0).
    expect(t.history.map((h) => h.step)).toEqual([0, 5, 10, 15, 20]);
    expect(t.snapshots.map((s) => [s.index, s.step])).toEqual([[0, 0], [1, 10], [2, 20]]);
    const progress = events.filter((e) => e.type === 'progress');
    expect(progress.length).toBeGreaterThan(0);
    // Steps never go back; the last progress event has the final step.
    progress.forEach((e, i) => { if (i) expect(e.detail.step).toBeGreaterThanOrEqual(progress[i - 1].detail.step); });
    expect(progress.at(-1).detail.step).toBe(23);
    // The lossHistory of the progress events is the history, each evaluation once.
    expect(progress.flatMap((e) => e.detail.lossHistory.map((h) => h.step))).toEqual([5, 10, 15, 20]);
    // Each snapshot event comes after the progress event carrying its evaluation.
    for (const [i, e] of events.entries()) {
      if (e.type !== 'snapshot') continue;
      const before = events.slice(0, i).filter((x) => x.type === 'progress').at(-1);
      expect(before.detail.evalStep).toBe(e.detail.step);
      expect(before.detail.evalLoss).toBe(e.detail.evalLoss);
    }
    // step() does not start a run: no state events, not running.
    expect(events.filter((e) => e.type === 'state')).toEqual([]);
    expect(t.running).toBe(false);
    t.terminate();
  });

  test('start runs until pause; pause stops the steps; start resumes', async () => {
    const t = await createTrainer(small());
    const events = record(t);
    t.start();
    expect(t.running).toBe(true);
    await untilStep(t, 50);
    t.pause();
    expect(t.running).toBe(false);
    await macrotask();  // the slice under way ends
    const at = t.stepCount, count = events.length;
    await sleep(100);
    expect(t.stepCount).toBe(at);
    expect(events.length).toBe(count);  // nothing after the pause
    const states = events.filter((e) => e.type === 'state').map((e) => e.detail.running);
    expect(states).toEqual([true, false]);
    expect(events[0]).toMatchObject({ type: 'state', detail: { running: true } });
    t.start();
    await untilStep(t, at + 20);
    t.pause();
    expect(t.stepCount).toBeGreaterThanOrEqual(at + 20);
    t.terminate();
  });

  test('start({ until }) trains to exactly that step, then says it stopped; bad values are refused', async () => {
    const trainer = await createTrainer(small());
    const events = record(trainer);
    const stopped = new Promise((ok) => trainer.addEventListener('state', (e) => { if (!e.detail.running) ok(e.detail); }));
    trainer.start({ until: 137 });
    const d = await stopped;
    expect(d.step).toBe(137);
    expect(trainer.running).toBe(false);
    expect(trainer.stepCount).toBe(137);
    await sleep(50);
    expect(trainer.stepCount).toBe(137);  // it stays there
    expect(events.filter((e) => e.type === 'progress').at(-1).detail.step).toBe(137);
    trainer.start({ until: 100 });        // already past: nothing runs
    expect(trainer.running).toBe(false);
    expect(() => trainer.start({ until: -1 })).toThrow('start: until is -1, expected an integer ≥ 0');
    expect(() => trainer.start({ until: 1.5 })).toThrow('start: until is 1.5, expected an integer ≥ 0');
    expect(() => trainer.start({ steps: 5 })).toThrow("start: unknown option 'steps'");
    trainer.start();                      // no until: runs on until pause()
    await untilStep(trainer, 200);
    // Running past it, start({ until }) stops the loop at once and says so.
    const halted = new Promise((ok) => trainer.addEventListener('state', (e) => { if (!e.detail.running) ok(e.detail); }));
    trainer.start({ until: 150 });
    const h = await halted;
    expect(trainer.running).toBe(false);
    await sleep(50);
    expect(trainer.stepCount).toBe(h.step);
    expect(await trainer.step(1)).toBe(h.step + 1);
    trainer.terminate();
  });

  test('reset restarts at step 0; the same seed gives the same losses, another seed other losses', async () => {
    const t = await createTrainer(small());
    await t.step(40);
    const first = t.history.map((h) => [h.step, h.loss, h.evalLoss, h.ratio]);
    const bytes = t.snapshots.map((s) => Array.from(s.bytes));
    await t.reset();
    expect(t.stepCount).toBe(0);
    expect(t.snapshots.map((s) => s.step)).toEqual([0]);
    expect(t.history.map((h) => h.step)).toEqual([0]);
    await t.step(40);
    expect(t.history.map((h) => [h.step, h.loss, h.evalLoss, h.ratio])).toEqual(first);
    expect(t.snapshots.map((s) => Array.from(s.bytes))).toEqual(bytes);
    // A separate trainer with the same options: the same run.
    const u = await createTrainer(small());
    await u.step(40);
    expect(u.history.map((h) => [h.step, h.loss, h.evalLoss, h.ratio])).toEqual(first);
    // Another seed: another initialisation and data stream.
    await t.reset({ seed: 8 });
    await t.step(40);
    expect(t.history.map((h) => h.evalLoss)).not.toEqual(first.map((h) => h[2]));
    t.terminate();
    u.terminate();
  });

  test('snapshots hold checkpoints that load and give the reported held-out loss and scores', async () => {
    const config = small({ evalSize: 16 });
    const t = await createTrainer(config);
    await t.step(30);
    const task = tasks.createTask('induction');
    const heldOut = task.heldOut(16);
    for (const s of t.snapshots) {
      const m = lab.loadModel(s.bytes);
      const r = m.forward({ ids: heldOut.ids, targets: heldOut.targets, batch: heldOut.batch });
      expect(r.loss).toBe(s.evalLoss);
      expect(scores.lossSplit(r.tokenLosses, heldOut).ratio).toBe(s.ratio);
      expect(scores.headScores(r, heldOut.ids, { positions: heldOut.repeated })).toEqual(s.heads);
      m.dispose();
    }
    // A trainer started from a snapshot's checkpoint begins where that snapshot was.
    const last = t.snapshots.at(-1);
    const c = await createTrainer({ ...config, checkpoint: last.bytes });
    expect(c.history[0].evalLoss).toBe(last.evalLoss);
    c.terminate();
    t.terminate();
  });

  test('inspect: the eval sequence through the current weights, a snapshot, or with heads ablated', async () => {
    const t = await createTrainer(small());
    await t.step(20);
    const task = t.task, c = t.modelConfig;
    const now = await t.inspect();
    const T = task.context;
    expect(now.ids).toEqual(task.heldOut(1).ids);
    expect(now.tokens).toEqual(Array.from(now.ids, (id) => task.decode([id])));
    expect(now.attention.length).toBe(c.layers);
    expect(now.attention[0].length).toBe(c.heads);
    expect(now.attention[0][0].length).toBe(T * T);
    expect(now.tokenLosses.length).toBe(T);
    expect(now.predictions.length).toBe(T);
    // The loss is the mean of the token losses; predictions are the argmax of the model's logits.
    const m = lab.loadModel(await t.save());
    const r = m.forward({ ids: now.ids, targets: task.heldOut(1).targets });
    expect(now.loss).toBe(r.loss);
    for (let i = 0; i < T; i++) {
      const row = r.logits.subarray(i * c.vocab, (i + 1) * c.vocab);
      expect(row[now.predictions[i]]).toBe(Math.max(...row));
    }
    m.dispose();
    // A snapshot: the same as the current weights when it was taken.
    const s0 = await t.inspect({ snapshot: 0 });
    expect(s0.loss).not.toBe(now.loss);
    const again = await t.inspect({ snapshot: 2 });
    expect(again.loss).toBe(now.loss);  // snapshot 2 is step 20 = now
    // Ablating every head: each position sees only its own token (through the residual stream).
    const off = await t.inspect({ headMask: new Array(c.layers * c.heads).fill(0) });
    expect(off.loss).not.toBe(now.loss);
    await expect(t.inspect({ snapshot: 9 })).rejects.toThrow('inspect: snapshot is 9, expected the index of one of the 3 snapshots');
    await expect(t.inspect({ headMask: [1] })).rejects.toThrow('inspect: headMask has 1 values, expected layers·heads = 2');
    t.terminate();
  });

  test('a non-finite loss (lr 1e30) stops training with an error event; the snapshots before it stay', async () => {
    const t = await createTrainer(small({ optimizer: { lr: 1e30 } }));
    const untrained = await t.inspect({ snapshot: 0 });
    const events = record(t);
    const error = new Promise((ok) => t.addEventListener('error', (e) => ok(e.detail)));
    t.start();
    const detail = await error;
    expect(detail.message).toMatch(/^training stopped at step \d+: trainStep: /);
    expect(t.running).toBe(false);
    expect(events.filter((e) => e.type === 'state').map((e) => e.detail.running)).toEqual([true, false]);
    // trainStep refused the failing step (the step count did not move), and the snapshot taken before
    // it is still there and usable.
    expect(t.stepCount).toBe(detail.step);
    expect(t.snapshots.map((s) => s.step)).toEqual([0]);
    expect((await t.inspect({ snapshot: 0 })).loss).toBe(untrained.loss);
    // step() on a run that faults rejects with the message.
    await expect(t.step(5)).rejects.toThrow('training stopped at step');
    t.terminate();
  });

  test('an exploding loss (lr 10, no clipping) stops training with an error event, keeping the good snapshots', async () => {
    const t = await createTrainer(small({ optimizer: { lr: 10, maxGradNorm: Infinity } }));
    const error = new Promise((ok) => t.addEventListener('error', (e) => ok(e.detail)));
    t.start();
    const detail = await error;
    expect(detail.message).toMatch(/held-out loss .* exploded/);
    expect(t.running).toBe(false);
    const first = t.history[0].evalLoss;
    // Only snapshots whose loss had not exploded were kept.
    for (const s of t.snapshots) expect(s.evalLoss).toBeLessThanOrEqual(10 * first);
    t.terminate();
  });

  test('terminate: snapshots stay inspectable; the current weights and further training are gone', async () => {
    const t = await createTrainer(small());
    await t.step(20);
    const before = await t.inspect({ snapshot: 1 });
    t.start();
    t.terminate();
    expect(t.terminated).toBe(true);
    expect(t.running).toBe(false);
    const after = await t.inspect({ snapshot: 1 });
    expect(after.loss).toBe(before.loss);
    expect(Array.from(after.attention[0][1])).toEqual(Array.from(before.attention[0][1]));
    await expect(t.inspect()).rejects.toThrow('inspect: the trainer was terminated and its current weights with it');
    expect(() => t.start()).toThrow('start: the trainer was terminated');
    await expect(t.step()).rejects.toThrow('step: the trainer was terminated');
  });

  test('sample: names are text, other tasks token ids', async () => {
    const n = await createTrainer(small({ task: 'names', model: { layers: 1, heads: 2, dModel: 16 } }));
    const text = await n.sample({ steps: 30, seed: 3 });
    expect(typeof text).toBe('string');
    expect(text).toMatch(/^[.a-z]{30}$/);
    expect(await n.sample({ steps: 30, seed: 3 })).toBe(text);
    n.terminate();
    const t = await createTrainer(small());
    const ids = await t.sample({ steps: 5 });
    expect(ids).toBeInstanceOf(Int32Array);
    expect(ids.length).toBe(5);
    t.terminate();
  });

  test('bad options are refused with the option named', async () => {
    await expect(createTrainer({ worker: false, lab, task: 'sort' })).rejects.toThrow(
      "createTrainer: task is \"sort\", expected one of 'induction', 'names', 'reverse'");
    await expect(createTrainer({ worker: false, lab, model: { vocab: 3 } })).rejects.toThrow(
      'createTrainer: model.vocab is 3, expected it absent: the task sets it');
    await expect(createTrainer({ worker: false, lab, model: { heads: 3, dModel: 16 } })).rejects.toThrow('createModel: heads = 3 does not divide dModel = 16');
    await expect(createTrainer({ worker: false, lab, optimizer: { lr: 0 } })).rejects.toThrow('createTrainer: optimizer.lr is 0, expected a finite number > 0');
    await expect(createTrainer({ worker: false, lab, evalEvery: 0 })).rejects.toThrow('createTrainer: evalEvery is 0, expected a positive integer');
    await expect(createTrainer({ worker: false, lab, steps: 5 })).rejects.toThrow("createTrainer: unknown option 'steps'");
    await expect(createTrainer({ worker: true, lab })).rejects.toThrow('createTrainer: worker is true, but this runtime has no Web Worker');
    const names = (await createTrainer({ worker: false, lab, task: 'names', model: { layers: 1, heads: 1, dModel: 8 } }));
    await expect(createTrainer({ worker: false, lab, checkpoint: await names.save() })).rejects.toThrow(
      'createTrainer: checkpoint has vocab = 27');
    names.terminate();
  });
});

describe('loadPretrained', () => {
  test('reads a task\'s shipped snapshots from web/train/pretrained/<task>/ (or says they are missing)', async () => {
    await expect(loadPretrained('sort')).rejects.toThrow("loadPretrained: task is \"sort\", expected one of 'induction', 'names', 'reverse'");
    for (const task of tasks.TASK_NAMES) {
      let pre;
      try {
        pre = await loadPretrained(task);
      } catch (e) {
        expect(e.message).toMatch(`loadPretrained: cannot read pretrained/${task}/index.json`);
        continue;
      }
      expect(pre.snapshots.length).toBeGreaterThan(0);
      // The task as the run that made them had it (its options, when the index gives them).
      const spec = pre.trainerOptions?.task;
      const { name, ...options } = spec && typeof spec === 'object' ? spec : { name: task };
      // loadTask loads the task's data first (names: the shipped list), so this test passes alone too
      // (createTask('names') relied on an earlier test having loaded the list).
      const vocab = (await tasks.loadTask(name, options)).vocab;
      pre.snapshots.forEach((s, i) => {
        expect(s.index).toBe(i);
        if (i) expect(s.step).toBeGreaterThan(pre.snapshots[i - 1].step);
        const m = lab.loadModel(s.bytes);  // a checkpoint of a model for this task
        expect(m.config.vocab).toBe(vocab);
        m.dispose();
      });
    }
  });

  test('openPretrained measures every snapshot as the native run that made it did (index.json\'s numbers, computed again here)', async () => {
    const pre = await loadPretrained('induction');
    const open = await openPretrained('induction', { lab });
    expect(open.evalSize).toBe(pre.meta.evalSize);  // the native run's held-out batch, not the trainer's default
    expect(open.snapshots.map((s) => s.step)).toEqual(pre.snapshots.map((s) => s.step));
    // tools/pretrain_induction.cc evaluated each snapshot natively (scalar C++, its own copy of the task's
    // generator); here the same bytes go through the WASM core and tasks.js.
    expectClose(open.snapshots.map((s) => s.evalLoss), pre.snapshots.map((s) => s.evalLoss), 'held-out loss', TOL.ref);
    expectClose(open.snapshots.map((s) => s.ratio), pre.snapshots.map((s) => s.ratio), 'repeated ÷ first half', TOL.ref);
    expect(open.snapshots.at(-1).ratio).toBeLessThan(0.15);
    // Its inspect is the trainer's: the same snapshot through a trainer started from it gives the same maps.
    const last = open.snapshots.length - 1, mask = [1, 1, 0, 1];
    const trainer = await createTrainer({ ...open.trainerOptions, checkpoint: open.snapshots[last].bytes, worker: false, lab });
    try {
      for (const headMask of [null, mask]) {
        const a = await open.inspect(last, { headMask }), b = await trainer.inspect({ headMask });
        expect(a.loss).toBe(b.loss);
        expect(a.attention.flat().map((m) => Array.from(m))).toEqual(b.attention.flat().map((m) => Array.from(m)));
      }
      expect(trainer.history[0].evalLoss).toBe(open.snapshots[last].evalLoss);  // trainerOptions carries evalSize
    } finally {
      trainer.terminate();
    }
    await expect(open.inspect(99)).rejects.toThrow('openPretrained: inspect: snapshot is 99, expected an index below 17');
    await expect(openPretrained('induction', { lab, size: 1 })).rejects.toThrow("openPretrained: unknown option 'size', expected some of: lab");
    await expect(openPretrained('sort', { lab })).rejects.toThrow("loadPretrained: task is \"sort\"");
  });
});

describe('memory', () => {
  test('10,000 steps of start/pause cycles, resets and inspections leave the WASM heap flat', async () => {
    const own = await createAttnLab();  // its own heap: nothing else allocates in it meanwhile
    const t = await createTrainer(small({ lab: own, evalEvery: 100, snapshotEvery: 1000, batch: 1 }));
    // One cycle: start, let the loop run two slices, pause (the pause is handled between slices).
    let total = 0, cycles = 0;
    const cycle = async () => {
      const from = t.stepCount;
      t.start();
      await macrotask();
      await macrotask();
      t.pause();
      await macrotask();
      total += t.stepCount - from;
      cycles++;
    };
    await t.step(100);  // the arena reaches its working size (training, held-out and inspect calls)
    await t.inspect({ snapshot: 0, headMask: [1, 0] });
    await t.inspect();
    // The first reset keeps 8 bytes for good (a first-use allocation; the resets after it, several in
    // this test, change nothing): made before the baseline, like the arena's working size.
    await t.reset();
    await t.step(100);
    await t.inspect({ snapshot: 0, headMask: [1, 0] });
    await t.inspect();
    const before = own.info();
    const samples = [];
    let resets = 0;
    while (total < 10000) {
      await cycle();
      if (cycles % 10 === 0) {
        await t.inspect({ snapshot: t.snapshots.length - 1, headMask: [1, 0] });
        await t.inspect();
        samples.push(own.info().heapInUse);
      }
      if (t.stepCount >= 2000) {
        await t.reset();
        resets++;
      }
    }
    samples.push(own.info().heapInUse);
    const after = own.info();
    console.log(`WASM heap in use over ${total} steps in ${cycles} start/pause cycles (${resets} resets, an inspection ` +
      `every 10 cycles): before ${before.heapInUse} B, after ${after.heapInUse} B, largest of ${samples.length} samples ` +
      `${Math.max(...samples)} B; memory ${before.heapBytes} → ${after.heapBytes} B`);
    expect(resets).toBeGreaterThan(0);
    expect(after.heapInUse).toBe(before.heapInUse);
    expect(Math.max(...samples)).toBe(before.heapInUse);
    expect(after.heapBytes).toBe(before.heapBytes);
    t.terminate();
  }, 120000);
});
