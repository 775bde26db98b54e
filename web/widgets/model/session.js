// session.js — the model session behind <attn-model> (a Lit ReactiveController): which model is loaded
// and how far its loading is, its tokenizer, the sequence, the forward results (with every head and with
// the heads switched off), the head scores, and the generation under way. Nothing here touches the DOM:
// tests run a session in Node on the shipped induction model (session.test.js).
//
//   status     'idle' | 'loading' | 'ready' | 'error'; progress: { loaded, total } while loading (total
//              null when unknown: an indeterminate bar); error: the API's message, in words
//   source     { kind: 'shipped' | 'file' | 'url', name }: what is loaded (the shipped model stays usable
//              when another fails to load)
//   ids        the sequence's token ids (≤ context); labels: what the token strip shows for each
//   base, off  forward() with every head / with the `ablated` heads off (off: null when none is)
//   scores     [layer][head] → { prev, dup, induction } on the sequence (logic.js headScores)
//   gen        { prompt: ids, tokens: ids (prompt then generated) } while generating, else null
//   lens       the logit lens readout, or null with lensNote saying why (no residual stream yet)
//
// The host is the element (or any object with requestUpdate()): every change asks it for an update.
import { createGpt2Tokenizer, loadPretrained, tasks } from './source.js';
import { getLab } from '../shared/lab.js';
import { headMask, headScores, pieceLabel, repeatedRandom, mulberry32 } from './logic.js';

const GPT2_VOCAB = 50257;
export const LENS_NOTE = 'The logit lens needs attnlab’s residual stream after each layer (forward({ residuals: true }): coming); nothing is shown until it is there.';

/** A tokenizer for the model: the GPT-2 BPE for a 50257-token vocabulary, the task's characters for the shipped model. */
async function tokenizerFor(config, shipped) {
  if (config.vocab === GPT2_VOCAB) {
    const t = await createGpt2Tokenizer();
    return {
      kind: 'gpt2',
      encode: (s) => Array.from(t.encode(s)),
      labels: (ids) => ids.map((id) => pieceLabel(t.token(id))),
      token: (id) => pieceLabel(t.token(id)),
      decode: (ids) => t.decode(ids),
      randomRange: [0, GPT2_VOCAB - 1],  // every id but <|endoftext|>
      prefix: [],
      example: 'When Mary and John went to the store, John gave a drink to',
    };
  }
  if (shipped) {
    const task = tasks.createTask('induction', { vocab: config.vocab, context: config.context });
    return {
      kind: 'induction',
      encode: (s) => {
        // The task's characters: '^' (BOS) then letters; BOS is added when the text does not start with it.
        const clean = s.toUpperCase().replace(/\s+/g, '');
        return Array.from(task.encode(clean.startsWith('^') ? clean : `^${clean}`));
      },
      labels: (ids) => ids.map((id) => task.decode([id])),
      token: (id) => task.decode([id]),
      decode: (ids) => task.decode(ids),
      randomRange: [1, config.vocab],
      prefix: [task.bos],
      example: '^ABCDEFGABCDEFG',
    };
  }
  // Any other vocabulary: ids as numbers ("3 14 15").
  return {
    kind: 'ids',
    encode: (s) => s.trim().split(/[\s,]+/).filter(Boolean).map((w) => {
      const n = Number(w);
      if (!Number.isInteger(n) || n < 0 || n >= config.vocab) throw new Error(`“${w}” is not a token id of this model, expected integers in [0, ${config.vocab})`);
      return n;
    }),
    labels: (ids) => ids.map(String),
    token: (id) => String(id),
    decode: (ids) => ids.join(' '),
    randomRange: [0, config.vocab],
    prefix: [],
    example: '1 2 3 1 2 3',
  };
}

/** Reads a Blob or a URL into bytes, reporting { loaded, total } (for an API that takes bytes only). */
async function readBytes(src, onProgress) {
  let stream, total = null;
  if (typeof src === 'string') {
    const res = await fetch(src);
    if (!res.ok) throw new Error(`${src} answered HTTP ${res.status}: is the file there?`);
    total = Number(res.headers.get('content-length')) || null;
    stream = res.body;
    if (!stream) return new Uint8Array(await res.arrayBuffer());
  } else {
    total = src.size;
    stream = src.stream?.();
    if (!stream) return new Uint8Array(await src.arrayBuffer());
  }
  const parts = [];
  let loaded = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    loaded += value.length;
    onProgress({ loaded, total });
  }
  const out = new Uint8Array(loaded);
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

/** What the widget calls a source: a file's name, a URL's last path segment ('gpt2.safetensors'). */
export function sourceName(src) {
  if (typeof src !== 'string') return src?.name || 'a file';
  if (src.startsWith('data:')) return 'a data: URL';
  return decodeURIComponent(src.split(/[?#]/)[0].split('/').filter(Boolean).pop() ?? src);
}

export class ModelSession {
  /** @param host the element (or { requestUpdate() }); `lab` a createAttnLab() instance (default: the page's). */
  constructor(host, { lab = null } = {}) {
    this.host = host;
    this.lab = lab;
    this.status = 'idle';
    this.progress = null;
    this.error = '';
    this.source = null;
    this.model = null;
    this.config = null;
    this.tokenizer = null;
    this.shippedBytes = null;
    this.ids = [];
    this.labels = [];
    this.inputError = '';
    this.ablated = [];
    this.base = null;
    this.off = null;
    this.scores = null;
    this.gen = null;
    this.lens = null;
    this.lensNote = '';
    this.loadToken = 0;
    host.addController?.(this);
  }

  hostDisconnected() { /* the model stays: a slide shown again draws at once */ }

  #changed() { this.host.requestUpdate?.(); }

  async #lab() { return (this.lab ??= await getLab()); }

  get ready() { return this.status === 'ready' && !!this.model; }

  /** attnlab's shipped induction model (the pretrained run's last snapshot): works offline, no file. */
  async loadShipped() {
    const token = ++this.loadToken;
    this.#begin({ kind: 'shipped', name: 'attnlab’s induction model' });
    try {
      const lab = await this.#lab();
      if (!this.shippedBytes) {
        const pre = await loadPretrained('induction');
        this.shippedBytes = pre.snapshots[pre.snapshots.length - 1].bytes;
      }
      if (token !== this.loadToken) return;
      await this.#adopt(lab.loadModel(this.shippedBytes), true, token);
    } catch (e) {
      if (token === this.loadToken) this.#fail(e);
    }
  }

  /**
   * A model from a File/Blob (the picker, a drop: read in this page, never sent anywhere) or a URL (the
   * `src` attribute). The API's loader is given the source itself (it streams it and reports progress);
   * an API that takes bytes only is given the bytes, read here with progress.
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
      const lab = await this.#lab();
      let made;
      try {
        made = lab.loadModel(src, config ? { onProgress, config } : { onProgress });
      } catch (e) {
        // An API that takes bytes only refuses a Blob or URL before reading anything: read them here.
        if (!/expected a Uint8Array/.test(e.message)) throw e;
        const bytes = await readBytes(src, onProgress);
        if (token !== this.loadToken) return;
        made = lab.loadModel(bytes);
      }
      const model = await made;
      if (token !== this.loadToken) { model.dispose?.(); return; }
      await this.#adopt(model, false, token);
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
    this.status = this.model ? 'ready' : 'error';
    this.error = `Could not load ${this.pending?.name ?? 'the model'}: ${e?.message ?? e}`;
    this.progress = null;
    this.#changed();
  }

  async #adopt(model, shipped, token) {
    const tokenizer = await tokenizerFor(model.config, shipped);
    if (token !== this.loadToken) { model.dispose?.(); return; }
    this.model?.dispose?.();
    this.model = model;
    this.config = model.config;
    this.tokenizer = tokenizer;
    this.source = this.pending;
    this.status = 'ready';
    this.progress = null;
    this.ablated = this.ablated.filter((i) => i < model.config.layers * model.config.heads);
    this.gen = null;
    this.setText(this.text ?? tokenizer.example, { keepIfBad: false });
  }

  // ---- the sequence ---------------------------------------------------------------------------------

  /** Tokenizes `text` (cut to the model's context) and runs the model on it. A text the tokenizer refuses is said in words. */
  setText(text, { keepIfBad = true } = {}) {
    this.text = text;
    if (!this.ready) return;
    let ids;
    try {
      ids = this.tokenizer.encode(text);
    } catch (e) {
      this.inputError = e.message;
      if (keepIfBad && this.ids.length) { this.#changed(); return; }
      // A new model whose tokens the text is not made of: its own example instead, said nowhere (nothing was typed).
      this.text = this.tokenizer.example;
      this.inputError = '';
      keepIfBad = false;
      ids = this.tokenizer.encode(this.text);
    }
    this.inputError = ids.length > this.config.context ? `cut to the model’s context: the first ${this.config.context} of ${ids.length} tokens` : (this.inputError && keepIfBad ? this.inputError : '');
    if (!ids.length) { this.inputError = 'no tokens: type something'; this.#changed(); return; }
    this.setIds(ids.slice(0, this.config.context), { keepError: true });
  }

  /** Runs the model on token ids directly (e.g. a random repeated sequence). */
  setIds(ids, { keepError = false } = {}) {
    if (!keepError) this.inputError = '';
    this.ids = ids;
    this.labels = this.tokenizer.labels(ids);
    this.gen = null;
    this.run();
  }

  /**
   * A random sequence repeated twice: 20 tokens (twice) for a large model, fewer for a small context —
   * its two copies take at most 80 % of it, so generation has room before the cache window slides.
   */
  repeatRandom(seed = (Math.random() * 2 ** 32) >>> 0) {
    if (!this.ready) return;
    const { prefix, randomRange: [from, to] } = this.tokenizer;
    const length = Math.max(1, Math.min(20, Math.floor(0.4 * (this.config.context - prefix.length)), to - from));
    const ids = repeatedRandom(mulberry32(seed), { length, from, to, prefix });
    this.text = this.tokenizer.decode(ids);
    this.setIds(ids);
  }

  /** forward() with every head, and with the ablated heads off; scores; the lens (feature-detected). */
  run() {
    if (!this.ready || !this.ids.length) return;
    const { layers, heads } = this.config, t = this.ids.length;
    const targets = this.ids.slice(1).concat([this.ids[t - 1]]);  // the last target is a placeholder: its loss is left out
    const m = this.model;
    try {
      m.setHeadMask(null);
      this.base = this.#forward(m, targets);
      this.scores = headScores(this.base.attention, this.ids, t);
      const mask = headMask(this.ablated, layers, heads);
      if (mask) {
        m.setHeadMask(mask);
        try { this.off = this.#forward(m, targets); } finally { m.setHeadMask(null); }
      } else this.off = null;
      this.error = '';
    } catch (e) {
      this.error = `The model could not run: ${e.message}`;
    }
    this.#changed();
  }

  #forward(m, targets) {
    const t = this.ids.length;
    let r;
    try {
      r = m.forward({ ids: this.ids, targets, attention: true, residuals: true });
    } catch (e) {
      if (!/residuals/.test(e.message)) throw e;
      r = m.forward({ ids: this.ids, targets, attention: true });
    }
    // The loss over positions 0 … t−2 (the last has no next token in the text).
    let sum = 0;
    for (let i = 0; i < t - 1; i++) sum += r.tokenLosses[i];
    r.meanLoss = t > 1 ? sum / (t - 1) : NaN;
    this.lens = r.lens ?? null;
    this.lensNote = r.lens ? '' : LENS_NOTE;
    return r;
  }

  /** Switches flat head index i (layer·heads + head) off or on, and runs again. */
  setAblated(list) {
    this.ablated = list.slice().sort((a, b) => a - b);
    this.run();
  }

  // ---- generation -----------------------------------------------------------------------------------

  /** One greedy token with the KV cache (model.generate, one step): the prompt's rows are cached, one new row is computed. */
  generateStep() {
    if (!this.ready) return null;
    const gen = (this.gen ??= { prompt: this.ids.slice(), tokens: this.ids.slice() });
    const context = this.config.context;
    const prompt = gen.tokens.slice(-context);
    const mask = headMask(this.ablated, this.config.layers, this.config.heads);
    this.model.setHeadMask(mask);
    let next;
    try {
      next = this.model.generate({ prompt, steps: 1, temperature: 0 })[0];
    } finally {
      this.model.setHeadMask(null);
    }
    gen.tokens = [...gen.tokens, next];
    this.#changed();
    return next;
  }

  resetGeneration() {
    this.gen = null;
    this.#changed();
  }
}
