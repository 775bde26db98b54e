// model.js — a small trainable GPT (core/include/attnlab/gpt.h) that lives in WebAssembly memory:
// lab.createModel, lab.loadModel and the Model they return (forward, trainStep, computeGradients,
// generate, parameters, setParameters, setHeadMask, save, dispose).
//
// The C++ Gpt stays in the heap between calls; a Model holds its handle (an id from the bindings'
// registry of live models: a stale or made-up handle is refused, never dereferenced). dispose() is
// the contract for freeing it; a FinalizationRegistry frees a model that is garbage-collected
// undisposed, as a safety net only (when that happens is up to the engine).
//
// trainStep is the hot path (~10^4 calls in a training run): it writes ids and targets into the
// arena's block (reused, grown only when too small), the AdamW options into 6 float64 there, fills a
// call object kept per model, reads the small result struct and allocates nothing but the returned
// { loss, gradNorm, step }. No JSON, no copies of parameters, no per-step arrays.
import { run, ContractError } from './core.js';
import { requireObject, int, num, bool, oneOf, matrix, fail, describe } from './validate.js';

const CREATE_OPTIONS = ['vocab', 'context', 'layers', 'heads', 'dModel', 'dFF', 'attentionOnly', 'layerNorm', 'activation', 'initStd', 'seed'];
const FORWARD_OPTIONS = ['ids', 'batch', 'targets', 'attention'];
const GRADIENT_OPTIONS = ['ids', 'targets', 'batch'];
const TRAIN_OPTIONS = ['ids', 'targets', 'batch', 'lr', 'beta1', 'beta2', 'eps', 'weightDecay', 'maxGradNorm'];
const GENERATE_OPTIONS = ['prompt', 'steps', 'temperature', 'topK', 'seed'];
const SAVE_OPTIONS = ['optimizer'];

// ---- Per-module state: heap views and the result struct's layout -----------------------------------
// Views are made again after the memory grows (its old ArrayBuffer is then detached); addresses in
// the heap stay valid across growth.
const modules = new WeakMap();
function heap(lab) {
  let h = modules.get(lab.core);
  if (!h) {
    const layout = lab.core.structs.modelResult;
    if (!layout) throw new ContractError('the core declares no struct modelResult');
    const at = {};
    for (const [name, , offset] of layout.fields) at[name] = offset >> 2;
    for (const name of ['model', 'numParams', 'step', 'loss', 'gradNorm', 'params', 'grads', 'bytes', 'size'])
      if (at[name] === undefined) throw new ContractError(`modelResult: the facade reads ${name}, which the core does not declare`);
    const zero = Object.freeze(Object.fromEntries(layout.fields.map((f) => [f[0], 0])));
    h = { buffer: null, u8: null, i32: null, u32: null, f32: null, f64: null, at, zero, resultBytes: Math.ceil(layout.bytes / 16) * 16 };
    modules.set(lab.core, h);
  }
  const buf = lab.core.module.HEAPU8.buffer;
  if (h.buffer !== buf) {
    h.buffer = buf;
    h.u8 = new Uint8Array(buf);
    h.i32 = new Int32Array(buf);
    h.u32 = new Uint32Array(buf);
    h.f32 = new Float32Array(buf);
    h.f64 = new Float64Array(buf);
  }
  return h;
}

// The result struct at `addr`, zeroed (a call fills what it returns).
function clearResult(lab, addr) {
  lab.core.write('modelResult', lab.core.structs.modelResult, addr, heap(lab).zero);
}

// `bytes` of the arena's block: the block itself when it is big enough (no allocation, the hot
// path), else grown through arena.layout (which checks the memory budget).
function block(lab, fn, bytes) {
  const a = lab.arena;
  if (a.ptr && a.bytes >= bytes) return a.ptr;
  return a.layout(fn, [bytes / 4])[0];
}
const align16 = (bytes) => Math.ceil(bytes / 16) * 16;

// A malloc'd buffer a call handed out (result bytes/size): copied into a fresh Uint8Array, freed.
function takeBytes(lab, resultAddr) {
  const h = heap(lab);
  const p = h.u32[(resultAddr >> 2) + h.at.bytes], n = h.i32[(resultAddr >> 2) + h.at.size];
  const out = h.u8.slice(p, p + n);
  if (p) lab.core.module._free(p);
  return out;
}

// ---- Validation ------------------------------------------------------------------------------------
// Option names without allocating (trainStep runs 10^4 times): undefined counts as absent.
function knownKeys(fn, args, known) {
  for (const k in args) {
    if (args[k] !== undefined && !known.includes(k) && Object.hasOwn(args, k))
      fail(fn, `unknown option '${k}', expected some of: ${known.join(', ')}`);
  }
}

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
  if (v instanceof Int32Array) return;
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (typeof x !== 'number' || !Number.isInteger(x) || x < 0 || x >= vocab)
      fail(fn, `${name}[${i}] is ${describe(x)}, expected a token id in [0, vocab = ${vocab})`);
  }
}
function putTokens(h, addr, v) {
  if (v instanceof Int32Array) h.i32.set(v, addr >> 2);
  else for (let i = 0, at = addr >> 2; i < v.length; i++) h.i32[at + i] = v[i];
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
  knownKeys(fn, args, CREATE_OPTIONS);
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
  const result = lab.arena.layout(fn, [heap(lab).resultBytes / 4])[0];
  clearResult(lab, result);
  run(lab, lab.core.call('createModel', { vocab, context, layers, heads, dModel, dFF, attentionOnly, layerNorm,
    activation: lab.core.code('activation', activation), initStd, seed: s, result }));
  return adopt(lab, result, s);
}

/** The model a safetensors file (Uint8Array or ArrayBuffer, from model.save()) holds. */
export function loadModel(lab, bytes) {
  const fn = 'loadModel';
  if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
  else if (ArrayBuffer.isView(bytes) && !(bytes instanceof Uint8Array))
    bytes = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!(bytes instanceof Uint8Array))
    fail(fn, `bytes is ${describe(bytes)}, expected a Uint8Array or ArrayBuffer of a safetensors file (from model.save())`);
  const rb = heap(lab).resultBytes;
  const base = lab.arena.layout(fn, [rb / 4 + Math.ceil(bytes.length / 4)])[0];
  heap(lab).u8.set(bytes, base + rb);
  clearResult(lab, base);
  run(lab, lab.core.call('loadModel', { bytes: base + rb, size: bytes.length, result: base }));
  return adopt(lab, base, undefined);
}

// A Model for the handle a create/load call wrote into the result at `result`; its config and tensor
// table from modelInfo (JSON, read once per model).
function adopt(lab, result, seedUsed) {
  const h = heap(lab);
  const id = h.i32[(result >> 2) + h.at.model];
  try {
    clearResult(lab, result);
    run(lab, lab.core.call('modelInfo', { model: id, result }));
    const info = JSON.parse(new TextDecoder().decode(takeBytes(lab, result)));
    if (seedUsed !== undefined) info.config.seed = seedUsed;
    return new Model(lab, id, info);
  } catch (e) {
    lab.core.call('modelDispose', { model: id });
    throw e;
  }
}

const modelMemory = new FinalizationRegistry(({ core, id }) => core.call('modelDispose', { model: id }));

/** A small GPT in WebAssembly memory (lab.createModel / lab.loadModel). Free it with dispose(). */
export class Model {
  #lab; #id; #tensors; #byName;
  // Call objects kept per model, refilled per call: the training loop allocates none.
  #trainCall; #adamwValues = new Float64Array(6);

  constructor(lab, id, info) {
    this.#lab = lab;
    this.#id = id;
    this.#tensors = info.tensors.map(([name, offset, shape]) => ({ name, offset, shape, size: shape.reduce((a, b) => a * b, 1) }));
    this.#byName = new Map(this.#tensors.map((t) => [t.name, t]));
    this.#trainCall = { model: id, ids: 0, targets: 0, batch: 0, t: 0, adamw: 0, result: 0 };
    /** The resolved config (dFF filled in; seed when made by createModel). */
    this.config = Object.freeze(info.config);
    /** Number of parameters (floats). */
    this.numParams = info.numParams;
    Object.freeze(this);
    modelMemory.register(this, { core: lab.core, id }, this);
  }

  #live(fn) {
    if (!this.#id) fail('model', `this model was disposed, expected a model that is still alive (${fn} was called after dispose())`);
    return this.#lab;
  }

  // numParams, step, params and grads addresses (read again each time: cheap, and never stale).
  #state(fn) {
    const lab = this.#live(fn);
    const result = block(lab, fn, heap(lab).resultBytes);
    clearResult(lab, result);
    run(lab, lab.core.call('modelState', { model: this.#id, result }));
    const h = heap(lab), r = result >> 2;
    return { step: h.i32[r + h.at.step], params: h.u32[r + h.at.params], grads: h.u32[r + h.at.grads] };
  }

  /** Optimizer steps taken so far. */
  get step() { return this.#state('step').step; }

  /**
   * { ids, batch = 1, targets?, attention = true } → { logits [batch·t·vocab], attention[layer][head]
   * [batch·t·t], loss and tokenLosses [batch·t] (with targets), batch, t }.
   */
  forward(args) {
    const fn = 'forward';
    const lab = this.#live(fn);
    requireObject(fn, args);
    knownKeys(fn, args, FORWARD_OPTIONS);
    const { vocab, context, layers, heads } = this.config;
    const { batch, t, n, hasTargets } = sequence(fn, args, context, vocab, false);
    const withAttention = bool(fn, 'attention', args.attention, true);
    const per = batch * t * t, att = withAttention ? layers * heads * per : 0;
    const [pr, pi, pt, pl, pa, pk] = lab.arena.layout(fn, [heap(lab).resultBytes / 4, n, hasTargets ? n : 0, n * vocab, att, hasTargets ? n : 0]);
    const h = heap(lab);
    putTokens(h, pi, args.ids);
    if (hasTargets) putTokens(h, pt, args.targets);
    clearResult(lab, pr);
    run(lab, lab.core.call('modelForward', { model: this.#id, ids: pi, targets: hasTargets ? pt : 0, batch, t,
      logits: pl, attention: withAttention ? pa : 0, tokenLosses: hasTargets ? pk : 0, result: pr }));
    const r = { batch, t, logits: lab.arena.take(pl, n * vocab) };
    if (withAttention) {
      const all = lab.arena.take(pa, att);
      r.attention = Array.from({ length: layers }, (_, l) =>
        Array.from({ length: heads }, (_, hd) => all.subarray((l * heads + hd) * per, (l * heads + hd + 1) * per)));
    }
    if (hasTargets) {
      r.loss = heap(lab).f32[(pr >> 2) + h.at.loss];  // heap(): fresh views if memory grew
      r.tokenLosses = lab.arena.take(pk, n);
    }
    return r;
  }

  /** { ids, targets, batch = 1 } → { loss }; the gradients stay in the model (gradients()). */
  computeGradients(args) {
    const fn = 'computeGradients';
    const lab = this.#live(fn);
    requireObject(fn, args);
    knownKeys(fn, args, GRADIENT_OPTIONS);
    const { batch, t, n } = sequence(fn, args, this.config.context, this.config.vocab, true);
    const rb = heap(lab).resultBytes, ni = align16(4 * n);
    const base = block(lab, fn, rb + 2 * ni);
    const h = heap(lab);
    putTokens(h, base + rb, args.ids);
    putTokens(h, base + rb + ni, args.targets);
    clearResult(lab, base);
    run(lab, lab.core.call('modelGradients', { model: this.#id, ids: base + rb, targets: base + rb + ni, batch, t, result: base }));
    return { loss: heap(lab).f32[(base >> 2) + h.at.loss] };  // heap(): fresh views if memory grew
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
    knownKeys(fn, args, TRAIN_OPTIONS);
    const { batch, t, n } = sequence(fn, args, this.config.context, this.config.vocab, true);
    const o = this.#adamwValues;
    // lr, eps, weightDecay: also within float32's range (num): the update is float32 arithmetic, where
    // eps = 1e-300 would be 0 (0/0 for a zero gradient) and lr = 1e300 an infinite step.
    o[0] = num(fn, 'lr', args.lr, { dflt: 1e-3, positive: true });
    o[1] = real(fn, 'beta1', args.beta1, 0.9, unit, 'a number in [0, 1)');
    o[2] = real(fn, 'beta2', args.beta2, 0.999, unit, 'a number in [0, 1)');
    o[3] = num(fn, 'eps', args.eps, { dflt: 1e-8, positive: true });
    o[4] = num(fn, 'weightDecay', args.weightDecay, { dflt: 0.01, min: 0 });
    o[5] = real(fn, 'maxGradNorm', args.maxGradNorm, Infinity, clipNorm, 'a number > 0 (Infinity: measure only, no clipping)');
    // [result | 6 float64 | ids | targets] in the arena's block.
    const rb = heap(lab).resultBytes, ni = align16(4 * n);
    const base = block(lab, fn, rb + 48 + 2 * ni);
    const h = heap(lab);
    h.f64.set(o, (base + rb) >> 3);
    putTokens(h, base + rb + 48, args.ids);
    putTokens(h, base + rb + 48 + ni, args.targets);
    clearResult(lab, base);
    const c = this.#trainCall;
    c.ids = base + rb + 48; c.targets = base + rb + 48 + ni; c.batch = batch; c.t = t; c.adamw = base + rb; c.result = base;
    run(lab, lab.core.call('modelTrainStep', c));
    heap(lab);  // fresh views if the call grew the memory (h is updated in place)
    const r = base >> 2;
    return { loss: h.f32[r + h.at.loss], gradNorm: h.f32[r + h.at.gradNorm], step: h.i32[r + h.at.step] };
  }

  /** { prompt, steps, temperature = 1 (0: greedy), topK = 0 (all), seed = 0 } → Int32Array [steps] new tokens. */
  generate(args) {
    const fn = 'generate';
    const lab = this.#live(fn);
    requireObject(fn, args);
    knownKeys(fn, args, GENERATE_OPTIONS);
    const { vocab, context } = this.config;
    const n = tokenCount(fn, 'prompt', args.prompt, `1 to context = ${context} token ids`);
    if (n < 1 || n > context) fail(fn, `prompt has ${n} tokens, expected 1 to context = ${context} token ids`);
    checkTokens(fn, 'prompt', args.prompt, vocab);
    const steps = int(fn, 'steps', args.steps, { min: 0 });
    const temperature = num(fn, 'temperature', args.temperature, { dflt: 1, min: 0 });
    const topK = int(fn, 'topK', args.topK, { min: 0, dflt: 0 });
    const s = seed(fn, args.seed);
    const [pp, po] = lab.arena.layout(fn, [n, steps]);
    putTokens(heap(lab), pp, args.prompt);
    run(lab, lab.core.call('modelGenerate', { model: this.#id, prompt: pp, n, steps, temperature, topK, seed: s, out: po }));
    const h = heap(lab);
    return h.i32.slice(po >> 2, (po >> 2) + steps);
  }

  /** { name: { shape, data: Float32Array } } — copies, in gpt.h's order. */
  parameters() { return this.#tensorsAt('parameters', 'params'); }
  /** The gradients of the last computeGradients/trainStep, shaped as parameters(). */
  gradients() { return this.#tensorsAt('gradients', 'grads'); }

  #tensorsAt(fn, which) {
    const p = this.#state(fn)[which];
    const all = heap(this.#lab).f32.slice(p >> 2, (p >> 2) + this.numParams);
    const out = {};
    for (const t of this.#tensors) out[t.name] = { shape: t.shape.slice(), data: all.subarray(t.offset, t.offset + t.size) };
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
    const p = this.#state(fn).params;
    const f32 = heap(this.#lab).f32;
    for (const [t, v] of todo) f32.set(v, (p >> 2) + t.offset);
  }

  /** mask [layers·heads] (1 keeps a head, 0 ablates it; forward and generate only), or null for none. */
  setHeadMask(mask) {
    const fn = 'setHeadMask';
    const lab = this.#live(fn);
    const { layers, heads } = this.config;
    if (mask === null || mask === undefined) {
      run(lab, lab.core.call('modelHeadMask', { model: this.#id, mask: 0 }));
      return;
    }
    matrix(fn, 'mask', mask, layers * heads, `layers·heads = ${layers * heads}`);
    finite(fn, 'mask', mask);
    const [pm] = lab.arena.layout(fn, [layers * heads]);
    lab.arena.put(pm, mask);
    run(lab, lab.core.call('modelHeadMask', { model: this.#id, mask: pm }));
  }

  /** The model as a safetensors file; optimizer: true adds Adam's moments and the step count. */
  save(args = {}) {
    const fn = 'save';
    const lab = this.#live(fn);
    requireObject(fn, args);
    knownKeys(fn, args, SAVE_OPTIONS);
    const optimizer = bool(fn, 'optimizer', args.optimizer, false);
    const result = block(lab, fn, heap(lab).resultBytes);
    clearResult(lab, result);
    run(lab, lab.core.call('modelSave', { model: this.#id, optimizer, result }));
    return takeBytes(lab, result);
  }

  /** Frees the model's WebAssembly memory; later calls throw. Safe to call twice. */
  dispose() {
    if (!this.#id) return;
    modelMemory.unregister(this);
    this.#lab.core.call('modelDispose', { model: this.#id });
    this.#id = 0;
  }
}
