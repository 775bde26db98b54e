// session.js — the training session behind <attn-train> (a Lit ReactiveController): where the widget's
// numbers come from, and what is under way.
//
//   pre       the task's pretrained snapshots (openPretrained: measured on the page's lab), with their
//             status: 'idle' | 'loading' | 'ready' | 'none' (no snapshots, or they failed to load)
//   run       a live run (logic.js LiveRun over createTrainer: in a Web Worker where there is one, on
//             this thread in Node): its snapshots, history, step, speed and error
//   source    which of the two the widget shows ('pretrained' | 'live'), from the host's task/source
//   running   asked to train (Start), until Pause or the run stops at its target (the shared state)
//   samples   for the names task: names drawn from each snapshot's weights (every snapshot, step order)
//   notice    what the session did that the user did not ask for in so many words (a run discarded by a
//             new task or model, a target extended by Step): shown until the next action
//   boundary  where a live run paused itself at a stage boundary (host.stagePauses: logic.js
//             reachedStage's thresholds, crossed by a held-out evaluation): { stage, name, step, why }
//             until it trains again
//
// The host is the element (or any object with task, size, source, isConnected and requestUpdate()):
// every change of the session asks it for an update. While a run trains, its progress events (up to 20
// a second) become at most one update every LIVE_MS; anything else (pause, a snapshot picked, a reset)
// updates at once. Nothing here touches the DOM: tests run a session in Node on a real trainer.
import { LiveRun, NAMES_SAMPLE, SCORE_KINDS, SIZES, STAGES, fitsPretrained, namesOfSample, rateOf, reachedStage, sizeById, trainerOptions } from './logic.js';
import { createTrainer, openPretrained } from './source.js';
import { fmt as fmt0 } from '../shared/format.js';

// While a model trains, the trainer reports up to 20 times a second. Redrawing the whole widget (four
// plots, layers × heads maps of t × t cells, the predictions) that often kept the page's main thread
// busy in tasks over 50 ms: the session asks for a redraw at most every LIVE_MS.
export const LIVE_MS = 200;

/**
 * The sessions of this page that own a live run. A widget asked (by a shared state: source live) to show
 * a live run it was never asked to start — the presenter view's preview of the next click, a second
 * copy of a slide — shows the run of the same task and model another widget of the page trains
 * (borrowed: read, never trained, stopped or disposed by it), instead of an empty plot at step 0.
 */
const OWNERS = new Set();
/** Every connected session (a new owner asks the others to look for a run to borrow). */
const SESSIONS = new Set();

/** Whole numbers with thousands separators ("126,244"); one formatter (toLocaleString makes one per call). */
const INT = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
/** A number as the widgets print it; '–' for one the trainer has not reported (null) yet. */
const fmt = (x, d) => (typeof x === 'number' ? fmt0(x, d) : '–');

export class TrainSession {
  /**
   * @param host     the element: task, size, source ('pretrained' | 'live' | null), speed (logic.js SPEEDS id),
   *                 stagePauses (a run pauses itself at each stage boundary), isConnected, requestUpdate()
   * @param onRedraw called just before each redraw the session asks for (the host takes maps that waited for it)
   * @param onStopped called when a run stops by itself (its target, an error): the shared state (a link,
   *                  the other window) must say it no longer trains
   */
  constructor(host, { onRedraw = () => {}, onStopped = () => {} } = {}) {
    this.host = host;
    this.onRedraw = onRedraw;
    this.onStopped = onStopped;
    this.notice = '';
    this.pre = { task: null, status: 'idle', snapshots: [], message: '' };
    this.run = null;
    this.runFor = '';        // `${task}|${size}` of the run
    this.making = null;      // the promise of a run being made
    this.error = '';
    this.samples = [];
    this.running = false;    // asked to train
    this.boundary = null;    // { stage, name, step, why }: paused there by itself (stage pauses)
    this.wantRun = false;    // a live run was asked for (a page load makes none)
    this.sampling = false;
    this.sampleQueue = [];   // snapshots waiting for their sample ({ index, step })
    this.sampleSeen = new Set();  // snapshot indices queued, being drawn or drawn
    this.redrawTimer = 0;
    this.redrawAt = 0;
    this.lender = null;       // the session whose run this one shows (borrowed), or null
    this.borrowers = new Set();
    SESSIONS.add(this);
    host.addController?.(this);
  }

  hostConnected() {
    SESSIONS.add(this);
  }

  hostDisconnected() {
    SESSIONS.delete(this);
    clearTimeout(this.redrawTimer);
    this.redrawTimer = 0;
    this.dropRun();
  }

  #changed() {
    this.host.requestUpdate();
    for (const b of this.borrowers) b.host.requestUpdate();
  }

  /** The run is borrowed from another widget of the page (shown, never driven). */
  get borrowed() {
    return !!this.lender;
  }

  /**
   * A mirror (source live, no run of its own, none asked for): borrows the live run of the same task and
   * model that another session of the page owns; gives it back when that one drops it.
   */
  #borrow() {
    if (this.lender && this.lender.run !== this.run) this.#giveBack();
    if (this.run || this.wantRun || this.making || this.source !== 'live') return;
    const want = `${this.host.task}|${this.host.size}`;
    for (const o of OWNERS) {
      if (o === this || !o.run || o.runFor !== want || !o.host.isConnected) continue;
      this.lender = o;
      o.borrowers.add(this);
      this.run = o.run;
      this.runFor = o.runFor;
      this.host.requestUpdate();
      return;
    }
  }

  #giveBack() {
    this.lender?.borrowers.delete(this);
    this.lender = null;
    this.run = null;
    this.runFor = '';
  }

  /** Shows an error (e.g. a download that failed) where the trainer's own appear. */
  fail(message) {
    this.error = message;
    this.#changed();
  }

  // ---- what is shown -------------------------------------------------------------------------------

  /** The pretrained snapshots can be shown: the induction task, and the model they were trained with. */
  get pretrainedFits() {
    return this.host.task === 'induction' && fitsPretrained(this.host.size, this.pre.config);
  }

  /**
   * The source shown: the host's `source`, else the pretrained snapshots when the task has them, else
   * live; always live for a model the snapshots were not trained with (they would show under its name).
   */
  get source() {
    const { source, task } = this.host;
    if (source === 'live' || !this.pretrainedFits) return 'live';
    if (source === 'pretrained' && task === 'induction') return 'pretrained';
    return task === 'induction' && this.pre.status !== 'none' && this.pre.status !== 'error' && !this.run ? 'pretrained' : 'live';
  }

  /** The snapshots of the source shown ([{ index, step, evalLoss, ratio, heads, … }]). */
  get snapshots() {
    return this.source === 'pretrained' ? this.pre.snapshots : this.run?.snapshots ?? [];
  }

  /** The history the curves plot: the pretrained snapshots, or every evaluation of the live run. */
  get history() {
    return this.source === 'pretrained' ? this.pre.snapshots : this.run?.history ?? [];
  }

  /** The pretrained snapshots are loaded and can be replayed. */
  get replayReady() {
    return this.pre.status === 'ready';
  }

  /** A redraw is due within LIVE_MS (the maps that arrive meanwhile wait for it). */
  get redrawPending() {
    return !!this.redrawTimer;
  }

  /** The status line: what is loading or training, the step and the speed. */
  statusText() {
    const run = this.run;
    if (this.source !== 'live') {
      const p = this.pre;
      if (p.status === 'loading') return 'loading the pretrained snapshots…';
      if (p.status === 'ready') return `${p.snapshots.length} pretrained snapshots (steps ${p.snapshots[0].step}–${p.snapshots[p.snapshots.length - 1].step})`;
      return p.message || '';
    }
    if (this.making) return 'starting the trainer…';
    if (!run) return `${this.host.task === 'induction' && this.pre.status === 'none' ? 'no pretrained snapshots; ' : ''}Start (or Step) trains a model from scratch here`;
    const sp = run.speed;
    const speed = run.running && sp ? ` · ${sp.tokensPerSec ? `${INT.format(sp.tokensPerSec)} tokens/s` : `${fmt(sp.stepsPerSec, 1)} steps/s`}` : '';
    const at = `${run.running ? 'training' : 'paused'}: step ${run.step}${Number.isFinite(run.target) ? ` of ${run.target}` : ''}${speed}`;
    return this.boundary && !run.running ? `${at} · ${this.boundaryText()}` : at;
  }

  // ---- the two sources -----------------------------------------------------------------------------

  /** What the host's state asks for now: the task's pretrained snapshots, a live run asked for earlier. */
  sync() {
    if (this.host.task === 'induction') this.loadPretrained();
    this.#borrow();
    // A live model is made on a user's request only (a page load starts no worker).
    if (this.wantRun && this.source === 'live' && !this.run && !this.making && !this.error) this.ensureRun();
  }

  /** Loads the induction task's pretrained snapshots (once per task). */
  async loadPretrained() {
    const task = this.host.task;
    if (task !== 'induction' || this.pre.task === task) return;
    this.pre = { task, status: 'loading', snapshots: [], message: '' };
    this.#changed();
    try {
      const pre = await openPretrained(task);
      if (this.host.task !== task) return;
      this.pre = pre.snapshots.length ? { task, status: 'ready', ...pre, message: '' }
        : { task, status: 'none', snapshots: [], message: 'no pretrained snapshots' };
    } catch (e) {
      if (this.host.task !== task) return;
      this.pre = { task, status: 'none', snapshots: [], message: `no pretrained snapshots (${e.message ?? e})` };
    }
    this.#changed();
  }

  /** A live run for the host's task and size (made on first use). */
  async ensureRun() {
    this.wantRun = true;
    if (this.lender) this.#giveBack();  // asked to train: a run of its own
    if (this.run) return this.run;
    if (this.making) return this.making;
    const { task, size } = this.host;
    this.error = '';
    this.making = (async () => {
      // In a task of its own: the click that asked for it only redraws (the worker's start is not short).
      await new Promise((ok) => setTimeout(ok, 0));
      try {
        const options = trainerOptions(task, size, { seed: 0 });
        // "Train live" beside the pretrained snapshots: the same model and optimizer as the run that made them.
        const like = this.pre.trainerOptions;
        if (task === 'induction' && size === SIZES[0].id && like?.model) {
          options.model = { ...like.model };
          if (like.optimizer) options.optimizer = { ...options.optimizer, ...like.optimizer };
          if (this.pre.batch) options.batch = this.pre.batch;
          if (this.pre.taskOptions) options.task = { name: task, ...this.pre.taskOptions };
        }
        const trainer = await createTrainer(options);
        if (this.host.task !== task || this.host.size !== size || !this.host.isConnected) { trainer.terminate?.(); return null; }
        this.run = new LiveRun(trainer, { target: sizeById(size).steps, onChange: (why) => this.#onRun(why) });
        this.runFor = `${task}|${size}`;
        OWNERS.add(this);
        for (const other of SESSIONS) if (other !== this && !other.run && other.source === 'live') other.host.requestUpdate();
        this.error = '';
        if (task === 'names') this.sampleSnapshots(this.run.snapshots);  // the untrained model's gibberish first
        return this.run;
      } catch (e) {
        this.error = `The trainer could not start: ${e.message ?? e}`;
        return null;
      } finally {
        this.making = null;
        this.#changed();  // the buttons' busy state, and a run for a task picked meanwhile
      }
    })();
    this.#changed();
    return this.making;
  }

  #onRun(why) {
    const run = this.run;
    if (why === 'error') this.error = run.error;
    // Stopped by itself (its target, an error): no longer asked to train, in every window alike.
    if ((why === 'state' || why === 'error') && !run.running && (why === 'error' || run.step >= run.target) && this.running) {
      this.running = false;
      this.onStopped();
    }
    // Stage pauses: an evaluation past the next stage boundary pauses the run there, in every window.
    // Every evaluation since the last one looked at (one event may carry several; the trainer goes on a
    // few slices after a pause, so a resume may find the next boundary already crossed: it pauses there).
    if (why === 'progress' && run.running && this.running && this.host.stagePauses) {
      if (run.pauseFloor === undefined) this.#pauseFrom(run);  // turned on while it trained: from here
      const h = run.history, final = (SCORE_KINDS[this.host.task] ?? SCORE_KINDS.induction)[1];
      let i = Math.max(1, run.pauseChecked ?? 1);
      for (; i < h.length; i++) {
        const r = reachedStage(h[i], h[0]?.evalLoss, { final });
        if (r.stage <= run.pauseFloor) continue;
        run.pauseFloor = r.stage;
        this.boundary = { stage: r.stage, name: STAGES[r.stage], step: h[i].step, why: r.why };
        this.pause();
        this.onStopped();
        i++;
        break;
      }
      run.pauseChecked = i;
    }
    if (why === 'snapshot' && this.host.task === 'names') this.sampleSnapshots(run.snapshots);
    if ((why === 'progress' || why === 'snapshot') && run.running) this.#redrawSoon();
    else this.redrawNow();
  }

  /** A redraw within LIVE_MS of the last one (one for however many events came meanwhile). */
  #redrawSoon() {
    if (this.redrawTimer) return;
    const wait = Math.max(0, this.redrawAt + LIVE_MS - performance.now());
    this.redrawTimer = setTimeout(() => this.redrawNow(), wait);
  }

  redrawNow() {
    clearTimeout(this.redrawTimer);
    this.redrawTimer = 0;
    this.redrawAt = performance.now();
    this.onRedraw();
    this.#changed();
  }

  /**
   * Ends the live run because the user picked another task or model (`why`: what was picked), saying so
   * when it had trained (notice): a run belongs to one task and one model.
   */
  discardRun(why) {
    const run = this.run;
    if (run && run.step > 0) {
      const [task, size] = this.runFor.split('|');
      this.notice = `The ${task} run of the ${sizeById(size).label} model (step ${INT.format(run.step)}) was discarded: ${why}. A run belongs to one task and one model.`;
    }
    this.dropRun();
  }

  /** Ends the live run (its worker) and forgets it: a new task or size, or the element gone. */
  dropRun() {
    this.wantRun = false;
    this.running = false;
    this.boundary = null;
    if (this.lender) this.#giveBack();
    OWNERS.delete(this);
    for (const b of this.borrowers) { b.#giveBack(); b.host.requestUpdate(); }
    this.borrowers.clear();
    this.run?.dispose();
    this.run = null;
    this.samples = [];
    this.sampleQueue = [];
    this.sampleSeen = new Set();
  }

  /**
   * Names task: names the model makes up at each snapshot, drawn from that snapshot's weights (up to 8,
   * at 0.8 temperature, seeded by its step), one entry per snapshot in step order — the progression
   * from gibberish to names. Queued: snapshots that come while one is drawn wait their turn.
   */
  sampleSnapshots(snaps) {
    const run = this.run;
    if (!run) return;
    // Each snapshot once: queued, being drawn or drawn (a snapshot event while one is drawn lists them all again).
    for (const snap of snaps) {
      if (this.sampleSeen.has(snap.index)) continue;
      this.sampleSeen.add(snap.index);
      this.sampleQueue.push({ index: snap.index, step: snap.step });
    }
    this.#drainSamples(run);
  }

  async #drainSamples(run) {
    if (this.sampling) return;
    this.sampling = true;
    try {
      while (this.sampleQueue.length && run === this.run) {
        const { index, step } = this.sampleQueue.shift();
        let entry;
        try {
          const out = await run.trainer.sample({ ...NAMES_SAMPLE, seed: step, snapshot: index });
          // A sample that stopped inside a name: that one left out (namesOfSample).
          entry = { index, step, names: namesOfSample(typeof out === 'string' ? out : String(out)) };
        } catch (e) {
          entry = { index, step, names: [], error: e.message ?? String(e) };
        }
        if (run !== this.run) break;
        this.samples = [...this.samples, entry].sort((a, b) => a.step - b.step);
        this.#changed();
      }
    } finally {
      this.sampling = false;
    }
  }

  /** The sample of the newest snapshot at or before `step` (null: none yet). */
  sampleAt(step) {
    let best = null;
    for (const x of this.samples) if (x.step <= step && (!best || x.step > best.step)) best = x;
    return best;
  }

  // ---- training ------------------------------------------------------------------------------------

  /**
   * The stage the live run's latest held-out evaluation has reached (logic.js reachedStage, against its
   * first evaluation's loss): { stage, why, step }.
   */
  reached(run = this.run) {
    const h = run?.history ?? [], last = h[h.length - 1];
    if (!last) return { stage: 0, why: '', step: run?.step ?? 0 };
    const final = (SCORE_KINDS[this.host.task] ?? SCORE_KINDS.induction)[1];
    return { ...reachedStage(last, h[0]?.evalLoss, { final }), step: last.step };
  }

  /** Stage pauses from the run's latest evaluation on: past the stage it has reached. */
  #pauseFrom(run) {
    run.pauseFloor = this.reached(run).stage;
    run.pauseChecked = run.history.length;
  }

  /** Trains the live run (made first if needed) up to its target, or one preset's steps further. */
  async train() {
    this.running = true;
    this.notice = '';
    this.boundary = null;
    const run = await this.ensureRun();
    if (!run) return;
    // Stage pauses: the next boundary is past the last one paused at — or, when they were off until now,
    // past the stage reached now (a stage passed before is not one).
    if (!this.host.stagePauses) run.pauseFloor = undefined;
    else if (run.pauseFloor === undefined) this.#pauseFrom(run);
    if (run.step >= run.target) run.target = run.step + sizeById(this.host.size).steps;
    this.error = '';
    run.rate = rateOf(this.host.speed);
    run.start();
    this.#changed();
  }

  pause() {
    this.running = false;
    if (!this.lender) this.run?.pause();  // a borrowed run is the lender's to pause
  }

  /** The boundary pause in words (status line, slide caption): what crossed which threshold, how to go on. */
  boundaryText({ short = false } = {}) {
    const b = this.boundary;
    if (!b || this.run?.running) return '';
    return short ? `paused at stage ${b.stage}, ${b.name}: ${b.why} · Resume goes on`
      : `Paused at stage ${b.stage}, ${b.name} (the evaluation at step ${INT.format(b.step)}): ${b.why}. Resume goes on to the next stage.`;
  }

  /** The host's speed changed: a run that trains goes on at the new rate from where it is. */
  setSpeed() {
    const run = this.run, rate = rateOf(this.host.speed);
    if (!run || this.lender || run.rate === rate) return;
    run.rate = rate;
    if (run.running && this.running) run.start();
  }

  /**
   * n steps of the live run (made first if needed); nothing while it trains on its own. Never past the
   * target: n is cut to reach it; at the target, the target moves one preset's steps further (as Start
   * does there), and the notice says so.
   */
  async step(n) {
    const run = await this.ensureRun();
    if (!run || run.running) return;
    this.notice = '';
    if (Number.isFinite(run.target)) {
      if (run.step >= run.target) {
        run.target = run.step + sizeById(this.host.size).steps;
        this.notice = `Trained to its target: Step goes on towards ${INT.format(run.target)} steps.`;
      }
      n = Math.min(n, run.target - run.step);
    }
    try {
      await run.step1(n);
    } catch (e) {
      this.fail(e.message ?? String(e));
    }
  }

  /** The live run back to step 0, paused, its target the preset's again. */
  async reset() {
    const run = this.run;
    if (!run || this.lender) return;
    run.pause();
    this.running = false;
    this.notice = '';
    this.boundary = null;
    run.pauseFloor = undefined;
    this.samples = [];
    run.target = sizeById(this.host.size).steps;
    this.sampleQueue = [];
    this.sampleSeen = new Set();
    try {
      await run.reset();
    } catch (e) {
      this.fail(e.message ?? String(e));
    }
    if (this.host.task === 'names') this.sampleSnapshots(run.snapshots);
  }
}
