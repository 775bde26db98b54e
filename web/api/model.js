// model.js — a small trainable GPT (core/include/attnlab/gpt.h) that lives in WebAssembly memory:
// lab.createModel, lab.loadModel and the Model they return (forward, trainStep, computeGradients,
// generate, parameters, setParameters, setHeadMask, save, dispose).
//
// The C++ Gpt stays in the heap between calls; a Model holds its Embind handle (core/bindings/embind.cc,
// class Model): a deleted handle is refused by Embind before any C++ runs. dispose() is the contract for
// freeing it; a FinalizationRegistry frees a model that is garbage-collected undisposed, as a safety
// net only (when that happens is up to the engine).
//
// trainStep is the hot path (~10^4 calls in a training run): it writes ids and targets into the
// arena's block (reused, grown only when too small), fills a call object kept per model and
// allocates nothing but the returned { loss, gradNorm, step }. No JSON, no copies of parameters.
import { AttnLabError } from './validate.js';
import { run } from './core.js';
import { requireObject, int, num, bool, oneOf, matrix, fail, describe, noUnknownKeys, tokenIdsInRange } from './validate.js';

const CREATE_OPTIONS = ['vocab', 'context', 'layers', 'heads', 'dModel', 'dFF', 'attentionOnly', 'layerNorm', 'activation', 'initStd', 'seed'];
const FORWARD_OPTIONS = ['ids', 'batch', 'targets', 'attention', 'lens', 'logits'];
const LENS_OPTIONS = ['position', 'k'];
const GRADIENT_OPTIONS = ['ids', 'targets', 'batch'];
const TRAIN_OPTIONS = ['ids', 'targets', 'batch', 'lr', 'beta1', 'beta2', 'eps', 'weightDecay', 'maxGradNorm'];
const GENERATE_OPTIONS = ['prompt', 'steps', 'temperature', 'topK', 'seed'];
const SAVE_OPTIONS = ['optimizer', 'layout'];
const LOAD_OPTIONS = ['config', 'onProgress'];
// A GPT-2 file streams through a staging buffer of this many bytes in the heap.
const CHUNK = 1 << 20;
// config.json's activation_function → the core's activation.
const GPT2_ACTIVATIONS = { gelu_new: 'gelu_tanh', gelu_pytorch_tanh: 'gelu_tanh', gelu: 'gelu', relu: 'relu' };

// `bytes` of the arena's block: the block itself when it is big enough (no allocation, the hot
// path), else grown through arena.layout (which checks the memory budget).
function block(lab, fn, bytes) {
  const a = lab.arena;
  if (a.ptr && a.bytes >= bytes) return a.ptr;
  return a.layout(fn, [bytes / 4])[0];
}
const align16 = (bytes) => Math.ceil(bytes / 16) * 16;

// A call's handle, or the core's message when it returned none (null).
function handleOrThrow(lab, handle) {
  if (handle === null) throw new AttnLabError(lab.core.lastError());
  return handle;
}
// A forward/step result: { ok, loss, gradNorm, step }; ok false → the core's message.
function stepOrThrow(lab, r) {
  if (!r.ok) throw new AttnLabError(lab.core.lastError());
  return r;
}

// ---- Validation ------------------------------------------------------------------------------------
// Token ids: an Int32Array (copied as is; the core checks every id is in [0, vocab)), or an array or
// other typed array of integers (checked here, with the core's message). Returns the length.
function tokenCount(fn, name, v, what) {
  if (v instanceof Int32Array) return v.length;
  if (v === undefined || v === null) fail(fn, `${name} is missing, expected an Int32Array or number[] of ${what}`);
  if (!Array.isArray(v) && !(ArrayBuffer.isView(v) && !(v instanceof DataView) && !(v instanceof BigInt64Array) && !(v instanceof BigUint64Array)))
    fail(fn, `${name} is ${describe(v)}, expected an Int32Array or number[] of ${what}`);
  return v.length;
}
function checkTokens(fn, name, v, vocab) {
  if (!(v instanceof Int32Array)) tokenIdsInRange(fn, name, v, vocab);
}
function putTokens(lab, addr, v) {
  const i32 = lab.core.heap().i32;
  if (v instanceof Int32Array) i32.set(v, addr >>> 2);
  else for (let i = 0, at = addr >>> 2; i < v.length; i++) i32[at + i] = v[i];
}

// ids (and targets) of batch rows: t = ids.length / batch, 1 ≤ t ≤ context. The answer goes into one
// reused object (calls are synchronous; the caller reads it at once): nothing allocated per step.
const SEQ = { batch: 0, t: 0, n: 0, hasTargets: false };
function sequence(fn, args, context, vocab, needTargets) {
  const batch = int(fn, 'batch', args.batch, { dflt: 1 });
  const n = tokenCount(fn, 'ids', args.ids, 'batch·t token ids');
  const t = n / batch;
  if (!Number.isInteger(t) || t < 1 || t > context)
    fail(fn, `ids has ${n} values, expected batch·t with batch = ${batch} and 1 ≤ t ≤ context = ${context}`);
  checkTokens(fn, 'ids', args.ids, vocab);
  const hasTargets = args.targets !== undefined && args.targets !== null;
  if (needTargets && !hasTargets) fail(fn, `targets is missing, expected an Int32Array or number[] of batch·t = ${n} token ids`);
  if (hasTargets) {
    const m = tokenCount(fn, 'targets', args.targets, `batch·t = ${n} token ids`);
    if (m !== n) fail(fn, `targets has ${m} values, expected batch·t = ${n}`);
    checkTokens(fn, 'targets', args.targets, vocab);
  }
  SEQ.batch = batch; SEQ.t = t; SEQ.n = n; SEQ.hasTargets = hasTargets;
  return SEQ;
}

// A float64 option (the optimizer's are doubles, as torch's) in range.
function real(fn, name, v, dflt, ok, expected) {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !ok(v)) fail(fn, `${name} is ${describe(v)}, expected ${expected}`);
  return v;
}
const unit = (x) => x >= 0 && x < 1;
const clipNorm = (x) => x > 0;  // +Infinity: measure only

// Finite as float32, what the model will hold (matrix() refused a number[] beyond float32's range).
function finite(fn, name, v) {
  for (let i = 0; i < v.length; i++) {
    const x = Math.fround(v[i]);
    if (!Number.isFinite(x)) fail(fn, `${name}[${i}] is ${x}, expected finite values`);
  }
}

// forward's lens option: true (the last position, the top 5) or { position, k }; null when not asked.
function lensOption(fn, v, batch, t, vocab) {
  if (v === undefined || v === null || v === false) return null;
  let position = t - 1, k = Math.min(5, vocab);
  if (v !== true) {
    if (typeof v !== 'object' || Array.isArray(v)) fail(fn, `lens is ${describe(v)}, expected true or { position, k }`);
    noUnknownKeys(fn, v, LENS_OPTIONS, 'lens option');
    if (v.position !== undefined) {
      if (typeof v.position !== 'number' || !Number.isInteger(v.position) || v.position < 0 || v.position >= t)
        fail(fn, `lens.position is ${describe(v.position)}, expected an integer in [0, t = ${t}) (default: the last, ${t - 1})`);
      position = v.position;
    }
    if (v.k !== undefined) {
      if (typeof v.k !== 'number' || !Number.isInteger(v.k) || v.k < 1 || v.k > vocab)
        fail(fn, `lens.k is ${describe(v.k)}, expected an integer in [1, vocab = ${vocab}] (default: 5)`);
      k = v.k;
    }
  }
  if (batch !== 1) fail(fn, `lens reads one sequence, expected batch = 1 (got batch = ${batch})`);
  return { position, k };
}

// A seed: an integer in [0, 2^32).
function seed(fn, v) {
  if (v === undefined) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v >= 2 ** 32)
    fail(fn, `seed is ${describe(v)}, expected an integer in [0, 2^32)`);
  return v;
}

// ---- lab.createModel, lab.loadModel ----------------------------------------------------------------

/** A model with fresh parameters (gpt.h's init, deterministic from seed). */
export function createModel(lab, args) {
  const fn = 'createModel';
  requireObject(fn, args);
  noUnknownKeys(fn, args, CREATE_OPTIONS);
  const vocab = int(fn, 'vocab', args.vocab), context = int(fn, 'context', args.context);
  const layers = int(fn, 'layers', args.layers), heads = int(fn, 'heads', args.heads);
  const dModel = int(fn, 'dModel', args.dModel);
  const attentionOnly = bool(fn, 'attentionOnly', args.attentionOnly, false);
  const dFF = int(fn, 'dFF', args.dFF, { dflt: 0 });  // 0: the core's 4·dModel
  const layerNorm = bool(fn, 'layerNorm', args.layerNorm, true);
  const activation = oneOf(fn, 'activation', args.activation, ['gelu', 'gelu_tanh', 'relu'], 'gelu');
  const initStd = num(fn, 'initStd', args.initStd, { dflt: 0.02, positive: true });
  const s = seed(fn, args.seed);
  // The rest (heads dividing dModel, the size limits) is the core's check_gpt_config.
  const handle = handleOrThrow(lab, lab.core.module.Model.create({ vocab, context, layers, heads, dModel, dFF, attentionOnly,
    layerNorm, activation: lab.core.code('activation', activation), initStd, seed: s }));
  return adopt(lab, handle, s);
}

// ---- lab.loadModel: attnlab checkpoints and GPT-2 safetensors -----------------------------------------
//
// A source is bytes (Uint8Array, another typed array, ArrayBuffer: loaded synchronously, as before) or
// a Blob/File, a URL (string or URL object: fetch; in Node a file: URL or a path) — those return a
// Promise and stream: the header is read first, the model is allocated in WebAssembly memory, then the
// data is converted chunk by chunk through a 1 MiB staging buffer in the heap (core/bindings/embind.cc,
// ModelLoader). A GPT-2 file is never whole in JS. What kind of file it is comes from its tensor names
// (wte.weight or transformer.wte.weight: GPT-2; else an attnlab checkpoint, whose reader says what is
// wrong).

// options.config (a parsed config.json) → the core's Gpt2ConfigCall. Keys loadModel does not use are
// ignored (config.json has dozens); those it uses are checked.
function gpt2Config(lab, fn, config) {
  if (config === undefined || config === null) config = {};
  if (typeof config !== 'object' || Array.isArray(config)) fail(fn, `config is ${describe(config)}, expected the parsed config.json object`);
  const dim = (key) => {
    const v = config[key];
    if (v === undefined || v === null) return 0;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 2 ** 30) fail(fn, `config.${key} is ${describe(v)}, expected a positive integer`);
    return v;
  };
  const eps = config.layer_norm_epsilon ?? 1e-5;
  if (typeof eps !== 'number' || !(eps > 0) || !Number.isFinite(Math.fround(eps)) || Math.fround(eps) === 0)
    fail(fn, `config.layer_norm_epsilon is ${describe(eps)}, expected a finite number > 0`);
  const act = config.activation_function ?? 'gelu_new';
  if (!Object.hasOwn(GPT2_ACTIVATIONS, act))
    fail(fn, `config.activation_function is ${describe(act)}, expected one of ${Object.keys(GPT2_ACTIVATIONS).map((a) => `'${a}'`).join(', ')}`);
  return { nHead: dim('n_head'), nLayer: dim('n_layer'), nEmbd: dim('n_embd'), nPositions: dim('n_positions'),
    vocabSize: dim('vocab_size'), nInner: dim('n_inner'), layerNormEpsilon: eps, activation: lab.core.code('activation', GPT2_ACTIVATIONS[act]) };
}

function loadOptions(fn, options) {
  if (options === undefined) return {};
  requireObject(fn, options);
  noUnknownKeys(fn, options, LOAD_OPTIONS);
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function')
    fail(fn, `onProgress is ${describe(options.onProgress)}, expected a function ({ loaded, total }) => void`);
  return options;
}

// What the first bytes say: 'pickle' / 'zip' (PyTorch's .bin), or the header length N (a safetensors
// candidate), or null (too short to tell yet).
const MAX_HEADER = 100_000_000;
function sniffStart(u8) {
  if (u8.length >= 2 && u8[0] === 0x80 && u8[1] >= 2 && u8[1] <= 5) return 'pickle';
  if (u8.length >= 4 && u8[0] === 0x50 && u8[1] === 0x4b && u8[2] === 0x03 && u8[3] === 0x04) return 'zip';
  if (u8.length < 8) return null;
  const n = new DataView(u8.buffer, u8.byteOffset, 8).getBigUint64(0, true);
  return n > BigInt(MAX_HEADER) ? 'huge' : Number(n);
}
function notSafetensors(fn, kind) {
  if (kind === 'pickle' || kind === 'zip')
    fail(fn, `bytes are a PyTorch ${kind === 'zip' ? 'zip archive' : 'pickle'} (pytorch_model.bin or torch.save), not safetensors, expected a .safetensors file (Hugging Face's model.safetensors, or save_file(state_dict) from the safetensors package)`);
}
// The header's tensor names say GPT-2 (the header text is JSON; anything else goes to the attnlab reader).
function isGpt2Header(u8, n) {
  try {
    const h = JSON.parse(new TextDecoder().decode(u8.subarray(8, 8 + n)));
    return h !== null && typeof h === 'object' && ('wte.weight' in h || 'transformer.wte.weight' in h);
  } catch {
    return false;
  }
}

function toBytes(source) {
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (ArrayBuffer.isView(source)) return source instanceof Uint8Array ? source : new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  return null;
}

/**
 * The model a file holds: an attnlab checkpoint (model.save()) or a Hugging Face GPT-2 safetensors
 * file (inference-only). Bytes load synchronously; a Blob/File or URL returns a Promise.
 */
export function loadModel(lab, source, options) {
  const fn = 'loadModel';
  const opts = loadOptions(fn, options);
  const bytes = toBytes(source);
  if (bytes) return loadBytes(lab, fn, bytes, opts);
  if (typeof Blob !== 'undefined' && source instanceof Blob)
    return loadStream(lab, fn, blobChunks(source), source.size, opts);
  if (typeof source === 'string' || source instanceof URL) return openUrl(fn, source).then(({ chunks, total }) => loadStream(lab, fn, chunks, total, opts));
  fail(fn, `bytes is ${describe(source)}, expected a Uint8Array or ArrayBuffer of a safetensors file (from model.save()), or a Blob/File or URL of one`);
}

function loadBytes(lab, fn, bytes, opts) {
  const kind = sniffStart(bytes);
  notSafetensors(fn, kind);
  if (typeof kind === 'number' && 8 + kind <= bytes.length && isGpt2Header(bytes, kind)) {
    // Through the loader's staging buffer, as a stream is: the heap never holds the whole file beside
    // the model (a 500 MB file copied in whole grew WebAssembly memory to 2.0x the weights, for good).
    const cfg = gpt2Config(lab, fn, opts.config);
    const loader = new lab.core.module.ModelLoader();
    try {
      const put = stager(lab, loader);
      put(bytes.subarray(0, 8 + kind));
      run(lab, loader.begin(8 + kind, cfg));
      for (let at = 8 + kind; at < bytes.length; at += CHUNK) {
        const piece = bytes.subarray(at, Math.min(bytes.length, at + CHUNK));
        put(piece);
        run(lab, loader.write(piece.length));
      }
      const m = adopt(lab, handleOrThrow(lab, loader.finish()), undefined);
      opts.onProgress?.({ loaded: bytes.length, total: bytes.length });
      return m;
    } finally {
      loader.delete();
    }
  }
  const base = lab.arena.layout(fn, [Math.ceil(bytes.length / 4)])[0];
  lab.core.heap().u8.set(bytes, base);
  const m = adopt(lab, handleOrThrow(lab, lab.core.module.Model.load(base, bytes.length)), undefined);
  opts.onProgress?.({ loaded: bytes.length, total: bytes.length });
  return m;
}

async function* blobChunks(blob) {
  // Blob.stream() where there is one (browsers, Node ≥ 18); slices otherwise.
  if (typeof blob.stream === 'function') {
    yield* readerChunks(blob.stream().getReader());
    return;
  }
  for (let at = 0; at < blob.size; at += CHUNK) yield new Uint8Array(await blob.slice(at, at + CHUNK).arrayBuffer());
}
async function* readerChunks(reader) {
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock?.();
  }
}

const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof document === 'undefined';
async function openUrl(fn, source) {
  let url = null;
  try {
    url = new URL(source);
  } catch {
    url = null;  // relative: fetch resolves it against the page; in Node it is a file path
  }
  if (isNode && (!url || url.protocol === 'file:')) {
    const fs = await import(/* @vite-ignore */ 'node:' + 'fs');
    const path = url ? decodeURIComponent(url.pathname) : String(source);
    let total;
    try {
      total = (await fs.promises.stat(path)).size;
    } catch (e) {
      fail(fn, `cannot read ${path} (${e.code ?? e.message}), expected a readable file`);
    }
    return { chunks: fs.createReadStream(path, { highWaterMark: CHUNK }), total };
  }
  let res;
  try {
    res = await fetch(source);
  } catch (e) {
    fail(fn, `fetching ${String(source)} failed (${e.message}), expected a reachable URL`);
  }
  if (!res.ok) fail(fn, `fetching ${String(source)} gave HTTP ${res.status}, expected 200`);
  const len = Number(res.headers.get('content-length'));
  return { chunks: readerChunks(res.body.getReader()), total: Number.isFinite(len) && len > 0 && !res.headers.get('content-encoding') ? len : undefined };
}

// Chunks (an async iterable of Uint8Array) → a Model. The header is gathered first; a GPT-2 file then
// streams through the loader, an attnlab checkpoint (small: ≤ 256 MiB) is gathered and read whole.
async function loadStream(lab, fn, chunks, total, opts) {
  const pending = [];
  let have = 0, loaded = 0;
  const progress = (t) => opts.onProgress?.({ loaded, total: t });
  const gather = () => {
    const all = new Uint8Array(have);
    let at = 0;
    for (const c of pending) all.set(c, at), (at += c.length);
    pending.length = 0;
    pending.push(all);
    return all;
  };
  const it = chunks[Symbol.asyncIterator]();
  let head = null, n = null;
  while (n === null || have < 8 + n) {
    const { done, value } = await it.next();
    if (done) break;
    const c = value instanceof Uint8Array ? value : new Uint8Array(value);
    pending.push(c);
    have += c.length;
    loaded += c.length;
    progress(total);
    if (n === null && have >= 8) {
      const k = sniffStart(gather());
      notSafetensors(fn, k);
      if (typeof k !== 'number') break;
      n = k;
    }
  }
  head = gather();
  if (n === null || have < 8 + n || !isGpt2Header(head, n)) {
    // An attnlab checkpoint (or something the attnlab reader will name): the rest, then the bytes path.
    for (;;) {
      const { done, value } = await it.next();
      if (done) break;
      pending.push(value instanceof Uint8Array ? value : new Uint8Array(value));
      have += value.length;
      loaded += value.length;
      progress(total);
    }
    return loadBytes(lab, fn, gather(), {});
  }
  const cfg = gpt2Config(lab, fn, opts.config);
  const M = lab.core.module;
  const loader = new M.ModelLoader();
  try {
    const put = stager(lab, loader);
    put(head.subarray(0, 8 + n));
    run(lab, loader.begin(8 + n, cfg));
    const fileBytes = loader.fileBytes();
    if (total === undefined) total = fileBytes;
    const feed = (c) => {
      for (let at = 0; at < c.length; at += CHUNK) {
        const piece = c.subarray(at, Math.min(c.length, at + CHUNK));
        put(piece);
        run(lab, loader.write(piece.length));
      }
    };
    feed(head.subarray(8 + n));
    for (;;) {
      const { done, value } = await it.next();
      if (done) break;
      const c = value instanceof Uint8Array ? value : new Uint8Array(value);
      feed(c);
      loaded += c.length;
      progress(total);
    }
    return adopt(lab, handleOrThrow(lab, loader.finish()), undefined);
  } finally {
    loader.delete();
    it.return?.();
  }
}

// Copies bytes into the loader's staging buffer (grown to fit), for loader.begin / loader.write.
function stager(lab, loader) {
  return (bytes) => {
    const at = loader.staging(Math.max(CHUNK, bytes.length));
    if (!at) throw new AttnLabError(lab.core.lastError());
    lab.core.heap().u8.set(bytes, at);  // the view re-derived: staging may have grown memory
    return at;
  };
}

// A Model for a new handle; its config and tensor table from info() (JSON, read once per model).
function adopt(lab, handle, seedUsed) {
  try {
    const info = JSON.parse(handle.info());
    if (seedUsed !== undefined) info.config.seed = seedUsed;
    return new Model(lab, handle, info);
  } catch (e) {
    handle.delete();
    throw e;
  }
}

// dst [cols, rows] = src [rows, cols] transposed (src: any array-like of rows·cols numbers).
function transposeInto(src, rows, cols, dst) {
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) dst[c * rows + r] = src[r * cols + c];
}

// A model garbage-collected undisposed is freed here (a safety net: dispose() is the contract).
const modelMemory = new FinalizationRegistry((handle) => handle.delete());

/** A small GPT in WebAssembly memory (lab.createModel / lab.loadModel). Free it with dispose(). */
export class Model {
  #lab; #handle; #tensors; #byName;
  // The call object kept per model, refilled per call: the training loop allocates none.
  #trainCall;

  constructor(lab, handle, info) {
    this.#lab = lab;
    this.#handle = handle;
    // transposed: stored [cols, rows] in WebAssembly memory (an inference-only model's W_O and W_out,
    // read that way by its forward); parameters() and setParameters() still speak [rows, cols].
    this.#tensors = info.tensors.map(([name, offset, shape, transposed = false]) =>
      ({ name, offset, shape, transposed, size: shape.reduce((a, b) => a * b, 1) }));
    this.#byName = new Map(this.#tensors.map((t) => [t.name, t]));
    this.#trainCall = { ids: 0, targets: 0, batch: 0, t: 0, lr: 0, beta1: 0, beta2: 0, eps: 0, weightDecay: 0, maxGradNorm: 0 };
    /** The resolved config (dFF filled in; seed when made by createModel). */
    this.config = Object.freeze(info.config);
    /** Number of parameters (floats). */
    this.numParams = info.numParams;
    Object.freeze(this);
    modelMemory.register(this, handle, this);
  }

  #live(fn) {
    if (!this.#handle) fail('model', `this model was disposed, expected a model that is still alive (${fn} was called after dispose())`);
    return this.#lab;
  }

  /** Optimizer steps taken so far. */
  get step() { return this.#live('step'), this.#handle.step(); }

  /**
   * { ids, batch = 1, targets?, attention = true, lens?, logits = 'all' } → { logits [batch·t·vocab]
   * ('last': [batch·vocab], each sequence's last row only; no targets), attention[layer][head]
   * [batch·t·t], loss and tokenLosses [batch·t] (with targets), batch, t, lens? }.
   * lens: true | { position = t − 1, k = 5 } (batch 1): the logit lens, an Array of layers + 1 entries
   * { ids: Int32Array(k), probs: Float32Array(k) }, most probable first — entry l is the residual stream
   * after l layers (0: embeddings + positions) through the final LayerNorm and the tied unembedding,
   * softmaxed; the last entry is the model's own next-token distribution at that position.
   */
  forward(args) {
    const fn = 'forward';
    const lab = this.#live(fn);
    requireObject(fn, args);
    noUnknownKeys(fn, args, FORWARD_OPTIONS);
    const { vocab, context, layers, heads } = this.config;
    const { batch, t, n, hasTargets } = sequence(fn, args, context, vocab, false);
    const withAttention = bool(fn, 'attention', args.attention, true);
    const lastLogits = oneOf(fn, 'logits', args.logits, ['all', 'last'], 'all') === 'last';
    if (lastLogits && hasTargets) fail(fn, "logits is 'last' with targets, expected logits: 'all' (the loss needs every row's logits) or no targets");
    const lens = lensOption(fn, args.lens, batch, t, vocab);
    const per = batch * t * t, att = withAttention ? layers * heads * per : 0;
    const lensN = lens ? (layers + 1) * lens.k : 0, nl = (lastLogits ? batch : n) * vocab;
    const [pi, pt, pl, pa, pk, pli, plp] = lab.arena.layout(fn, [n, hasTargets ? n : 0, nl, att, hasTargets ? n : 0, lensN, lensN]);
    putTokens(lab, pi, args.ids);
    if (hasTargets) putTokens(lab, pt, args.targets);
    const s = stepOrThrow(lab, this.#handle.forward({ ids: pi, targets: hasTargets ? pt : 0, batch, t,
      logits: pl, attention: withAttention ? pa : 0, tokenLosses: hasTargets ? pk : 0, lastLogits }));
    if (lens) run(lab, this.#handle.logitLens({ position: lens.position, k: lens.k, ids: pli, probs: plp }));
    const r = { batch, t, logits: lab.arena.take(pl, nl) };
    if (lens) {
      const ids = lab.core.heap().i32.slice(pli >>> 2, (pli >>> 2) + lensN), probs = lab.arena.take(plp, lensN);
      r.lens = Array.from({ length: layers + 1 }, (_, l) =>
        ({ ids: ids.subarray(l * lens.k, (l + 1) * lens.k), probs: probs.subarray(l * lens.k, (l + 1) * lens.k) }));
    }
    if (withAttention) {
      const all = lab.arena.take(pa, att);
      r.attention = Array.from({ length: layers }, (_, l) =>
        Array.from({ length: heads }, (_, hd) => all.subarray((l * heads + hd) * per, (l * heads + hd + 1) * per)));
    }
    if (hasTargets) {
      r.loss = s.loss;
      r.tokenLosses = lab.arena.take(pk, n);
    }
    return r;
  }

  /** { ids, targets, batch = 1 } → { loss }; the gradients stay in the model (gradients()). */
  computeGradients(args) {
    const fn = 'computeGradients';
    const lab = this.#live(fn);
    requireObject(fn, args);
    noUnknownKeys(fn, args, GRADIENT_OPTIONS);
    const { batch, t, n } = sequence(fn, args, this.config.context, this.config.vocab, true);
    const ni = align16(4 * n);
    const base = block(lab, fn, 2 * ni);
    putTokens(lab, base, args.ids);
    putTokens(lab, base + ni, args.targets);
    const s = stepOrThrow(lab, this.#handle.computeGradients({ ids: base, targets: base + ni, batch, t, logits: 0, attention: 0, tokenLosses: 0, lastLogits: false }));
    return { loss: s.loss };
  }

  /**
   * One training step: forward, backward, clip, AdamW. { ids, targets, batch = 1, lr = 1e-3,
   * beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0.01, maxGradNorm = Infinity } →
   * { loss, gradNorm (before clipping), step }. A non-finite loss or gradient throws and changes nothing.
   */
  trainStep(args) {
    const fn = 'trainStep';
    const lab = this.#live(fn);
    requireObject(fn, args);
    noUnknownKeys(fn, args, TRAIN_OPTIONS);
    const { batch, t, n } = sequence(fn, args, this.config.context, this.config.vocab, true);
    const c = this.#trainCall;
    // lr, eps, weightDecay: also within float32's range (num): the update is float32 arithmetic, where
    // eps = 1e-300 would be 0 (0/0 for a zero gradient) and lr = 1e300 an infinite step. They cross
    // as doubles, as torch's Python floats (β2 = 0.999 must not be rounded to float32).
    c.lr = num(fn, 'lr', args.lr, { dflt: 1e-3, positive: true });
    c.beta1 = real(fn, 'beta1', args.beta1, 0.9, unit, 'a number in [0, 1)');
    c.beta2 = real(fn, 'beta2', args.beta2, 0.999, unit, 'a number in [0, 1)');
    c.eps = num(fn, 'eps', args.eps, { dflt: 1e-8, positive: true });
    c.weightDecay = num(fn, 'weightDecay', args.weightDecay, { dflt: 0.01, min: 0 });
    c.maxGradNorm = real(fn, 'maxGradNorm', args.maxGradNorm, Infinity, clipNorm, 'a number > 0 (Infinity: measure only, no clipping)');
    // [ids | targets] in the arena's block.
    const ni = align16(4 * n);
    const base = block(lab, fn, 2 * ni);
    putTokens(lab, base, args.ids);
    putTokens(lab, base + ni, args.targets);
    c.ids = base; c.targets = base + ni; c.batch = batch; c.t = t;
    const r = stepOrThrow(lab, this.#handle.trainStep(c));
    return { loss: r.loss, gradNorm: r.gradNorm, step: r.step };
  }

  /** { prompt, steps, temperature = 1 (0: greedy), topK = 0 (all), seed = 0 } → Int32Array [steps] new tokens. */
  generate(args) {
    const fn = 'generate';
    const lab = this.#live(fn);
    requireObject(fn, args);
    noUnknownKeys(fn, args, GENERATE_OPTIONS);
    const { vocab, context } = this.config;
    const n = tokenCount(fn, 'prompt', args.prompt, `1 to context = ${context} token ids`);
    if (n < 1 || n > context) fail(fn, `prompt has ${n} tokens, expected 1 to context = ${context} token ids`);
    checkTokens(fn, 'prompt', args.prompt, vocab);
    const steps = int(fn, 'steps', args.steps, { min: 0 });
    const temperature = num(fn, 'temperature', args.temperature, { dflt: 1, min: 0 });
    const topK = int(fn, 'topK', args.topK, { min: 0, dflt: 0 });
    const s = seed(fn, args.seed);
    const [pp, po] = lab.arena.layout(fn, [n, steps]);
    putTokens(lab, pp, args.prompt);
    run(lab, this.#handle.generate({ prompt: pp, n, steps, temperature, topK, seed: s, out: po }));
    return lab.core.heap().i32.slice(po >>> 2, (po >>> 2) + steps);
  }

  /** { name: { shape, data: Float32Array } } — copies, in gpt.h's order. */
  parameters() { return this.#tensorsOf(this.#live('parameters') && this.#handle.parameters()); }
  /** The gradients of the last computeGradients/trainStep, shaped as parameters(). */
  gradients() {
    this.#live('gradients');
    const view = this.#handle.gradients();
    if (view === null) fail('gradients', 'this model is inference-only (no gradient memory), expected a model from createModel or an attnlab checkpoint');
    return this.#tensorsOf(view);
  }

  // A view into WebAssembly memory (Embind's typed_memory_view, made by the call that returned it,
  // so never of a detached buffer) copied at once into fresh tensors, each [rows, cols] (a transposed
  // one is transposed back in the copy).
  #tensorsOf(view) {
    const all = view.slice();
    const out = {};
    for (const t of this.#tensors) {
      const data = all.subarray(t.offset, t.offset + t.size);
      if (t.transposed) transposeInto(data.slice(), t.shape[1], t.shape[0], data);
      out[t.name] = { shape: t.shape.slice(), data };
    }
    return out;
  }

  /**
   * Sets any subset of the parameters: { name: Float32Array | number[] | { shape, data } } (what
   * parameters() returns fits). Everything is checked before anything is written: names, lengths
   * (and shapes), finite values.
   */
  setParameters(values) {
    const fn = 'setParameters';
    this.#live(fn);
    requireObject(fn, values);
    const todo = [];
    for (const name of Object.keys(values)) {
      let v = values[name];
      if (v === undefined) continue;
      const t = this.#byName.get(name);
      if (!t) {
        const names = this.#tensors.map((x) => x.name);
        fail(fn, `unknown parameter '${name}', expected some of: ${names.length > 12 ? [...names.slice(0, 12), '…'].join(', ') : names.join(', ')}`);
      }
      const shape = `[${t.shape.join(', ')}]`;
      if (v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v)) {
        for (const k of Object.keys(v))
          if (k !== 'shape' && k !== 'data' && v[k] !== undefined) fail(fn, `${name} has unknown key '${k}', expected a Float32Array or { shape, data }`);
        if (v.shape !== undefined && (!Array.isArray(v.shape) || v.shape.length !== t.shape.length || v.shape.some((d, i) => d !== t.shape[i])))
          fail(fn, `${name}.shape is ${Array.isArray(v.shape) ? `[${v.shape.map(describe).join(', ')}]` : describe(v.shape)}, expected ${shape}`);
        v = v.data;
      }
      matrix(fn, name, v, t.size, `shape ${shape} = ${t.size}`);
      finite(fn, name, v);
      todo.push([t, v]);
    }
    const params = this.#handle.parameters();  // a view made now, written at once
    for (const [t, v] of todo) {
      if (t.transposed) transposeInto(v, t.shape[0], t.shape[1], params.subarray(t.offset, t.offset + t.size));
      else params.set(v, t.offset);
    }
  }

  /** mask [layers·heads] (1 keeps a head, 0 ablates it; forward and generate only), or null for none. */
  setHeadMask(mask) {
    const fn = 'setHeadMask';
    const lab = this.#live(fn);
    const { layers, heads } = this.config;
    if (mask === null || mask === undefined) {
      run(lab, this.#handle.setHeadMask(0));
      return;
    }
    matrix(fn, 'mask', mask, layers * heads, `layers·heads = ${layers * heads}`);
    finite(fn, 'mask', mask);
    const [pm] = lab.arena.layout(fn, [layers * heads]);
    lab.arena.put(pm, mask);
    run(lab, this.#handle.setHeadMask(pm));
  }

  /**
   * The model as a safetensors file; optimizer: true adds Adam's moments and the step count.
   * layout: 'gpt2' → { bytes, config }: Hugging Face GPT-2's names (fused c_attn, no prefix, metadata
   * format 'pt') and the config.json text; refused for a model GPT-2 cannot express (attention-only,
   * no LayerNorm, a nonzero output bias b_U).
   */
  save(args = {}) {
    const fn = 'save';
    const lab = this.#live(fn);
    requireObject(fn, args);
    noUnknownKeys(fn, args, SAVE_OPTIONS);
    const layout = oneOf(fn, 'layout', args.layout, ['attnlab', 'gpt2'], 'attnlab');
    const optimizer = bool(fn, 'optimizer', args.optimizer, false);
    if (layout === 'gpt2') {
      if (optimizer) fail(fn, "optimizer is true with layout 'gpt2', expected optimizer: false (GPT-2's file holds the weights only)");
      try {
        run(lab, this.#handle.saveGpt2());
        return { bytes: this.#handle.saved().slice(), config: this.#handle.savedConfig() };
      } finally {
        this.#handle.releaseSaved();
      }
    }
    try {
      run(lab, this.#handle.save(optimizer));
      return this.#handle.saved().slice();
    } finally {
      this.#handle.releaseSaved();
    }
  }

  /** Frees the model's WebAssembly memory; later calls throw. Safe to call twice. */
  dispose() {
    if (!this.#handle) return;
    modelMemory.unregister(this);
    this.#handle.delete();
    this.#handle = null;
  }
}

// The AttnLab methods this file gives (a small GPT that trains, samples and saves): lab.<name>(args) = <name>(lab, args).
export const OPS = { createModel, loadModel };
