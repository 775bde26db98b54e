// session.js — the model session behind <attn-model> (a Lit ReactiveController): which model is loaded
// and how far its loading is, the sequence, the forward results (with every head and with the heads
// switched off), the head scores, the next-token distribution, the logit lens, and the generation under
// way. The work itself (loading, tokens, forward passes) is engine.js's, in a Web Worker in a browser
// (backend.js): every action here is a request answered later, so this thread stays free to draw.
// Nothing here touches the DOM: tests run a session in Node on the shipped induction model, with the
// engine on the same thread (session.test.js).
//
//   status     'idle' | 'loading' | 'ready' | 'error'; progress: { loaded, total } while loading (total
//              null when unknown: an indeterminate bar); error: the API's message, in words (runError:
//              a run's; missing: a URL answered 404, the file is not there yet)
//   source     { kind: 'shipped' | 'file' | 'url', name, task? }: what is loaded (the shipped model stays
//              usable when another fails to load); task: 'induction' | 'names' for attnlab's own models
//   tokenizer  { kind: 'gpt2' | 'induction' | 'names' | 'ids', example, randomRange, prefix, sampled } (the
//              engine tokenizes; sampled: generation draws at temperature 1, seeded, instead of greedy)
//   ids        the sequence's token ids (≤ context); labels: what the token strip shows for each
//   base, off  the run with every head / with the `ablated` heads off: { tokenLosses, meanLoss } (base
//              also attention[layer][head]); off: null when no head is off
//   scores     [layer][head] → { prev, dup, induction } on the sequence (logic.js headScores)
//   dist       the next token at the last position, both runs side by side (logic.js ablationRows, with labels)
//   lens       { position, layers: [{ ids, probs, labels }] } (entry i: after i layers; the last: the
//              model's own distribution) or null with lensNote saying why; lensPosition: the chosen position
//   gen        { prompt: ids, tokens: ids (prompt then generated), labels, seed } while generating, else null
//   genSeed    the seed of a sampled generation's next run (step i draws with genSeed·2^16 + i); each
//              "back to the prompt" moves to the next seed, so a class sees another sample
//   busy       requests not answered yet (the widget says "computing…")
//
// The host is the element (or any object with requestUpdate()): every change asks it for an update.
import { loadPretrained } from './source.js';
import { getLab } from '../shared/lab.js';
import { localBackend, workerBackend } from './backend.js';
import { repeatedRandom, mulberry32 } from './logic.js';
import { LENS_NOTE, SHIPPED_TASKS } from './engine.js';

export { LENS_NOTE, SHIPPED_TASKS };

/** What the widget calls attnlab's own models. */
export const SHIPPED_NAMES = Object.freeze({ induction: 'attnlab’s induction model', names: 'attnlab’s names model' });

/** What the widget calls a source: a file's name, a URL's last path segment ('gpt2.safetensors'). */
export function sourceName(src) {
  if (typeof src !== 'string') return src?.name || 'a file';
  if (src.startsWith('data:')) return 'a data: URL';
  return decodeURIComponent(src.split(/[?#]/)[0].split('/').filter(Boolean).pop() ?? src);
}

export class ModelSession {
  /**
   * @param host the element (or { requestUpdate() }).
   * Options: `lab` (a createAttnLab() instance: the engine runs on this thread with it), `backend`
   * (backend.js's; default: a worker where there are workers, else this thread with the page's lab), `k`.
   */
  constructor(host, { lab = null, backend = null, k = 5, seed = 1 } = {}) {
    this.host = host;
    this.lab = lab;
    this.backend = backend;
    this.k = k;
    this.status = 'idle';
    this.progress = null;
    this.error = '';
    this.runError = '';
    this.source = null;
    this.pending = null;
    this.config = null;
    this.tokenizer = null;
    this.shippedBytes = new Map();  // task → the last snapshot's bytes
    this.genSeed = seed >>> 0;
    this.text = null;
    this.ids = [];
    this.labels = [];
    this.inputError = '';
    this.ablated = [];
    this.base = null;
    this.off = null;
    this.scores = null;
    this.dist = null;
    this.gen = null;
    this.lens = null;
    this.lensNote = '';
    this.lensPosition = null;
    this.busy = 0;
    this.loadToken = 0;
    this.runToken = 0;
    this.models = 0;  // models adopted so far
    this.work = Promise.resolve();
    this.genQueue = Promise.resolve();
    this.seq = null;
    host.addController?.(this);
  }

  hostDisconnected() { /* the model stays: a slide shown again draws at once */ }

  #changed() { this.host.requestUpdate?.(); }

  /** Where the engine runs (made on first use). */
  get where() { return this.#backend().kind; }

  #backend() {
    if (this.backend) return this.backend;
    if (this.lab) { const lab = this.lab; this.backend = localBackend(async () => lab); }
    else if (typeof Worker === 'function') this.backend = workerBackend();
    else this.backend = localBackend(getLab);
    return this.backend;
  }

  /** A request to the engine, counted in `busy` and in `idle()`. */
  #request(op, args, opts) {
    this.busy++;
    const p = this.#backend().request(op, args, opts);
    const done = () => { this.busy--; this.#changed(); };
    p.then(done, done);
    this.work = this.work.then(() => p).catch(() => {});
    return p;
  }

  /** Resolves when every request made so far has been answered (and applied). */
  async idle() {
    let w;
    do { w = this.work; await w; } while (w !== this.work);
  }

  get ready() { return this.status === 'ready' && !!this.config; }

  /**
   * One of attnlab's shipped models (its pretrained run's last snapshot, web/train/pretrained/<task>/):
   * 'induction' (the training section's 2-layer attention-only model) or 'names' (a character model of
   * the names list, tools/pretrain_names.cc). Works offline, no file; fetched only when chosen.
   */
  async loadShipped(task = 'induction') {
    if (!SHIPPED_TASKS.includes(task)) throw new Error(`loadShipped: task is ${JSON.stringify(task)}, expected one of ${SHIPPED_TASKS.join(', ')}`);
    const token = ++this.loadToken;
    this.#begin({ kind: 'shipped', name: SHIPPED_NAMES[task], task });
    try {
      if (!this.shippedBytes.has(task)) {
        const pre = await loadPretrained(task, { snapshots: 'last' });  // the trained model: one file, not the run's every snapshot
        this.shippedBytes.set(task, pre.snapshots[0].bytes);
      }
      if (token !== this.loadToken) return;
      const value = await this.#request('load', { bytes: this.shippedBytes.get(task).slice(), shipped: task });
      await this.#adopt(value, token);
    } catch (e) {
      if (token === this.loadToken) this.#fail(e);
    }
  }

  /**
   * A model from a File/Blob (the picker, a drop: read in this page, never sent anywhere), a URL (the
   * `src` attribute: relative to the page) or checkpoint bytes. The engine's loader streams it and
   * reports progress.
   */
  async loadSource(src, name = sourceName(src), { config } = {}) {
    const token = ++this.loadToken;
    this.#begin({ kind: typeof src === 'string' ? 'url' : 'file', name });
    const onProgress = (p) => {
      if (token !== this.loadToken) return;
      this.progress = { loaded: p.loaded ?? 0, total: p.total ?? null };
      this.#changed();
    };
    try {
      let args;
      if (src instanceof Uint8Array || src instanceof ArrayBuffer) args = { bytes: new Uint8Array(src).slice() };
      else if (typeof src === 'string' && typeof document === 'object' && !/^(data|blob):/.test(src)) args = { source: new URL(src, document.baseURI).href };
      else args = { source: src };
      if (config) args.config = config;
      const value = await this.#request('load', args, { onProgress, transfer: args.bytes ? [args.bytes.buffer] : [] });
      await this.#adopt(value, token);
    } catch (e) {
      if (token === this.loadToken) this.#fail(e);
    }
  }

  #begin(source) {
    this.status = 'loading';
    this.progress = null;
    this.error = '';
    this.pending = source;
    this.#changed();
  }

  #fail(e) {
    // Nothing half-loaded: the model shown before (if any) stays, with the error in words above it.
    this.status = this.config ? 'ready' : 'error';
    const msg = e?.message ?? String(e);
    this.missing = this.pending?.kind === 'url' && /\b404\b/.test(msg);
    this.error = this.missing
      ? `No ${this.pending.name} here yet (HTTP 404)${this.config ? ': meanwhile attnlab’s own model runs' : ''}.`
      : `Could not load ${this.pending?.name ?? 'the model'}: ${msg}`;
    this.progress = null;
    this.#changed();
  }

  async #adopt({ config, tokenizer }, token) {
    if (token !== this.loadToken) return;
    this.models++;
    this.config = config;
    this.tokenizer = tokenizer;
    this.source = this.pending;
    this.status = 'ready';
    this.progress = null;
    this.missing = false;
    this.ablated = this.ablated.filter((i) => i < config.layers * config.heads);
    this.gen = null;
    this.lensPosition = null;
    const text = this.wantedText ?? this.text ?? tokenizer.example;
    this.wantedText = null;
    await this.setText(text, { keepIfBad: false });
  }

  // ---- the sequence ---------------------------------------------------------------------------------

  /** Tokenizes `text` (cut to the model's context) and runs the model on it. A text the tokenizer refuses is said in words. */
  async setText(text, { keepIfBad = true } = {}) {
    this.text = text;
    if (!this.ready) return;
    const token = this.models;
    let ids;
    try {
      ({ ids } = await this.#request('encode', { text }));
    } catch (e) {
      if (token !== this.models || text !== this.text) return;
      this.inputError = e.message;
      if (keepIfBad && this.ids.length) { this.#changed(); return; }
      // A new model whose tokens the text is not made of: its own example instead, said nowhere (nothing
      // was typed); the text asked for is kept for the next model (a deck's sentence waiting for GPT-2).
      this.wantedText = text;
      this.text = this.tokenizer.example;
      this.inputError = '';
      keepIfBad = false;
      ({ ids } = await this.#request('encode', { text: this.text }));
    }
    if (token !== this.models || (text !== this.text && keepIfBad)) return;  // a newer text or model came meanwhile
    this.inputError = ids.length > this.config.context ? `cut to the model’s context: the first ${this.config.context} of ${ids.length} tokens` : (this.inputError && keepIfBad ? this.inputError : '');
    if (!ids.length) { this.inputError = 'no tokens: type something'; this.#changed(); return; }
    await this.setIds(ids.slice(0, this.config.context), { keepError: true });
  }

  /** Runs the model on token ids directly (e.g. a random repeated sequence). */
  async setIds(ids, { keepError = false } = {}) {
    if (!keepError) this.inputError = '';
    this.seq = ids;
    this.gen = null;
    this.lensPosition = null;
    await this.run();
  }

  /**
   * A random sequence repeated twice: 20 tokens (twice) for a large model, fewer for a small context —
   * its two copies take at most 80 % of it, so generation has room before the cache window slides.
   */
  async repeatRandom(seed = (Math.random() * 2 ** 32) >>> 0) {
    if (!this.ready) return;
    const { prefix, randomRange: [from, to] } = this.tokenizer;
    const length = Math.max(1, Math.min(20, Math.floor(0.4 * (this.config.context - prefix.length)), to - from));
    const ids = repeatedRandom(mulberry32(seed), { length, from, to, prefix });
    const running = this.setIds(ids);
    const { text } = await this.#request('decode', { ids });
    if (this.seq === ids) { this.text = text; this.#changed(); }
    await running;
  }

  /** The engine's run on the sequence: both forwards, scores, the distribution, the lens. The latest request wins. */
  async run() {
    const ids = this.seq;
    if (!this.ready || !ids?.length) return;
    // A run answered after another model was adopted is dropped (a load that fails adopts nothing).
    const token = ++this.runToken, models = this.models;
    try {
      const r = await this.#request('run', { ids, ablated: this.ablated, k: this.k, lensPosition: this.lensPosition });
      if (token !== this.runToken || models !== this.models) return;
      Object.assign(this, { ids, labels: r.labels, base: r.base, off: r.off, scores: r.scores, dist: r.dist, lens: r.lens, lensNote: r.lensNote });
      this.runError = '';
    } catch (e) {
      if (token !== this.runToken) return;
      this.runError = `The model could not run: ${e.message}`;
    }
    this.#changed();
  }

  /** Switches the heads in `list` (flat indices layer·heads + head) off, the others on, and runs again. */
  setAblated(list) {
    this.ablated = list.slice().sort((a, b) => a - b);
    return this.run();
  }

  /** The logit lens at position i (null: the last). */
  setLensPosition(i) {
    this.lensPosition = i;
    return this.run();
  }

  // ---- generation -----------------------------------------------------------------------------------

  /**
   * One token with the KV cache (model.generate, one step): the prompt's rows are cached, one new row is
   * computed. Greedy; sampled (seeded) when the tokenizer says so (the names model).
   */
  generateStep() {
    // One at a time: each step continues the tokens the one before produced.
    const step = this.genQueue.then(() => this.#step());
    this.genQueue = step.catch(() => null);
    return step;
  }

  async #step() {
    if (!this.ready || !this.ids.length) return null;
    const gen = (this.gen ??= { prompt: this.ids.slice(), tokens: this.ids.slice(), labels: this.labels.slice(), seed: this.genSeed });
    const seed = (gen.seed * 65536 + gen.tokens.length - gen.prompt.length) >>> 0;
    const { next, label } = await this.#request('generate', { tokens: gen.tokens, ablated: this.ablated, seed });
    if (this.gen !== gen) return next;  // reset or a new sequence meanwhile
    this.gen = { ...gen, tokens: [...gen.tokens, next], labels: [...gen.labels, label] };
    this.#changed();
    return next;
  }

  /**
   * Tokens until the model writes `stop` (the names model: '.', the end of a name), at most `max`; resolves
   * to the tokens generated.
   */
  async generateUntil(stop, max = this.config?.context ?? 32) {
    const made = [];
    for (let i = 0; i < max; i++) {
      const next = await this.generateStep();
      if (next === null || next === undefined) break;
      made.push(next);
      if (next === stop) break;
    }
    return made;
  }

  resetGeneration() {
    if (this.gen && this.tokenizer?.sampled) this.genSeed = (this.genSeed + 1) >>> 0;
    this.gen = null;
    this.#changed();
  }

  /** Stops the engine (its worker). */
  dispose() {
    this.backend?.terminate();
    this.backend = null;
    this.config = null;
    this.status = 'idle';
  }
}
