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
import {
  AttnLabError, fail, requireObject, int, num, bool, matrix, optionalMatrix, oneOf, mask as parseMask,
  noUnknownKeys,
} from './validate.js';

export { AttnLabError };

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
  const core = await createAttnLabCore(moduleArgs);
  return new AttnLab(core);
}

// One growing block of WASM heap reused by every call.
class Arena {
  constructor(core) {
    this.core = core;
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

  take(addr, n) {
    return this.core.HEAPF32.slice(addr >> 2, (addr >> 2) + n);
  }

  free() {
    if (this.ptr) this.core._free(this.ptr);
    this.ptr = 0;
    this.bytes = 0;
  }
}

export class AttnLab {
  /** @param core the Emscripten module (internal) */
  constructor(core) {
    this.core = core;
    this.arena = new Arena(core);
  }

  // Runs a core function; a non-zero status becomes an Error with the core's message.
  #run(fn, status) {
    if (status !== 0) throw new AttnLabError(this.core.lastError());
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
    this.#run(fn, this.core.attention(pq, pk, pv, tq, tk, dk, dv, scale, m.kind, m.window, m.causal, pm, alibiSlope, ps, pc, pw, po));
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
    this.#run(fn, this.core.weightedSum(pw, pv, tq, tk, dv, po));
    return this.arena.take(po, tq * dv);
  }

  /**
   * Multi-head attention, self (no context) or cross (queries from x, keys/values from context).
   * x: [tq·dModel], context: [tk·dModel]; wq, wk, wv, wo: [dModel·dModel]; biases [dModel].
   * Head h uses columns [h·dk, (h+1)·dk), dk = dModel/heads.
   * Options: mask, scale (default 1/√dk), rope (true or { base }), alibi (true; self-attention).
   * Returns { q, k, v, scores, weights, heads, output }: weights and scores are [heads·tq·tk].
   */
  multiHeadAttention(args) {
    const fn = 'multiHeadAttention';
    requireObject(fn, args);
    noUnknownKeys(fn, args, ['x', 'tq', 'dModel', 'heads', 'wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo', 'mask', 'context', 'tk', 'scale', 'rope', 'alibi']);
    const tq = int(fn, 'tq', args.tq), D = int(fn, 'dModel', args.dModel), H = int(fn, 'heads', args.heads);
    if (D % H !== 0) fail(fn, `heads = ${H} does not divide dModel = ${D}, expected dModel to be a multiple of heads`);
    const cross = args.context !== undefined && args.context !== null;
    let tk = tq;
    if (cross) tk = int(fn, 'tk', args.tk);
    else if (args.tk !== undefined && args.tk !== tq)
      fail(fn, `tk is ${args.tk} without a context, expected a context [tk·dModel] for cross-attention (or no tk)`);
    const x = matrix(fn, 'x', args.x, tq * D, `tq·dModel = ${tq * D}`);
    const context = cross ? matrix(fn, 'context', args.context, tk * D, `tk·dModel = ${tk * D}`) : null;
    const DD = `dModel·dModel = ${D * D}`, Dn = `dModel = ${D}`;
    const w = {
      wq: matrix(fn, 'wq', args.wq, D * D, DD), wk: matrix(fn, 'wk', args.wk, D * D, DD),
      wv: matrix(fn, 'wv', args.wv, D * D, DD), wo: matrix(fn, 'wo', args.wo, D * D, DD),
      bq: optionalMatrix(fn, 'bq', args.bq, D, Dn), bk: optionalMatrix(fn, 'bk', args.bk, D, Dn),
      bv: optionalMatrix(fn, 'bv', args.bv, D, Dn), bo: optionalMatrix(fn, 'bo', args.bo, D, Dn),
    };
    const m = parseMask(fn, args.mask, tq, tk);
    const scale = num(fn, 'scale', args.scale, { dflt: 0, positive: args.scale !== undefined });
    let rope = false, ropeBase = 10000;
    if (args.rope !== undefined && args.rope !== false) {
      rope = true;
      if (typeof args.rope === 'object' && args.rope !== null) ropeBase = num(fn, 'rope.base', args.rope.base, { dflt: 10000, positive: true });
      else if (args.rope !== true) fail(fn, `rope is ${typeof args.rope}, expected true or { base }`);
      if ((D / H) % 2 !== 0) fail(fn, `rope needs an even head width dModel/heads, got ${D / H}`);
    }
    const alibi = bool(fn, 'alibi', args.alibi, false);
    if (alibi && cross) fail(fn, 'alibi is defined for self-attention, expected no context with alibi');
    const hw = H * tq * tk;
    const [px, pc, pwq, pwk, pwv, pwo, pbq, pbk, pbv, pbo, pm, pq, pk, pv, ps, pw, ph, po] = this.arena.layout(fn, [
      tq * D, cross ? tk * D : 0, D * D, D * D, D * D, D * D, w.bq ? D : 0, w.bk ? D : 0, w.bv ? D : 0, w.bo ? D : 0,
      m.values ? tq * tk : 0, tq * D, tk * D, tk * D, hw, hw, tq * D, tq * D]);
    const a = this.arena;
    a.put(px, x); a.put(pc, context);
    a.put(pwq, w.wq); a.put(pwk, w.wk); a.put(pwv, w.wv); a.put(pwo, w.wo);
    a.put(pbq, w.bq); a.put(pbk, w.bk); a.put(pbv, w.bv); a.put(pbo, w.bo);
    a.put(pm, m.values);
    this.#run(fn, this.core.multiHeadAttention(px, tq, cross ? pc : 0, tk, D, H, pwq, pwk, pwv, pwo,
      w.bq ? pbq : 0, w.bk ? pbk : 0, w.bv ? pbv : 0, w.bo ? pbo : 0, m.kind, m.window, m.causal, pm,
      scale, rope, ropeBase, alibi, pq, pk, pv, ps, pw, ph, po));
    return {
      q: a.take(pq, tq * D), k: a.take(pk, tk * D), v: a.take(pv, tk * D),
      scores: a.take(ps, hw), weights: a.take(pw, hw), heads: a.take(ph, tq * D), output: a.take(po, tq * D),
    };
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
    this.#run(fn, this.core.sinusoidal(length, D, base, po));
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
    this.#run(fn, this.core.rope(px, t, dim, base, offset, po));
    return this.arena.take(po, t * dim);
  }

  /** ALiBi: per-head slopes [heads] and the bias −slope·|i−j| added to the scores, [heads·tq·tk]. */
  alibi(args) {
    const fn = 'alibi';
    requireObject(fn, args);
    noUnknownKeys(fn, args, ['heads', 'tq', 'tk']);
    const heads = int(fn, 'heads', args.heads), tq = int(fn, 'tq', args.tq), tk = int(fn, 'tk', args.tk, { dflt: tq });
    const [ps, pb] = this.arena.layout(fn, [heads, heads * tq * tk]);
    this.#run(fn, this.core.alibi(heads, tq, tk, ps, pb));
    return { slopes: this.arena.take(ps, heads), bias: this.arena.take(pb, heads * tq * tk) };
  }

  /** What the module runs on, and its memory use (for leak checks). */
  info() {
    return {
      simd128: this.core.usesSimd128(),
      heapBytes: this.core.HEAPU8.length,
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
