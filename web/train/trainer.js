// trainer.js — createTrainer: train a small GPT (lab.createModel) on one of the lecture's tasks
// (tasks.js) in a Web Worker, or on this thread (worker: false, e.g. in Node), and watch it learn.
//
//   import { createTrainer } from 'attnlab/train';
//   const trainer = await createTrainer({ task: 'induction', batch: 8, evalEvery: 25 });
//   trainer.addEventListener('progress', (e) => plot(e.detail));   // ≤ 20 a second
//   trainer.start();  …  trainer.pause();
//   const view = await trainer.inspect({ snapshot: 3 });             // attention maps of snapshot 3
//
// The loop itself (steps, held-out evaluation, snapshots, faults) is engine.js's, the same code in the
// worker and on this thread. This side keeps what the page needs between messages: the snapshots (their
// checkpoint bytes), the history of evaluations, running / stepCount. The worker sends only small
// messages (progress at most every 50 ms, a snapshot's bytes transferred, never per step), so handling
// one costs this thread next to nothing. After terminate() the snapshots stay inspectable: their bytes
// are here, and inspect() then runs one forward pass on a lab of this thread.

import { AttnLabError, describe as show, fail, int, requireObject, noUnknownKeys } from '../api/validate.js';
import { Host, evalContext, inspectModel, loadOptionsData, resolveOptions } from './engine.js';

const hasWorker = () => typeof Worker === 'function';

/**
 * Creates a trainer and its model (and, with worker: true, its worker and the worker's WASM module),
 * evaluates the untrained model and takes snapshot 0. Options: see index.d.ts (TrainerOptions).
 */
export async function createTrainer(options = {}) {
  await loadOptionsData(options);  // the names task's list (a file): here, and in the worker on 'init'
  const config = resolveOptions(options);
  const useWorker = options.worker ?? hasWorker();
  if (useWorker && !hasWorker())
    fail('createTrainer', 'worker is true, but this runtime has no Web Worker, expected worker: false (train on this thread)');
  const trainer = new Trainer(config, { useWorker, lab: options.lab ?? null }, INTERNAL);
  await trainer[INIT]();
  return trainer;
}

const INTERNAL = Symbol('Trainer');
const INIT = Symbol('init');

/**
 * A training run. Events (CustomEvent, the payload in `detail`):
 *   progress  { step, loss, evalStep, evalLoss, firstHalfLoss, repeatedLoss, ratio, heads, stepsPerSec,
 *               tokensPerSec, lossHistory }   at most every 50 ms while steps are taken
 *   snapshot  { index, step, evalLoss, ratio, heads, bytes }
 *   state     { running, step }
 *   error     { message, step }   non-finite or exploding loss: training stopped, snapshots kept
 */
export class Trainer extends EventTarget {
  #config; #useWorker; #worker = null; #host = null; #lab; #labPromise = null; #ctx = null;
  #pending = new Map(); #nextId = 1; #seq = 0; #gen = 0; #terminated = false; #send = null;
  #stats = { messages: 0, maxMs: 0, totalMs: 0 };

  constructor(config, { useWorker, lab }, key) {
    if (key !== INTERNAL) throw new TypeError('Trainer: use createTrainer(options)');
    super();
    this.#config = config;
    this.#useWorker = useWorker;
    this.#lab = lab;
    /** True while training runs on its own (start() … pause()). */
    this.running = false;
    /** Optimizer steps taken (as of the last message from the loop). */
    this.stepCount = 0;
    /** [{ index, step, evalLoss, ratio, heads, bytes }] — bytes: the weights (lab.loadModel format). */
    this.snapshots = [];
    /** One entry per held-out evaluation: [{ step, loss, evalLoss, firstHalfLoss, repeatedLoss, ratio, heads }]. */
    this.history = [];
    /** The model's resolved config (createModel's), once created. */
    this.modelConfig = null;
  }

  /** The task (tasks.js: vocab, context, encode, decode, …). */
  get task() { return this.#context().task; }
  /** The trainer's resolved options (resolveOptions in engine.js). */
  get config() { return this.#config; }
  /** Handling of the loop's messages on this thread: { messages, maxMs, totalMs } (listeners included). */
  get messageStats() { return { ...this.#stats }; }

  #context() {
    this.#ctx ??= evalContext(this.#config);
    return this.#ctx;
  }

  async [INIT]() {
    let send;
    if (this.#useWorker) {
      const worker = new Worker(new URL('./trainer.worker.js', import.meta.url), { type: 'module' });
      this.#worker = worker;
      worker.onmessage = (e) => this.#receive(e.data);
      worker.onerror = (e) => {
        e.preventDefault?.();
        this.#broken(`trainer: the worker failed: ${e.message || 'could not load trainer.worker.js'}`);
      };
      send = (msg, transfer) => worker.postMessage(msg, transfer);
    } else {
      const lab = this.#lab;
      const host = new Host({
        createLab: async () => lab ?? (await import('../api/index.js')).createAttnLab(),
        post: (msg) => this.#receive(msg),
        sliceMs: 8,  // this thread may be a page's: keep each slice well under a frame
      });
      this.#host = host;
      send = (msg) => { host.receive(msg); };
    }
    this.#send = send;
    let value;
    try {
      value = await this.#request('init', { config: this.#config });
    } catch (e) {
      this.terminate();
      throw e;
    }
    this.modelConfig = value.config;
    this.stepCount = value.step;
    if (this.#host) this.#lab = this.#host.lab;
  }

  #request(op, args = {}, transfer = []) {
    if (this.#terminated) return Promise.reject(new AttnLabError(`${op}: the trainer was terminated, expected a live trainer (create a new one)`));
    const id = this.#nextId++;
    return new Promise((ok, no) => {
      this.#pending.set(id, { ok, no });
      this.#send({ op, id, seq: this.#seq, ...args }, transfer);
    });
  }

  #command(op, args = {}) {
    if (this.#terminated) fail(op, 'the trainer was terminated, expected a live trainer (create a new one)');
    this.#send({ op, seq: ++this.#seq, ...args });
  }

  #emit(name, detail) {
    this.dispatchEvent(new CustomEvent(name, { detail }));
  }

  #receive(msg) {
    const t0 = performance.now();
    try {
      this.#handle(msg);
    } finally {
      const ms = performance.now() - t0;
      this.#stats.messages++;
      this.#stats.totalMs += ms;
      if (ms > this.#stats.maxMs) this.#stats.maxMs = ms;
    }
  }

  #handle(msg) {
    if (msg.kind === 'reply') {
      const p = this.#pending.get(msg.id);
      if (!p) return;
      this.#pending.delete(msg.id);
      if (msg.ok) p.ok(msg.value);
      else p.no(new AttnLabError(msg.message));
      return;
    }
    if (msg.kind !== 'event' || this.#terminated) return;
    if (msg.gen < this.#gen) return;  // from before a reset
    if (msg.gen > this.#gen) {        // the first message of a new run
      this.#gen = msg.gen;
      this.snapshots = [];
      this.history = [];
    }
    const d = msg.detail;
    const current = msg.seq >= this.#seq;  // no start/pause sent since the loop sent this
    switch (msg.name) {
      case 'progress':
        this.stepCount = d.step;
        for (const p of d.lossHistory) this.history.push(p);
        break;
      case 'snapshot':
        this.snapshots.push(d);
        break;
      case 'state':
        this.stepCount = d.step;
        if (current) this.running = d.running;
        break;
      case 'error':
        if (current) this.running = false;
        break;
    }
    this.#emit(msg.name, d);
  }

  /**
   * Starts (or resumes) training; runs until pause(), an error or terminate() — or, with { until },
   * until the step count reaches `until` (then a 'state' event says it stopped: running false).
   * { rate }: at most that many steps a second (a run a person can watch; Infinity, the default: as fast
   * as it goes). Calling start again while running changes the rate (and until) from the step it is at.
   */
  start(options = {}) {
    requireObject('start', options);
    noUnknownKeys('start', options, ['until', 'rate']);
    const until = options.until === undefined || options.until === Infinity ? undefined : int('start', 'until', options.until, { min: 0 });
    const rate = options.rate;
    if (rate !== undefined && !(typeof rate === 'number' && rate > 0))
      fail('start', `rate is ${show(rate)}, expected a positive number of steps a second (Infinity: as fast as possible)`);
    if (until !== undefined && until <= this.stepCount && !this.running) return;  // already there (running: the loop stops and says so)
    const args = {};
    if (until !== undefined) args.until = until;
    if (rate !== undefined && rate !== Infinity) args.rate = rate;
    this.#command('start', args);
    this.running = true;
  }

  /** Pauses after the step under way (within one slice of ~10 ms). */
  pause() {
    this.#command('pause');
    this.running = false;
  }

  /** Takes n more steps (while running: resolves once n more are done); resolves with the step count. */
  async step(n = 1) {
    int('step', 'n', n);
    const step = await this.#request('step', { n });
    this.stepCount = step;
    return step;
  }

  /** Back to step 0 (or the checkpoint): a fresh model from `seed` (default: the model's seed), paused;
   *  snapshots and history start over. */
  async reset(options = {}) {
    requireObject('reset', options);
    noUnknownKeys('reset', options, ['seed']);
    this.running = false;
    this.#seq++;
    const { step, gen } = await this.#request('reset', { seed: options.seed });
    if (gen > this.#gen) {  // no event of the new run arrived (none is expected to be missing; be safe)
      this.#gen = gen;
      this.snapshots = [];
      this.history = [];
    }
    this.stepCount = step;
    this.running = false;
  }

  /**
   * The eval sequence through the current weights, or through snapshot `snapshot`, optionally with
   * heads ablated (headMask [layers·heads]: 1 keep, 0 ablate): { ids, tokens, attention, tokenLosses,
   * loss, predictions, ratio, heads }.
   */
  async inspect(options = {}) {
    requireObject('inspect', options);
    noUnknownKeys('inspect', options, ['snapshot', 'headMask']);
    let bytes = null;
    if (options.snapshot !== undefined) {
      const i = options.snapshot;
      const snap = Number.isInteger(i) ? this.snapshots.find((s) => s.index === i) : undefined;
      if (!snap) fail('inspect', `snapshot is ${show(i)}, expected the index of one of the ${this.snapshots.length} snapshots`);
      bytes = snap.bytes;
    }
    let headMask = options.headMask ?? null;
    if (headMask !== null) {
      const c = this.modelConfig, n = c.layers * c.heads;
      if (!Array.isArray(headMask) && !ArrayBuffer.isView(headMask)) fail('inspect', `headMask is ${show(headMask)}, expected an array of layers·heads = ${n} numbers`);
      if (headMask.length !== n) fail('inspect', `headMask has ${headMask.length} values, expected layers·heads = ${n}`);
      headMask = Array.from(headMask);
    }
    if (!this.#terminated) return this.#request('inspect', { bytes, headMask });
    // The loop is gone: the snapshot's bytes are here; one forward on this thread's lab.
    if (!bytes) fail('inspect', 'the trainer was terminated and its current weights with it, expected { snapshot: index }');
    const lab = await this.#mainLab();
    const model = lab.loadModel(bytes);
    try {
      return inspectModel(model, this.#context(), headMask);
    } finally {
      model.dispose();
    }
  }

  #mainLab() {
    if (this.#lab) return Promise.resolve(this.#lab);
    this.#labPromise ??= import('../api/index.js').then((m) => m.createAttnLab()).then((lab) => (this.#lab = lab));
    return this.#labPromise;
  }

  /**
   * Generated from the current weights, or with { snapshot: index } from that snapshot's: a string
   * (names) or token ids. Options: { steps, temperature, seed, topK, prompt, snapshot }.
   */
  sample(options = {}) {
    requireObject('sample', options);
    noUnknownKeys('sample', options, ['steps', 'temperature', 'seed', 'topK', 'prompt', 'snapshot']);
    const { snapshot, ...args } = options;
    let bytes = null;
    if (snapshot !== undefined) {
      const snap = Number.isInteger(snapshot) ? this.snapshots.find((s) => s.index === snapshot) : undefined;
      if (!snap) return Promise.reject(new AttnLabError(`sample: snapshot is ${show(snapshot)}, expected the index of one of the ${this.snapshots.length} snapshots`));
      bytes = snap.bytes;
    }
    return this.#request('sample', bytes ? { args, bytes } : { args });
  }

  /** The current weights as checkpoint bytes (lab.loadModel, or createTrainer's checkpoint). */
  save(options = {}) {
    requireObject('save', options);
    noUnknownKeys('save', options, ['optimizer']);
    return this.#request('save', { optimizer: !!options.optimizer });
  }

  /** Ends the worker (or the in-thread loop, freeing its model). Snapshots, history stay here. */
  terminate() {
    if (this.#terminated) return;
    if (this.#worker) this.#worker.terminate();
    else this.#host?.dispose();
    this.#end('terminate: the trainer was terminated');
  }

  #broken(message) {
    if (this.#terminated) return;
    this.#worker?.terminate();
    this.#end(message);
    this.#emit('error', { message, step: this.stepCount });
  }

  #end(message) {
    this.#terminated = true;
    const wasRunning = this.running;
    this.running = false;
    for (const p of this.#pending.values()) p.no(new AttnLabError(message));
    this.#pending.clear();
    if (wasRunning) this.#emit('state', { running: false, step: this.stepCount });
  }

  /** True after terminate() (or a worker that failed). */
  get terminated() { return this.#terminated; }
}
