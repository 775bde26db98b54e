// attnlab — the public JavaScript API over the WebAssembly core.
//
//   import { createAttnLab } from 'attnlab';
//   const lab = await createAttnLab();
//   const { weights, output } = lab.attention({ q, k, v, tq: 3, tk: 3, dk: 2, dv: 2 });
//
// Matrices are flat row-major Float32Arrays; a projection maps a row x to x·W, so W is [in, out].
// Every call validates its arguments and throws an Error naming the function, the argument and what
// was expected. Results are fresh copies, safe to keep. Calls are synchronous once the module is made.
//
// Memory: inputs are copied into one reusable WASM heap block (the arena), the core computes there,
// results are copied out. Nothing is allocated per call once the arena is big enough, and a failed
// call leaves the heap as it was (the C++ core reports errors by status, never by exception).

import createAttnLabCore from './wasm/attnlab-core.mjs';
import { Core } from './core.js';
import {
  AttnLabError, fail, describe, requireObject, int, num, bool, matrix, optionalMatrix, oneOf, mask as parseMask,
  noUnknownKeys, definedKeys,
} from './validate.js';

export { AttnLabError };

// issue 3: the tokenizer is pure JS (strings and Unicode are JavaScript's home ground; no numerics).
import { createTokenizer } from './tokenizer.js';
export { createTokenizer };

// The largest block one call may ask of WASM memory (which tops out at 2 GiB). Checked before
// allocating, so a too-large request is an Error, not an out-of-memory abort.
export const MAX_CALL_BYTES = 1024 * 1024 * 1024;

// The smallest module with a v128 instruction: if it validates, this engine has WASM SIMD.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

/** True when this JavaScript engine runs WebAssembly with SIMD128 (attnlab needs it). */
export function supportsWasmSimd() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

function isNode() {
  return typeof process === 'object' && !!process.versions?.node && typeof window === 'undefined';
}

/**
 * Loads the WebAssembly core and returns the API. In Node the .wasm is read from disk next to this
 * file; in a browser (Vite) it is fetched from the URL the bundler gives it. Pass `wasmBinary`
 * (an ArrayBuffer/Uint8Array) to supply it yourself.
 */
export async function createAttnLab(options = {}) {
  if (!supportsWasmSimd())
    throw new AttnLabError(
      'createAttnLab: this browser or runtime has no WebAssembly SIMD (needed by attnlab); use a current Chrome, Edge, Firefox, Safari ≥ 16.4 or Node ≥ 16.4');
  const wasmUrl = new URL('./wasm/attnlab-core.wasm', import.meta.url);
  const moduleArgs = {};
  if (options.wasmBinary) moduleArgs.wasmBinary = options.wasmBinary;
  else if (isNode()) {
    const fsName = 'node:fs/promises';  // hidden from bundlers: never loaded in a browser
    const { readFile } = await import(/* @vite-ignore */ fsName);
    moduleArgs.wasmBinary = await readFile(wasmUrl);
  } else moduleArgs.locateFile = () => wasmUrl.href;
  const module = await createAttnLabCore(moduleArgs);
  return new AttnLab(new Core(module));
}

// One growing block of WASM heap reused by every call.
class Arena {
  constructor(module) {
    this.core = module;
    this.ptr = 0;
    this.bytes = 0;
  }

  // Reserves 16-byte-aligned regions of the given float counts; returns their byte addresses.
  layout(fn, counts) {
    let total = 0;
    const offsets = counts.map((n) => {
      const at = total;
      total += Math.ceil(n / 4) * 16;
      return at;
    });
    if (!Number.isFinite(total) || total > MAX_CALL_BYTES)
      fail(fn, `these sizes need ${(total / 2 ** 20).toFixed(0)} MiB of WebAssembly memory, expected at most ${MAX_CALL_BYTES / 2 ** 20} MiB; use smaller sizes${fn === 'multiHeadAttention' ? ' or intermediates: false' : ''}`);
    if (total > this.bytes || (this.bytes > 64 * 2 ** 20 && total < this.bytes / 8)) {
      if (this.ptr) this.core._free(this.ptr);
      this.ptr = 0;
      this.bytes = 0;
      const want = Math.max(total, 4096);
      const p = this.core._malloc(want);
      if (!p) fail(fn, `could not get ${(want / 2 ** 20).toFixed(0)} MiB of WebAssembly memory, expected smaller sizes`);
      this.ptr = p;
      this.bytes = want;
    }
    return offsets.map((o) => this.ptr + o);
  }

  put(addr, values) {
    if (values) this.core.HEAPF32.set(values, addr >> 2);
  }

  // issue 3: 32-bit integers (token ids, the blocks' address tables) written through a view of the
  // same memory (HEAPU8.buffer is fresh after any growth).
  putU32(addr, values) {
    const buf = this.core.HEAPU8.buffer;
    if (this.u32?.buffer !== buf) this.u32 = new Uint32Array(buf);  // one view per memory growth
    this.u32.set(values, addr >> 2);
  }

  take(addr, n) {
    return this.core.HEAPF32.slice(addr >> 2, (addr >> 2) + n);
  }

  // issue 6: several results in one copy — one slice over the region [first, last) that holds them,
  // then a view per result. Allocating an ArrayBuffer costs about 0.2 µs per KB in Node 20 (calloc,
  // zeroing, GC accounting) plus ~1.5 µs each, more than the copy itself: one buffer, not seven.
  // The views share one fresh buffer, not WASM memory: still safe to keep.
  takeMany(regions) {
    const lo = Math.min(...regions.map(([p]) => p)) >> 2;
    const hi = Math.max(...regions.map(([p, n]) => (p >> 2) + n));
    const all = this.core.HEAPF32.slice(lo, hi);
    return regions.map(([p, n]) => all.subarray((p >> 2) - lo, (p >> 2) - lo + n));
  }

  // issue 6: results copied into the caller's arrays (the `out` option; no allocation at all). `out`
  // maps result names to Float32Arrays of the right lengths, e.g. the previous call's result.
  takeInto(fn, out, regions) {
    const r = {};
    for (const [name, p, n, expr] of regions) {
      const dst = out[name];
      if (!(dst instanceof Float32Array))
        fail(fn, `out.${name} is ${describe(dst)}, expected a Float32Array of ${expr} = ${n} (for instance the previous result)`);
      if (dst.length !== n) fail(fn, `out.${name} has ${dst.length} values, expected ${expr} = ${n}`);
      r[name] = dst;
    }
    const heap = this.core.HEAPF32;
    for (const [name, p, n] of regions) r[name].set(heap.subarray(p >> 2, (p >> 2) + n));
    return r;
  }

  free() {
    if (this.ptr) this.core._free(this.ptr);
    this.ptr = 0;
    this.bytes = 0;
  }
}

export class AttnLab {
  /** @param core the WebAssembly core (internal; web/api/core.js) */
  constructor(core) {
    this.core = core;
    this.arena = new Arena(core.module);
  }

  /**
   * Scaled dot-product attention with every intermediate.
   * q: [tq·dk], k: [tk·dk], v: [tk·dv]; scale defaults to 1/√dk.
   * Returns { scores: QKᵀ, scaled: QKᵀ·scale + mask, weights: softmax(scaled), output: weights·V }.
   */
  attention(args) {
    const fn = 'attention';
    requireObject(fn, args);
    noUnknownKeys(fn, args, ['q', 'k', 'v', 'tq', 'tk', 'dk', 'dv', 'mask', 'scale', 'alibiSlope']);
    const tq = int(fn, 'tq', args.tq), tk = int(fn, 'tk', args.tk);
    const dk = int(fn, 'dk', args.dk), dv = int(fn, 'dv', args.dv);
    const q = matrix(fn, 'q', args.q, tq * dk, `tq·dk = ${tq * dk}`);
    const k = matrix(fn, 'k', args.k, tk * dk, `tk·dk = ${tk * dk}`);
    const v = matrix(fn, 'v', args.v, tk * dv, `tk·dv = ${tk * dv}`);
    const m = parseMask(fn, args.mask, tq, tk);
    const scale = num(fn, 'scale', args.scale, { dflt: 1 / Math.sqrt(dk), positive: true });
    const alibiSlope = num(fn, 'alibiSlope', args.alibiSlope, { dflt: 0, min: 0 });
    const n = tq * tk;
    const [pq, pk, pv, pm, ps, pc, pw, po] = this.arena.layout(fn, [tq * dk, tk * dk, tk * dv, m.values ? n : 0, n, n, n, tq * dv]);
    this.arena.put(pq, q);
    this.arena.put(pk, k);
    this.arena.put(pv, v);
    this.arena.put(pm, m.values);
    run(this, this.core.call('attention', { q: pq, k: pk, v: pv, tq, tk, dk, dv, scale, ...maskFields(this.core, m, pm), alibiSlope,
      scores: ps, scaled: pc, weights: pw, output: po }));
    return { scores: this.arena.take(ps, n), scaled: this.arena.take(pc, n), weights: this.arena.take(pw, n), output: this.arena.take(po, tq * dv) };
  }

  /** output [tq·dv] = weights [tq·tk] · v [tk·dv]: attention as a convex combination of values. */
  weightedSum(args) {
    const fn = 'weightedSum';
    requireObject(fn, args);
    noUnknownKeys(fn, args, ['weights', 'v', 'tq', 'tk', 'dv']);
    const tq = int(fn, 'tq', args.tq), tk = int(fn, 'tk', args.tk), dv = int(fn, 'dv', args.dv);
    const w = matrix(fn, 'weights', args.weights, tq * tk, `tq·tk = ${tq * tk}`);
    const v = matrix(fn, 'v', args.v, tk * dv, `tk·dv = ${tk * dv}`);
    const [pw, pv, po] = this.arena.layout(fn, [tq * tk, tk * dv, tq * dv]);
    this.arena.put(pw, w);
    this.arena.put(pv, v);
    run(this, this.core.call('weightedSum', { weights: pw, v: pv, tq, tk, dv, output: po }));
    return this.arena.take(po, tq * dv);
  }

  /**
   * Multi-head attention, self (no context) or cross (queries from x, keys/values from context).
   * x: [tq·dModel], context: [tk·dModel]; wq, wk, wv, wo: [dModel·dModel]; biases [dModel].
   * Head h uses columns [h·dk, (h+1)·dk), dk = dModel/heads.
   * Options: mask, scale (default 1/√dk), rope (true or { base }), alibi (true; self-attention).
   * Returns { q, k, v, scores, weights, heads, output }: weights and scores are [heads·tq·tk].
   * intermediates: false returns only { output }, computed streaming (online softmax over key blocks,
   * never holding the weights): the fast mode for long sequences (T = 8192 fits in O(T·dModel) memory).
   * out: write the results into these Float32Arrays instead of new ones (pass the previous result:
   * `r = lab.multiHeadAttention({ ...args, out: r })`); returns them. No allocation: the interactive mode.
   */
  multiHeadAttention(args) {
    const fn = 'multiHeadAttention';
    requireObject(fn, args);
    noUnknownKeys(fn, args, ['dModel', 'heads', ...MHA_WEIGHTS, ...MHA_CALL]);
    const D = int(fn, 'dModel', args.dModel), H = int(fn, 'heads', args.heads);
    if (D % H !== 0) fail(fn, `heads = ${H} does not divide dModel = ${D}, expected dModel to be a multiple of heads`);
    return mha(this, fn, args, D, H, mhaWeights(fn, args, D), 0);
  }

  /**
   * issue 6: a multi-head attention layer that keeps its weights in WebAssembly memory, checked and
   * copied once (as onnxruntime keeps a model's initializers): then `layer.forward({ x, tq, … })` sends
   * only x (and context/mask). The same numbers and options as multiHeadAttention; free with
   * `layer.dispose()` (also freed when the layer is garbage-collected).
   */
  createMultiHeadAttention(args) {
    const fn = 'createMultiHeadAttention';
    requireObject(fn, args);
    noUnknownKeys(fn, args, ['dModel', 'heads', ...MHA_WEIGHTS]);
    const D = int(fn, 'dModel', args.dModel), H = int(fn, 'heads', args.heads);
    if (D % H !== 0) fail(fn, `heads = ${H} does not divide dModel = ${D}, expected dModel to be a multiple of heads`);
    const w = mhaWeights(fn, args, D);
    for (const name of MHA_WEIGHTS) if (w[name]) finite(fn, name, w[name]);
    // One block: the weight set (the core's multiHeadWeightSet: 8 addresses), then wq, wk, wv, wo
    // and the biases present.
    const setBytes = Math.ceil(this.core.structs.multiHeadWeightSet.bytes / 16) * 16;
    const sizes = MHA_WEIGHTS.map((name) => (w[name] ? w[name].length : 0));
    const total = setBytes + sizes.reduce((t, n) => t + Math.ceil(n / 4) * 16, 0);
    if (total > MAX_CALL_BYTES) fail(fn, `dModel = ${D} needs ${(total / 2 ** 20).toFixed(0)} MiB of weights, expected at most ${MAX_CALL_BYTES / 2 ** 20} MiB`);
    const ptr = this.core.module._malloc(total);
    if (!ptr) fail(fn, `could not get ${(total / 2 ** 20).toFixed(0)} MiB of WebAssembly memory for the weights`);
    const set = {};
    let at = ptr + setBytes;
    MHA_WEIGHTS.forEach((name, i) => {
      set[name] = w[name] ? at : 0;
      if (w[name]) this.core.module.HEAPF32.set(w[name], at >> 2);
      at += Math.ceil(sizes[i] / 4) * 16;
    });
    this.core.write('multiHeadWeightSet', this.core.structs.multiHeadWeightSet, ptr, set);
    return new MultiHeadAttentionLayer(this, D, H, ptr);
  }

  /**
   * Positional encodings added to token embeddings, [length·dModel]:
   *   { kind: 'sinusoidal', length, dModel, base = 10000 }
   *   { kind: 'learned', table, maxLength, dModel, length }  (rows of a trained table; length ≤ maxLength)
   */
  positionalEncoding(args) {
    const fn = 'positionalEncoding';
    requireObject(fn, args);
    const kind = oneOf(fn, 'kind', args.kind, ['sinusoidal', 'learned'], 'sinusoidal');
    if (kind === 'learned') {
      noUnknownKeys(fn, args, ['kind', 'table', 'maxLength', 'dModel', 'length']);
      const maxLength = int(fn, 'maxLength', args.maxLength), D = int(fn, 'dModel', args.dModel);
      const length = int(fn, 'length', args.length);
      const table = matrix(fn, 'table', args.table, maxLength * D, `maxLength·dModel = ${maxLength * D}`);
      if (length > maxLength)
        fail(fn, `length is ${length}, expected ≤ maxLength = ${maxLength}: a learned table has no rows beyond the length it was trained for`);
      for (let i = 0; i < length * D; i++)
        if (!Number.isFinite(table[i])) fail(fn, `table[${i}] is ${table[i]}, expected finite values`);
      return Float32Array.from(table.subarray ? table.subarray(0, length * D) : table.slice(0, length * D));
    }
    noUnknownKeys(fn, args, ['kind', 'length', 'dModel', 'base']);
    const length = int(fn, 'length', args.length), D = int(fn, 'dModel', args.dModel);
    const base = num(fn, 'base', args.base, { dflt: 10000, positive: true });
    const [po] = this.arena.layout(fn, [length * D]);
    run(this, this.core.call('sinusoidal', { length, dModel: D, base, output: po }));
    return this.arena.take(po, length * D);
  }

  /**
   * RoPE: rotates pairs (2i, 2i+1) of each row of x [t·dim] by angle (offset + row)·base^(−2i/dim).
   * Returns the rotated copy.
   */
  rope(args) {
    const fn = 'rope';
    requireObject(fn, args);
    noUnknownKeys(fn, args, ['x', 't', 'dim', 'base', 'offset']);
    const t = int(fn, 't', args.t), dim = int(fn, 'dim', args.dim);
    if (dim % 2 !== 0) fail(fn, `dim is ${dim}, expected an even number (RoPE rotates pairs)`);
    const x = matrix(fn, 'x', args.x, t * dim, `t·dim = ${t * dim}`);
    const base = num(fn, 'base', args.base, { dflt: 10000, positive: true });
    const offset = int(fn, 'offset', args.offset, { min: 0, dflt: 0 });
    const [px, po] = this.arena.layout(fn, [t * dim, t * dim]);
    this.arena.put(px, x);
    run(this, this.core.call('rope', { x: px, t, dim, base, offset, output: po }));
    return this.arena.take(po, t * dim);
  }

  /** ALiBi: per-head slopes [heads] and the bias −slope·|i−j| added to the scores, [heads·tq·tk]. */
  alibi(args) {
    const fn = 'alibi';
    requireObject(fn, args);
    noUnknownKeys(fn, args, ['heads', 'tq', 'tk']);
    const heads = int(fn, 'heads', args.heads), tq = int(fn, 'tq', args.tq), tk = int(fn, 'tk', args.tk, { dflt: tq });
    const [ps, pb] = this.arena.layout(fn, [heads, heads * tq * tk]);
    run(this, this.core.call('alibi', { heads, tq, tk, slopes: ps, bias: pb }));
    return { slopes: this.arena.take(ps, heads), bias: this.arena.take(pb, heads * tq * tk) };
  }

  // ---- issue 3: the rest of the Transformer -------------------------------------------------------

  // Lays out named regions (float counts) in the arena: { name: count } → { name: address }.
  #buffers(fn, spec) {
    const names = Object.keys(spec);
    const addrs = this.arena.layout(fn, names.map((n) => spec[n]));
    return Object.fromEntries(names.map((n, i) => [n, addrs[i]]));
  }

  /** LayerNorm over rows of x [rows·dim] (torch.nn.LayerNorm: biased variance, two-pass). */
  layerNorm(args) {
    const fn = 'layerNorm';
    requireObject(fn, args);
    noUnknownKeys(fn, args, ['x', 'rows', 'dim', 'gamma', 'beta', 'eps']);
    const rows = int(fn, 'rows', args.rows), dim = int(fn, 'dim', args.dim), n = rows * dim;
    const x = matrix(fn, 'x', args.x, n, `rows·dim = ${n}`);
    const gamma = optionalMatrix(fn, 'gamma', args.gamma, dim, `dim = ${dim}`);
    const beta = optionalMatrix(fn, 'beta', args.beta, dim, `dim = ${dim}`);
    const eps = num(fn, 'eps', args.eps, { dflt: 1e-5, positive: true });
    const b = this.#buffers(fn, { x: n, gamma: gamma ? dim : 0, beta: beta ? dim : 0, out: n });
    this.arena.put(b.x, x); this.arena.put(b.gamma, gamma); this.arena.put(b.beta, beta);
    run(this, this.core.call('layerNorm', { x: b.x, rows, dim, gamma: gamma ? b.gamma : 0, beta: beta ? b.beta : 0, eps, output: b.out }));
    return this.arena.take(b.out, n);
  }

  /** RMSNorm over rows of x [rows·dim]: x / √(mean(x²) + eps) · gamma. */
  rmsNorm(args) {
    const fn = 'rmsNorm';
    requireObject(fn, args);
    noUnknownKeys(fn, args, ['x', 'rows', 'dim', 'gamma', 'eps']);
    const rows = int(fn, 'rows', args.rows), dim = int(fn, 'dim', args.dim), n = rows * dim;
    const x = matrix(fn, 'x', args.x, n, `rows·dim = ${n}`);
    const gamma = optionalMatrix(fn, 'gamma', args.gamma, dim, `dim = ${dim}`);
    const eps = num(fn, 'eps', args.eps, { dflt: 1e-6, positive: true });
    const b = this.#buffers(fn, { x: n, gamma: gamma ? dim : 0, out: n });
    this.arena.put(b.x, x); this.arena.put(b.gamma, gamma);
    run(this, this.core.call('rmsNorm', { x: b.x, rows, dim, gamma: gamma ? b.gamma : 0, eps, output: b.out }));
    return this.arena.take(b.out, n);
  }

  /** Element-wise activation: 'gelu' (exact, erf), 'gelu_tanh' (tanh approximation) or 'relu'. */
  activation(args) {
    const fn = 'activation';
    requireObject(fn, args);
    noUnknownKeys(fn, args, ['x', 'kind']);
    const kind = this.core.code('activation', oneOf(fn, 'kind', args.kind, ACTIVATIONS));
    const x = vector(fn, 'x', args.x);
    const b = this.#buffers(fn, { x: x.length, out: x.length });
    this.arena.put(b.x, x);
    run(this, this.core.call('activation', { kind, x: b.x, n: x.length, output: b.out }));
    return this.arena.take(b.out, x.length);
  }

  /**
   * Feed-forward x·W1 + b1 → activation → ·W2 + b2. Returns { pre, activated, output }: pre = x·W1 + b1,
   * activated = activation(pre), output = activated·W2 + b2 (and hidden, the deprecated name of pre).
   */
  feedForward(args) {
    const fn = 'feedForward';
    requireObject(fn, args);
    noUnknownKeys(fn, args, ['x', 'rows', 'dModel', 'dFF', 'w1', 'b1', 'w2', 'b2', 'activation']);
    const rows = int(fn, 'rows', args.rows), D = int(fn, 'dModel', args.dModel), F = int(fn, 'dFF', args.dFF);
    const x = matrix(fn, 'x', args.x, rows * D, `rows·dModel = ${rows * D}`);
    const w = ffnWeights(fn, args, D, F);
    const act = this.core.code('activation', oneOf(fn, 'activation', args.activation, ACTIVATIONS, 'relu'));
    const b = this.#buffers(fn, { x: rows * D, w1: D * F, b1: w.b1 ? F : 0, w2: F * D, b2: w.b2 ? D : 0, pre: rows * F, activated: rows * F, out: rows * D });
    const a = this.arena;
    a.put(b.x, x); a.put(b.w1, w.w1); a.put(b.b1, w.b1); a.put(b.w2, w.w2); a.put(b.b2, w.b2);
    run(this, this.core.call('feedForward', { x: b.x, rows, dModel: D, dFF: F, w1: b.w1, b1: w.b1 ? b.b1 : 0, w2: b.w2, b2: w.b2 ? b.b2 : 0,
      activation: act, pre: b.pre, activated: b.activated, output: b.out }));
    const pre = a.take(b.pre, rows * F);
    // hidden: deprecated name of pre (removed in 0.3; README "Deprecated names").
    return { pre, activated: a.take(b.activated, rows * F), output: a.take(b.out, rows * D), hidden: pre };
  }

  /**
   * One Transformer encoder layer with every intermediate. norm 'post' (default): y = LN1(x + MHA(x)),
   * out = LN2(y + FFN(y)); 'pre': y = x + MHA(LN1(x)), out = y + FFN(LN2(y)).
   */
  encoderBlock(args) {
    const fn = 'encoderBlock';
    requireObject(fn, args);
    noUnknownKeys(fn, args, ['x', 't', 'dModel', 'heads', 'dFF', 'norm', 'activation', 'mask', 'eps', 'weights', 'batch']);
    const { t, D, H, F, norm, act, eps, B } = blockSizes(this.core, fn, args);
    const x = matrix(fn, 'x', args.x, B * t * D, B > 1 ? `batch·t·dModel = ${B * t * D}` : `t·dModel = ${t * D}`);
    const m = parseMask(fn, args.mask, t, t);
    const w = blockWeights(fn, args.weights, D, F, ENCODER_WEIGHTS);
    const tD = t * D, tF = t * F, hw = H * t * t;
    const outs = { q: tD, k: tD, v: tD, attnWeights: hw, attnHeads: tD, attnOut: tD, residual1: tD, norm1: tD,
      ffnPre: tF, ffnActivated: tF, ffnOut: tD, residual2: tD, norm2: tD, output: tD };
    const call = { t, dModel: D, heads: H, dFF: F, norm, activation: act, eps };
    return withDeprecatedBlockNames(this.#block(fn, 'encoderBlock', B, x, m, w, outs, call));
  }

  /**
   * One Transformer decoder layer: masked self-attention, cross-attention to memory (K, V from the
   * encoder output), FFN, each with Add & Norm; every intermediate.
   */
  decoderBlock(args) {
    const fn = 'decoderBlock';
    requireObject(fn, args);
    noUnknownKeys(fn, args, ['x', 't', 'memory', 'tm', 'dModel', 'heads', 'dFF', 'norm', 'activation', 'mask', 'eps', 'weights', 'batch']);
    const { t, D, H, F, norm, act, eps, B } = blockSizes(this.core, fn, args);
    const tm = int(fn, 'tm', args.tm);
    const x = matrix(fn, 'x', args.x, B * t * D, B > 1 ? `batch·t·dModel = ${B * t * D}` : `t·dModel = ${t * D}`);
    const memory = matrix(fn, 'memory', args.memory, B * tm * D, B > 1 ? `batch·tm·dModel = ${B * tm * D}` : `tm·dModel = ${tm * D}`);
    const m = parseMask(fn, args.mask === undefined ? 'causal' : args.mask, t, t);
    const w = blockWeights(fn, args.weights, D, F, DECODER_WEIGHTS);
    const tD = t * D, tF = t * F, mD = tm * D;
    const outs = {
      selfQ: tD, selfK: tD, selfV: tD, selfWeights: H * t * t, selfHeads: tD, selfAttnOut: tD, residual1: tD, norm1: tD,
      crossQ: tD, crossK: mD, crossV: mD, crossWeights: H * t * tm, crossHeads: tD, crossAttnOut: tD, residual2: tD, norm2: tD,
      ffnPre: tF, ffnActivated: tF, ffnOut: tD, residual3: tD, norm3: tD, output: tD };
    const call = { t, tm, dModel: D, heads: H, dFF: F, norm, activation: act, eps };
    return withDeprecatedBlockNames(this.#block(fn, 'decoderBlock', B, x, m, w, outs, call, memory));
  }

  // Shared by the blocks: lays out inputs, weights and outputs, writes the call (sizes and options in
  // `call`, then every weight and output address by name), runs, copies every output out.
  // A batch (the notebook's (B, N, D)) runs the same layer on each sequence: x, memory and every
  // output are batch-major, and sequence i gets the call with its addresses moved by i.
  #block(fn, op, B, x, m, w, outs, call, memory = null) {
    const wNames = Object.keys(w), oNames = Object.keys(outs);
    const spec = { x: x.length, memory: memory ? memory.length : 0, mask: m.values ? m.values.length : 0 };
    for (const k of wNames) spec['w:' + k] = w[k] ? w[k].length : 0;
    for (const k of oNames) spec['o:' + k] = B * outs[k];
    const b = this.#buffers(fn, spec);
    const a = this.arena;
    a.put(b.x, x); a.put(b.memory, memory); a.put(b.mask, m.values);
    for (const k of wNames) a.put(b['w:' + k], w[k]);
    const values = { ...call, ...maskFields(this.core, m, m.values ? b.mask : 0) };
    for (const k of wNames) values[k] = w[k] ? b['w:' + k] : 0;
    const xStep = 4 * x.length / B, memStep = memory ? 4 * memory.length / B : 0;
    for (let i = 0; i < B; i++) {
      values.x = b.x + i * xStep;
      if (memory) values.memory = b.memory + i * memStep;
      for (const k of oNames) values[k] = b['o:' + k] + 4 * i * outs[k];
      const status = this.core.call(op, values);
      if (status !== 0) throw new AttnLabError(this.core.lastError() + (B > 1 ? ` (in batch element ${i})` : ''));
    }
    return Object.fromEntries(oNames.map((k) => [k, a.take(b['o:' + k], B * outs[k])]));
  }

  /** Token embedding lookup: row ids[i] of table [vocab·dModel]; returns [ids.length·dModel]. */
  embedding(args) {
    const fn = 'embedding';
    requireObject(fn, args);
    noUnknownKeys(fn, args, ['table', 'vocab', 'dModel', 'ids']);
    const vocab = int(fn, 'vocab', args.vocab), D = int(fn, 'dModel', args.dModel);
    const table = matrix(fn, 'table', args.table, vocab * D, `vocab·dModel = ${vocab * D}`);
    const ids = tokenIds(fn, args.ids, vocab);
    const b = this.#buffers(fn, { table: vocab * D, ids: ids.length, out: ids.length * D });
    this.arena.put(b.table, table);
    this.arena.putU32(b.ids, ids);
    run(this, this.core.call('embedding', { table: b.table, vocab, dModel: D, ids: b.ids, n: ids.length, output: b.out }));
    return this.arena.take(b.out, ids.length * D);
  }

  /** Tied output head: logits = h·W_Eᵀ (+ bias), probs = softmax(logits / temperature), [rows·vocab]. */
  outputHead(args) {
    const fn = 'outputHead';
    requireObject(fn, args);
    noUnknownKeys(fn, args, ['h', 'rows', 'table', 'vocab', 'dModel', 'bias', 'temperature']);
    const rows = int(fn, 'rows', args.rows), vocab = int(fn, 'vocab', args.vocab), D = int(fn, 'dModel', args.dModel);
    const h = matrix(fn, 'h', args.h, rows * D, `rows·dModel = ${rows * D}`);
    const table = matrix(fn, 'table', args.table, vocab * D, `vocab·dModel = ${vocab * D}`);
    const bias = optionalMatrix(fn, 'bias', args.bias, vocab, `vocab = ${vocab}`);
    const temperature = num(fn, 'temperature', args.temperature, { dflt: 1, positive: true });
    const n = rows * vocab;
    const b = this.#buffers(fn, { h: rows * D, table: vocab * D, bias: bias ? vocab : 0, logits: n, probs: n });
    this.arena.put(b.h, h); this.arena.put(b.table, table); this.arena.put(b.bias, bias);
    run(this, this.core.call('outputHead', { h: b.h, rows, table: b.table, vocab, dModel: D, bias: bias ? b.bias : 0, temperature, logits: b.logits, probs: b.probs }));
    return { logits: this.arena.take(b.logits, n), probs: this.arena.take(b.probs, n) };
  }

  /**
   * Nadaraya-Watson kernel regression as attention: queries = Q, xs = K, ys = V.
   * weights = softmax(f(x, x_i) / bandwidth), f = −‖x − x_i‖² ('gaussian') or x·x_i ('dot').
   */
  kernelRegression(args) {
    const fn = 'kernelRegression';
    requireObject(fn, args);
    noUnknownKeys(fn, args, ['xs', 'ys', 'queries', 'bandwidth', 'kernel', 'dim']);
    const dim = int(fn, 'dim', args.dim, { dflt: 1 });
    const ys = vector(fn, 'ys', args.ys), n = ys.length;
    const xs = matrix(fn, 'xs', args.xs, n * dim, `ys.length·dim = ${n * dim}`);
    const queries = vector(fn, 'queries', args.queries);
    if (queries.length % dim !== 0) fail(fn, `queries has ${queries.length} values, expected a multiple of dim = ${dim}`);
    const nq = queries.length / dim;
    const bandwidth = num(fn, 'bandwidth', args.bandwidth, { dflt: 1, positive: true });
    const kernel = this.core.code('kernel', oneOf(fn, 'kernel', args.kernel, ['gaussian', 'dot'], 'gaussian'));
    const b = this.#buffers(fn, { xs: n * dim, ys: n, q: nq * dim, scores: nq * n, weights: nq * n, pred: nq });
    this.arena.put(b.xs, xs); this.arena.put(b.ys, ys); this.arena.put(b.q, queries);
    run(this, this.core.call('kernelRegression', { xs: b.xs, ys: b.ys, n, queries: b.q, nq, dim, kernel, bandwidth, scores: b.scores, weights: b.weights, predictions: b.pred }));
    return { scores: this.arena.take(b.scores, nq * n), weights: this.arena.take(b.weights, nq * n), predictions: this.arena.take(b.pred, nq) };
  }

  /** A tokenizer ('char', 'word' or byte-level 'bpe'); the same as createTokenizer (pure JS). */
  tokenizer(args) {
    return createTokenizer(args);
  }
  // ---- end of issue 3 section

  /** What the module runs on, and its memory use (for leak checks). */
  info() {
    return {
      simd128: this.core.usesSimd128(),
      heapBytes: this.core.module.HEAPU8.length,
      heapInUse: this.core.heapInUse(),
      arenaBytes: this.arena.bytes,
      stackPointer: this.core.stackPointer(),
    };
  }

  /** Frees the reusable heap block; the object stays usable (the next call allocates again). */
  dispose() {
    this.arena.free();
  }
}

// The multi-head call behind both APIs: `w` holds the checked weights to copy in (table = 0), or
// `table` is the address of a layer's weight table already in WebAssembly memory.
function mha(lab, fn, args, D, H, w, table) {
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
    // issue 7: { base } only (a typo like { bse } must not silently mean the default base).
    if (typeof args.rope === 'object' && args.rope !== null && !Array.isArray(args.rope)) {
      for (const k of definedKeys(args.rope))
        if (k !== 'base') fail(fn, `rope has unknown key '${k}', expected true or { base }`);
      ropeBase = num(fn, 'rope.base', args.rope.base, { dflt: 10000, positive: true });
    } else if (args.rope !== true) fail(fn, `rope is ${describe(args.rope)}, expected true or { base }`);
    if ((D / H) % 2 !== 0) fail(fn, `rope needs an even head width dModel/heads, got ${D / H}`);
  }
  const alibi = bool(fn, 'alibi', args.alibi, false);
  if (alibi && cross) fail(fn, 'alibi is defined for self-attention, expected no context with alibi');
  // issue 6: intermediates: false is the throughput mode (streaming, O((tq + tk)·dModel) memory).
  const intermediates = bool(fn, 'intermediates', args.intermediates, true);
  // issue 6: out = arrays to write the results into (e.g. the previous result): no allocation, the
  // way to recompute on every slider move. The object is checked here, its arrays before anything
  // is written into them (after the computation, which touches only WebAssembly memory).
  const out = args.out ?? null;
  if (out !== null && (typeof out !== 'object' || Array.isArray(out) || ArrayBuffer.isView(out)))
    fail(fn, `out is ${describe(out)}, expected an object of Float32Arrays such as a previous result`);
  const hw = intermediates ? H * tq * tk : 0;
  const work = intermediates ? 0 : lab.core.multiHeadWorkspace(tk, D, H);
  // Inputs, a weight set (unless a layer holds one), then the outputs (all-intermediates) or the scratch.
  const own = table === 0, n = (name, k) => (own && w[name] ? k : 0);
  const set = lab.core.structs.multiHeadWeightSet;
  const [px, pc, pwq, pwk, pwv, pwo, pbq, pbk, pbv, pbo, pm, pt, pq, pk, pv, ps, pw, ph, po] = lab.arena.layout(fn, [
    tq * D, cross ? tk * D : 0, n('wq', D * D), n('wk', D * D), n('wv', D * D), n('wo', D * D), n('bq', D), n('bk', D), n('bv', D), n('bo', D),
    m.values ? tq * tk : 0, own ? set.bytes / 4 : 0, tq * D, tk * D, tk * D, hw, intermediates ? hw : work, intermediates ? tq * D : 0, tq * D]);
  const a = lab.arena;
  a.put(px, x); a.put(pc, context);
  a.put(pm, m.values);
  let wtab = table;
  if (own) {
    a.put(pwq, w.wq); a.put(pwk, w.wk); a.put(pwv, w.wv); a.put(pwo, w.wo);
    a.put(pbq, w.bq); a.put(pbk, w.bk); a.put(pbv, w.bv); a.put(pbo, w.bo);
    lab.core.write('multiHeadWeightSet', set, pt,
      { wq: pwq, wk: pwk, wv: pwv, wo: pwo, bq: w.bq ? pbq : 0, bk: w.bk ? pbk : 0, bv: w.bv ? pbv : 0, bo: w.bo ? pbo : 0 });
    wtab = pt;
  }
  const call = { x: px, tq, context: cross ? pc : 0, tk, dModel: D, heads: H, weightSet: wtab, ...maskFields(lab.core, m, pm),
    scale, rope, ropeBase, alibi, q: pq, k: pk, v: pv, output: po };
  if (!intermediates) {
    call.workspace = pw;
    run(lab, lab.core.call('multiHeadStreaming', call));
    if (out) return a.takeInto(fn, out, [['output', po, tq * D, 'tq·dModel']]);
    return { output: a.take(po, tq * D) };
  }
  call.scores = ps; call.weights = pw; call.headsConcat = ph;
  run(lab, lab.core.call('multiHeadAttention', call));
  if (out) {
    const qD = 'tq·dModel', kD = 'tk·dModel', hT = 'heads·tq·tk';
    return a.takeInto(fn, out, [['q', pq, tq * D, qD], ['k', pk, tk * D, kD], ['v', pv, tk * D, kD],
      ['scores', ps, hw, hT], ['weights', pw, hw, hT], ['heads', ph, tq * D, qD], ['output', po, tq * D, qD]]);
  }
  const [q, k, v, scores, weights, heads, output] = a.takeMany([[pq, tq * D], [pk, tk * D], [pv, tk * D], [ps, hw], [pw, hw], [ph, tq * D], [po, tq * D]]);
  return { q, k, v, scores, weights, heads, output };
}

// A core call's status: non-zero becomes an Error with the core's message.
function run(lab, status) {
  if (status !== 0) throw new AttnLabError(lab.core.lastError());
}

// ---- issue 6: multi-head weights, shared by multiHeadAttention and createMultiHeadAttention ----
const MHA_WEIGHTS = ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo'];  // the order of the core's address table
const MHA_CALL = ['x', 'tq', 'mask', 'context', 'tk', 'scale', 'rope', 'alibi', 'intermediates', 'out'];

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

const layerMemory = new FinalizationRegistry(({ core, ptr }) => core.module._free(ptr));

/** A multi-head attention layer whose weights live in WebAssembly memory (lab.createMultiHeadAttention). */
export class MultiHeadAttentionLayer {
  #lab; #ptr;
  constructor(lab, dModel, heads, ptr) {
    this.#lab = lab;
    this.#ptr = ptr;
    this.dModel = dModel;
    this.heads = heads;
    layerMemory.register(this, { core: lab.core, ptr }, this);
  }

  /** multiHeadAttention with this layer's weights: { x, tq, mask?, context?, tk?, scale?, rope?, alibi?, intermediates?, out? }. */
  forward(args) {
    const fn = 'multiHeadAttention';
    if (!this.#ptr) fail(fn, 'this layer was disposed, expected a layer from createMultiHeadAttention that is still alive');
    requireObject(fn, args);
    noUnknownKeys(fn, args, MHA_CALL);
    return mha(this.#lab, fn, args, this.dModel, this.heads, null, this.#ptr);
  }

  /** Frees the weights' WebAssembly memory; forward() then throws. Safe to call twice. */
  dispose() {
    if (!this.#ptr) return;
    layerMemory.unregister(this);
    this.#lab.core.module._free(this.#ptr);
    this.#ptr = 0;
  }
}

// ---- issue 3 helpers ----------------------------------------------------------------------------
// ffnHidden: the deprecated name of ffnActivated (removed in 0.3; README "Deprecated names").
function withDeprecatedBlockNames(r) {
  r.ffnHidden = r.ffnActivated;
  return r;
}

// The activations users name (their codes come from the core: core.code('activation', name)).
const ACTIVATIONS = ['relu', 'gelu', 'gelu_tanh'];

// The mask fields of a call (calls.h ATTNLAB_MASK_FIELDS) for a parsed mask; pm = its values' address.
function maskFields(core, m, pm) {
  return { maskKind: core.code('maskKind', m.kind), window: m.window, causal: m.causal, mask: pm };
}

// A non-empty flat array whose length is the caller's choice.
function vector(fn, name, v) {
  const n = v === undefined || v === null || typeof v.length !== 'number' ? -1 : v.length;
  if (n === 0) fail(fn, `${name} is empty, expected at least 1 value`);
  return matrix(fn, name, v, n, 'at least 1 value');
}

// Token ids: integers in [0, vocab), copied into an Int32Array.
function tokenIds(fn, v, vocab) {
  if (v === undefined || v === null) fail(fn, 'ids is missing, expected an array of token ids');
  if (!Array.isArray(v) && !(ArrayBuffer.isView(v) && !(v instanceof DataView)))
    fail(fn, `ids is a ${typeof v}, expected an array of token ids`);
  if (v.length === 0) fail(fn, 'ids is empty, expected at least 1 token id');
  const ids = new Int32Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const id = v[i];
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id >= vocab)
      fail(fn, `ids[${i}] is ${describe(id)}, expected an integer in [0, vocab = ${vocab})`);
    ids[i] = id;
  }
  return ids;
}

function blockSizes(core, fn, args) {
  const t = int(fn, 't', args.t), D = int(fn, 'dModel', args.dModel), H = int(fn, 'heads', args.heads);
  const F = int(fn, 'dFF', args.dFF);
  if (D % H !== 0) fail(fn, `heads = ${H} does not divide dModel = ${D}, expected dModel to be a multiple of heads`);
  const norm = core.code('norm', oneOf(fn, 'norm', args.norm, ['post', 'pre'], 'post'));
  const act = core.code('activation', oneOf(fn, 'activation', args.activation, ACTIVATIONS, 'relu'));
  const eps = num(fn, 'eps', args.eps, { dflt: 1e-5, positive: true });
  const B = int(fn, 'batch', args.batch, { dflt: 1 });
  return { t, D, H, F, norm, act, eps, B };
}

// The weight names of each block, in the order core/bindings/embind.cc reads its address table, with
// their sizes ('DD' = dModel·dModel, 'D', 'DF', 'FD', 'F') and whether they are required.
const ATTN_WEIGHTS = (c) => [[c + 'wq', 'DD', 1], [c + 'wk', 'DD', 1], [c + 'wv', 'DD', 1], [c + 'wo', 'DD', 1],
  [c + 'bq', 'D', 0], [c + 'bk', 'D', 0], [c + 'bv', 'D', 0], [c + 'bo', 'D', 0]];
const LN_WEIGHTS = (n) => Array.from({ length: n }, (_, i) => [[`ln${i + 1}Gamma`, 'D', 0], [`ln${i + 1}Beta`, 'D', 0]]).flat();
const FFN_WEIGHTS = [['w1', 'DF', 1], ['b1', 'F', 0], ['w2', 'FD', 1], ['b2', 'D', 0]];
const ENCODER_WEIGHTS = [...ATTN_WEIGHTS(''), ...LN_WEIGHTS(2), ...FFN_WEIGHTS];
const DECODER_WEIGHTS = [...ATTN_WEIGHTS(''), ...ATTN_WEIGHTS('c'), ...LN_WEIGHTS(3), ...FFN_WEIGHTS];

function sizeOf(kind, D, F) {
  const n = { DD: D * D, D, DF: D * F, FD: F * D, F }[kind];
  const expr = { DD: `dModel·dModel = ${n}`, D: `dModel = ${n}`, DF: `dModel·dFF = ${n}`, FD: `dFF·dModel = ${n}`, F: `dFF = ${n}` }[kind];
  return [n, expr];
}

// weights → { name: Float32Array | number[] | null } in the table's order, every size checked.
function blockWeights(fn, weights, D, F, names) {
  if (weights === null || typeof weights !== 'object' || Array.isArray(weights))
    fail(fn, `weights is ${weights === undefined ? 'missing' : weights === null ? 'null' : `a ${typeof weights}`}, expected an object { ${names.filter((n) => n[2]).map((n) => n[0]).join(', ')}, … }`);
  const known = names.map((n) => n[0]);
  for (const k of definedKeys(weights))
    if (!known.includes(k)) fail(fn, `weights has unknown key '${k}', expected some of: ${known.join(', ')}`);
  const out = {};
  for (const [name, kind, required] of names) {
    const [n, expr] = sizeOf(kind, D, F);
    out[name] = required ? matrix(fn, `weights.${name}`, weights[name], n, expr) : optionalMatrix(fn, `weights.${name}`, weights[name], n, expr);
  }
  return out;
}

// w1 b1 w2 b2 of feedForward (top-level arguments there).
function ffnWeights(fn, args, D, F) {
  return {
    w1: matrix(fn, 'w1', args.w1, D * F, `dModel·dFF = ${D * F}`), b1: optionalMatrix(fn, 'b1', args.b1, F, `dFF = ${F}`),
    w2: matrix(fn, 'w2', args.w2, F * D, `dFF·dModel = ${F * D}`), b2: optionalMatrix(fn, 'b2', args.b2, D, `dModel = ${D}`),
  };
}
// ---- end of issue 3 helpers
