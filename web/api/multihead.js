// multihead.js — multi-head attention, self and cross, with every intermediate or output only
// (streaming), and the layer that keeps its weights in WebAssembly memory.
import { MAX_CALL_BYTES } from './arena.js';
import { run } from './core.js';
import {
  AttnLabError, requireObject, int, num, bool, matrix, optionalMatrix, fail, describe, mask as parseMask, noUnknownKeys, definedKeys,
} from './validate.js';

/**
 * Multi-head attention, self (no context) or cross (queries from x, keys/values from context).
 * x: [tq·dModel], context: [tk·dModel]; wq, wk, wv, wo: [dModel·dModel]; biases [dModel].
 * Head h uses columns [h·dk, (h+1)·dk), dk = dModel/heads.
 * Options: mask, scale (default 1/√dk), rope (true or { base }), alibi (true; self-attention).
 * Returns { q, k, v, scores, weights, heads, output }: weights and scores are [heads·tq·tk].
 * intermediates: false returns only { output }, computed streaming (online softmax over key blocks,
 * never holding the weights): the fast mode for long sequences (T = 8192 fits in O(T·dModel) memory).
 * A sequence within one streaming tile (tq ≤ 48, tk ≤ 128) is computed whole in that tile: its output
 * is the all-intermediates output bit for bit.
 * out: write the results into these Float32Arrays instead of new ones (pass the previous result:
 * `r = lab.multiHeadAttention({ ...args, out: r })`); returns them. No allocation: the interactive mode.
 */
export function multiHeadAttention(lab, args) {
  const fn = 'multiHeadAttention';
  requireObject(fn, args);
  const o = options(fn, args, MHA_KEYS);
  const D = int(fn, 'dModel', o.dModel), H = int(fn, 'heads', o.heads);
  return mha(lab, fn, o, D, H, mhaWeights(fn, o, D), null);
}

/**
 * A multi-head attention layer that keeps its weights in WebAssembly memory, checked and
 * copied once (as onnxruntime keeps a model's initializers): then `layer.forward({ x, tq, … })` sends
 * only x (and context/mask). The same numbers and options as multiHeadAttention; free with
 * `layer.dispose()` (also freed when the layer is garbage-collected).
 */
export function createMultiHeadAttention(lab, args) {
  const fn = 'createMultiHeadAttention';
  requireObject(fn, args);
  noUnknownKeys(fn, args, ['dModel', 'heads', ...MHA_WEIGHTS]);
  const D = int(fn, 'dModel', args.dModel), H = int(fn, 'heads', args.heads);
  if (D % H !== 0) fail(fn, `heads = ${H} does not divide dModel = ${D}, expected dModel to be a multiple of heads`);
  const w = mhaWeights(fn, args, D);
  for (const name of MHA_WEIGHTS) if (w[name]) finite(fn, name, w[name]);
  const total = MHA_WEIGHTS.reduce((t, name) => t + (w[name] ? Math.ceil(w[name].length / 4) * 16 : 0), 0);
  if (total > MAX_CALL_BYTES) fail(fn, `dModel = ${D} needs ${(total / 2 ** 20).toFixed(0)} MiB of weights, expected at most ${MAX_CALL_BYTES / 2 ** 20} MiB`);
  // The weights go through the arena; the core copies them into the layer's own memory.
  const addrs = lab.arena.layout(fn, MHA_WEIGHTS.map((name) => (w[name] ? w[name].length : 0)));
  const set = {};
  MHA_WEIGHTS.forEach((name, i) => {
    lab.arena.put(addrs[i], w[name]);
    set[name] = w[name] ? addrs[i] : 0;
  });
  const handle = lab.core.module.MultiHeadLayer.create(D, H, set);
  if (handle === null) throw new AttnLabError(lab.core.lastError());
  return new MultiHeadAttentionLayer(lab, D, H, handle);
}

// The multi-head call behind both APIs (`args`: the caller's options as options() read them): `w` holds the checked weights to copy in (layer = null), or
// `layer` is a layer's handle, whose weights are already in WebAssembly memory. Checks the core
// makes itself (heads dividing dModel, RoPE's even head width, ALiBi on self-attention) are left to it.
function mha(lab, fn, args, D, H, w, layer) {
  const tq = int(fn, 'tq', args.tq);
  const cross = args.context !== undefined && args.context !== null;
  let tk = tq;
  if (cross) tk = int(fn, 'tk', args.tk);
  else if (args.tk !== undefined && args.tk !== tq)
    fail(fn, `tk is ${describe(args.tk)} without a context, expected a context [tk·dModel] for cross-attention (or no tk)`);
  const x = matrix(fn, 'x', args.x, tq * D, 'tq·dModel');
  const context = cross ? matrix(fn, 'context', args.context, tk * D, 'tk·dModel') : null;
  const m = parseMask(fn, args.mask, tq, tk);
  const scale = num(fn, 'scale', args.scale, { dflt: 0, positive: args.scale !== undefined });
  let rope = false, ropeBase = 10000;
  if (args.rope !== undefined && args.rope !== false) {
    rope = true;
    // { base } only (a typo like { bse } must not silently mean the default base).
    if (typeof args.rope === 'object' && args.rope !== null && !Array.isArray(args.rope)) {
      for (const k of definedKeys(args.rope))
        if (k !== 'base') fail(fn, `rope has unknown key '${k}', expected true or { base }`);
      ropeBase = num(fn, 'rope.base', args.rope.base, { dflt: 10000, positive: true });
    } else if (args.rope !== true) fail(fn, `rope is ${describe(args.rope)}, expected true or { base }`);
  }
  const alibi = bool(fn, 'alibi', args.alibi, false);
  // intermediates: false is the throughput mode (streaming, O((tq + tk)·dModel) memory).
  const intermediates = bool(fn, 'intermediates', args.intermediates, true);
  // out = arrays to write the results into (e.g. the previous result): no allocation, the
  // way to recompute on every slider move. The object is checked here, its arrays before anything
  // is written into them (after the computation, which touches only WebAssembly memory).
  const out = args.out ?? null;
  if (out !== null && (typeof out !== 'object' || Array.isArray(out) || ArrayBuffer.isView(out)))
    fail(fn, `out is ${describe(out)}, expected an object of Float32Arrays such as a previous result`);
  const hw = intermediates ? H * tq * tk : 0;
  const work = intermediates ? 0 : lab.core.multiHeadWorkspace(tk, D, H);
  // Inputs, the outputs (all-intermediates) or the scratch, the weights (unless a layer holds them),
  // then the table of these addresses that the core reads (REGIONS' order; its length first).
  const own = layer === null, DD = own ? D * D : 0;  // a layer holds its weights: no room for them here
  const addrs = lab.arena.layout(fn, [tq * D, cross ? tk * D : 0, m.values ? tq * tk : 0, tq * D, tk * D, tk * D, hw,
    intermediates ? hw : work, intermediates ? tq * D : 0, tq * D, DD, DD, DD, DD,
    own && w.bq ? D : 0, own && w.bk ? D : 0, own && w.bv ? D : 0, own && w.bo ? D : 0, REGIONS + 1]);
  // Read by index (destructuring walks the iterator protocol: ~0.1 µs per call here).
  const px = addrs[0], pc = addrs[1], pm = addrs[2], pq = addrs[3], pk = addrs[4], pv = addrs[5], ps = addrs[6];
  const pw = addrs[7], ph = addrs[8], po = addrs[9], table = addrs[18], a = lab.arena;
  // The heap views once, after the layout (the last step that could grow memory), not once per input.
  const heap = lab.core.heap(), f32 = heap.f32, u32 = heap.u32;
  put(f32, px, x); put(f32, pc, context);
  put(f32, pm, m.values);
  // The table: an absent array's address is 0; pw is the weights (all intermediates) or the workspace.
  const t = table >>> 2;
  u32[t] = REGIONS;
  u32[t + 1] = px; u32[t + 2] = cross ? pc : 0; u32[t + 3] = m.values ? pm : 0;
  u32[t + 4] = pq; u32[t + 5] = pk; u32[t + 6] = pv; u32[t + 7] = intermediates ? ps : 0;
  u32[t + 8] = intermediates ? pw : 0; u32[t + 9] = intermediates ? ph : 0; u32[t + 10] = intermediates ? 0 : pw;
  u32[t + 11] = po;
  if (own) for (let i = 0; i < 8; i++) {
    const v = w[MHA_WEIGHTS[i]], p = addrs[10 + i];
    put(f32, p, v);
    u32[t + 12 + i] = v ? p : 0;
  } else for (let i = 12; i <= REGIONS; i++) u32[t + i] = 0;
  const maskKind = lab.core.code('maskKind', m.kind);
  // Both multi-head entry points take their numbers and flags as plain arguments and their arrays as
  // one table address, not a value_object: the one lean call of the boundary (core/bindings/embind.cc,
  // MultiHeadRunCall, says why, with numbers).
  if (own) run(lab, lab.core.module.multiHeadAttention(D, H, table, tq, tk, maskKind, m.window, m.causal, scale, rope, ropeBase, alibi));
  else run(lab, layer.forward(table, tq, tk, maskKind, m.window, m.causal, scale, rope, ropeBase, alibi));
  // out: each array checked (in the order q, k, v, scores, weights, heads, output) before any is
  // written; the result has the fresh result's shape (one hidden class for `r` whichever call made it).
  if (!intermediates) {
    if (out) {
      const o = outArray(fn, 'output', out.output, tq * D, 'tq·dModel');
      return { output: copyOut(lab, o, po) };
    }
    return { output: a.take(po, tq * D) };
  }
  if (out) {
    const qD = 'tq·dModel', kD = 'tk·dModel', hT = 'heads·tq·tk';
    const q = outArray(fn, 'q', out.q, tq * D, qD), k = outArray(fn, 'k', out.k, tk * D, kD);
    const v = outArray(fn, 'v', out.v, tk * D, kD), s = outArray(fn, 'scores', out.scores, hw, hT);
    const wt = outArray(fn, 'weights', out.weights, hw, hT), hd = outArray(fn, 'heads', out.heads, tq * D, qD);
    const o = outArray(fn, 'output', out.output, tq * D, qD);
    return { q: copyOut(lab, q, pq), k: copyOut(lab, k, pk), v: copyOut(lab, v, pv), scores: copyOut(lab, s, ps),
      weights: copyOut(lab, wt, pw), heads: copyOut(lab, hd, ph), output: copyOut(lab, o, po) };
  }
  const r = a.takeMany(addrs, 3, [tq * D, tk * D, tk * D, hw, hw, tq * D, tq * D]);
  return { q: r[0], k: r[1], v: r[2], scores: r[3], weights: r[4], heads: r[5], output: r[6] };
}

// An input into WebAssembly memory at byte address p (an absent one: nothing).
function put(f32, p, v) { if (v) f32.set(v, p >>> 2); }

// One array of `out`, checked as the caller's destination for a result of n floats.
function outArray(fn, name, dst, n, expr) {
  if (!(dst instanceof Float32Array))
    fail(fn, `out.${name} is ${describe(dst)}, expected a Float32Array of ${expr} = ${n} (for instance the previous result)`);
  if (dst.length !== n) fail(fn, `out.${name} has ${dst.length} values, expected ${expr} = ${n}`);
  return dst;
}

// dst ← the dst.length floats at byte address p of WebAssembly memory (a view by constructor, not
// subarray(), which looks up the species).
function copyOut(lab, dst, p) {
  dst.set(new Float32Array(lab.core.heap().f32.buffer, p, dst.length));
  return dst;
}

// Multi-head weights, shared by multiHeadAttention and createMultiHeadAttention.
export const MHA_WEIGHTS = ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo'];  // the core's MultiHeadWeightsCall
// The addresses in a multi-head call's table (core/bindings/embind.cc, MultiHeadRegion): x, context, mask,
// q, k, v, scores, weights, headsConcat, workspace, output, then MHA_WEIGHTS.
const REGIONS = 19;
const MHA_CALL_NAMES = ['x', 'tq', 'mask', 'context', 'tk', 'scale', 'rope', 'alibi', 'intermediates', 'out'];
const MHA_CALL = new Set(MHA_CALL_NAMES);  // layer.forward's options (Sets: noUnknownKeys looks each key up once)
const MHA_KEYS = new Set(['dModel', 'heads', ...MHA_WEIGHTS, ...MHA_CALL_NAMES]);  // multiHeadAttention's options

// A call's options, each read from the caller's object once, into an object of one fixed shape that
// the checks below then read. Why: `r = lab.multiHeadAttention({ ...args, out: r })` (the documented
// pattern) makes an object of a new hidden class on every call in V8 (a spread followed by more keys),
// so each of the ~25 reads of its options by name missed every inline cache and took the slow lookup
// (absent options too, through the prototype): ~10 against ~4 µs of CPU a call at (1, 4, 1), Node 20. A for-in reads
// each own key's value through its enumeration, fast for any hidden class. Objects whose prototype is
// not Object.prototype (a class instance, Object.create(base), null) are read by name, as before; so is
// an option defined on the object but not enumerable, or inherited from Object.prototype (they can be
// seen only by reading the name, and a for-in yields only enumerable keys). Not covered: a Proxy whose
// get answers names its ownKeys does not list (those names now read as absent).
// known: the Set of the call's option names. Unknown names are refused as noUnknownKeys refuses them.
class MhaOptions {
  constructor() {
    this.x = undefined; this.tq = undefined; this.mask = undefined; this.context = undefined; this.tk = undefined;
    this.scale = undefined; this.rope = undefined; this.alibi = undefined; this.intermediates = undefined;
    this.out = undefined; this.dModel = undefined; this.heads = undefined;
    this.wq = undefined; this.wk = undefined; this.wv = undefined; this.wo = undefined;
    this.bq = undefined; this.bk = undefined; this.bv = undefined; this.bo = undefined;
  }
}

function options(fn, args, known) {
  const o = new MhaOptions();
  if (Object.getPrototypeOf(args) !== Object.prototype) {
    noUnknownKeys(fn, args, known);
    for (const k of known) o[k] = args[k];
    return o;
  }
  let seen = 0;  // the known names given a value by the for-in
  for (const k in args) {
    if (!known.has(k)) {
      if (args[k] !== undefined && Object.hasOwn(args, k)) noUnknownKeys(fn, args, known);  // throws, with its message
      continue;
    }
    seen++;
    const v = args[k];
    switch (k) {
      case 'x': o.x = v; break;
      case 'tq': o.tq = v; break;
      case 'mask': o.mask = v; break;
      case 'context': o.context = v; break;
      case 'tk': o.tk = v; break;
      case 'scale': o.scale = v; break;
      case 'rope': o.rope = v; break;
      case 'alibi': o.alibi = v; break;
      case 'intermediates': o.intermediates = v; break;
      case 'out': o.out = v; break;
      case 'dModel': o.dModel = v; break;
      case 'heads': o.heads = v; break;
      case 'wq': o.wq = v; break;
      case 'wk': o.wk = v; break;
      case 'wv': o.wv = v; break;
      case 'wo': o.wo = v; break;
      case 'bq': o.bq = v; break;
      case 'bk': o.bk = v; break;
      case 'bv': o.bv = v; break;
      case 'bo': o.bo = v; break;
    }
  }
  // A known name the for-in did not give: absent, unless defined non-enumerable on the object or on
  // Object.prototype. The own count tells the first; a name on Object.prototype is read by name there.
  if (seen !== known.size && hiddenOption(args, known, seen)) for (const k of known) o[k] = args[k];
  return o;
}

// Whether some known name the for-in missed has a property: a non-enumerable own one (the object has
// more own known names than the for-in saw), or one on Object.prototype (read through an empty object:
// a read by name of an absent property stays cached until Object.prototype changes: ~20 ns, against
// ~350 for 20 `in` tests of Object.prototype, whose properties are a dictionary).
function hiddenOption(args, known, seen) {
  const p = PROTO_PROBE;
  if (p.x !== undefined || p.tq !== undefined || p.mask !== undefined || p.context !== undefined || p.tk !== undefined
    || p.scale !== undefined || p.rope !== undefined || p.alibi !== undefined || p.intermediates !== undefined
    || p.out !== undefined || p.dModel !== undefined || p.heads !== undefined || p.wq !== undefined || p.wk !== undefined
    || p.wv !== undefined || p.wo !== undefined || p.bq !== undefined || p.bk !== undefined || p.bv !== undefined
    || p.bo !== undefined) return true;
  const names = Object.getOwnPropertyNames(args);
  let own = 0;
  for (let i = 0; i < names.length; i++) if (known.has(names[i])) own++;
  return own !== seen;
}
const PROTO_PROBE = {};

function mhaWeights(fn, args, D) {
  const DD = 'dModel·dModel', Dn = 'dModel';  // values appended by matrix() only in a message
  return {
    wq: matrix(fn, 'wq', args.wq, D * D, DD), wk: matrix(fn, 'wk', args.wk, D * D, DD),
    wv: matrix(fn, 'wv', args.wv, D * D, DD), wo: matrix(fn, 'wo', args.wo, D * D, DD),
    bq: optionalMatrix(fn, 'bq', args.bq, D, Dn), bk: optionalMatrix(fn, 'bk', args.bk, D, Dn),
    bv: optionalMatrix(fn, 'bv', args.bv, D, Dn), bo: optionalMatrix(fn, 'bo', args.bo, D, Dn),
  };
}

// Finiteness checked in JS, once, for weights that stay in WebAssembly memory (a layer's). Values are
// read as float32, as the core will hold them (a float64 1e39 becomes Infinity).
function finite(fn, name, v) {
  const f = v instanceof Float32Array ? v : Float32Array.from(v);
  for (let i = 0; i < f.length; i++)
    if (!Number.isFinite(f[i])) fail(fn, `${name}[${i}] is ${Number.isNaN(f[i]) ? 'NaN' : f[i]}, expected finite values`);
}

// A layer garbage-collected undisposed is freed here (a safety net: dispose() is the contract).
const layerMemory = new FinalizationRegistry((handle) => handle.delete());

/** A multi-head attention layer whose weights live in WebAssembly memory (lab.createMultiHeadAttention). */
export class MultiHeadAttentionLayer {
  #lab; #handle;
  constructor(lab, dModel, heads, handle) {
    this.#lab = lab;
    this.#handle = handle;
    this.dModel = dModel;
    this.heads = heads;
    layerMemory.register(this, handle, this);
  }

  /** multiHeadAttention with this layer's weights: { x, tq, mask?, context?, tk?, scale?, rope?, alibi?, intermediates?, out? }. */
  forward(args) {
    const fn = 'multiHeadAttention';
    if (!this.#handle) fail(fn, 'this layer was disposed, expected a layer from createMultiHeadAttention that is still alive');
    requireObject(fn, args);
    return mha(this.#lab, fn, options(fn, args, MHA_CALL), this.dModel, this.heads, null, this.#handle);
  }

  /** Frees the weights' WebAssembly memory; forward() then throws. Safe to call twice. */
  dispose() {
    if (!this.#handle) return;
    layerMemory.unregister(this);
    this.#handle.delete();
    this.#handle = null;
  }
}

// The AttnLab methods this file gives (multi-head attention and the layer holding its weights): lab.<name>(args) = <name>(lab, args).
export const OPS = { multiHeadAttention, createMultiHeadAttention };
