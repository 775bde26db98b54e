// engine.js — the model side of <attn-model>: the attnlab module, the loaded model and its tokenizer, and
// everything that costs time (loading, tokenizing, forward passes, scores, the next-token distribution,
// the logit lens, generation). In a browser it runs in a Web Worker (model.worker.js), so the page's
// thread only draws; in Node (tests) the same class runs on the calling thread (backend.js localBackend).
//
// Every method takes and returns plain data (structured-clonable); typed arrays that go back to the page
// are listed in `transfer` (moved, not copied). Requests are answered in the order they come.
//
//   load({ bytes | source, name, config, shipped })  → { config, tokenizer: { kind, example, randomRange, prefix, sampled } }
//                                                      (shipped: 'induction' | 'names', attnlab's own models)
//   encode({ text })                                 → { ids }            (throws with the tokenizer's words)
//   run({ ids, ablated, k, lensPosition, lensK })    → { labels, base, off, scores, dist, lens, lensNote }
//   generate({ tokens, ablated, seed })              → { next, label }  (greedy; sampled with `seed` for the names model)
//   decode({ ids })                                  → { text }
//   dispose()                                        → true   (the engine lets its model go)
import { createGpt2Tokenizer, tasks } from './source.js';
import { ablationRows, headMask, headScores, pieceLabel } from './logic.js';

export const GPT2_VOCAB = 50257;
export const LENS_NOTE = 'The logit lens needs attnlab’s readout after each layer (forward({ lens }): coming in the API); nothing is shown until it is there.';

/** The shipped models' tasks (web/train/pretrained/<task>/, loaded by session.js). */
export const SHIPPED_TASKS = Object.freeze(['induction', 'names']);

// The first character of what the student typed that the model has no token for, said in their words
// (the codec's own message counts from the text it was given: the case changed, a BOS put first).
// `known(c)`: whether character c (as typed) is read; `knows`: what the model reads, in words.
function refuseUnknown(s, known, knows) {
  const chars = Array.from(s);
  const i = chars.findIndex((c) => !/\s/.test(c) && !known(c));
  if (i >= 0) throw new Error(`“${chars[i]}” (character ${i + 1} of the text) is not a token of this model: it reads ${knows}`);
}

/** The names task's characters ('.' + a–z), its codec made from a stand-in list (the 32,033 names are not needed to tokenize). */
function namesTokenizer(config) {
  const task = tasks.createTask('names', { names: ['a', 'b'], context: config.context });
  return {
    kind: 'names',
    // Letters and '.' (the separator); a space or a line break separates names too. Lowercased; a '.' is
    // put first when the text does not start with one (the model saw every name after a '.').
    encode: (s) => {
      refuseUnknown(s, (c) => /^[a-z.]$/i.test(c), 'the letters a–z and “.” between names (any case; a space separates names too)');
      const clean = s.trim().toLowerCase().replace(/\s+/g, '.');
      return Array.from(task.encode(clean.startsWith('.') ? clean : `.${clean}`));
    },
    token: (id) => task.decode([id]),
    decode: (ids) => task.decode(ids),
    randomRange: [1, config.vocab],  // letters
    prefix: [task.delimiter],
    example: '.emma.olivia.ava.noah.liam.',
    // Generation samples (temperature 1, seeded): greedy decoding from '.' spells one name again and again.
    sampled: true,
  };
}

/**
 * The tokenizer for a model: GPT-2's BPE for a 50257-token vocabulary, the task's characters for a
 * shipped model (`shipped`: 'induction' | 'names'; true: 'induction'), else ids.
 */
export async function tokenizerFor(config, shipped) {
  if (config.vocab === GPT2_VOCAB) {
    const t = await createGpt2Tokenizer();
    return {
      kind: 'gpt2',
      encode: (s) => Array.from(t.encode(s)),
      token: (id) => pieceLabel(t.token(id)),
      decode: (ids) => t.decode(ids),
      randomRange: [0, GPT2_VOCAB - 1],  // every id but <|endoftext|>
      prefix: [],
      example: 'When Mary and John went to the store, John gave a drink to',
    };
  }
  if (shipped === 'names') return namesTokenizer(config);
  if (shipped) {
    const task = tasks.createTask('induction', { vocab: config.vocab, context: config.context });
    const letters = task.decode(Array.from({ length: config.vocab - 1 }, (_, i) => i + 1));  // after BOS
    return {
      kind: 'induction',
      encode: (s) => {
        // The task's characters: '^' (BOS) then letters; BOS is added when the text does not start with it.
        refuseUnknown(s, (c) => c === '^' || letters.includes(c.toUpperCase()), `the letters ${letters[0]}–${letters.at(-1)} (any case; spaces are skipped) and “^” (the start)`);
        const clean = s.toUpperCase().replace(/\s+/g, '');
        return Array.from(task.encode(clean.startsWith('^') ? clean : `^${clean}`));
      },
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
    token: (id) => String(id),
    decode: (ids) => ids.join(' '),
    randomRange: [0, config.vocab],
    prefix: [],
    example: '1 2 3 1 2 3',
  };
}

/** A plain copy of a model's config (structured-clonable). */
const plainConfig = (c) => JSON.parse(JSON.stringify(c));

/**
 * The models the engines of one worker share (several widgets on a page or in a deck loading the same
 * URL, or the shipped model, hold one copy: GPT-2 small is ~500 MB of WebAssembly memory): by key,
 * counted; a model is disposed when its last engine lets it go. A File or bytes get an entry of their own.
 */
export class ModelCache {
  constructor() { this.entries = new Map(); }

  async get(key, make) {
    const had = key !== null ? this.entries.get(key) : null;
    if (had) { had.refs++; return had; }
    const entry = { key, refs: 1, ...(await make()) };
    if (key !== null) this.entries.set(key, entry);
    return entry;
  }

  release(entry) {
    if (!entry || --entry.refs > 0) return;
    entry.model.dispose?.();
    if (entry.key !== null && this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
  }
}

export class ModelEngine {
  /**
   * @param lab () => Promise<lab>: the attnlab instance this engine loads models into (shared by the
   * engines of one host); cache: the host's ModelCache.
   */
  constructor(lab, cache = new ModelCache()) {
    this.lab = lab;
    this.cache = cache;
    this.entry = null;
    this.lensSupported = null;  // null: not tried yet; false: the API refused the lens option
  }

  get model() { return this.entry?.model ?? null; }
  get tokenizer() { return this.entry?.tokenizer ?? null; }

  /**
   * Loads a model: checkpoint bytes, or a File/Blob/URL the API streams (onProgress { loaded, total }).
   * The model loaded before stays until the new one is ready (nothing half-loaded on failure). The
   * shipped model and a URL already loaded by another engine of this host are shared, not loaded again.
   */
  async load({ bytes, source, config, shipped = false }, onProgress = () => {}) {
    const key = shipped ? `shipped:${shipped === true ? 'induction' : shipped}` : typeof source === 'string' && !config ? `url:${source}` : null;
    const entry = await this.cache.get(key, async () => {
      const lab = await this.lab();
      let model;
      if (bytes) model = lab.loadModel(bytes);
      else {
        try {
          model = await lab.loadModel(source, config ? { onProgress, config } : { onProgress });
        } catch (e) {
          // An API that takes bytes only refuses a Blob or URL before reading anything: read them here.
          if (!/expected a Uint8Array/.test(e.message)) throw e;
          model = lab.loadModel(await readBytes(source, onProgress));
        }
      }
      try {
        return { model, tokenizer: await tokenizerFor(model.config, shipped) };
      } catch (e) {
        model.dispose?.();
        throw e;
      }
    });
    this.cache.release(this.entry);
    this.entry = entry;
    const { kind, example, randomRange, prefix, sampled = false } = entry.tokenizer;
    return { value: { config: plainConfig(entry.model.config), tokenizer: { kind, example, randomRange, prefix, sampled } } };
  }

  #need() {
    if (!this.model) throw new Error('no model is loaded');
    return this.model;
  }

  encode({ text }) {
    this.#need();
    return { value: { ids: this.tokenizer.encode(text) } };
  }

  decode({ ids }) {
    this.#need();
    return { value: { text: this.tokenizer.decode(ids) } };
  }

  /**
   * forward() with every head and with the `ablated` heads off (off: null when none is); the heads'
   * scores; the next-token distribution at the last position (both runs, top k, with labels); the
   * logit lens at `lensPosition` (feature-detected: null and lensNote when the API has none).
   */
  run({ ids, ablated = [], k = 5, lensPosition = null, lensK = k }) {
    const m = this.#need(), { layers, heads, vocab } = m.config, t = ids.length;
    const position = Number.isInteger(lensPosition) && lensPosition >= 0 && lensPosition < t ? lensPosition : t - 1;
    const targets = ids.slice(1).concat([ids[t - 1]]);  // the last target is a placeholder: its loss is left out
    m.setHeadMask(null);
    const full = this.#forward(m, ids, targets, { position, k: lensK });
    const mask = headMask(ablated, layers, heads);
    let offRun = null;
    if (mask) {
      m.setHeadMask(mask);
      try { offRun = this.#forward(m, ids, targets, null, false); } finally { m.setHeadMask(null); }
    }
    const dist = ablationRows(full.logits, (offRun ?? full).logits, vocab, t - 1, k);
    const token = (id) => this.tokenizer.token(id);
    dist.rows = dist.rows.map((r) => ({ ...r, label: token(r.id) }));
    dist.topLabel = token(dist.top);
    dist.topOffLabel = token(dist.topOff);
    const lens = full.lens ? {
      position,
      layers: Array.from(full.lens, (e) => ({ ids: Array.from(e.ids), probs: Array.from(e.probs), labels: Array.from(e.ids, token) })),
    } : null;
    // What the page shows: the attention of the run with every head; the losses of both.
    const base = { attention: full.attention, tokenLosses: full.tokenLosses, meanLoss: full.meanLoss };
    const off = offRun && { tokenLosses: offRun.tokenLosses, meanLoss: offRun.meanLoss };
    const transfer = [...new Set([full.attention[0]?.[0]?.buffer, full.tokenLosses.buffer, offRun?.tokenLosses.buffer].filter(Boolean))];
    return {
      value: {
        labels: ids.map(token), base, off, scores: headScores(full.attention, ids, t), dist, lens,
        lensNote: lens ? '' : LENS_NOTE,
      },
      transfer,
    };
  }

  #forward(m, ids, targets, lens, attention = true) {
    let r;
    if (lens && this.lensSupported !== false) {
      try {
        r = m.forward({ ids, targets, attention, lens });
        this.lensSupported = true;
      } catch (e) {
        // An API (or core build) without the lens: the run without it; if that fails too, its error is the one said.
        r = m.forward({ ids, targets, attention });
        this.lensSupported = false;
        this.lensError = e.message;
      }
    }
    r ??= m.forward({ ids, targets, attention });
    // The loss over positions 0 … t−2 (the last has no next token in the text).
    const t = ids.length;
    let sum = 0;
    for (let i = 0; i < t - 1; i++) sum += r.tokenLosses[i];
    r.meanLoss = t > 1 ? sum / (t - 1) : NaN;
    return r;
  }

  /**
   * One token with the KV cache (the last `context` tokens as the prompt), the `ablated` heads off:
   * greedy, or for a sampling tokenizer (the names model) drawn at temperature 1 with `seed`.
   */
  generate({ tokens, ablated = [], seed = 0 }) {
    const m = this.#need(), { layers, heads, context } = m.config;
    m.setHeadMask(headMask(ablated, layers, heads));
    const how = this.tokenizer.sampled ? { temperature: 1, seed: seed >>> 0 } : { temperature: 0 };
    let next;
    try {
      next = m.generate({ prompt: tokens.slice(-context), steps: 1, ...how })[0];
    } finally {
      m.setHeadMask(null);
    }
    return { value: { next, label: this.tokenizer.token(next) } };
  }

  dispose() {
    this.cache.release(this.entry);
    this.entry = null;
    return { value: true };
  }
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

/**
 * Answers requests { id, sid, op, args } with { id, value } or { id, error }, one at a time in arrival
 * order, and { id, progress } while loading. Each session (sid) has its own engine; they share one
 * attnlab instance and one ModelCache. 'dispose' ends a session's engine. `post(message, transfer)`.
 */
export class EngineHost {
  constructor({ createLab, post }) {
    let labPromise = null;
    this.lab = () => (labPromise ??= createLab());
    this.cache = new ModelCache();
    this.engines = new Map();
    this.post = post;
    this.queue = Promise.resolve();
  }

  engine(sid = 0) {
    let e = this.engines.get(sid);
    if (!e) this.engines.set(sid, (e = new ModelEngine(this.lab, this.cache)));
    return e;
  }

  receive({ id, sid = 0, op, args }) {
    this.queue = this.queue.then(async () => {
      try {
        if (!['load', 'encode', 'decode', 'run', 'generate', 'dispose'].includes(op)) throw new Error(`unknown request '${op}'`);
        const engine = this.engine(sid);
        const r = await engine[op](args ?? {}, (progress) => this.post({ id, progress }));
        if (op === 'dispose') this.engines.delete(sid);
        this.post({ id, value: r.value }, r.transfer ?? []);
      } catch (e) {
        this.post({ id, error: e?.message ?? String(e) });
      }
    });
  }
}
