// engine.js — the training loop behind createTrainer (web/train/trainer.js), one implementation for both
// places it runs: inside the Web Worker (trainer.worker.js) and on the caller's thread (worker: false).
//
//   resolveOptions(options)  createTrainer's options checked and filled in → a plain, cloneable config
//                            (after `await loadOptionsData(options)`: the names task's list is a file)
//   Engine                   one model on one task: a training step, the held-out evaluation, snapshots,
//                            inspect / sample / save; the numbers all come from lab.createModel's model
//   Host                     the command loop around an Engine: the trainer's messages in ({ op, … }),
//                            events and replies out; runs steps in slices of ~sliceMs and yields between
//                            them so pause / inspect are handled within one slice
//
// The protocol (trainer.js ⇄ Host), the same whether the Host is in a worker or in-thread:
//   in:  { op: 'init' | 'start' | 'pause' | 'step' | 'reset' | 'inspect' | 'sample' | 'save' | 'dispose',
//          id?, seq, …arguments }
//   out: { kind: 'reply', id, ok, value | message }  answers a command that had an id
//        { kind: 'event', name, detail, gen, seq }   'progress' | 'snapshot' | 'state' | 'error'
// gen counts resets (events of an older run are dropped by the trainer); seq is the last command the
// Host had handled when it sent the event (a 'state' older than the caller's last start/pause is stale).
// Progress is posted at most every progressMs (default 50 ms: ≤ 20 messages a second), with the
// held-out numbers of the latest evaluation; every evaluation since the previous message rides along in
// detail.lossHistory, so the main thread never sees per-step traffic.

import { describe as show, fail, int, num, bool, noUnknownKeys, requireObject, AttnLabError } from '../api/validate.js';
import { createTask, loadTaskData, mulberry32, TASK_NAMES } from './tasks.js';
import { headScores, lossSplit, reverseHeadScore } from './scores.js';

// ---- Options -----------------------------------------------------------------------------------

// Model defaults per task (vocab and context always come from the task). Induction: the two-layer
// attention-only model of Olsson et al. (the smallest that can form an induction head), without
// LayerNorm, initialised with σ = 0.25 (createModel's initStd; its default 0.02 leaves this model on
// the loss plateau for thousands of steps: measured, 2×4 heads, dModel 64, batch 16, lr 1e-3, period
// 4…11 — ratio 0.999 after 3,000 steps at 0.02, below 0.15 at step 1,150 with 0.25).
export const MODEL_DEFAULTS = Object.freeze({
  induction: Object.freeze({ layers: 2, heads: 4, dModel: 64, attentionOnly: true, layerNorm: false, initStd: 0.25 }),
  names: Object.freeze({ layers: 2, heads: 4, dModel: 64, attentionOnly: false, layerNorm: true }),
  reverse: Object.freeze({ layers: 2, heads: 4, dModel: 64, attentionOnly: false, layerNorm: true }),
});
const MODEL_KEYS = ['layers', 'heads', 'dModel', 'dFF', 'attentionOnly', 'layerNorm', 'activation', 'initStd', 'seed'];
const OPTIMIZER_KEYS = ['lr', 'weightDecay', 'maxGradNorm', 'warmupSteps', 'beta1', 'beta2', 'eps'];
const OPTION_KEYS = ['task', 'model', 'optimizer', 'batch', 'evalEvery', 'snapshotEvery', 'evalSize', 'worker',
  'checkpoint', 'lab'];

// An exploding run: the held-out loss above EXPLODE_FACTOR × the first evaluation's for EXPLODE_EVALS
// evaluations in a row (one bad evaluation can be a spike the optimizer recovers from).
export const EXPLODE_FACTOR = 10;
export const EXPLODE_EVALS = 3;
// The smoothing of the reported training loss: an EMA over ~20 steps.
const EMA_BETA = 0.95;

const FN = 'createTrainer';

function seedOf(fn, name, v) {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v >= 2 ** 32)
    fail(fn, `${name} is ${show(v)}, expected an integer in [0, 2^32)`);
  return v;
}

// `task`: a name, or { name, …options of that task's factory in tasks.js } → [name, options or undefined].
function splitTask(spec) {
  spec ??= 'induction';
  if (spec && typeof spec === 'object' && !Array.isArray(spec)) {
    const { name, ...options } = spec;
    return [name, options];
  }
  return [spec, undefined];
}

/** Loads what the task of createTrainer's `options` reads from a file (names: the list), if anything. */
export async function loadOptionsData(options) {
  if (options && typeof options === 'object') await loadTaskData(...splitTask(options.task));
}

/**
 * createTrainer's options, checked, with defaults filled in: a structured-cloneable object (what the
 * worker receives). `task` is a name or { name, …options of that task's factory in tasks.js }; a task
 * that reads a file (names) needs `await loadOptionsData(options)` first.
 */
export function resolveOptions(options = {}) {
  requireObject(FN, options);
  noUnknownKeys(FN, options, OPTION_KEYS);
  const [taskName, taskOptions] = splitTask(options.task);
  if (!TASK_NAMES.includes(taskName))
    fail(FN, `task is ${show(taskName)}, expected one of ${TASK_NAMES.map((s) => `'${s}'`).join(', ')} (or { name, …task options })`);
  const task = createTask(taskName, taskOptions);  // checks the task's own options now, not in the worker

  const m = options.model === undefined ? {} : requireObject(`${FN}: model`, options.model);
  for (const k of ['vocab', 'context'])
    if (m[k] !== undefined) fail(FN, `model.${k} is ${show(m[k])}, expected it absent: the task sets it (${task.name}: ${k} = ${task[k]})`);
  noUnknownKeys(`${FN}: model`, m, MODEL_KEYS);
  const d = MODEL_DEFAULTS[taskName];
  const model = {
    vocab: task.vocab,
    context: task.context,
    layers: int(FN, 'model.layers', m.layers, { dflt: d.layers }),
    heads: int(FN, 'model.heads', m.heads, { dflt: d.heads }),
    dModel: int(FN, 'model.dModel', m.dModel, { dflt: d.dModel }),
    attentionOnly: bool(FN, 'model.attentionOnly', m.attentionOnly, d.attentionOnly),
    layerNorm: bool(FN, 'model.layerNorm', m.layerNorm, d.layerNorm),
    seed: m.seed === undefined ? 0 : seedOf(FN, 'model.seed', m.seed),
  };
  if (m.dFF !== undefined) model.dFF = int(FN, 'model.dFF', m.dFF);
  if (m.activation !== undefined) model.activation = m.activation;  // createModel checks the name
  const initStd = m.initStd ?? d.initStd;
  if (initStd !== undefined) model.initStd = num(FN, 'model.initStd', initStd, { positive: true });

  const o = options.optimizer === undefined ? {} : requireObject(`${FN}: optimizer`, options.optimizer);
  noUnknownKeys(`${FN}: optimizer`, o, OPTIMIZER_KEYS);
  const optimizer = {
    lr: num(FN, 'optimizer.lr', o.lr, { dflt: 1e-3, positive: true }),
    weightDecay: num(FN, 'optimizer.weightDecay', o.weightDecay, { dflt: 0.01, min: 0 }),
    // Clipping at 1 (nanoGPT's default) keeps the small models of the lecture stable at lr 1e-3.
    maxGradNorm: o.maxGradNorm === Infinity ? Infinity : num(FN, 'optimizer.maxGradNorm', o.maxGradNorm, { dflt: 1, positive: true }),
    warmupSteps: int(FN, 'optimizer.warmupSteps', o.warmupSteps, { min: 0, dflt: 0 }),
  };
  for (const k of ['beta1', 'beta2', 'eps']) if (o[k] !== undefined) optimizer[k] = num(FN, `optimizer.${k}`, o[k]);

  let checkpoint = null;
  if (options.checkpoint !== undefined && options.checkpoint !== null) {
    const c = options.checkpoint;
    if (!(c instanceof Uint8Array) && !(c instanceof ArrayBuffer))
      fail(FN, `checkpoint is ${show(c)}, expected a Uint8Array (model.save() bytes)`);
    checkpoint = c instanceof ArrayBuffer ? new Uint8Array(c) : c;
  }
  if (options.worker !== undefined) bool(FN, 'worker', options.worker);
  return {
    task: taskName,
    taskOptions: taskOptions ?? null,
    model,
    optimizer,
    batch: int(FN, 'batch', options.batch, { dflt: 1, max: 4096 }),
    evalEvery: int(FN, 'evalEvery', options.evalEvery, { dflt: 50 }),
    snapshotEvery: int(FN, 'snapshotEvery', options.snapshotEvery, { dflt: 200 }),
    evalSize: int(FN, 'evalSize', options.evalSize, { dflt: 32, max: 4096 }),
    checkpoint,
  };
}

// ---- The evaluation context: task + fixed held-out set ------------------------------------------

/** The task and its fixed held-out batch (seeded: the same sequences on every run and every thread). */
export function evalContext(config) {
  const task = createTask(config.task, config.taskOptions ?? undefined);
  const heldOut = task.heldOut(config.evalSize);
  // The sequence inspect() shows: the first held-out row, with its masks.
  const t = heldOut.t, row = (a) => (a ? a.slice(0, t) : undefined);
  const first = { ids: row(heldOut.ids), targets: row(heldOut.targets), batch: 1, t,
    first: row(heldOut.first), repeated: row(heldOut.repeated), answer: row(heldOut.answer) };
  return { task, heldOut, first };
}

/**
 * The held-out numbers of one model (a live run's or a snapshot's): the loss over `heldOut` (a task's
 * heldOut() batch), its first/repeated-half split (induction) and every head's scores.
 *   → { evalLoss, firstHalfLoss, repeatedLoss, ratio, heads }
 */
export function evaluateModel(model, heldOut) {
  const r = model.forward({ ids: heldOut.ids, targets: heldOut.targets, batch: heldOut.batch, attention: true });
  return { evalLoss: r.loss, ...measure(r, heldOut) };
}

// Loss split, ratio and per-head scores of one forward over `data` (a task batch with masks).
function measure(r, data) {
  let split = { firstHalfLoss: null, repeatedLoss: null, ratio: null };
  if (data.first && data.repeated) split = lossSplit(r.tokenLosses, data);
  const heads = headScores(r, data.ids, { positions: data.repeated });
  if (data.answer) {  // reverse: the anti-diagonal head too
    r.attention.forEach((row, l) => row.forEach((att, h) => { heads[l][h].reverse = reverseHeadScore(att, r.t, r.batch, l); }));
  }
  return { ...split, heads };
}

function argmaxRows(logits, rows, vocab) {
  const out = new Int32Array(rows);
  for (let i = 0; i < rows; i++) {
    let best = 0, bv = -Infinity;
    for (let v = 0; v < vocab; v++) {
      const x = logits[i * vocab + v];
      if (x > bv) { bv = x; best = v; }
    }
    out[i] = best;
  }
  return out;
}

/**
 * What inspect() returns, for any model (the trainer's, or one loaded from a snapshot's bytes): the
 * eval sequence's attention maps, token losses, predictions and scores. headMask: [layers·heads] or null.
 */
export function inspectModel(model, ctx, headMask = null) {
  const { task, first } = ctx;
  if (headMask !== null && headMask !== undefined) model.setHeadMask(Array.from(headMask));
  let r;
  try {
    r = model.forward({ ids: first.ids, targets: first.targets, batch: 1, attention: true });
  } finally {
    if (headMask !== null && headMask !== undefined) model.setHeadMask(null);
  }
  const { ratio, heads } = measure(r, first);
  return {
    ids: first.ids.slice(),
    targets: first.targets.slice(),     // [t]: the next token at each position (the last one too)
    answer: first.answer ? first.answer.slice() : undefined,  // reverse: 1 on the reversed half
    tokens: Array.from(first.ids, (id) => task.decode([id])),
    attention: r.attention,
    tokenLosses: r.tokenLosses,
    loss: r.loss,
    predictions: argmaxRows(r.logits, first.t, model.config.vocab),
    ratio,
    heads,
  };
}

/** Buffers of an inspect result to transfer instead of copying. */
export function inspectTransfer(res) {
  // The attention maps are views of one buffer: list each buffer once.
  return [...new Set([res.ids.buffer, res.tokenLosses.buffer, res.predictions.buffer, ...res.attention.flat().map((a) => a.buffer)])];
}

// ---- Engine: one model training on one task ------------------------------------------------------

/** Thrown by Engine.trainOne when training must stop (non-finite or exploding loss). */
export class TrainingFault extends Error {
  constructor(message) {
    super(message);
    this.name = 'TrainingFault';
  }
}

export class Engine {
  /**
   * @param lab     an AttnLab (createAttnLab)
   * @param config  resolveOptions(...)
   * @param hooks   { onEval(point), onSnapshot(snapshot) } — called from inside trainOne/start
   */
  constructor(lab, config, hooks = {}) {
    this.lab = lab;
    this.config = config;
    this.hooks = hooks;
    this.ctx = evalContext(config);
    this.seed = config.model.seed;
    this.model = null;
    this.#build();
  }

  get task() { return this.ctx.task; }
  /** Optimizer steps taken (model.step, kept here: the loop reads it after every step). */
  get step() { return this.stepCount; }

  #build() {
    const { config, ctx: { task } } = this;
    if (config.checkpoint) {
      const model = this.lab.loadModel(config.checkpoint);
      const c = model.config;
      if (c.vocab !== task.vocab || c.context < task.context) {
        model.dispose();
        fail(FN, `checkpoint has vocab = ${c.vocab}, context = ${c.context}, expected the ${task.name} task's vocab = ${task.vocab} and context ≥ ${task.context}`);
      }
      this.model = model;
    } else {
      this.model = this.lab.createModel({ ...config.model, seed: this.seed });
    }
    this.stepCount = this.model.step;
    this.rng = mulberry32(this.seed);
    this.smoothed = null;      // EMA of the training loss (debiased)
    this.ema = 0;
    this.emaWeight = 0;
    this.lastEval = null;
    this.firstEvalLoss = null;
    this.badEvals = 0;
    this.snapshotCount = 0;
  }

  /** Back to the start (a fresh model from `seed`, or the checkpoint again); the old model is freed. */
  reset(seed = this.seed) {
    this.model?.dispose();
    this.model = null;
    this.seed = seed;
    this.#build();
  }

  dispose() {
    this.model?.dispose();
    this.model = null;
  }

  /** The evaluation and snapshot every run starts with (step 0, or the checkpoint's step). */
  begin() {
    const e = this.evaluate();
    this.firstEvalLoss = e.evalLoss;
    this.#snapshot(e);
    return e;
  }

  lrAt(step) {
    const { lr, warmupSteps } = this.config.optimizer;
    return warmupSteps > 0 ? lr * Math.min(1, (step + 1) / warmupSteps) : lr;
  }

  /**
   * One optimizer step on a fresh batch; then, on the schedule, an evaluation and a snapshot. A
   * non-finite loss (the model's trainStep refuses it and changes nothing) or an exploding held-out
   * loss throws a TrainingFault; the snapshots taken before stay the last good ones.
   */
  trainOne() {
    const { config, model } = this;
    const data = this.ctx.task.batch(this.rng, config.batch);
    const o = config.optimizer;
    let res;
    try {
      res = model.trainStep({ ids: data.ids, targets: data.targets, batch: data.batch, lr: this.lrAt(this.stepCount),
        weightDecay: o.weightDecay, maxGradNorm: o.maxGradNorm, beta1: o.beta1, beta2: o.beta2, eps: o.eps });
    } catch (e) {
      if (e instanceof AttnLabError) throw new TrainingFault(`training stopped at step ${this.stepCount}: ${e.message}`);
      throw e;
    }
    // EMA with the bias of its zero start divided out (as Adam does), so the first steps read true.
    this.ema = EMA_BETA * this.ema + (1 - EMA_BETA) * res.loss;
    this.emaWeight = EMA_BETA * this.emaWeight + (1 - EMA_BETA);
    this.smoothed = this.ema / this.emaWeight;
    this.lastLoss = res.loss;
    const step = this.stepCount = res.step;
    const due = (every) => step % every === 0;
    if (due(config.evalEvery) || due(config.snapshotEvery)) {
      const e = this.evaluate();
      const factor = EXPLODE_FACTOR * this.firstEvalLoss;
      if (!Number.isFinite(e.evalLoss)) this.badEvals = EXPLODE_EVALS;
      else this.badEvals = e.evalLoss > factor ? this.badEvals + 1 : 0;
      if (this.badEvals >= EXPLODE_EVALS)
        throw new TrainingFault(`training stopped at step ${step}: the held-out loss ${e.evalLoss.toPrecision(4)} exploded ` +
          `(above ${EXPLODE_FACTOR}× the first ${this.firstEvalLoss.toPrecision(4)} for ${EXPLODE_EVALS} evaluations); try a smaller lr`);
      if (due(config.snapshotEvery) && this.badEvals === 0) this.#snapshot(e);
    }
    return res;
  }

  /** The held-out loss, loss split (induction) and head scores of the current weights. */
  evaluate() {
    const e = evaluateModel(this.model, this.ctx.heldOut);
    const point = { step: this.stepCount, loss: this.smoothed ?? e.evalLoss, ...e };
    this.lastEval = point;
    this.hooks.onEval?.(point);
    return point;
  }

  #snapshot(e) {
    const snap = { index: this.snapshotCount++, step: e.step, evalLoss: e.evalLoss, ratio: e.ratio, heads: e.heads,
      bytes: this.model.save() };
    this.hooks.onSnapshot?.(snap);
  }

  inspect(bytes, headMask) {
    if (!bytes) return inspectModel(this.model, this.ctx, headMask);
    const m = this.lab.loadModel(bytes);
    try {
      return inspectModel(m, this.ctx, headMask);
    } finally {
      m.dispose();
    }
  }

  /**
   * Generated text (names: the names as one string, '.'-separated) or token ids (other tasks), from the
   * current weights or, with `bytes`, a snapshot's.
   */
  sample({ steps = this.ctx.task.context, temperature = 1, seed = 0, topK, prompt } = {}, bytes = null) {
    const task = this.ctx.task;
    let p = prompt;
    if (p === undefined) p = task.name === 'names' ? [task.delimiter] : this.ctx.first.ids.slice(0, Math.max(1, this.ctx.first.t >> 1));
    if (typeof p === 'string') p = task.encode(p);
    const m = bytes ? this.lab.loadModel(bytes) : this.model;
    let out;
    try {
      out = m.generate({ prompt: Int32Array.from(p), steps, temperature, seed, topK });
    } finally {
      if (bytes) m.dispose();
    }
    return task.name === 'names' ? task.decode(out) : out;
  }

  save(optimizer = false) {
    return this.model.save({ optimizer });
  }
}

// ---- Scheduling --------------------------------------------------------------------------------

const now = () => performance.now();

// Yield to the event loop so queued messages (pause, inspect) run between slices. setTimeout(0) is
// clamped to ≥ 4 ms after a few nested calls (a quarter of a 12 ms slice); a MessageChannel round trip
// is not. Node has setImmediate (and a MessageChannel there would keep the process alive).
let channel = null;
const pendingYields = [];
function yieldTask() {
  if (typeof setImmediate === 'function') return new Promise((ok) => setImmediate(ok));
  if (!channel) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => pendingYields.shift()?.();
  }
  return new Promise((ok) => {
    pendingYields.push(ok);
    channel.port2.postMessage(0);
  });
}

/**
 * The command loop around an Engine (see the protocol at the top). `post(message, transfer)` sends
 * to the trainer; `createLab()` makes the lab (once, on 'init').
 */
export class Host {
  /**
   * clock: { now() ms, sleep(ms) → Promise } for the rate of start({ rate }) (a test passes its own, so
   * the steps a rate allows can be counted without timing anything).
   */
  constructor({ createLab, post, sliceMs = 12, progressMs = 50, clock = { now, sleep: (ms) => new Promise((ok) => setTimeout(ok, ms)) } }) {
    this.clock = clock;
    this.createLab = createLab;
    this.post = post;
    this.sliceMs = sliceMs;
    this.progressMs = progressMs;
    this.engine = null;
    this.lab = null;
    this.gen = 0;
    this.seq = 0;
    this.running = false;
    this.until = Infinity;    // start({ until }): running stops at this step
    this.rate = Infinity;     // start({ rate }): at most this many steps a second while running (step(n) is not limited)
    this.rateT0 = 0;          // when the rate's clock started (the start) and the step it started at
    this.rateStep0 = 0;
    this.waiters = [];        // step(n): { target, ok, no }
    this.looping = false;
    this.closed = false;
    this.pendingHistory = [];
    this.lastPost = -Infinity;
    this.lastStep = 0;
    this.activeMs = 0;
    this.sliceStart = null;  // when the slice under way began (null between slices)
    this.ready = null;
  }

  /** One message from the trainer. Returns a promise that settles when the command has been handled. */
  receive(msg) {
    if (msg.op === 'init') {
      this.ready = this.#run(msg, () => this.#init(msg.config));
      return this.ready;
    }
    const go = () => this.#run(msg, () => this.#handle(msg));
    return this.ready ? this.ready.then(go, go) : go();
  }

  async #run(msg, fn) {
    if (msg.seq !== undefined) this.seq = msg.seq;
    try {
      const { value, transfer } = (await fn()) ?? {};
      if (msg.id !== undefined) this.post({ kind: 'reply', id: msg.id, ok: true, value }, transfer ?? []);
    } catch (e) {
      if (msg.id !== undefined) this.post({ kind: 'reply', id: msg.id, ok: false, message: e?.message ?? String(e), name: e?.name });
    }
  }

  async #init(config) {
    await loadTaskData(config.task, config.taskOptions ?? undefined);
    this.lab = await this.createLab();
    this.engine = new Engine(this.lab, config, this.#hooks());
    this.#begin();
    return { value: { step: this.engine.step, config: this.engine.model.config } };
  }

  #hooks() {
    return {
      onEval: (point) => this.pendingHistory.push(point),
      onSnapshot: (snap) => {
        this.#progress();  // the evaluation this snapshot carries reaches the trainer first
        this.#event('snapshot', snap, [snap.bytes.buffer]);
      },
    };
  }

  #begin() {
    this.lastStep = this.engine.step;
    this.activeMs = 0;
    this.engine.begin();
    this.#progress();
  }

  #event(name, detail, transfer = []) {
    this.post({ kind: 'event', name, detail, gen: this.gen, seq: this.seq }, transfer);
  }

  #state() {
    this.#event('state', { running: this.running, step: this.engine?.step ?? 0 });
  }

  // Progress: the latest numbers and every evaluation since the last message. Returns nothing when
  // there is nothing new.
  #progress() {
    const e = this.engine;
    if (!e) return;
    const history = this.pendingHistory;
    const step = e.step;
    if (!history.length && step === this.lastPostedStep) return;
    this.pendingHistory = [];
    const steps = step - this.lastStep;
    // Time spent stepping since the last message (a snapshot posts from inside a slice: count it so far).
    const t = now(), active = this.activeMs + (this.sliceStart === null ? 0 : t - this.sliceStart);
    const stepsPerSec = active > 0 && steps > 0 ? (steps * 1000) / active : null;
    this.lastStep = step;
    this.activeMs = 0;
    if (this.sliceStart !== null) this.sliceStart = t;
    const ev = e.lastEval ?? {};
    const tokens = e.config.batch * e.ctx.task.context;
    this.#event('progress', {
      step,
      loss: e.smoothed ?? ev.evalLoss ?? null,
      evalStep: ev.step ?? null,
      evalLoss: ev.evalLoss ?? null,
      firstHalfLoss: ev.firstHalfLoss ?? null,
      repeatedLoss: ev.repeatedLoss ?? null,
      ratio: ev.ratio ?? null,
      heads: ev.heads ?? null,
      stepsPerSec,
      tokensPerSec: stepsPerSec === null ? null : stepsPerSec * tokens,
      lossHistory: history,
    });
    this.lastPost = now();
    this.lastPostedStep = step;
  }

  #target() {
    return this.waiters.reduce((m, w) => Math.max(m, w.target), -Infinity);
  }

  #busy() {
    return !this.closed && !!this.engine && ((this.running && this.engine.step < this.until) || this.engine.step < this.#target());
  }

  #settle(all = false, error = null) {
    const step = this.engine?.step ?? 0;
    const keep = [];
    for (const w of this.waiters) {
      if (error) w.no(error);
      else if (all || step >= w.target) w.ok(step);
      else keep.push(w);
    }
    this.waiters = keep;
  }

  #kick() {
    if (this.looping || !this.#busy()) return;
    this.looping = true;
    this.#loop().finally(() => { this.looping = false; });
  }

  /**
   * While running at a finite rate (and no step(n) waits): how long until the next step is due (ms;
   * ≤ 0: now). The steps follow the clock of the start: step k after the start is due at k / rate s.
   */
  #rateWait() {
    if (!(this.rate < Infinity) || !this.running || this.waiters.length) return 0;
    const done = this.engine.step - this.rateStep0;
    return this.rateT0 + ((done + 1) * 1000) / this.rate - this.clock.now();
  }

  async #loop() {
    await yieldTask();
    while (this.#busy()) {
      const e = this.engine;
      const wait = this.#rateWait();
      if (wait > 0) {
        // Ahead of the chosen rate: sleep (pause, inspect, a new rate are handled meanwhile). The sleep
        // counts as training time, so stepsPerSec reports the rate the steps come at.
        const t = this.clock.now();
        await this.clock.sleep(Math.min(wait, 250));
        this.activeMs += this.clock.now() - t;
        if (now() - this.lastPost >= this.progressMs) this.#progress();
        continue;
      }
      const t0 = now();
      this.sliceStart = t0;
      try {
        do e.trainOne();
        while (now() - t0 < this.sliceMs && this.#busy() && this.#rateWait() <= 0);
      } catch (err) {
        this.#endSlice();
        this.#fault(err);
        return;
      }
      this.#endSlice();
      // A step(n) that is done gets its answer after the progress message with its last step.
      const done = this.waiters.some((w) => e.step >= w.target);
      if (done || now() - this.lastPost >= this.progressMs) this.#progress();
      this.#settle();
      await yieldTask();
    }
    this.#progress();
    this.#settle(true);
    if (this.running && this.engine && this.engine.step >= this.until) {  // start({ until }) reached its step
      this.running = false;
      this.#state();
    }
  }

  #endSlice() {
    this.activeMs += now() - this.sliceStart;
    this.sliceStart = null;
  }

  #fault(err) {
    const message = err instanceof TrainingFault ? err.message : `training stopped: ${err?.message ?? err}`;
    const wasRunning = this.running;
    this.running = false;
    this.#progress();
    this.#settle(false, new AttnLabError(message));
    this.#event('error', { message, step: this.engine?.step ?? 0 });
    if (wasRunning) this.#state();
  }

  #handle(msg) {
    if (msg.op === 'dispose') return this.dispose();
    if (this.closed) throw new AttnLabError(`${msg.op}: the trainer was terminated, expected a live trainer`);
    if (!this.engine) throw new AttnLabError(`${msg.op}: the trainer is not initialised`);
    switch (msg.op) {
      case 'start':
        this.until = msg.until ?? Infinity;
        // The rate's clock starts now (a resume or a new rate: from the step where it is).
        this.rate = msg.rate ?? Infinity;
        this.rateT0 = this.clock.now();
        this.rateStep0 = this.engine.step;
        if (this.engine.step >= this.until) {  // already there: nothing to run, and the caller is told so
          this.running = false;
          this.#state();
          return;
        }
        if (!this.running) {
          this.running = true;
          this.#state();
        }
        this.#kick();
        return;
      case 'pause':
        if (this.running) {
          this.running = false;
          this.#state();
        }
        this.#progress();
        this.#settle(true);
        return;
      case 'step': {
        const n = int('step', 'n', msg.n ?? 1);
        return new Promise((ok, no) => {
          this.waiters.push({ target: this.engine.step + n, ok: (step) => ok({ value: step }), no });
          this.#kick();
        });
      }
      case 'reset': {
        const seed = msg.seed === undefined ? this.engine.seed : seedOf('reset', 'seed', msg.seed);
        this.running = false;
        this.#settle(true);
        this.pendingHistory = [];
        this.gen++;
        this.engine.reset(seed);
        this.#state();
        this.#begin();
        return { value: { step: this.engine.step, gen: this.gen } };
      }
      case 'inspect': {
        const res = this.engine.inspect(msg.bytes ?? null, msg.headMask ?? null);
        return { value: res, transfer: inspectTransfer(res) };
      }
      case 'sample': {
        const out = this.engine.sample(msg.args ?? {}, msg.bytes ?? null);
        return { value: out, transfer: typeof out === 'string' ? [] : [out.buffer] };
      }
      case 'save': {
        const bytes = this.engine.save(!!msg.optimizer);
        return { value: bytes, transfer: [bytes.buffer] };
      }
      case 'info':
        return { value: { step: this.engine.step, heap: this.lab.info(), running: this.running } };
      default:
        throw new AttnLabError(`trainer: unknown command ${show(msg.op)}`);
    }
  }

  /** Stops training and frees the model (the lab stays: it may be the caller's). */
  dispose() {
    this.running = false;
    this.closed = true;
    this.#settle(true);
    this.engine?.dispose();
    this.engine = null;
  }
}
