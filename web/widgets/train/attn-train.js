// <attn-train>: watch a small Transformer's heads form while it trains.
//
// A task (induction / names / reverse) and a model size; start / pause / step / reset; the loss curves
// (train and held-out; induction: the first and the repeated half, and their ratio); every head's
// attention on the task's fixed held-out sequence (layers × heads), updating as it trains; each head's
// previous-token and induction score over the steps; a checkpoint scrubber; head ablation (click or
// Enter on a head's map: the loss and the predictions with and without it); for names, samples as it
// learns (on a slide instead of the maps, and before a live run those of a shipped seeded run: names-run.js). The induction task's pretrained snapshots (web/train/pretrained/induction/) show formed heads
// at once; "Train live" starts from scratch in a Web Worker.
//
// Attributes: task, size (a preset of logic.js SIZES), source ("pretrained" | "live"), snapshot (index
// into the snapshots; absent: the stage's, else the latest), stage (slides: 0 untrained, 1 loss falls,
// 2 previous-token head, 3 induction head; absent: 3 on a slide; with predict also 4 and 5, below),
// stage-pauses (a live run and the replay pause themselves at each stage boundary — logic.js
// reachedStage: the held-out loss at ¾ of the untrained model's, a previous-token score ≥ 0.25, an
// induction score ≥ 0.5 — with a caption saying why; Resume / "Go on" goes on), predict (stage 4: guess
// the held-out sequence's loss without the heads switched off; stage 5: the core's loss beside the
// guess, predict.js), guess, weight-range, hash-key, and
// AttnWidget's layout / controls / fit-height, and ablate: heads switched off, by name (L1H0) or by role
// (induction, previous-token, reverse: found in the scores of the snapshot shown — a deck says what a
// head does, not where one run put it; logic.js resolveHeads). Property `ablated`: flat head indices
// (layer·heads + head); clicking a map sets it (and drops `ablate`).
// Events: attn-state-change { state }; attn-view { step, snapshot, ablated (head names), loss, ablatedLoss }
// when the maps of what is asked for are drawn (then the property viewReady is true): the held-out
// sequence's loss with every head and without the ones switched off.
// Deck clicks (a new `stage`), before and after a live run alike: the stage's view — of the pretrained
// snapshots stageView's, of a live run its own (logic.js liveStageView: where the run reached the stage,
// else its current weights with the strip saying "not yet") — and a live run that trains is paused; a
// click never starts or resumes one. The stage strip is true to the maps: the deck's stage when its view
// is shown, else the stage the weights shown have reached. On a slide a control clicked with the mouse
// gives the keyboard back to the deck. A copy told to show a live run it never started (Slidev's
// next-click preview) shows the run another widget of the page trains (session.js: borrowed).
// Numbers: all from the trainer (web/train: createTrainer's progress, snapshots, inspect, sample) and
// the pretrained snapshots' index; the widget plots them and compares predicted ids with the next id.
//
// The parts: session.js (the training session: the pretrained snapshots, the live run, what it is
// asked to do, the status line — a ReactiveController, tested in Node), logic.js (presets, stages, head
// masks, plot series: pure functions), styles.js; this file is the element: its state, the maps it asks
// for, and the page and slide layouts.
import { html, nothing } from 'lit';
import { AttnWidget, optionalInt } from '../shared/widget.js';
import { plot } from '../shared/plot.js';
import { fmt as fmt0 } from '../shared/format.js';
import { packRow } from '../shared/fit.js';
import { FitBoxes, plotInner } from '../shared/fit-boxes.js';
import { niceTicks } from '../shared/ticks.js';
import {
  SCORE_KINDS, SIZES, STAGES, TASKS, clampIndex, decoderFrom, headMask, headName, headShape, latestOnly, lossSeries,
  predictionRows, ratioSeries, resolveHeads, roleHead, roleNote, scoreSeries, scoredFrom, sizeById, stageView, toggleHead, trainerOptions, yRange,
  LOSS_COLORS, ROLE_TEXT, ROLE_THRESHOLDS, Replay, SPEEDS, DEFAULT_SPEED, TOKEN_LOSS_COLORS, tokenLossSeries, meanFrom,
  liveStageView, reachedStage, samplesPanel,
} from './logic.js';
import NAMES_RUN from './names-run.js';
import { GUESS_RANGE, GUESS_STEP, PREDICT, fitGuess, revealLoss, uniformLoss } from './predict.js';
import { guessNumber, predictStyles, revealLine } from '../shared/predict.js';
import { TrainSession } from './session.js';
import { trainStyles } from './styles.js';
import { drawInParts, drawn } from '../shared/parts.js';
import '../shared/heatmap.js';
const SHORT_STAGES = ['untrained', 'loss falls', 'prev-token head', 'induction head'];
const MAX_HEADS = 64;
const FOCUS_TEXT = ROLE_TEXT;
const SCORE_TEXT = { prev: 'previous-token', induction: 'induction', reverse: 'anti-diagonal' };
const SCORE_NOTE = { prev: 'weight on the token just before', induction: 'weight on the token after the earlier occurrence', reverse: 'weight on the digit to copy next' };
const MARK = '#d1242f';
/** A number as the widgets print it; '–' for one the trainer has not reported (null) yet. */
const fmt = (x, d) => (typeof x === 'number' ? fmt0(x, d) : '–');
// While a model trains, the widget redraws at most every LIVE_MS (session.js) and asks for new maps at
// most every VIEW_MS: redrawing four plots and layers × heads maps on every progress event kept the
// page's main thread busy in tasks over 50 ms. Pausing, a snapshot picked, a reset: at once.
const VIEW_MS = 400;
/** t empty labels (slide maps without token labels), one array per t: the same value on every render. */
const BLANKS = new Map();
const blankLabels = (t) => { if (!BLANKS.has(t)) BLANKS.set(t, Object.freeze(Array(t).fill(''))); return BLANKS.get(t); };

export class AttnTrain extends AttnWidget {
  static properties = {
    task: { type: String, reflect: true },
    size: { type: String, reflect: true },
    source: { type: String, reflect: true },
    speed: { type: String, reflect: true },
    snapshot: { converter: optionalInt },
    stage: { converter: optionalInt, reflect: true },
    weightRange: { type: String, attribute: 'weight-range' },
    ablated: { attribute: false },
    ablate: { type: String },
    /** A live run (and the replay) pauses itself at each stage boundary (logic.js reachedStage), saying why. */
    stagePauses: { type: Boolean, attribute: 'stage-pauses', reflect: true },
    /** Predict, then reveal: stage 4 guesses the loss without the heads switched off, stage 5 shows it (predict.js). */
    predict: { type: Boolean, reflect: true },
    /** The guessed loss (nats) without the heads switched off. */
    guess: { type: Number },
    _ablateError: { state: true },
    _replayHeld: { state: true },
    _view: { state: true },
    _replaying: { state: true },
    /** The part of the first maps' draw drawn so far (parts.js; null: all). */
    _drawPart: { state: true },
  };

  static stateSchema = {
    task: { type: 'enum', values: TASKS.map((t) => t.id) },
    size: { type: 'enum', values: SIZES.map((s) => s.id) },
    source: { type: 'enum', values: ['pretrained', 'live'] },
    speed: { type: 'enum', values: SPEEDS.map((s) => s.id) },
    snapshot: { type: 'int', min: 0, max: 100000 },
    ablated: { type: 'nums', maxLength: MAX_HEADS, min: 0, max: MAX_HEADS - 1 },
    // A live run training or not: the presenter's Train live / Pause reach the audience view (Slidev's
    // sync), which trains the same seeded run in its own worker. A link never starts one (see applyState).
    running: { type: 'bool' },
    stagePauses: { type: 'bool' },
    // The page's stage (jump to; the predict stages): on a slide the deck's clicks own it (not shared).
    stage: { type: 'int', min: 0, max: PREDICT.last },
    predict: { type: 'bool' },
    guess: { type: 'num', min: GUESS_RANGE[0], max: GUESS_RANGE[1] },
  };

  /** The shareable state, with whether a live run is training. */
  getState() {
    const s = super.getState();
    if (this.session.source === 'live') s.running = this.session.running;
    return s;
  }

  /**
   * A state from a link or from another window (presenter ↔ audience). `running` is followed only from
   * another window: a link sets the view, never starts a worker.
   */
  applyState(state) {
    const { running, ...rest } = state;
    super.applyState(rest);
    if (this._restoring || typeof running !== 'boolean' || this.session.source !== 'live' || running === this.session.running) return;
    if (running) this.#start({ emit: false });
    else this.#pause({ emit: false });
  }

  restoreFromHash() {
    this._restoring = true;
    try {
      super.restoreFromHash();
    } finally {
      this._restoring = false;
    }
  }

  static checkState(s) {
    if (s.ablated && s.ablated.some((i) => !Number.isInteger(i))) return 'ablated holds a head that is not a whole number';
    return '';
  }

  static styles = [...trainStyles, predictStyles];

  constructor() {
    super();
    this.task = 'induction';
    this.size = 'attn2';
    this.source = null;  // null: pretrained when the task has them, else live
    this.speed = DEFAULT_SPEED;  // a live run's steps a second (logic.js SPEEDS; 'max': as fast as it goes)
    this.snapshot = null;
    this.stage = null;
    this.weightRange = 'fixed';
    this.ablated = [];
    this._stageShown = true;  // the stage's snapshot shown (false from Start until the next stage)
    this.ablate = null;
    this.stagePauses = false;
    this.predict = false;
    this.guess = null;
    this._replayHeld = null;  // { index, text }: a replay held at a stage boundary
    this._ablateError = '';
    this._view = null;
    this._viewKey = '';
    this._replaying = false;
    this._replay = null;
    this.boxes = new FitBoxes(this);
    // The pretrained snapshots and the live run (session.js); maps that waited for its next redraw go up with it.
    this.session = new TrainSession(this, {
      onRedraw: () => {
        if (this._nextView?.key === this._wantKey) this._view = this._nextView;
        this._nextView = null;
      },
      // A run that paused itself (its target, an error): the link and the other window say so too.
      onStopped: () => this.stateChanged(),
    });
    this._inspect = latestOnly((req) => this.#fetchView(req), (v, req) => {
      if (req.key !== this._wantKey) return;
      // The first maps on a page come a layer per task, then the ablation (parts.js): together they
      // were one task of ~0.3–0.6 s of CPU at 4× CPU throttling (a phone's).
      if (!this._firstMaps) { this._firstMaps = true; drawInParts(this, 4, { partial: false }); }
      // While the model trains, new maps wait for the redraw already due: one repaint for curves and maps.
      if (req.index === null && this.session.redrawPending && this.session.run?.running) this._nextView = { ...v, key: req.key };
      else this._view = { ...v, key: req.key };
    }, (e, req) => {
      if (req.key === this._wantKey) this._view = { key: req.key, error: e.message ?? String(e) };
    });
  }

  // ---- what is shown ----------------------------------------------------------------------------------

  /** The score kinds plotted for this task: ['prev', 'induction' | 'reverse']. */
  #kinds() {
    return SCORE_KINDS[this.task] ?? SCORE_KINDS.induction;
  }

  /** With `predict`: 'before' | 'guess' | 'reveal' (predict.js PREDICT); null without. */
  get #phase() {
    return this.predict ? PREDICT.phase(this.stage) : null;
  }

  /** The training stage asked for (0–3; the predict stages show stage 3), or null. */
  #ownStage() {
    if (this.stage === null || this.stage === undefined) return null;
    return Math.min(3, this.predict ? PREDICT.own(this.stage) : this.stage);
  }

  /**
   * The view: which snapshot (null: the live weights), the highlighted head, what a slide emphasises,
   * and the stage the strip shows — the deck's stage when its view is shown (lit only when the
   * stage's head is there: found), else the stage the weights shown have reached (reachedStage).
   * A live run's stage is the run's own (liveStageView: where it reached the stage, never a stage it
   * has not). A live run shows its current weights from Start on, paused too; the deck's next click
   * shows that stage of the run (and pauses it: #stageClicked).
   */
  #current() {
    const snaps = this.session.snapshots, n = snaps.length, live = this.session.source === 'live';
    const hist = this.session.history, now = live ? hist[hist.length - 1] ?? null : null, final = this.#kinds()[1];
    const own = this.#ownStage(), firstLoss = hist[0]?.evalLoss;
    let sv = null;
    if (own !== null || this.slideLayout) {
      sv = live ? (this.session.run ? liveStageView(snaps, now, own, { final, firstLoss }) : null) : stageView(snaps, own, { final });
    }
    let index, byStage = false;
    if (this.snapshot !== null && this.snapshot !== undefined && n) index = live && this.snapshot >= n ? null : clampIndex(this.snapshot, n);
    else if (sv && (!live || this._stageShown)) { index = sv.index; byStage = true; }
    else index = live ? null : clampIndex(null, n);
    const snap = index === null ? null : snaps[index];
    const step = snap ? snap.step : this.session.run?.step ?? 0;
    let shownStage = own ?? 3, focus = sv?.focus ?? null, emphasis = sv?.emphasis ?? null, found = sv?.found ?? null;
    if (!byStage && (own !== null || this.slideLayout)) {
      // The weights shown are not the stage's view (a live run's current weights, a snapshot picked):
      // the strip names the stage they have reached, and the slide shows that stage's head.
      const entry = snap ?? now;
      shownStage = entry ? reachedStage(entry, firstLoss, { final }).stage : 0;
      const kind = shownStage === 2 ? 'prev' : shownStage === 3 ? final : null;
      const b = kind ? roleHead(entry?.heads, kind) : null;
      focus = b ? { layer: b.layer, head: b.head, kind } : null;
      emphasis = ['maps', 'loss', 'prev', final][shownStage];
      found = true;
    }
    return { index, snap, step, n, focus, emphasis, found, live, shownStage, byStage };
  }

  /** Ends the live run and forgets its maps (a new task or size: `why`, said in the notice when it had trained). */
  #dropRun(why = null) {
    if (why) this.session.discardRun(why);
    else this.session.dropRun();
    this._view = null;
    this._viewKey = '';
  }

  // ---- the picture on the eval sequence ---------------------------------------------------------

  async #fetchView({ source, index, mask }) {
    if (source === 'pretrained') {
      const snap = this.session.pre.snapshots[index];
      const base = await this.session.pre.inspect(index, {});
      const abl = mask ? await this.session.pre.inspect(index, { headMask: mask }) : null;
      return { base, abl, step: snap?.step, decode: this.session.pre.decode };
    }
    const run = this.session.run;
    if (!run) throw new Error('no training run');
    const opts = index === null ? {} : { snapshot: this.session.run.snapshots[index]?.index ?? index };
    // The current weights' head scores as they are asked for: the maps' captions change with the maps.
    const scores = index === null ? run.last?.heads : undefined;
    const base = await run.trainer.inspect(opts);
    const abl = mask ? await run.trainer.inspect({ ...opts, headMask: mask }) : null;
    return { base, abl, scores, decode: taskDecoder(run.trainer) };
  }

  #requestView() {
    const cur = this.#current(), source = this.session.source;
    const shape = this.#shape();
    const mask = headMask(this.ablated, shape.layers, shape.heads);
    if (source === 'pretrained' && (this.session.pre.status !== 'ready' || cur.index === null)) return;
    if (source === 'live' && !this.session.run) return;
    // `key`: what is shown (a result for it is taken, however many steps a live run took since it
    // was asked for); `ask`: when to ask again (the live weights change with every step).
    const key = `${this.task}|${this.size}|${source}|${cur.index ?? 'live'}|${mask ?? ''}`;
    const ask = `${key}|${cur.index === null ? this.session.run?.step ?? 0 : ''}`;
    this._wantKey = key;
    if (ask === this._viewKey) return;
    // A running model's current weights: new maps at most every VIEW_MS (the last ones stay up meanwhile).
    const now = performance.now();
    if (cur.index === null && this.session.run?.running && this._view?.key === key && now < this._viewAt + VIEW_MS) {
      this._viewTimer ||= setTimeout(() => { this._viewTimer = 0; if (this.isConnected) this.#requestView(); }, this._viewAt + VIEW_MS - now);
      return;
    }
    this._viewAt = now;
    this._viewKey = ask;
    this._inspect({ key, source, index: cur.index, mask });
  }

  /** Layers and heads of the model shown (from its scores, else the preset). */
  #shape() {
    const snaps = this.session.snapshots, h = this.session.history;
    const heads = this._view?.base?.attention ? this._view.base.attention.map((l) => l.map(() => ({}))) : (snaps[snaps.length - 1] ?? h[h.length - 1])?.heads;
    const s = headShape(heads);
    if (s.layers) return s;
    const m = this.session.source === 'pretrained' && this.session.pre.config ? this.session.pre.config : sizeById(this.size).model;
    return { layers: m.layers, heads: m.heads };
  }

  // ---- lifecycle --------------------------------------------------------------------------------

  willUpdate(changed) {
    super.willUpdate(changed);
    // A run belongs to one task and size (set as attributes, or restored from a link).
    if ((changed.has('task') || changed.has('size')) && this.session.run && (this.session.runFor !== `${this.task}|${this.size}`)) this.#dropRun('the task or model changed');
    if (changed.has('speed') && changed.get('speed') !== undefined) this.session.setSpeed();
    if (changed.has('stage') && changed.get('stage') !== undefined) this.#stageClicked();
    // Roles resolve on the snapshot shown (again when it changes: a stage, the scrubber, new scores).
    if (this.ablate !== null && this.ablate !== undefined) {
      const cur = this.#current();
      const { ablated, error } = resolveHeads(this.ablate, cur.snap?.heads ?? this.session.run?.last?.heads);
      this._ablateError = error;
      if (ablated.join() !== this.ablated.join()) this.ablated = ablated;
    } else this._ablateError = '';
  }

  /**
   * A deck's click (a new stage), the same after a live run as before it: it shows the stage's view
   * (#current: the pretrained snapshot, or the live run's own stage) and never starts or resumes
   * training — a live run that trains is paused (in every window: the shared state says running
   * false), so the next click shows the same thing however fast it came.
   */
  #stageClicked() {
    this.snapshot = null;
    this._stageShown = true;
    this.#stopReplay();
    // A copy that shows another widget's run (borrowed: the presenter's preview) leaves it alone.
    if (!this.session.borrowed && (this.session.running || this.session.run?.running)) queueMicrotask(() => { if (this.isConnected) this.#pause(); });
  }

  /**
   * The pretrained snapshots load, then their first maps come in parts: held at the placeholder's
   * height meanwhile (widget.js). A live run, no snapshots or an error: nothing to wait for.
   */
  get firstDrawPending() {
    const s = this.session;
    if (s.source !== 'pretrained') return false;
    if (s.pre.status === 'idle' || s.pre.status === 'loading') return true;
    return s.pre.status === 'ready' && !this._view?.error && !this.viewReady;
  }

  /** True when the maps drawn are those of what is asked for now (snapshot, heads off), not the last ones. */
  get viewReady() {
    return !!this._view?.base && this._view.key === this._wantKey && !this._view.stale && drawn(this, 3);
  }

  updated(changed) {
    super.updated(changed);
    // attn-view: the maps of the current ask are drawn (a snapshot, a stage, heads switched off; the
    // first ones: their last part).
    if ((changed.has('_view') || changed.has('_drawPart')) && this.viewReady) {
      const cur = this.#current(), { heads } = this.#shape(), n = this.#numbers(cur);
      this.dispatchEvent(new CustomEvent('attn-view', { bubbles: true, composed: true, detail: {
        step: cur.step, snapshot: cur.index, ablated: this.ablated.map((i) => headName(Math.floor(i / heads), i % heads)),
        loss: n.seqLoss, ablatedLoss: this.ablated.length ? n.ablLoss : null } }));
    }
    if (!this._lab || this._syncQueued) return;
    // After this update, not inside it: what it starts sets state (loading, the view) of its own.
    this._syncQueued = true;
    queueMicrotask(() => {
      this._syncQueued = false;
      if (!this.isConnected) return;
      this.session.sync();
      this.#requestView();
    });
  }

  disconnectedCallback() {
    super.disconnectedCallback();  // the session ends its run (hostDisconnected)
    this.#stopReplay();
    clearTimeout(this._viewTimer);
    this._viewTimer = 0;
    this.#dropRun();
  }

  // ---- user actions -----------------------------------------------------------------------------

  #setTask(task) {
    if (task === this.task) return;
    this.#dropRun(`the task was changed to ${task}`);
    this.session.wantRun = true;
    this.task = task;
    this.source = null;
    this.snapshot = null;
    this.ablated = [];
    this.session.error = '';
    this.stateChanged();
  }

  #setSize(size) {
    if (size === this.size) return;
    this.#dropRun(`the model was changed to ${sizeById(size).label}`);
    this.session.wantRun = true;
    this.size = size;
    this.source = this.session.source === 'pretrained' ? 'live' : this.source;
    this.snapshot = null;
    this.ablated = [];
    this.session.error = '';
    this.stateChanged();
  }

  #setSource(source, { emit = true } = {}) {
    if (source === 'live') this.session.wantRun = true;
    if (source === this.session.source) return;
    this.source = source;
    this.snapshot = null;  // the heads switched off stay off: the same model shape
    // The maps shown stay up, faded, until the new source's arrive: the same elements get new values
    // (rebuilding layers × heads maps from nothing, as Train live starts, was one task of ~70 ms).
    this._view = this._view?.base ? { ...this._view, stale: true } : null;
    this._viewKey = '';
    if (emit) this.stateChanged();
  }

  /** Start (or resume) live training: from scratch when the pretrained snapshots were shown. */
  async #start({ emit = true } = {}) {
    this.#stopReplay();
    if (this.session.source !== 'live') this.#setSource('live', { emit: false });
    this.snapshot = null;
    this._stageShown = false;
    this.session.running = true;
    if (emit) this.stateChanged();
    await this.session.train();
  }

  #pause({ emit = true } = {}) {
    this.session.pause();
    if (emit) this.stateChanged();
  }

  async #step(n) {
    if (this.session.source !== 'live') this.#setSource('live');
    this.snapshot = null;
    await this.session.step(n);
  }

  async #reset() {
    if (!this.session.run) return;
    this.snapshot = null;
    await this.session.reset();
    this._viewKey = '';
  }

  /** `end`: the range's right end as drawn — "now" even when snapshots came since the last redraw. */
  #scrub(value, end = Infinity) {
    this.#stopReplay();
    const cur = this.#current();
    this.snapshot = cur.live && (value >= cur.n || value >= end) ? null : value;
    this.stateChanged();
  }

  /**
   * Replay: the snapshots from the first, about two a second (logic.js Replay), each shown once its maps
   * are drawn; the curves grow with it up to the snapshot's step. Any other pick stops it.
   */
  #toggleReplay() {
    if (this._replayHeld) {  // held at a stage boundary: on to the next
      this._replayHeld = null;
      this._replay?.resume();
      return;
    }
    if (this._replaying) return this.#stopReplay();
    const snaps = this.session.snapshots, n = snaps.length;
    if (!n) return;
    // Stage pauses: a snapshot that reached a stage no earlier one had (reachedStage) holds the replay.
    const final = this.#kinds()[1], firstLoss = snaps[0]?.evalLoss;
    const reached = snaps.map((x) => reachedStage(x, firstLoss, { final }));
    this._replay = new Replay({
      n,
      show: (i) => { this.snapshot = i; },
      ready: () => this.viewReady && this.isConnected,
      pauseAt: (i) => this.stagePauses && i > 0 && reached[i].stage > Math.max(...reached.slice(0, i).map((r) => r.stage)),
      paused: (i) => {
        const r = reached[i];
        this._replayHeld = { index: i, text: `Replay paused at stage ${r.stage}, ${STAGES[r.stage]} (step ${snaps[i].step}): ${r.why}. Go on goes to the next stage.` };
      },
      done: () => { this._replaying = false; this._replayHeld = null; this.stateChanged(); },
    });
    this._replaying = true;
    this._replay.start(0);
  }

  #stopReplay() {
    this._replay?.stop();
    this._replay = null;
    this._replaying = false;
    this._replayHeld = null;
  }

  #setSpeed(speed) {
    this.speed = speed;  // willUpdate passes it on to a run that trains
    this.stateChanged();
  }

  #toggle(layer, head) {
    const { heads } = this.#shape();
    this.ablate = null;  // a click decides now, not the deck's role list
    this.ablated = toggleHead(this.ablated, layer * heads + head);
    this.stateChanged();
  }

  #jump(stage) {
    this.#stopReplay();
    this.stage = stage;
    this.snapshot = null;
    this.stateChanged();
  }

  async #downloadWeights() {
    const cur = this.#current();
    let bytes;
    try {
      if (this.session.source === 'pretrained') bytes = cur.snap?.bytes ?? (await this.session.pre.bytes?.(cur.index));
      else bytes = await this.session.run?.trainer.save();
    } catch (e) {
      this.session.fail(e.message ?? String(e));
      return;
    }
    if (!bytes) return;
    this.#download(new Blob([bytes], { type: 'application/octet-stream' }), `attnlab-${this.task}-step${cur.step}.safetensors`);
  }

  #downloadHistory() {
    const plain = (x) => (ArrayBuffer.isView(x) ? Array.from(x) : x);
    const rows = this.session.history.map(({ bytes, ...r }) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, plain(v)])));
    this.#download(new Blob([JSON.stringify({ task: this.task, size: this.size, source: this.session.source, history: rows }, null, 1)], { type: 'application/json' }), `attnlab-${this.task}-history.json`);
  }

  #download(blob, name) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = name;
    this.renderRoot.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }

  // ---- pieces -----------------------------------------------------------------------------------

  #runControls({ compact = false, slide = compact } = {}) {
    const run = this.session.run, live = this.session.source === 'live', running = !!run?.running;
    const busy = !!this.session.making;
    const startLabel = !live ? (slide ? 'train live' : 'Train live (from scratch)') : running ? 'Pause' : run?.step ? 'Resume' : 'Start';
    const start = html`<button type="button" class=${running ? 'pause' : 'start'} aria-disabled=${busy ? 'true' : 'false'}
      @click=${(e) => { this.#deckKeys(e); return busy ? null : running ? this.#pause() : this.#start(); }}>${startLabel}</button>`;
    if (compact) {
      const back = live && this.session.pre.status === 'ready' && this.session.pretrainedFits ? html`<button type="button" class="pretrained" @click=${(e) => { this.#deckKeys(e); this.#pause(); this.#setSource('pretrained'); }}>pretrained</button>` : nothing;
      return html`${start}${back}`;
    }
    return html`${start}
      <button type="button" class="step" ?disabled=${running} @click=${() => this.#step(10)}>Step ×10</button>
      <button type="button" class="reset" ?disabled=${!run || !live} @click=${() => this.#reset()}>Reset</button>
      <label>speed <select class="speed" @change=${(e) => this.#setSpeed(e.target.value)}>
        ${SPEEDS.map((x) => html`<option value=${x.id} ?selected=${x.id === this.speed}>${x.label}</option>`)}</select></label>
      <label title="the loss falls; a previous-token head; an induction head"><input type="checkbox" class="stage-pauses" .checked=${!!this.stagePauses}
        @change=${(e) => { this.stagePauses = e.target.checked; this.stateChanged(); }}> pause at each stage</label>`;
  }

  /**
   * On a slide, a button or slider clicked with the mouse gives the keyboard back to the deck: a focused
   * button takes Space (and Slidev ignores its keys while one is focused), so the deck's next key
   * pressed Resume or Pause instead of moving on. Keyboard use of the control keeps its focus.
   */
  #deckKeys(e) {
    if (this.slideLayout && e?.detail > 0) e.currentTarget?.blur?.();
  }

  #scrubber(cur, { compact = false } = {}) {
    const n = cur.n, live = cur.live;
    if (!n) return compact ? nothing : html`<span class="empty">no snapshots yet</span>`;
    const max = live ? n : n - 1, value = cur.index === null ? n : cur.index;
    const text = cur.index === null ? `now, step ${cur.step}` : `step ${cur.step}${compact ? '' : ` (snapshot ${cur.index + 1} of ${n})`}`;
    const replay = compact || n < 2 ? nothing : html`<button type="button" class="replay" aria-pressed=${String(this._replaying)}
      @click=${() => this.#toggleReplay()}>${this._replayHeld ? 'Go on (replay)' : this._replaying ? 'Stop replay' : 'Replay (2 snapshots/s)'}</button>`;
    return html`<label class="scrub">${compact ? 'step' : 'checkpoint'} <input type="range" class="scrubber" min="0" max=${max} step="1" .value=${String(value)}
        aria-valuetext=${text} @input=${(e) => this.#scrub(Number(e.target.value), live ? Number(e.target.max) : Infinity)}
        @pointerup=${(e) => { if (this.slideLayout) e.currentTarget.blur(); }}></label>
      <output class="scrub-at" aria-live="off">${compact ? cur.step : text}</output>${replay}`;
  }

  /**
   * The numbers for the snapshot shown: the held-out batch's (as the curves: the snapshot's evaluation,
   * or a live run's latest) and, from the view's inspect, the eval sequence's loss with and without the
   * heads switched off.
   */
  #numbers(cur) {
    const v = this._view?.base, a = this._view?.abl;
    const src = cur.snap ?? (cur.index === null ? this.session.run?.last : null);
    return { evalLoss: src?.evalLoss, ratio: src?.ratio, seqLoss: v?.loss, ablLoss: a?.loss };
  }

  /** The steps axis: first to last step, with room at the right end for the last tick's label. */
  #xDomain(hist, cur, width, fs) {
    // A live run's axis reaches to where it will pause: its curves grow to the right.
    const planned = this.session.source === 'live' && Number.isFinite(this.session.run?.target) ? this.session.run.target : 0;
    const lo = hist[0]?.step ?? 0, hi = Math.max(hist[hist.length - 1]?.step ?? 0, cur.step, planned);
    if (hi <= lo) return undefined;  // one point: plot() makes its own axis
    // plot() puts ticks at round steps: widen the axis until the last tick's label ends inside the figure.
    const inner = plotInner(width, 100, fs).width;
    let top = hi + (hi - lo) * 0.025;  // the last point (a dot) clear of the frame
    for (let k = 0; k < 4; k++) {
      const ticks = niceTicks(lo, top, 6), last = ticks[ticks.length - 1] ?? top;
      const half = 0.31 * fs * String(last).length + 2;  // half the label's width (px)
      const right = (inner * (last - lo)) / (top - lo) + half;
      if (right <= inner + 10) break;
      top = lo + ((last - lo) * inner) / Math.max(1, inner + 10 - half);
    }
    return [lo - (hi - lo) * 0.02, top];  // the first point clear of the frame too
  }

  #plotLoss(width, height, fs, cur, { upTo = null } = {}) {
    const hist = this.session.history;
    let series = lossSeries(upTo === null ? hist : hist.filter((r) => r.step <= upTo), this.task);
    const all = lossSeries(hist, this.task);
    const yDomain = yRange(all, { floor: 0 });
    const xDomain = this.#xDomain(hist, cur, width, fs);
    if (hist.length && upTo === null) series = [...series, { points: [[cur.step, yDomain[0]], [cur.step, yDomain[1]]], color: MARK, dash: '5 4' }];
    // The snapshot shown: its held-out loss as a dot (a run's first point is a dot, not yet a line).
    const here = this.#numbers(cur).evalLoss;
    if (Number.isFinite(here)) series = [...series, { kind: 'dots', points: [[cur.step, here]], color: LOSS_COLORS.evalLoss, r: 6 }];
    return plot({ series: series.map((s) => ({ ...s, label: undefined })), xLabel: 'step', yLabel: 'loss (nats)', width, height, fontSize: fs, yDomain, xDomain });
  }

  #plotRatio(width, height, fs, cur, { upTo = null } = {}) {
    const hist = this.session.history, series = ratioSeries(upTo === null ? hist : hist.filter((r) => r.step <= upTo)).map((x) => ({ ...x, label: undefined }));
    const top = Math.max(1.1, ...series.flatMap((x) => x.points.map(([, y]) => y)));
    const marker = hist.length ? [{ points: [[cur.step, 0], [cur.step, top]], color: MARK, dash: '5 4' }] : [];
    return plot({ series: [...series, ...marker], xLabel: 'step', yLabel: 'ratio', width, height, fontSize: fs, yDomain: [0, top], xDomain: this.#xDomain(hist, cur, width, fs) });
  }

  #plotScores(kind, width, height, fs, cur, focus, { upTo = null } = {}) {
    const hist = this.session.history;
    const series = scoreSeries(upTo === null ? hist : hist.filter((r) => r.step <= upTo), kind, focus);
    const xDomain = this.#xDomain(hist, cur, width, fs);
    const marker = hist.length && upTo === null ? [{ points: [[cur.step, 0], [cur.step, 1]], color: MARK, dash: '5 4' }] : [];
    return plot({ series: [...series.map((s) => ({ ...s, label: undefined })), ...marker], xLabel: 'step', yLabel: `${SCORE_TEXT[kind]} score`, width, height, fontSize: fs, yDomain: [0, 1], xDomain });
  }

  #lossLegend() {
    const short = { loss: 'train', evalLoss: 'held-out', firstHalfLoss: 'first half', repeatedLoss: 'repeated half' };
    const present = lossSeries(this.session.history, this.task);
    const list = present.length ? present : lossSeries([{ step: 0, loss: 0, evalLoss: 0, firstHalfLoss: 0, repeatedLoss: 0 }], this.task).filter((x) => x.key !== 'loss' || this.session.source === 'live');
    return html`<div class="legend-line">${list.map((x) => html`<span><span class="line-swatch" style=${`border-color:${x.color};border-top-style:${x.dash ? 'dashed' : 'solid'}`}></span>${short[x.key]}</span>`)}</div>`;
  }

  /**
   * A score plot's legend: the heads' lines (or the highlighted head and the others), then what the
   * scores of the snapshot shown say about the role (roleNote: a head is called by a role only from
   * ROLE_THRESHOLD on, and only where the model can have it).
   */
  #scoreLegend(kind, focus, heads = null, { note: withNote = true } = {}) {
    const hist = this.session.history, series = scoreSeries(hist.slice(-1), kind, focus);
    const note = roleNote(heads ?? hist[hist.length - 1]?.heads, kind);
    const noteLine = note.text && withNote ? html`<div class="role-note">${note.text}</div>` : nothing;
    if (focus) {
      const f = series.find((s) => s.focus);
      return html`<div class="legend-line"><span><span class="line-swatch thick" style=${`border-color:${f?.color}`}></span>${headName(focus.layer, focus.head)} (${FOCUS_TEXT[focus.kind]}, score ≥ ${ROLE_THRESHOLDS[focus.kind]})</span>
        <span><span class="line-swatch" style="border-color:#c4cad0"></span>other heads</span></div>${noteLine}`;
    }
    return html`<div class="legend-line">${series.map((s) => html`<span><span class="line-swatch" style=${`border-color:${s.color};border-top-style:${s.dash ? 'dashed' : 'solid'}`}></span>${s.label}</span>`)}</div>${noteLine}`;
  }

  /** One head's attention map on the eval sequence. */
  #map(l, h, o) {
    // While a guess is asked for, the maps with every head (a head off changes the maps after it: a hint).
    const v = this._view, base = (this.#phase === 'guess' ? null : v?.abl) ?? v?.base, att = base?.attention?.[l]?.[h];
    if (!att) return nothing;
    const t = base.ids?.length ?? Math.round(Math.sqrt(att.length));
    const { heads } = this.#shape(), off = this.ablated.includes(l * heads + h);
    const fixed = this.weightRange !== 'map';
    const sc = (o.scores ?? null);
    const label = o.label ?? `${headName(l, h)}${off ? ' (off)' : ''}${sc ? this.#kinds().map((k) => ` · ${k === 'prev' ? 'prev' : k === 'induction' ? 'ind' : 'rev'} ${fmt(sc[k], 2)}`).join('') : ''}`;
    const cls = `head ${headName(l, h)}${off ? ' off' : ''}${o.focus ? ' focus' : ''}`;
    // `raster`: the cells as one image (with the same white lines between them), not t² SVG rects:
    // the maps are redrawn as the model trains, and each redraw must stay a short task.
    return html`<attn-heatmap class=${cls} .label=${label} .values=${att} .rows=${t} .cols=${t} .rowLabels=${o.rowLabels ?? base.tokens} .colLabels=${o.colLabels ?? base.tokens}
      colormap="sequential" raster .vmin=${fixed ? 0 : null} .vmax=${fixed ? 1 : null} clickable .legend=${o.legend ?? true} .noRowLabels=${!!o.noRowLabels}
      .compact=${!!o.compact} .fitWidth=${o.fitWidth ?? 0} .fitHeight=${o.fitHeight ?? 0} .cellSize=${o.cellSize ?? 16} max-width=${o.maxWidth ?? 260}
      .readoutFor=${this.#readout(l, h, base, att, t)}
      aria-description=${`${headName(l, h)}${off ? ', ablated' : ''}: Enter or a click switches this head off or on`}
      @attn-cell-toggle=${() => this.#toggle(l, h)}></attn-heatmap>`;
  }

  /** A map's readout: one function per head and view (a new one on every render would redraw every map). */
  #readout(l, h, base, att, t) {
    const key = `${l}|${h}`, c = this._readouts?.get(key);
    if (c && c.base === base && c.att === att) return c.fn;
    const fn = (i, j) => (j === null ? '' : `${headName(l, h)}: query ${base.tokens?.[i] ?? i} (${i}) → key ${base.tokens?.[j] ?? j} (${j}): ${fmt(att[i * t + j], 4)}`);
    (this._readouts ??= new Map()).set(key, { base, att, fn });
    return fn;
  }

  #viewMessage() {
    const v = this._view;
    if (v?.error) return html`<p class="error" role="alert">The picture could not be computed: ${v.error}</p>`;
    if (this.session.source === 'pretrained' && this.session.pre.status === 'loading') return html`<p class="empty">loading the pretrained snapshots…</p>`;
    if (this.session.source === 'pretrained' && this.session.pre.status !== 'ready') return html`<p class="empty">${this.session.pre.message}</p>`;
    if (!v?.base) {
      const text = this.session.making ? 'starting the trainer…' : this.session.source === 'live' && !this.session.run ? (this.session.error ? 'no model to show' : 'press Start to build the model') : 'computing the attention maps…';
      return html`<p class="empty">${text}</p>`;
    }
    return null;
  }

  #ablation(cur) {
    const { heads } = this.#shape(), v = this._view;
    const names = this.ablated.map((i) => headName(Math.floor(i / heads), i % heads));
    // Predict first: while the guess is asked for, nothing computed without the heads is shown.
    const phase = this.#phase, base = v?.base, abl = phase === 'guess' ? null : v?.abl;
    const task = this.task;
    const from = scoredFrom(task, base);
    const rows = predictionRows(base, abl, decoderFrom(base, v?.decode), from);
    const right = (key) => rows.filter((r) => r[key]).length;
    return html`<div class="ablation">
      <h3>Ablation: switch heads off</h3>
      <p class="note">Click a head’s map, or focus it and press Enter: its output is set to zero (the others keep theirs).
        ${names.length ? html`Off: <strong>${names.join(', ')}</strong> <button type="button" class="clear-ablation" @click=${() => { this.ablate = null; this.ablated = []; this.stateChanged(); }}>all heads on</button>` : 'All heads on.'}</p>
      ${this.controlsMode === 'full' ? html`<label class="predict-check"><input type="checkbox" class="predict-toggle" .checked=${!!this.predict}
        @change=${(e) => { this.predict = e.target.checked; this.stage = this.predict ? PREDICT.at : null; this.stateChanged(); }}> predict the loss first (self-check)</label>` : nothing}
      ${phase && phase !== 'before' ? this.#predictBlock({ page: true }) : nothing}
      ${base ? html`<p class="loss-compare">held-out sequence loss: <strong>${fmt(base.loss, 3)}</strong> with every head${abl ? html`, <strong>${fmt(abl.loss, 3)}</strong> without ${names.join(', ')}` : nothing}
        ${Number.isFinite(base.ratio) ? html` · repeated / first-half loss ${fmt(base.ratio, 2)}${abl && Number.isFinite(abl.ratio) ? html` → ${fmt(abl.ratio, 2)}` : nothing}` : nothing}</p>
      ${rows.length ? html`<p class="note preds-note">${task === 'induction' ? 'The repeated half' : task === 'reverse' ? 'The reversed half' : 'Each position'} of the held-out sequence: the model’s most likely next token
        (green: it is the next token) — ${right('right')} of ${rows.length} right${abl ? `, ${right('rightAblated')} without ${names.join(', ')}` : ''}.</p>
      ${this.#tokenLossPlot(base, abl, names, from)}
      <div class="scrollx" tabindex="0" role="region" aria-label="predictions on the held-out sequence"><table class="preds">
        <tr><th scope="row">token</th>${rows.map((r) => html`<td>${r.token}</td>`)}</tr>
        <tr><th scope="row">next</th>${rows.map((r) => html`<td>${r.next}</td>`)}</tr>
        <tr><th scope="row">predicted</th>${rows.map((r) => html`<td class=${r.right ? 'right' : 'wrong'}>${r.pred}</td>`)}</tr>
        ${abl ? html`<tr><th scope="row">without ${names.join(', ')}</th>${rows.map((r) => html`<td class=${r.rightAblated ? 'right' : 'wrong'}>${r.predAblated}</td>`)}</tr>` : nothing}
      </table></div>` : nothing}` : nothing}
    </div>`;
  }

  /**
   * The loss at each position of the held-out sequence (inspect's tokenLosses), with every head and
   * without the ones switched off: switching off the induction head undoes the repeated half (pretrained
   * run, last snapshot: 0.00 → 4.05 on average there) and hurts the first copy too (2.02 → 3.65).
   */
  #tokenLossPlot(base, abl, names, from) {
    const off = names.length ? `without ${names.join(', ')}` : '';
    const series = tokenLossSeries(base, abl, { from, offLabel: off });
    if (!series.length) return nothing;
    const W = Math.min(560, this.pageFit(560)), H = 200;
    const m0 = meanFrom(base.tokenLosses, from), m1 = abl ? meanFrom(abl.tokenLosses, from) : NaN;
    const half = this.task === 'induction' ? 'the repeated half' : this.task === 'reverse' ? 'the reversed half' : 'every position';
    return html`<div class="plot-panel token-loss" style=${`width:${W}px`}>
      <strong>Loss at each position</strong> (of predicting the next token)
      <div class="legend-line"><span><span class="line-swatch" style=${`border-color:${TOKEN_LOSS_COLORS.base}`}></span>every head</span>
        ${abl ? html`<span><span class="line-swatch" style=${`border-color:${TOKEN_LOSS_COLORS.ablated};border-top-style:dashed`}></span>${off}</span>` : nothing}
        ${from > 0 ? html`<span><span class="line-swatch" style="border-color:#8c959f;border-top-style:dotted"></span>${half} from here</span>` : nothing}</div>
      <p class="note token-loss-note">mean over ${half}: <strong>${fmt(m0, 2)}</strong>${abl ? html` with every head, <strong>${fmt(m1, 2)}</strong> ${off}` : ''}</p>
      ${plot({ series: series.map((x) => ({ ...x, label: undefined })), xLabel: 'position', yLabel: 'loss (nats)', width: W, height: H, fontSize: 12, yDomain: yRange(series, { floor: 0 }) })}</div>`;
  }

  /**
   * Names: the sample drawn from the snapshot at the scrubber's step (or the newest before it), then
   * every snapshot's sample, so the way from gibberish to names can be read step by step.
   */
  #namesSamples(cur) {
    const all = this.session.samples, at = this.session.sampleAt(cur.step);
    const line = (x) => (x.error ? html`<span class="error">${x.error}</span>` : x.names.join(' · ') || '(no complete name yet)');
    return html`<div class="names-samples"><h3>Names it makes up as it learns</h3>
      ${at ? html`<p class="sample-now">step ${at.step}${at.step !== cur.step ? ` (the snapshot at or before step ${cur.step})` : ''}: <strong>${line(at)}</strong></p>`
        : html`<p class="empty">A sample is drawn from every snapshot (every ${trainerOptions('names', this.size).snapshotEvery} steps) once training runs.</p>`}
      ${all.length > 1 ? html`<details class="all-samples"><summary>every snapshot’s sample (${all.length})</summary>
        <ul class="samples">${all.map((x) => html`<li class=${x === at ? 'at' : ''}>step ${x.step}: ${line(x)}</li>`)}</ul></details>` : nothing}</div>`;
  }

  // ---- page layout ------------------------------------------------------------------------------

  renderWidget() {
    const cur = this.#current();
    return this.slideLayout ? this.#renderSlide(cur) : this.#renderPage(cur);
  }

  #renderPage(cur) {
    const live = this.session.source === 'live', run = this.session.run, pw = this.pageFit(1400), W = pw < 700 ? this.pageFit(560) : Math.min(560, Math.floor((pw - 24) / 2)), H = 240;
    const shape = this.#shape(), view = this._view;
    const heads = cur.snap?.heads ?? (cur.index === null ? view?.scores ?? this.session.run?.last?.heads : null);
    const focus = cur.focus;
    const msg = this.#viewMessage();
    const ctl = this.controlsMode;
    // A replay draws the curves up to the snapshot shown: they grow with the maps.
    const upTo = this._replaying && cur.index !== null ? cur.step : null;
    // The maps of a layer side by side (up to 4 a row), as wide as the column allows; the last of a row carries the legend.
    const colW = this.pageFit(1400), perRow = Math.max(1, Math.min(shape.heads, 4, Math.floor((colW - 30) / 180)));
    const mapW = Math.max(150, Math.floor((colW - 40 - 70 - 14 * perRow) / perRow));
    return html`
      ${ctl === 'none' ? nothing : html`<div class="controls">
        <label>task <select class="task" @change=${(e) => this.#setTask(e.target.value)}>
          ${TASKS.map((t) => html`<option value=${t.id} ?selected=${t.id === this.task}>${t.label}</option>`)}</select></label>
        <label>model <select class="size" @change=${(e) => this.#setSize(e.target.value)}>
          ${SIZES.map((s) => html`<option value=${s.id} ?selected=${s.id === this.size}>${s.label}</option>`)}</select></label>
        ${this.task === 'induction' ? html`<span class="source" role="group" aria-label="what to show">
          <button type="button" class="show-pretrained" aria-pressed=${String(!live)} ?disabled=${this.session.pre.status !== 'ready' || !this.session.pretrainedFits}
            aria-description=${this.session.pretrainedFits ? nothing : `the snapshots are of the ${SIZES[0].label} model`} @click=${() => { this.#pause(); this.#setSource('pretrained'); }}>pretrained snapshots</button>
          <button type="button" class="show-live" aria-pressed=${String(live)} @click=${() => this.#setSource('live')}>live training</button></span>
          ${this.session.pretrainedFits ? nothing : html`<span class="note pretrained-note">pretrained snapshots: ${SIZES[0].label} model only</span>`}` : nothing}
      </div>
      ${this.session.notice ? html`<p class="notice" role="status">${this.session.notice}</p>` : nothing}
      <div class="controls run">${this.#runControls()}
        ${live && run ? html`<progress class="progress" max=${Number.isFinite(run.target) ? run.target : 1} .value=${Math.min(run.step, run.target)} aria-label="training progress"></progress>` : nothing}
        <span class="status" role="status">${this.session.statusText()}</span></div>`}
      ${this.session.error || this._ablateError ? html`<p class="error train-error" role="alert">${this.session.error || this._ablateError}</p>` : nothing}
      <div class="controls scrubline">${this.#scrubber(cur)}</div>
      ${this._replayHeld ? html`<p class="boundary replay-held" role="status">${this._replayHeld.text}</p>` : nothing}
      ${ctl === 'full' && this.task === 'induction' ? html`<div class="controls jump" role="group" aria-label="jump to a stage">jump to:
        ${STAGES.map((s, i) => {
          // The stage of a head picked while the model shows none: said on the button, not lit.
          const none = this.stage === i && i >= 2 && cur.found === false;
          return html`<button type="button" class=${none ? 'none' : ''} aria-pressed=${String(this.stage === i)} @click=${() => this.#jump(i)}>${i} ${none ? `${s}: none found` : s}</button>`;
        })}</div>` : nothing}
      <div class="plots">
        <div class="plot-panel loss" style=${`width:${W}px`}>${this.#lossLegend()}${this.#plotLoss(W, H, 12, cur, { upTo })}</div>
        ${this.task === 'induction' ? html`<div class="plot-panel ratio" style=${`width:${W}px`}><div class="legend-line"><span><span class="line-swatch" style=${`border-color:${LOSS_COLORS.ratio}`}></span>repeated-half loss ÷ first-half loss</span></div>
          ${this.#plotRatio(W, H, 12, cur, { upTo })}</div>` : nothing}
      </div>
      <div class="plots">
        ${this.#kinds().map((k) => html`<div class=${`plot-panel ${k}`} style=${`width:${W}px`}><strong>${SCORE_TEXT[k]} score</strong> (${SCORE_NOTE[k]})${this.#scoreLegend(k, focus?.kind === k ? focus : null, heads)}${this.#plotScores(k, W, H, 12, cur, focus?.kind === k ? focus : null, { upTo })}</div>`)}
      </div>
      <h3>Attention on the held-out sequence, ${cur.index === null ? `now (step ${cur.step})` : `step ${cur.step}`}</h3>
      <p class="note">Each map: rows are queries, columns keys (the model is causal: nothing right of the diagonal). Colours are weights on [0, 1].
        Click a map or press Enter on it to switch that head off.</p>
      ${view?.stale && !msg ? html`<p class="empty">computing the attention maps…</p>` : nothing}
      ${msg ?? html`<div class=${`grid${view?.stale ? ' stale' : ''}`} aria-busy=${view?.stale || !drawn(this, 3) ? 'true' : 'false'}>${Array.from({ length: shape.layers }, (_, l) => html`<div class="layer"><span class="layer-name">layer ${l}</span>
        ${Array.from({ length: drawn(this, Math.min(1 + l, 2)) ? shape.heads : 0 }, (_, h) => this.#map(l, h, { scores: heads?.[l]?.[h], focus: focus && focus.layer === l && focus.head === h,
          legend: h === shape.heads - 1 || (h + 1) % perRow === 0, maxWidth: mapW + (h === shape.heads - 1 || (h + 1) % perRow === 0 ? 60 : 0) }))}</div>`)}</div>`}
      ${view?.base && !view.stale && drawn(this, 3) ? this.#ablation(cur) : nothing}
      ${this.task === 'names' && live ? this.#namesSamples(cur) : nothing}
      ${ctl === 'none' ? nothing : html`<div class="controls export">export:
        <button type="button" class="download-weights" @click=${() => this.#downloadWeights()}>weights (.safetensors)</button>
        <button type="button" class="download-history" @click=${() => this.#downloadHistory()}>history (JSON)</button>
        <span class="note">each map has its own SVG / PNG buttons</span></div>`}`;
  }

  // ---- slide layout -----------------------------------------------------------------------------

  #renderSlide(cur) {
    if (this.#phase === 'guess' || this.#phase === 'reveal') return this.#renderPredictSlide(cur);
    if (this.task === 'names') return this.#renderNamesSlide(cur);
    const box = this.box, ctl = this.controlsMode, fs = 16;
    const stage = cur.shownStage;
    const focus = cur.focus, em = cur.emphasis ?? 'maps';
    const narrow = box.width < 620;
    const { evalLoss, ratio, seqLoss, ablLoss } = this.#numbers(cur);
    const shape = this.#shape();
    const names = this.ablated.map((i) => headName(Math.floor(i / shape.heads), i % shape.heads));
    const heads = cur.snap?.heads ?? this.session.run?.last?.heads;
    const fscore = focus ? heads?.[focus.layer]?.[focus.head]?.[focus.kind] : null;
    // The caption: the numbers of the snapshot shown, the stage's own highlighted (a narrow box: only those).
    const lossItem = html`<span class=${em === 'loss' ? 'em' : ''}>held-out loss <strong>${fmt(evalLoss, 2)}</strong></span>`;
    const ablItem = names.length && Number.isFinite(ablLoss) ? html`<span class="em">without ${names.join(', ')}: this sequence’s loss ${fmt(seqLoss, 2)} → <strong>${fmt(ablLoss, 2)}</strong></span>` : null;
    const ratioItem = this.task === 'induction' && Number.isFinite(ratio) ? html`<span>repeated ÷ first half <strong>${fmt(ratio, 2)}</strong></span>` : null;
    const focusItem = focus && Number.isFinite(fscore) ? html`<span class="em">${headName(focus.layer, focus.head)} ${SCORE_TEXT[focus.kind]} score <strong>${fmt(fscore, 2)}</strong></span>` : null;
    const items = [html`step <strong>${cur.step}</strong>`, ...(narrow ? [ablItem ?? focusItem ?? lossItem] : [lossItem, ratioItem, ablItem ?? focusItem])].filter(Boolean);
    if (this.task === 'induction' && this.session.pre.status === 'none' && !narrow) items.push(html`<span class="empty">no pretrained snapshots: train live</span>`);
    // A wide box wraps the caption between its items, never inside one (a score split from its head's name).
    const caption = html`<p class=${`caption${narrow ? '' : ' whole-items'}`} role="status">${items.map((x, i) => html`${i ? ' · ' : ''}${x}`)}</p>`;
    const controls = ctl === 'none' ? nothing : html`<div class="controls">${this.#runControls({ compact: ctl !== 'full', slide: true })}${this.#scrubber(cur, { compact: true })}</div>`;
    const strip = this.task === 'induction' ? this.#stageStrip(narrow ? ['untrained', 'loss', 'prev-token', 'induction'] : SHORT_STAGES, cur) : nothing;
    // A live run that paused itself at a stage boundary: why, and how to go on.
    const held = this.session.source === 'live' ? this.session.boundaryText({ short: true }) : '';
    const head = html`<div class="slide-head"><div class="topline">${strip}${controls}</div>${caption}${held ? html`<p class="boundary" role="status">${held}</p>` : nothing}</div>`;
    const msg = this.#viewMessage();
    const body = this.boxes.get('body', { width: box.width, height: Math.max(120, box.height - (this._headH || 90) - 12) });
    // A small box shows one panel: the stage's own (0: the maps, 1: the loss, 2 and 3: the head's map).
    const single = narrow && body.height < 480;
    const showPlot = !single || em === 'loss', showMaps = !single || em !== 'loss';
    // Share of the body the plot takes: the loss curve is the point of stage 1.
    const share = single ? 1 : narrow ? 0.42 : em === 'loss' ? 0.56 : em === 'maps' ? 0.36 : 0.4;
    const gap = 16;
    const plotW = narrow ? body.width : Math.floor((body.width - gap) * share);
    const mapsW = narrow ? body.width : body.width - gap - (showPlot ? plotW : 0);
    const plotGuess = { width: plotW, height: Math.max(80, (narrow ? Math.floor(body.height * share) : body.height) - 30) };
    const pb = this.boxes.get('plot', plotGuess);
    const mb = this.boxes.get('maps', { width: mapsW, height: narrow && !single ? body.height - plotGuess.height - 36 : body.height });
    const kind = SCORE_TEXT[em] ? em : null;
    const upTo = cur.index === null ? null : cur.step;
    const plotStyle = narrow ? (single ? 'flex:1 1 0' : `height:${Math.floor(body.height * share)}px`) : `width:${plotW}px`;
    const plotPanel = !showPlot ? nothing : html`<div class=${`panel plot-panel ${kind ? `${kind}-scores` : 'loss'}${em === 'loss' ? ' em' : ''}`} style=${plotStyle}>
      ${kind ? this.#scoreLegend(kind, focus, heads, { note: !focus }) : this.#lossLegend()}
      <div class="plotbox" data-fit="plot">${kind ? this.#plotScores(kind, pb.width, pb.height, fs, cur, focus, { upTo }) : this.#plotLoss(pb.width, pb.height, fs, cur, { upTo })}</div></div>`;
    const mapsPanel = !showMaps ? nothing : html`<div class="panel maps-panel" data-fit="maps">${msg ?? this.#slideMaps(stage, focus, mb.width, mb.height)}</div>`;
    return html`<div class="slide-frame" style=${`height:${box.height}px`}>
      ${head}
      ${this.session.error || this._ablateError ? html`<p class="error train-error" role="alert">${this.session.error || this._ablateError}</p>` : nothing}
      <div class=${`slide-body${narrow ? ' column' : ''}`} data-fit="body">${plotPanel}${mapsPanel}</div>
    </div>`;
  }

  // ---- names: samples as the loss falls ---------------------------------------------------------------

  /**
   * What the names slide shows: a live run's evaluations and samples once it has any, else the shipped
   * seeded run of this model (names-run.js, made by make-names-run.mjs with the
   * trainer the widget uses) at the snapshot asked for (default: its last), else nothing.
   */
  #namesShown(cur) {
    if (this.session.run && this.session.history.length) {
      return { kind: 'live', history: this.session.history, samples: this.session.samples, step: cur.step, evalLoss: this.#numbers(cur).evalLoss };
    }
    if (NAMES_RUN.size !== this.size) return { kind: 'none', history: [], samples: [], step: 0, evalLoss: NaN };
    const snaps = NAMES_RUN.snapshots, i = clampIndex(this.snapshot ?? null, snaps.length);
    return { kind: 'shipped', history: NAMES_RUN.history, samples: snaps, step: snaps[i].step, evalLoss: snaps[i].evalLoss };
  }

  /** The names slide: the caption, the loss curve (dots at the samples shown) and the samples, newest large. */
  #renderNamesSlide(cur) {
    const box = this.box, ctl = this.controlsMode, fs = 16, d = this.#namesShown(cur);
    const { now, before } = samplesPanel(d.samples, d.step);
    const lossAt = (x) => (Number.isFinite(x.evalLoss) ? x.evalLoss : d.history.find((r) => r.step === x.step)?.evalLoss);
    const items = [html`<span>step <strong>${d.step}</strong></span>`, html`<span class="em">held-out loss <strong>${fmt(d.evalLoss, 2)}</strong></span>`];
    if (d.kind === 'shipped') items.push(html`<span class="shipped">shipped: a seeded run of this model (seed ${NAMES_RUN.seed}); Start trains it live</span>`);
    const caption = html`<p class="caption whole-items" role="status">${items.map((x, i) => html`${i ? ' · ' : ''}${x}`)}</p>`;
    const controls = ctl === 'none' ? nothing : html`<div class="controls">${this.#runControls({ compact: ctl !== 'full', slide: true })}${d.kind === 'live' ? this.#scrubber(cur, { compact: true }) : nothing}</div>`;
    const head = html`<div class="slide-head"><div class="topline">${controls}</div>${caption}</div>`;
    const body = this.boxes.get('body', { width: box.width, height: Math.max(120, box.height - (this._headH || 90) - 12) });
    const gap = 16, plotW = Math.floor((body.width - gap) * 0.42);
    const pb = this.boxes.get('plot', { width: plotW, height: Math.max(80, body.height - 30) });
    const hist = d.history, all = lossSeries(hist, 'names'), yDomain = yRange(all, { floor: 0 });
    const shown = [...before, ...(now ? [now] : [])].map((x) => [x.step, lossAt(x)]).filter(([, y]) => Number.isFinite(y));
    const series = [...all,
      ...(hist.length ? [{ points: [[d.step, yDomain[0]], [d.step, yDomain[1]]], color: MARK, dash: '5 4' }] : []),
      ...(shown.length ? [{ kind: 'dots', points: shown, color: LOSS_COLORS.evalLoss, r: 6 }] : [])];
    const plotPanel = html`<div class="panel plot-panel loss" style=${`width:${plotW}px`}>${this.#lossLegend()}
      <div class="plotbox" data-fit="plot">${plot({ series: series.map((x) => ({ ...x, label: undefined })), xLabel: 'step', yLabel: 'loss (nats)', width: pb.width, height: pb.height, fontSize: fs, yDomain, xDomain: this.#xDomain(hist, { step: d.step }, pb.width, fs) })}</div></div>`;
    const names = (x, max) => (x.error ? html`<span class="error">${x.error}</span>` : x.names.slice(0, max).join(' · ') || '(no whole name yet)');
    const at = (x, big) => html`<span class=${big ? 'at now' : 'at'}>step ${x.step}${Number.isFinite(lossAt(x)) ? html` · loss ${fmt(lossAt(x), 2)}` : nothing}</span>`;
    const samples = html`<div class="panel names-panel" data-fit="names">
      <p class="names-title">Names it makes up</p>
      ${now ? html`${before.length ? html`<ol class="names-before">${before.map((x) => html`<li>${at(x)}<span class="names">${names(x, 6)}</span></li>`)}</ol>` : nothing}
        <div class="names-now">${at(now, true)}<p class="names">${names(now, 8)}</p></div>`
        : html`<p class="empty">${d.kind === 'none' ? 'Train live: a sample is drawn from every snapshot.' : 'the first snapshot’s sample comes next…'}</p>`}</div>`;
    return html`<div class="slide-frame names-slide" style=${`height:${box.height}px`}>
      ${head}
      ${this.session.error ? html`<p class="error train-error" role="alert">${this.session.error}</p>` : nothing}
      <div class="slide-body" data-fit="body">${plotPanel}${samples}</div>
    </div>`;
  }

  // ---- predict: guess the loss after an ablation ----------------------------------------------------

  /** The number of tokens that can come next (induction: BOS never does), for a uniform guess's loss. */
  #nextTokens() {
    const vocab = this.session.source === 'pretrained' ? this.session.pre.config?.vocab : (() => { try { return this.session.run?.trainer.task?.vocab; } catch { return undefined; } })();
    if (!Number.isFinite(vocab)) return NaN;
    return this.task === 'induction' ? vocab - 1 : vocab;
  }

  /** Names of the heads switched off ("L1H0"). */
  #offNames() {
    const { heads } = this.#shape();
    return this.ablated.map((i) => headName(Math.floor(i / heads), i % heads));
  }

  /**
   * The predict stage's question and slider (phase 'guess') or its reveal: the guessed loss beside the
   * core's (the held-out sequence's loss with the head mask: the mean of inspect's tokenLosses).
   */
  #predictBlock({ page = false } = {}) {
    const phase = this.#phase, v = this._view, base = v?.base, names = this.#offNames();
    if (!base) return nothing;
    if (!names.length) return html`<div class="predict guess"><p class="ask">Pick the heads to switch off first (click a head’s map), then predict the loss without them.</p></div>`;
    const start = base.loss, g = fitGuess(this.guess, start);
    const toStage = (st) => { this.stage = st; this.stateChanged(); };
    if (phase === 'guess') {
      return html`<div class="predict guess"><p class="ask">Predict this sequence’s loss without ${names.join(', ')}</p>
        ${guessNumber({ label: 'your guess (nats)', value: g, min: GUESS_RANGE[0], max: GUESS_RANGE[1], step: GUESS_STEP,
          onInput: (x) => { this.guess = x; this.stateChanged(); } })}
        ${page ? html`<div class="actions"><button type="button" class="reveal" @click=${() => toStage(PREDICT.at + 1)}>Reveal the loss</button></div>` : nothing}</div>`;
    }
    const abl = v?.abl;
    if (!abl) return html`<div class="predict reveal"><p class="empty">computing the loss without ${names.join(', ')}…</p></div>`;
    const r = revealLoss({ guess: this.guess, start, actual: abl.loss });
    return html`<div class="predict reveal">${revealLine(html`your guess <strong class="yours">${fmt(r.guess, 2)}</strong>, computed <strong class="computed">${fmt(r.actual, 2)}</strong>:
      off by <strong>${fmt(r.error, 2)}</strong> — ${r.verdict}`, page ? `(${Math.round(r.share * 100)} % of the slider’s 0–${GUESS_RANGE[1]} nats)` : '')}
      ${page ? html`<div class="actions"><button type="button" class="predict-again" @click=${() => toStage(PREDICT.at)}>Predict again</button></div>` : nothing}</div>`;
  }

  /**
   * The per-position loss on the held-out sequence for the predict stage: with every head, the guess as
   * a level line (the mean it predicts), and at the reveal the loss at each position without the heads.
   */
  #predictPlot(width, height, fs) {
    const v = this._view, base = v?.base, names = this.#offNames();
    if (!base?.tokenLosses) return nothing;
    const reveal = this.#phase === 'reveal', abl = reveal ? v?.abl : null;
    const series = tokenLossSeries(base, abl, { offLabel: `without ${names.join(', ')}` }).filter((x) => x.key !== 'from');
    const t = base.tokenLosses.length, g = fitGuess(this.guess, base.loss);
    const level = (y, color, dash) => ({ points: [[0, y], [t - 1, y]], color, dash });
    const lines = [...series, ...(names.length ? [level(g, '#8250df', '8 4')] : [])];
    // One y range for the guess and the reveal (the guess line stays where it was set): the slider's, or more.
    const yDomain = [0, Math.max(GUESS_RANGE[1], ...lines.flatMap((x) => x.points.map(([, y]) => y)))];
    return plot({ series: lines.map((x) => ({ ...x, label: undefined })), xLabel: 'position in the held-out sequence', yLabel: 'loss (nats)', width, height, fontSize: fs, yDomain });
  }

  /** The slide in the predict stages: the question (or the reveal) above, the per-position loss and the maps below. */
  #renderPredictSlide(cur) {
    const box = this.box, fs = 16, v = this._view, base = v?.base, names = this.#offNames();
    const reveal = this.#phase === 'reveal';
    const uni = uniformLoss(this.#nextTokens());
    const caption = html`<p class="caption whole-items" role="status"><span>step <strong>${cur.step}</strong>, trained</span> · <span>this sequence’s loss with every head <strong>${fmt(base?.loss, 2)}</strong></span>${Number.isFinite(uni)
      ? html` · <span>a uniform guess: ln ${this.#nextTokens()} = <strong>${fmt(uni, 2)}</strong></span>` : nothing}</p>`;
    const head = html`<div class="slide-head">${caption}${this.#predictBlock()}</div>`;
    const msg = this.#viewMessage();
    const body = this.boxes.get('body', { width: box.width, height: Math.max(120, box.height - (this._headH || 90) - 12) });
    const gap = 16, plotW = Math.floor((body.width - gap) * 0.5), mapsW = body.width - gap - plotW;
    const pb = this.boxes.get('plot', { width: plotW, height: Math.max(80, body.height - 30) });
    const mb = this.boxes.get('maps', { width: mapsW, height: body.height });
    const off = `without ${names.join(', ')}`;
    const legend = html`<div class="legend-line"><span><span class="line-swatch" style=${`border-color:${TOKEN_LOSS_COLORS.base}`}></span>every head</span>
      ${names.length ? html`<span><span class="line-swatch" style="border-color:#8250df;border-top-style:dashed"></span>your guess</span>` : nothing}
      ${reveal && v?.abl ? html`<span><span class="line-swatch" style=${`border-color:${TOKEN_LOSS_COLORS.ablated};border-top-style:dashed`}></span>${off}</span>` : nothing}</div>`;
    const plotPanel = html`<div class="panel plot-panel token-loss" style=${`width:${plotW}px`}>${legend}<div class="plotbox" data-fit="plot">${msg ? nothing : this.#predictPlot(pb.width, pb.height, fs)}</div></div>`;
    const mapsPanel = html`<div class="panel maps-panel" data-fit="maps">${msg ?? this.#slideMaps(0, null, mb.width, mb.height, { ablated: reveal })}</div>`;
    return html`<div class="slide-frame predict-slide" style=${`height:${box.height}px`}>
      ${head}
      ${this.session.error || this._ablateError ? html`<p class="error train-error" role="alert">${this.session.error || this._ablateError}</p>` : nothing}
      <div class="slide-body" data-fit="body">${plotPanel}${mapsPanel}</div>
    </div>`;
  }

  /**
   * The slide's stage strip: AttnWidget's, at the stage of what is shown (#current: the deck's stage
   * when its view is shown, else the stage the weights shown have reached), except that a stage is lit
   * only when the weights shown have reached it (found); otherwise it reads "no … head" (snapshots) or
   * "not yet: …" (a live run) and stays unlit.
   */
  #stageStrip(names, cur) {
    const at = cur.shownStage;
    const missing = at >= 1 && cur.found === false;
    return html`<ol class="stagestrip" aria-label="stages">${names.map((n, i) => {
      const none = missing && i === at;
      const cls = none ? 'todo none' : i === at ? 'current' : i < at ? 'done' : 'todo';
      // A live run that has not reached the stage yet: "not yet"; snapshots that never have its head: "no".
      return html`<li class=${cls} aria-current=${i === at ? 'step' : 'false'}>${none ? (cur.live ? `not yet: ${n}` : `no ${n}`) : n}</li>`;
    })}</ol>`;
  }

  /** The maps of a slide: every head (stages 0 and 1), or the highlighted head large (2 and 3; in 3 with its layer-0 partner). */
  #slideMaps(stage, focus, width, height, { ablated = this.#phase !== 'guess' } = {}) {
    const base = (ablated ? this._view?.abl : null) ?? this._view?.base;
    if (!base?.attention) return nothing;
    const t = base.ids?.length ?? 0, tokens = base.tokens;
    const L = base.attention.length, H = base.attention[0].length;
    const panel = (o) => ({ rows: t, cols: t, rowLabels: tokens, colLabels: tokens, compact: true, ...o });
    if (focus && stage >= 2) {
      const list = [panel({ label: `${headName(focus.layer, focus.head)}: ${FOCUS_TEXT[focus.kind]}`, l: focus.layer, h: focus.head, focus: true })];
      if (stage === 3 && L > 1) {
        const prev = bestPrev(this.#current().snap?.heads ?? this.session.run?.last?.heads);
        if (prev) list.unshift(panel({ label: `${headName(prev.layer, prev.head)}: previous token`, l: prev.layer, h: prev.head, weight: 0.6, legend: false }));
      }
      // The layer-0 partner only while the induction head keeps most of its size beside it.
      let r = packRow(list, width, height, { maxCell: 40 });
      if (list.length > 1) {
        const alone = packRow(list.slice(-1), width, height, { maxCell: 40 });
        if (!r.fits || r.cell < 0.8 * alone.cell) { list.splice(0, list.length - 1); r = alone; }
      }
      return html`<div class="maps"><div class="mrow">${list.map((p, i) => this.#map(p.l, p.h, { ...p, ...r.panels[i], cellSize: 40, compact: true }))}</div></div>`;
    }
    // Every head: each layer as one row of maps, or as two or four rows when that gives larger cells;
    // one shared legend (weights on [0, 1]) at the end of each row, or one line under the grid.
    let best = null;
    for (const k of [1, 2, 4]) {
      if (H % k || (k > 1 && H / k < 1)) continue;
      const perRow = H / k, nRows = L * k;
      const rowH = Math.floor((height - 4 * (nRows - 1)) / nRows);
      const labelled = Array.from({ length: perRow }, (_, j) => panel({ label: 'L0H0', legend: j === perRow - 1, noRowLabels: j > 0 }));
      const blank = blankLabels(t);
      const bare = labelled.map((p) => ({ ...p, rowLabels: blank, colLabels: blank, noRowLabels: true, legend: false }));
      for (const [row, h] of [[labelled, rowH], [bare, rowH - Math.ceil(28 / nRows)]]) {
        const r = packRow(row, width, h, { gap: 8, maxCell: 30, minCell: 2 });
        // Token labels only where they fit and leave the cells ≥ 10 px; a fit beats a shrunken grid.
        if (row === labelled && !(r.fits && r.cell >= 10)) continue;
        const score = (r.fits ? 1000 : 0) + r.cell + (row === labelled ? 5 : 0);
        if (!best || score > best.score) best = { score, row, r, perRow, shrink: !r.fits };
      }
    }
    const { row, r, perRow, shrink } = best;
    const legend = row.some((p) => p.legend) ? nothing : html`<div class="legend-line grid-legend"><span class="ramp" aria-hidden="true"></span>weight 0 → 1</div>`;
    const rows = [];
    for (let l = 0; l < L; l++) for (let h0 = 0; h0 < H; h0 += perRow) rows.push([l, h0]);
    return html`<div class=${`maps grid${shrink ? ' shrink' : ''}${this._view?.stale ? ' stale' : ''}`}>${rows.map(([l, h0]) => html`<div class="mrow">${Array.from({ length: perRow }, (_, j) =>
      this.#map(l, h0 + j, { ...row[j], label: headName(l, h0 + j), ...r.panels[j], cellSize: 30, compact: true }))}</div>`)}${legend}</div>`;
  }
}

/** A token id → its text, from the trainer's task (tasks.js decode), or undefined. */
function taskDecoder(trainer) {
  let task = null;
  try { task = trainer.task; } catch { return undefined; }
  if (!task?.decode) return undefined;
  return (id) => { try { return task.decode([id]); } catch { return undefined; } };
}

/** Layer 0's best previous-token head (the partner an induction head reads). */
function bestPrev(heads) {
  let best = null;
  (heads?.[0] ?? []).forEach((x, h) => { if (Number.isFinite(x?.prev) && (!best || x.prev > best.score)) best = { layer: 0, head: h, score: x.prev }; });
  return best;
}
