import { describe, expect, test } from 'vitest';
import {
  LiveRun, ROLE_THRESHOLD, ROLE_THRESHOLDS, SIZES, SPEEDS, DEFAULT_SPEED, TASKS, rateOf, bestHead, clampIndex, headMask, headName, latestOnly, lossSeries, predictionRows, ratioSeries,
  Replay, LOSS_FALL, reachedStage, liveStageView, resolveHeads, roleHead, roleNote, scoreSeries, scoredFrom, tokenLossSeries, meanFrom, stageView, thin, toggleHead, trainerOptions, yRange,
} from './logic.js';

// Heads of a 2-layer, 2-head model whose layer-0 head 1 becomes a previous-token head from step
// `prevAt` and whose layer-1 head 0 becomes an induction head from step `indAt` (scores 0.1 → 0.9).
function heads(step, prevAt = 300, indAt = 600) {
  const on = (at) => (step >= at ? 0.9 : 0.1);
  return [
    [{ prev: 0.1, induction: 0.05 }, { prev: on(prevAt), induction: 0.05 }],
    [{ prev: 0.1, induction: on(indAt) }, { prev: 0.1, induction: 0.2 }],
  ];
}
const snapshotsEvery100 = (n = 10) => Array.from({ length: n }, (_, i) => ({
  index: i, step: i * 100, evalLoss: i < 6 ? 2.8 : 0.9, ratio: i < 6 ? 1 : 0.2, heads: heads(i * 100),
}));

/**
 * A stand-in for createTrainer's trainer (web/train/trainer.js): its events, the calls the widget makes,
 * and, like the real one, a `history` it extends with each progress event's evaluations (lossHistory)
 * before emitting it. `keepsHistory: false`: a trainer without one (the run keeps its own).
 */
class FakeTrainer extends EventTarget {
  constructor({ keepsHistory = true } = {}) {
    super();
    this.running = false;
    this.stepCount = 0;
    this.snapshots = [];
    if (keepsHistory) this.history = [];
    this.calls = [];
    this.terminated = false;
  }
  emit(type, detail) { this.dispatchEvent(new CustomEvent(type, { detail })); }
  start(options) { this.calls.push('start'); this.startOptions = options; this.running = true; this.emit('state', { running: true, step: this.stepCount }); }
  pause() { this.calls.push('pause'); this.running = false; this.emit('state', { running: false, step: this.stepCount }); }
  async step(n = 1) { this.progress(this.stepCount + n); return this.stepCount; }
  async reset() { this.stepCount = 0; this.snapshots = []; if (this.history) this.history = []; }
  terminate() { this.terminated = true; }
  /** What the real trainer does while running: a progress event with the evaluations since the last one. */
  progress(step, extra = {}) {
    this.stepCount = step;
    const point = { step, loss: 3 - step / 1000, evalLoss: 3.1 - step / 1000, heads: heads(step) };
    this.history?.push(point);
    this.emit('progress', { ...point, lossHistory: [point], ...extra });
  }
  snapshot(step) {
    const s = { index: this.snapshots.length, step, evalLoss: 3 - step / 1000, ratio: 1, heads: heads(step) };
    this.snapshots.push(s);
    this.emit('snapshot', s);
  }
}

describe('presets', () => {
  test('every task and size makes trainer options with the model the preset names', () => {
    for (const t of TASKS) {
      for (const s of SIZES) {
        const o = trainerOptions(t.id, s.id, { seed: 3 });
        expect(o.task).toBe(t.id);
        expect(o.model).toEqual({ ...s.model, seed: 3 });
        expect(o.model.heads).toBeGreaterThan(0);
        expect(o.model.dModel % o.model.heads).toBe(0);
        expect(o.snapshotEvery % o.evalEvery).toBe(0);  // every snapshot has eval numbers
      }
    }
    expect(trainerOptions('names', 'nope').model.layers).toBe(SIZES[0].model.layers);
    expect(trainerOptions('names', 'attn2', { worker: false }).worker).toBe(false);
  });
});

describe('roles: a stated threshold, and only where the model can have the role', () => {
  test('the preset names name the model, not a task or a head it should form', () => {
    for (const s of SIZES) expect(s.label).not.toMatch(/induction|names|reverse|\(/);
    expect(SIZES.map((s) => s.label)).toEqual(['2-layer attention-only', '2-layer with MLP + LayerNorm', '1-layer attention-only']);
  });

  test('roleHead: the best head of the allowed layers, from the threshold on', () => {
    expect(ROLE_THRESHOLD).toBe(0.5);
    expect(ROLE_THRESHOLDS).toEqual({ prev: 0.25, induction: 0.5, reverse: 0.5 });
    const h = [[{ prev: 0.9, induction: 0.95 }, { prev: 0.1, induction: 0.1 }], [{ prev: 0.1, induction: 0.5 }, { prev: 0.1, induction: 0.49 }]];
    // Layer 0's 0.95 is no induction head (nothing earlier to read); layer 1's 0.5 is, just.
    expect(roleHead(h, 'induction')).toEqual({ layer: 1, head: 0, score: 0.5 });
    expect(roleHead(h, 'induction', 0.6)).toBeNull();
    expect(roleHead(h, 'prev')).toEqual({ layer: 0, head: 0, score: 0.9 });
    expect(roleHead([[{ prev: 0.2, reverse: 0.74 }]], 'reverse')).toEqual({ layer: 0, head: 0, score: 0.74 });
  });

  test('roleNote says what was found, why nothing can be, or the best score under the threshold', () => {
    const two = [[{ prev: 0.9, induction: 0.1 }, { prev: 0.1, induction: 0.1 }], [{ prev: 0.1, induction: 0.31 }, { prev: 0.1, induction: 0.2 }]];
    expect(roleNote(two, 'induction').text).toBe('no induction head yet: the best, L1H0, scores 0.31 (a head is called one from 0.5)');
    expect(roleNote(two, 'prev')).toEqual({ head: { layer: 0, head: 0, score: 0.9 }, text: 'L0H0 is a previous-token head (score 0.90 ≥ 0.25)' });
    expect(roleNote([[{ prev: 0.24 }, { prev: 0.1 }]], 'prev').text).toBe('no previous-token head yet: the best, L0H0, scores 0.24 (a head is called one from 0.25)');
    expect(roleNote([[{ prev: 0.9, induction: 0.9 }]], 'induction')).toEqual({ head: null,
      text: 'no induction head possible: it needs a previous-token head in an earlier layer, and this model has 1 layer' });
    expect(roleNote(null, 'induction').text).toBe('');
  });
});

describe('speed', () => {
  test('a default a person can watch, "as fast as possible" one choice away; LiveRun starts at its rate', () => {
    expect(rateOf(DEFAULT_SPEED)).toBe(40);
    expect(SPEEDS.find((x) => x.id === 'max')).toEqual({ id: 'max', label: 'as fast as possible', rate: Infinity });
    expect(rateOf('nope')).toBe(40);
    const tr = new FakeTrainer(), run = new LiveRun(tr, { target: 3000 });
    run.rate = rateOf('20');
    run.start();
    expect(tr.startOptions).toEqual({ until: 3000, rate: 20 });
    run.rate = rateOf('max');
    run.start();
    expect(tr.startOptions).toEqual({ until: 3000 });  // no rate: as fast as it goes
  });
});

describe('predictions', () => {
  test('the reversed half only, the last position too (its target)', () => {
    // reverse, n = 3: "2 0 1 | 1 0" with targets "0 1 | 1 0 2"; the model gets every reversed digit and
    // nothing of the random first half.
    const base = { ids: [2, 0, 1, 3, 1, 0], targets: [0, 1, 3, 1, 0, 2], answer: [0, 0, 0, 1, 1, 1], predictions: [5, 5, 3, 1, 0, 2], tokens: ['2', '0', '1', '|', '1', '0'] };
    const decode = (id) => ['0', '1', '2', '|'][id];
    expect(scoredFrom('reverse', base)).toBe(3);
    const rows = predictionRows(base, null, decode, scoredFrom('reverse', base));
    expect(rows.map((r) => [r.token, r.next, r.right])).toEqual([['|', '1', true], ['1', '0', true], ['0', '2', true]]);
    // Scored from 0, the random first half would count: 4 of 6 right.
    expect(predictionRows(base, null, decode, 0).filter((r) => r.right)).toHaveLength(4);
    expect(scoredFrom('induction', { ids: new Array(9) })).toBe(4);
    expect(scoredFrom('names', base)).toBe(0);
  });
});

describe('replay', () => {
  /** A clock of the test's own: schedule() queues, run(ms) fires what is due. */
  function clock() {
    const c = { t: 0, q: [], id: 0 };
    c.schedule = (fn, ms) => { c.q.push({ at: c.t + ms, fn, id: ++c.id }); return c.id; };
    c.cancel = (id) => { c.q = c.q.filter((x) => x.id !== id); };
    c.run = (ms) => {
      const end = c.t + ms;
      for (;;) {
        c.q.sort((a, b) => a.at - b.at);
        const next = c.q[0];
        if (!next || next.at > end) break;
        c.q.shift();
        c.t = next.at;
        next.fn();
      }
      c.t = end;
    };
    return c;
  }

  test('two snapshots a second, each only once its maps are drawn; done at the end', () => {
    const c = clock(), shown = [];
    let ready = true, done = 0;
    const r = new Replay({ n: 5, show: (i) => shown.push([i, c.t]), ready: () => ready, done: () => done++, schedule: c.schedule, cancel: c.cancel });
    r.start();
    c.run(1000);
    expect(shown).toEqual([[0, 0], [1, 500], [2, 1000]]);
    ready = false;  // snapshot 2's maps are slow: the replay waits for them
    c.run(700);
    expect(shown.length).toBe(3);
    ready = true;
    c.run(50);
    expect(shown.at(-1)).toEqual([3, 1750]);
    c.run(2000);
    expect(shown.map(([i]) => i)).toEqual([0, 1, 2, 3, 4]);
    expect(done).toBe(1);
    expect(r.running).toBe(false);
  });

  test('pauseAt: held on a boundary snapshot once drawn, told, and resume() goes on from the next', () => {
    const c = clock(), shown = [], held = [];
    let done = 0;
    const r = new Replay({ n: 6, show: (i) => shown.push(i), done: () => done++, pauseAt: (i) => i === 2 || i === 4,
      paused: (i) => held.push(i), schedule: c.schedule, cancel: c.cancel });
    r.start(0);
    c.run(10000);
    expect(shown).toEqual([0, 1, 2]);
    expect(held).toEqual([2]);
    expect([r.running, r.holding, done]).toEqual([false, true, 0]);
    r.resume();
    c.run(10000);
    expect(shown).toEqual([0, 1, 2, 3, 4]);
    expect(held).toEqual([2, 4]);
    r.resume();
    c.run(10000);
    expect(shown).toEqual([0, 1, 2, 3, 4, 5]);
    expect(done).toBe(1);
    expect(r.holding).toBe(false);
  });

  test('stop() ends it where it is', () => {
    const c = clock(), shown = [];
    let done = 0;
    const r = new Replay({ n: 10, show: (i) => shown.push(i), done: () => done++, schedule: c.schedule, cancel: c.cancel });
    r.start(2);
    c.run(600);
    r.stop();
    c.run(5000);
    expect(shown).toEqual([2, 3]);
    expect(done).toBe(1);
  });
});

describe('stages as they are reached (the strip of shown weights, stage pauses, a live run\'s clicks)', () => {
  const entry = (evalLoss, step) => ({ step, evalLoss, heads: heads(step) });
  test('reachedStage: loss ¾ of the untrained, then the previous-token head (≥ 0.25), then the induction head (≥ 0.5)', () => {
    expect(LOSS_FALL).toBe(0.75);
    expect(reachedStage(entry(3.0, 0), 3.2)).toEqual({ stage: 0, why: '' });
    expect(reachedStage(entry(2.4, 0), 3.2)).toEqual({ stage: 1, why: 'the held-out loss fell to 2.40, ≤ ¾ of the untrained 3.20' });
    expect(reachedStage(entry(2.41, 0), 3.2).stage).toBe(0);
    expect(reachedStage(entry(3.0, 300), 3.2)).toEqual({ stage: 2, why: 'L0H1’s previous-token score reached 0.90 (≥ 0.25)' });
    expect(reachedStage(entry(3.0, 600), 3.2)).toEqual({ stage: 3, why: 'L1H0’s induction score reached 0.90 (≥ 0.5)' });
    // A 1-layer model has no induction head: its stages end at the previous-token head.
    expect(reachedStage({ evalLoss: 1, heads: [heads(600)[0]] }, 3).stage).toBe(2);
    expect(reachedStage(null, 3).stage).toBe(0);
  });

  test('liveStageView: a live run\'s stage shows where the run reached it, its current weights when it has not', () => {
    const snaps = [0, 100, 200, 300, 400].map((st, i) => ({ index: i, ...entry([3.2, 3.0, 2.3, 2.2, 2.1][i], st) }));
    const now = entry(2.0, 450), first = 3.2;
    expect(liveStageView(snaps, now, 0, { firstLoss: first })).toMatchObject({ index: 0, focus: null, found: true, reached: 0 });
    expect(liveStageView(snaps, now, 1, { firstLoss: first })).toMatchObject({ index: 2, focus: null, emphasis: 'loss', found: true, reached: 1 });
    expect(liveStageView(snaps, now, 2, { firstLoss: first })).toMatchObject({ index: 3, focus: { layer: 0, head: 1, kind: 'prev' }, found: true });
    // No induction head yet (it forms at step 600 here): the current weights, said not found.
    expect(liveStageView(snaps, now, 3, { firstLoss: first })).toMatchObject({ index: null, focus: null, emphasis: 'induction', found: false, reached: 2 });
    const later = entry(0.5, 650);
    expect(liveStageView(snaps, later, 3, { firstLoss: first })).toMatchObject({ index: null, focus: { layer: 1, head: 0, kind: 'induction' }, found: true, reached: 3 });
    // Stage 1 reached only by the current weights: those, found.
    const early = snaps.slice(0, 2);
    expect(liveStageView(early, entry(2.3, 150), 1, { firstLoss: first })).toMatchObject({ index: null, found: true, reached: 1 });
    expect(liveStageView(early, entry(3.1, 150), 1, { firstLoss: first })).toMatchObject({ index: null, found: false, reached: 0 });
  });
});

describe('per-position loss', () => {
  test('with every head and without the ones off, the scored half marked', () => {
    const base = { tokenLosses: Float32Array.from([2.7, 2.7, 2.6, 0.1, 0.2, 0.1]) };
    const off = { tokenLosses: Float32Array.from([2.7, 2.6, 2.7, 2.5, 2.4, 2.6]) };
    const s = tokenLossSeries(base, off, { from: 3, offLabel: 'without L1H0' });
    expect(s.map((x) => x.label)).toEqual(['every head', 'without L1H0', 'scored from here']);
    expect(s[0].points[3][0]).toBe(3);
    expect(s[0].points[3][1]).toBeCloseTo(0.1, 6);
    expect(s[1].points.map(([, y]) => y)).toEqual(Array.from(off.tokenLosses));
    expect(s[2].points.map(([x]) => x)).toEqual([2.5, 2.5]);
    expect(tokenLossSeries(base, null).map((x) => x.key)).toEqual(['base']);
    expect(tokenLossSeries({}, null)).toEqual([]);
    // The means over the scored half (from position 3): 0.13 with every head, 2.5 without.
    expect(meanFrom(base.tokenLosses, 3)).toBeCloseTo(0.4 / 3, 6);
    expect(meanFrom(off.tokenLosses, 3)).toBeCloseTo(2.5, 6);
  });
});

describe('heads', () => {
  test('names count layers and heads from 0', () => {
    expect(headName(1, 3)).toBe('L1H3');
  });

  test('the head mask keeps every head but the ablated ones; null when none is', () => {
    expect(headMask([], 2, 4)).toBeNull();
    expect(headMask(null, 2, 4)).toBeNull();
    expect(headMask([1, 6], 2, 4)).toEqual([1, 0, 1, 1, 1, 1, 0, 1]);
    expect(headMask([9, -1, 2.5], 2, 4)).toBeNull();  // outside the model: ignored
  });

  test('toggleHead switches one head and keeps the list sorted', () => {
    expect(toggleHead([], 5)).toEqual([5]);
    expect(toggleHead([5], 1)).toEqual([1, 5]);
    expect(toggleHead([1, 5], 5)).toEqual([1]);
  });

  test('bestHead finds the largest score in the layers asked for', () => {
    expect(bestHead(heads(1000), 'prev', 0, 0)).toEqual({ layer: 0, head: 1, score: 0.9 });
    expect(bestHead(heads(1000), 'induction', 1)).toEqual({ layer: 1, head: 0, score: 0.9 });
    expect(bestHead([[{ prev: NaN, induction: NaN }]], 'induction')).toBeNull();
    expect(bestHead(undefined, 'prev')).toBeNull();
  });
});

describe('ablate: heads by name or role', () => {
  // At step 900 of heads(): L0H1 is the previous-token head, L1H0 the induction head (flat 1 and 2).
  const h = heads(900);
  test('roles are found in the scores: induction from layer 1 on, previous-token in layer 0', () => {
    expect(resolveHeads('induction', h)).toEqual({ ablated: [2], error: '' });
    expect(resolveHeads('previous-token', h)).toEqual({ ablated: [1], error: '' });
    expect(resolveHeads('previous-token, induction', h).ablated).toEqual([1, 2]);
    // Another run puts them elsewhere: the same words find them there.
    const swapped = h.map((row) => row.slice().reverse());
    expect(resolveHeads('induction previous-token', swapped).ablated).toEqual([0, 3]);
  });
  test('names, duplicates and an empty list', () => {
    expect(resolveHeads('L1H1 L0H0 L1H1', h).ablated).toEqual([0, 3]);
    expect(resolveHeads('', h)).toEqual({ ablated: [], error: '' });
    expect(resolveHeads('induction', null)).toEqual({ ablated: [], error: '' });  // no scores yet
  });
  test('what is not a head or a role is an error naming the attribute', () => {
    expect(resolveHeads('L2H0', h).error).toBe('ablate names L2H0, expected a head of this model (L0H0 … L1H1)');
    expect(resolveHeads('inductoin', h).error).toBe('ablate holds "inductoin", expected head names (L1H0) or roles: induction, previous-token, reverse');
  });
  test('a one-layer model has no induction head to switch off: an error, nothing ablated', () => {
    expect(resolveHeads('induction', [[{ prev: 0.2, induction: 0.1 }, { prev: 0.1, induction: 0.7 }]])).toEqual({
      ablated: [], error: 'ablate holds "induction", but a 1-layer model has no induction head (it needs a previous-token head in an earlier layer)' });
    expect(resolveHeads('previous-token', [[{ prev: 0.2, induction: 0.1 }, { prev: 0.6, induction: 0.7 }]]).ablated).toEqual([1]);
  });
});

describe('stages', () => {
  const snaps = snapshotsEvery100();

  test('0: the untrained snapshot, no head highlighted', () => {
    expect(stageView(snaps, 0)).toEqual({ index: 0, focus: null, emphasis: 'maps' });
  });

  test('1: the first snapshot at least halfway down the held-out loss', () => {
    expect(stageView(snaps, 1).index).toBe(6);
    expect(stageView(snaps, 1).emphasis).toBe('loss');
  });

  test('2: the first snapshot with a previous-token head in layer 0, that head highlighted', () => {
    const v = stageView(snaps, 2);
    expect(snaps[v.index].step).toBe(300);
    expect(v.focus).toEqual({ layer: 0, head: 1, kind: 'prev' });
  });

  test('3 (and no stage): the last snapshot, layer 1’s induction head highlighted', () => {
    const v = stageView(snaps, 3);
    expect(v.index).toBe(snaps.length - 1);
    expect(v.focus).toEqual({ layer: 1, head: 0, kind: 'induction' });
    expect(v.found).toBe(true);
    expect(stageView(snaps, null)).toEqual(v);
  });

  test('the reverse task ends on its best anti-diagonal head, in any layer', () => {
    const rev = [{ step: 0, evalLoss: 2, heads: [[{ prev: 0.1, reverse: 0.7 }, { prev: 0.1, reverse: 0.2 }], [{ prev: 0.1, reverse: 0.3 }, { prev: 0.1, reverse: 0.1 }]] }];
    expect(stageView(rev, 3, { final: 'reverse' })).toEqual({ index: 0, focus: { layer: 0, head: 0, kind: 'reverse' }, emphasis: 'reverse', found: true });
  });

  test('no snapshots: nothing to show', () => {
    expect(stageView([], 2)).toBeNull();
  });

  test('a one-layer model has no induction head: none highlighted, the stage not found, whatever layer 0 scores', () => {
    const one = [{ step: 0, evalLoss: 3, heads: [[{ prev: 0.2, induction: 0.1 }, { prev: 0.3, induction: 0.9 }]] }];
    expect(stageView(one, 3)).toEqual({ index: 0, focus: null, emphasis: 'induction', found: false });
  });

  test('a head under the threshold is no induction head (names: L1H0 at 0.31)', () => {
    const names = [{ step: 0, evalLoss: 3, heads: [[{ prev: 0.2, induction: 0.01 }, { prev: 0.16, induction: 0.06 }], [{ prev: 0.17, induction: 0.31 }, { prev: 0.2, induction: 0.01 }]] }];
    expect(stageView(names, 3)).toEqual({ index: 0, focus: null, emphasis: 'induction', found: false });
    // Stage 2 likewise: layer 0's best previous-token score 0.2 is no previous-token head.
    expect(stageView(names, 2).focus).toBeNull();
    expect(stageView(names, 2).found).toBe(false);
  });
});

describe('plot series', () => {
  const history = Array.from({ length: 11 }, (_, i) => ({ step: i * 50, loss: 3 - i * 0.1, evalLoss: 3.1 - i * 0.1, firstHalfLoss: 2.7, repeatedLoss: 2.7 - i * 0.2, ratio: 1 - i * 0.07, heads: heads(i * 50, 100, 300) }));

  test('loss: train and held-out for every task, the halves for induction only', () => {
    expect(lossSeries(history, 'names').map((s) => s.key)).toEqual(['loss', 'evalLoss']);
    const ind = lossSeries(history, 'induction');
    expect(ind.map((s) => s.key)).toEqual(['loss', 'evalLoss', 'firstHalfLoss', 'repeatedLoss']);
    expect(ind[3].points[4]).toEqual([history[4].step, history[4].repeatedLoss]);
    expect(ratioSeries(history)[0].points).toHaveLength(history.length);
    expect(ratioSeries([{ step: 0, loss: 1 }])).toEqual([]);
  });

  test('scores: one line per head; with a focus the others are grey and the focus is drawn last', () => {
    const s = scoreSeries(history, 'prev');
    expect(s.map((x) => x.key)).toEqual(['L0H0', 'L0H1', 'L1H0', 'L1H1']);
    expect(s[1].points.map(([, y]) => y)).toEqual(history.map((h) => h.heads[0][1].prev));
    const f = scoreSeries(history, 'prev', { layer: 0, head: 1 });
    expect(f[f.length - 1].key).toBe('L0H1');
    expect(new Set(f.slice(0, -1).map((x) => x.color)).size).toBe(1);
    expect(f[f.length - 1].color).not.toBe(f[0].color);
  });

  test('thin keeps long histories short, first and last kept', () => {
    const long = Array.from({ length: 1001 }, (_, i) => ({ step: i }));
    const t = thin(long, 100);
    expect(t.length).toBeLessThanOrEqual(101);
    expect(t[0].step).toBe(0);
    expect(t[t.length - 1].step).toBe(1000);
    expect(thin(history, 100)).toBe(history);
  });

  test('yRange spans the points (from the floor when given)', () => {
    const [lo, hi] = yRange([{ points: [[0, 1], [1, 3]] }]);
    expect(lo).toBeLessThan(1);
    expect(hi).toBeGreaterThan(3);
    expect(yRange([{ points: [[0, 1], [1, 3]] }], { floor: 0 })[0]).toBe(0);
    expect(yRange([])).toEqual([0, 1]);
  });

  test('clampIndex keeps a snapshot index inside the list (absent: the last)', () => {
    expect(clampIndex(7, 3)).toBe(2);
    expect(clampIndex(-1, 3)).toBe(0);
    expect(clampIndex(null, 3)).toBe(2);
    expect(clampIndex(0, 0)).toBeNull();
  });
});

describe('predictions', () => {
  test('each position beside the token after it, with and without the ablated heads', () => {
    const base = { ids: Int32Array.from([0, 1, 2, 1, 2]), tokens: ['^', 'A', 'B', 'A', 'B'], predictions: Int32Array.from([1, 1, 1, 2, 0]) };
    const abl = { ids: base.ids, tokens: base.tokens, predictions: Int32Array.from([1, 2, 1, 1, 0]) };
    const rows = predictionRows(base, abl, (id) => '^AB'[id], 2);
    expect(rows.map((r) => r.pos)).toEqual([2, 3]);
    expect(rows[1]).toEqual({ pos: 3, token: 'A', next: 'B', pred: 'B', predAblated: 'A', right: true, rightAblated: false });
    expect(predictionRows(base, null, null)[0].pred).toBe('#1');
    expect(predictionRows(null, null, null)).toEqual([]);
  });
});

describe('a live run (against a stand-in trainer)', () => {
  test('progress builds the history; snapshots are kept; the run asks to stop at the target (and pauses past it)', () => {
    const tr = new FakeTrainer(), changes = [];
    const run = new LiveRun(tr, { target: 200, onChange: (why) => changes.push(why) });
    run.start();
    expect(tr.startOptions).toEqual({ until: 200 });
    expect(run.running).toBe(true);
    tr.progress(100, { tokensPerSec: 5000, stepsPerSec: 20 });
    tr.snapshot(100);
    expect(run.history.map((h) => h.step)).toEqual([100]);
    expect(run.snapshots.map((s) => s.step)).toEqual([100]);
    expect(run.speed).toEqual({ tokensPerSec: 5000, stepsPerSec: 20 });
    expect(tr.calls).toEqual(['start']);
    tr.progress(200);
    expect(tr.calls).toEqual(['start', 'pause']);
    expect(run.running).toBe(false);
    expect(changes).toContain('snapshot');
  });

  test('an error stops the run and keeps its message and the snapshots', () => {
    const tr = new FakeTrainer();
    const run = new LiveRun(tr);
    run.start();
    tr.snapshot(0);
    tr.emit('error', { message: 'trainStep: loss is NaN' });
    expect(run.running).toBe(false);
    expect(run.error).toBe('trainStep: loss is NaN');
    expect(run.snapshots).toHaveLength(1);
    run.start();
    expect(run.error).toBe('');
  });

  test('a trainer without a history of its own: the run keeps one from the events (a reset starts it over)', () => {
    const tr = new FakeTrainer({ keepsHistory: false });
    const run = new LiveRun(tr);
    tr.progress(50);
    tr.progress(100);
    expect(run.history.map((h) => h.step)).toEqual([50, 100]);
    tr.progress(25);
    expect(run.history.map((h) => h.step)).toEqual([25]);
  });

  test('a step, a reset and disposing', async () => {
    const tr = new FakeTrainer();
    let changes = 0;
    const run = new LiveRun(tr, { onChange: () => { changes++; } });
    await run.step1(5);
    expect(run.step).toBe(5);
    expect(run.history.map((h) => h.step)).toEqual([5]);
    await run.reset();
    expect(run.history).toEqual([]);
    expect(run.step).toBe(0);
    run.dispose();
    const before = changes;
    tr.progress(50);
    expect(changes).toBe(before);  // no longer listening
    expect(run.step).toBe(0);
    expect(tr.terminated).toBe(true);
  });
});

test('latestOnly runs one request at a time and skips to the newest', async () => {
  const seen = [], done = [];
  let release;
  const fn = (r) => { seen.push(r); return new Promise((ok) => { release = () => ok(r * 10); }); };
  const ask = latestOnly(fn, (v) => done.push(v));
  ask(1); ask(2); ask(3);
  expect(seen).toEqual([1]);
  release();
  await new Promise((ok) => setTimeout(ok, 0));
  expect(seen).toEqual([1, 3]);
  release();
  await new Promise((ok) => setTimeout(ok, 0));
  expect(done).toEqual([10, 30]);
});

describe('names slide: the names of a sample, the samples shown', async () => {
  const { namesOfSample, samplesPanel } = await import('./logic.js');
  test('namesOfSample: the whole names, the one cut off at the end left out, at most 8', () => {
    expect(namesOfSample('emma.olivia.ava.sop')).toEqual(['emma', 'olivia', 'ava']);
    expect(namesOfSample('.emma..ava.')).toEqual(['emma', 'ava']);
    expect(namesOfSample('abc')).toEqual([]);
    expect(namesOfSample('a.b.c.d.e.f.g.h.i.j.')).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
    expect(namesOfSample('a.b.c.', 2)).toEqual(['a', 'b']);
  });
  const samples = Array.from({ length: 31 }, (_, i) => ({ step: i * 100, names: [`n${i}`] }));
  test('samplesPanel: the snapshot at or before the step, the ones just before it while few', () => {
    expect(samplesPanel(samples, -1)).toEqual({ now: null, before: [] });
    expect(samplesPanel([], 500)).toEqual({ now: null, before: [] });
    expect(samplesPanel(samples, 0)).toEqual({ now: samples[0], before: [] });
    expect(samplesPanel(samples, 250)).toEqual({ now: samples[2], before: [samples[0], samples[1]] });
    expect(samplesPanel(samples, 399)).toEqual({ now: samples[3], before: samples.slice(0, 3) });
  });
  test('samplesPanel: spread from the first snapshot on (as a cube) when many came before', () => {
    // step 3000 = index 30: 30·(k/3)³ for k = 0, 1, 2 → 0, 1.1, 8.9 → steps 0, 100, 900.
    expect(samplesPanel(samples, 3000).before.map((x) => x.step)).toEqual([0, 100, 900]);
    expect(samplesPanel(samples, 3000).now.step).toBe(3000);
    // index 5: 0, 0.19, 1.5 → 0, 0, 1 → distinct: 0, 1, 2 (older than now, in order).
    expect(samplesPanel(samples, 500).before.map((x) => x.step)).toEqual([0, 100, 200]);
    expect(samplesPanel(samples, 500, 2).before.map((x) => x.step)).toEqual([0, 100]);
  });
});
